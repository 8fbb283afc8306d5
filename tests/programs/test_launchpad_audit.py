"""The audit's findings (issue 35, item 3), each reproduced: every test here failed on the
programs before its fix (docs/onchain.md, "Audit findings")."""
from __future__ import annotations

import pytest

from partner.chain import curve as C

from .launchpad_chain import DEFAULT_GLOBAL, Chain, global_pda

E_INVALID_INPUT, E_ALREADY_INIT = 6000, 6019


# ----------------------------------------------------------------- initialize_global

@pytest.mark.parametrize("supply", [C.INITIAL_REAL_TOKEN_RESERVES, C.INITIAL_REAL_TOKEN_RESERVES - 1])
def test_initialize_global_refuses_a_supply_that_leaves_nothing_to_migrate(supply):
    # migrate seeds the pool with the vault's tokens at completion, supply - initial_real_token_reserves;
    # the pool refuses 0, so a curve completed under supply == initial_real_token_reserves would be stuck
    chain = Chain(initialize=False)
    r = chain.send([chain.ix("initialize_global", {"admin": chain.admin.pubkey()},
                             fee_recipient=chain.fee_recipient.pubkey(),
                             **{**DEFAULT_GLOBAL, "token_total_supply": supply})], chain.admin)
    r.expect(E_INVALID_INPUT)
    assert chain.account(global_pda()) is None
