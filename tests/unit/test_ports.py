"""partner.chain.ports: the one way the domain code reaches the chain client, the signing step and
the clock; a test passes fakes by installing them and gets the previous ports back."""

from __future__ import annotations

from partner.chain import ports, tx
from partner.core import clock


def test_the_default_is_built_from_settings_and_signs_with_the_chain_code():
    assert ports.DEFAULT.sign is tx.sign
    assert ports.DEFAULT.rpc is ports.settings_rpc


def test_installed_fakes_are_what_the_domain_code_gets_until_given_back():
    previous = ports.install(clock=lambda: 1234.5, sign=lambda message, signers: "signed")
    try:
        assert (clock.now(), clock.now_int()) == (1234.5, 1234)
        assert ports.current().sign(None, []) == "signed"
        assert ports.current().rpc is previous.rpc  # what was not replaced stays
    finally:
        ports.install(previous)
    assert ports.current() == previous and clock.now() != 1234.5
