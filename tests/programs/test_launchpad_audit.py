"""The audit's findings (issue 35, item 3), each reproduced: every test here failed on the
programs before its fix (docs/onchain.md, "Audit findings")."""
from __future__ import annotations

import pytest
from solders.account import Account
from solders.instruction import AccountMeta, Instruction
from solders.pubkey import Pubkey

from partner.chain import curve as C

from .launchpad_chain import (
    ATA_SIZE,
    DEFAULT_GLOBAL,
    SOL,
    SYSTEM,
    TOKEN_2022,
    Chain,
    ata,
    curve_pda,
    global_pda,
    governance_pda,
    pool_pda,
    rent,
)

E_INVALID_INPUT, E_UNAUTHORIZED, E_ALREADY_INIT = 6000, 6017, 6019


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


# ----------------------------------------------------------------- a fee recipient at 0 lamports

def _unfunded_fee_recipient(chain: Chain):
    """Point the Global's fee recipient at an address that holds nothing."""
    fresh = chain.keypair()
    chain.send_ok([chain.ix("set_params", {"admin": chain.admin.pubkey()}, new_admin=chain.admin.pubkey(),
                            fee_recipient=fresh.pubkey(), **{k: DEFAULT_GLOBAL[k] for k in (
                                "protocol_fee_bps", "wallet_cap_bps", "pool_open_delay_seconds")})], chain.admin)
    chain.fee_recipient = fresh
    assert chain.lamports(fresh.pubkey()) == 0
    return fresh.pubkey()


def test_curve_trades_with_a_fee_recipient_at_zero_lamports():
    # a fee too small to make the recipient rent-exempt is not charged (the trader keeps it, the
    # trade lands at its quote or better); the first fee that does is paid, and every one after
    chain = Chain()
    creator, mint = chain.create_coin()
    chain.advance(1, 1)
    mint = mint.pubkey()
    fee_to = _unfunded_fee_recipient(chain)
    user = chain.wallet()
    small = C.buy(C.CurveState.of(chain.curve(mint)), SOL // 100, 100)
    assert 0 < small.fee < rent(0)
    before = chain.lamports(user.pubkey())
    assert chain.buy(user, mint, SOL // 100).ok
    assert before - chain.lamports(user.pubkey()) == SOL // 100 - small.fee + rent(ATA_SIZE)
    assert chain.balance(user.pubkey(), mint) == small.tokens_out
    assert chain.lamports(fee_to) == 0
    chain.advance(1, 1)
    held = chain.balance(user.pubkey(), mint)
    gross = C.sell(C.CurveState.of(chain.curve(mint)), held // 2, 100)
    before = chain.lamports(user.pubkey())
    assert chain.sell(user, mint, held // 2).ok
    assert chain.lamports(user.pubkey()) - before == gross.sol_out + gross.fee
    assert chain.lamports(fee_to) == 0
    big = C.buy(C.CurveState.of(chain.curve(mint)), 10 * SOL, 100)
    assert chain.buy(chain.wallet(), mint, 10 * SOL).ok
    assert chain.lamports(fee_to) == big.fee >= rent(0)
    assert chain.buy(user, mint, SOL // 100).ok
    assert chain.lamports(fee_to) > big.fee


def test_pool_swaps_with_a_fee_recipient_at_zero_lamports():
    from partner.chain import pool_math as PM

    chain = Chain(pool=True)
    whale, mint = _complete(chain)
    fee_to = _unfunded_fee_recipient(chain)
    assert chain.migrate(mint).ok
    assert chain.pool(mint).fee_recipient == fee_to
    chain.advance(5, 5)
    user = chain.wallet()
    want = PM.swap_quote_in(PM.PoolState.of(chain.pool(mint)), SOL // 100, 100)
    assert 0 < want.fee < rent(0)
    before = chain.lamports(user.pubkey())
    assert chain.swap(user, mint, False, SOL // 100).ok
    assert before - chain.lamports(user.pubkey()) == SOL // 100 - want.fee + rent(ATA_SIZE)
    assert chain.balance(user.pubkey(), mint) == want.amount_out
    assert chain.lamports(fee_to) == 0
    sell = PM.swap_base_in(PM.PoolState.of(chain.pool(mint)), want.amount_out, 100)
    assert 0 < sell.fee < rent(0)
    before = chain.lamports(user.pubkey())
    assert chain.swap(user, mint, True, want.amount_out).ok
    assert chain.lamports(user.pubkey()) - before == sell.amount_out + sell.fee
    assert chain.lamports(fee_to) == 0
    assert PM.PoolState.of(chain.pool(mint)) == sell.state_after


# ----------------------------------------------------------------- the admin handover

def test_the_admin_changes_in_two_steps():
    # set_params names a pending admin; the admin changes only when that key signs accept_admin
    chain = Chain()
    old, new, stranger = chain.admin, chain.wallet(), chain.wallet()
    keep = {k: DEFAULT_GLOBAL[k] for k in ("protocol_fee_bps", "wallet_cap_bps", "pool_open_delay_seconds")}

    def set_params(new_admin):
        return chain.send([chain.ix("set_params", {"admin": old.pubkey()}, new_admin=new_admin,
                                    fee_recipient=chain.fee_recipient.pubkey(), **keep)], old)

    assert set_params(new.pubkey()).ok
    g = chain.global_()
    assert g.admin == old.pubkey() and g.pending_admin == new.pubkey()
    before = chain.snapshot(global_pda())
    chain.send([chain.ix("accept_admin", {"new_admin": stranger.pubkey()})], stranger).expect(E_UNAUTHORIZED)
    assert chain.snapshot(global_pda()) == before
    # the current admin may take the proposal back: set_params naming itself clears it
    assert set_params(old.pubkey()).ok
    assert chain.global_().pending_admin == Pubkey.default()
    chain.send([chain.ix("accept_admin", {"new_admin": new.pubkey()})], new).expect(E_UNAUTHORIZED)
    assert set_params(new.pubkey()).ok
    chain.send_ok([chain.ix("accept_admin", {"new_admin": new.pubkey()})], new)
    g = chain.global_()
    assert g.admin == new.pubkey() and g.pending_admin == Pubkey.default()
    assert not set_params(old.pubkey()).ok  # the old admin is no longer one


# ----------------------------------------------------------------- rent from the Rent sysvar

def test_the_launchpad_funds_its_accounts_from_the_rent_sysvar():
    # a chain whose rent is twice the default: every account the launchpad creates holds the
    # sysvar's minimum (a hard-coded one would leave them short: the runtime refuses that)
    from solders.rent import Rent

    chain = Chain()
    rent2 = Rent.default().with_lamports_per_byte(2 * Rent.default().lamports_per_byte)
    chain.svm.set_rent(rent2)
    assert chain.svm.get_rent().lamports_per_byte == 2 * Rent.default().lamports_per_byte
    creator, mint = chain.create_coin()
    mint = mint.pubkey()
    curve = chain.account(curve_pda(mint))
    assert curve.lamports == rent2.minimum_balance(len(curve.data))
    gov = chain.account(governance_pda(mint))
    assert gov.lamports == rent2.minimum_balance(len(gov.data))
    chain.advance(1, 1)
    user = chain.wallet()
    assert chain.buy(user, mint, SOL).ok
    c = chain.curve(mint)
    assert chain.lamports(curve_pda(mint)) == rent2.minimum_balance(len(curve.data)) + c.real_sol_reserves
