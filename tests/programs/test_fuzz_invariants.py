"""The stateful invariant fuzzer (fuzz_machine.FuzzMachine) under the bounded budget of make
test (make fuzz runs it with FUZZ_EXAMPLES and prints what it ran), and the invariants'
checks catching a state broken by hand (so they can fail)."""

from __future__ import annotations

import pytest
from solders.account import Account

from .fuzz_machine import FuzzMachine, budget
from .launchpad_chain import SOL, ata, curve_pda

FuzzMachine.TestCase.settings = budget()
TestFuzzInvariants = FuzzMachine.TestCase


@pytest.fixture
def machine():
    m = FuzzMachine()
    m.setup(prelaunch=True)
    m.curve_lamports_are_rent_plus_reserves()
    m.vaults_hold_the_recorded_reserves()
    m.supply_is_conserved()
    return m


def _edit(m: FuzzMachine, key, lamports: int = 0, data: bytes | None = None) -> None:
    acc = m.c.account(key)
    m.c.svm.set_account(
        key,
        Account(acc.lamports + lamports, acc.data if data is None else data, acc.owner, acc.executable, acc.rent_epoch),
    )


def test_a_curve_with_a_lamport_too_many_breaks_the_invariant(machine):
    _edit(machine, curve_pda(machine.mints[0]), lamports=1)
    with pytest.raises(AssertionError):
        machine.curve_lamports_are_rent_plus_reserves()


def test_tokens_minted_outside_the_supply_break_two_invariants(machine):
    mint = machine.mints[0]
    holder = ata(machine.actors[1].pubkey(), mint)
    data = bytearray(machine.c.data(holder))
    data[64:72] = (int.from_bytes(data[64:72], "little") + 1).to_bytes(8, "little")
    _edit(machine, holder, data=bytes(data))
    with pytest.raises(AssertionError):
        machine.supply_is_conserved()
    vault = ata(curve_pda(mint), mint)
    raw = bytearray(machine.c.data(vault))
    raw[64:72] = (int.from_bytes(raw[64:72], "little") - 1).to_bytes(8, "little")
    _edit(machine, vault, data=bytes(raw))
    with pytest.raises(AssertionError):
        machine.vaults_hold_the_recorded_reserves()


def test_a_loss_without_signature_or_rule_is_caught(machine):
    mint = machine.mints[0]
    victim = machine.actors[1].pubkey()
    was = (machine.c.lamports(victim) + SOL, b"", None)
    with pytest.raises(AssertionError, match="without signing"):
        machine._check_loss("buy", victim, was, signed={machine.attackers[0].pubkey()})
    curve = machine.c.account(curve_pda(mint))
    more = (curve.lamports + 1, bytes(curve.data), curve.owner)
    with pytest.raises(AssertionError, match="lost lamports"):
        machine._check_loss("buy", curve_pda(mint), more, signed=set())
    machine._check_loss("sell", curve_pda(mint), more, signed=set())  # a sell may pay out of the curve
