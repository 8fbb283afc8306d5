"""The audit's findings (issue 35, item 3), each reproduced: every test here failed on the
programs before its fix (docs/onchain.md, "Audit findings")."""
from __future__ import annotations

import pytest
from solders.account import Account
from solders.instruction import AccountMeta, Instruction

from partner.chain import curve as C

from .launchpad_chain import DEFAULT_GLOBAL, SOL, SYSTEM, TOKEN_2022, Chain, ata, curve_pda, global_pda, pool_pda, rent

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


# ----------------------------------------------------------------- create_coin

@pytest.mark.parametrize("prefund", [1, rent(0), 10 * rent(1_000)])
def test_create_coin_at_a_pre_funded_mint_address(prefund):
    # anyone may send lamports to an unused address; the coin is still created there, and the
    # creator pays only the shortfall of the mint's rent
    chain = Chain()
    mint = chain.keypair()
    # set directly: a transfer must leave a new account rent-exempt (rent(0) = 890,880 lamports,
    # the cheapest real attack, also tested), 1 lamport is the audit's case
    chain.svm.set_account(mint.pubkey(), Account(prefund, b"", SYSTEM))
    assert chain.lamports(mint.pubkey()) == prefund
    creator = chain.wallet()
    before = chain.lamports(creator.pubkey())
    chain.send_ok([chain.create_coin_ix(creator.pubkey(), mint.pubkey())], creator, mint)
    m = chain.mint(mint.pubkey())
    assert m.supply == C.TOKEN_TOTAL_SUPPLY
    assert chain.curve(mint.pubkey()).real_token_reserves == C.INITIAL_REAL_TOKEN_RESERVES
    mint_rent = chain.lamports(mint.pubkey())
    assert mint_rent == max(prefund, _fresh_mint_rent(chain))
    paid = before - chain.lamports(creator.pubkey())
    assert paid == _fresh_cost(chain) - min(prefund, _fresh_mint_rent(chain))


def _fresh_coin(chain: Chain) -> tuple[int, int]:
    creator = chain.wallet()
    before = chain.lamports(creator.pubkey())
    _, mint = chain.create_coin(creator)
    return before - chain.lamports(creator.pubkey()), chain.lamports(mint.pubkey())


def _fresh_cost(chain: Chain) -> int:
    return _fresh_coin(chain)[0]


def _fresh_mint_rent(chain: Chain) -> int:
    return _fresh_coin(chain)[1]


# ----------------------------------------------------------------- migrate

def _complete(chain: Chain):
    creator, mint = chain.create_coin()
    chain.advance(1, 1)
    whale = chain.wallet(200 * SOL)
    assert chain.buy(whale, mint.pubkey(), 100 * SOL).ok
    assert chain.curve(mint.pubkey()).complete
    return whale, mint.pubkey()


def test_migrate_refuses_a_pool_that_would_open_at_another_price():
    # a supply whose pool reserve is twice what the curve's final price needs: the pool would open
    # at half the curve's last price
    supply = C.TOKEN_TOTAL_SUPPLY + (C.TOKEN_TOTAL_SUPPLY - C.INITIAL_REAL_TOKEN_RESERVES)
    chain = Chain(pool=True, token_total_supply=supply)
    _, mint = _complete(chain)
    before = chain.snapshot(curve_pda(mint), pool_pda(mint))
    chain.migrate(mint).expect(E_INVALID_INPUT)
    assert chain.snapshot(curve_pda(mint), pool_pda(mint)) == before


def test_migrate_ignores_tokens_donated_to_the_curve_vault():
    # the pool opens with the curve's own reserve (supply - sold), at the curve's final price,
    # whatever was sent to the vault; the surplus stays in the vault
    chain = Chain(pool=True)
    whale, mint = _complete(chain)
    gift = 50_000_000 * 10**6
    metas = [AccountMeta(ata(whale.pubkey(), mint), False, True), AccountMeta(mint, False, False),
             AccountMeta(ata(curve_pda(mint), mint), False, True), AccountMeta(whale.pubkey(), True, False)]
    transfer = Instruction(TOKEN_2022, bytes([12]) + gift.to_bytes(8, "little") + bytes([6]), metas)
    chain.send_ok([transfer], whale)
    c = chain.curve(mint)
    assert chain.migrate(mint).ok
    pool = chain.pool(mint)
    assert pool.base_reserve == C.TOKEN_TOTAL_SUPPLY - C.INITIAL_REAL_TOKEN_RESERVES
    assert chain.balance(curve_pda(mint), mint) == gift
    # the pool's price is the curve's final price to within 1 bps
    assert abs(pool.quote_reserve * c.virtual_token_reserves - pool.base_reserve * c.virtual_sol_reserves) * 10_000 \
        <= pool.base_reserve * c.virtual_sol_reserves
