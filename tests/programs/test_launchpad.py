"""The launchpad SBF program in LiteSVM, instruction by instruction: admin, create_coin
(the Token-2022 mint and its metadata extension, decoded from the published layout),
buy / buy_exact_out / sell (amounts equal to partner.chain.curve), migrate."""

from __future__ import annotations

import pytest
from solders.pubkey import Pubkey

from partner.chain import curve as C
from partner.chain import governance_math as GM
from partner.chain import layouts as L

from .launchpad_chain import (
    ATA_SIZE,
    LAUNCHPAD_ID,
    SOL,
    TOKEN_2022,
    Chain,
    ata,
    curve_pda,
    global_pda,
    governance_pda,
    meta_ix,
    pool_pda,
    rent,
)

E_INVALID_INPUT, E_SLIPPAGE, E_CURVE_COMPLETE, E_BUY_LIMIT, E_SAME_SLOT = 6000, 6001, 6002, 6004, 6005
E_INSUFFICIENT_SOL, E_INSUFFICIENT_TOKENS, E_MISSING_SELL_ATA = 6008, 6009, 6011
E_NAME_EMPTY, E_NAME_LONG, E_SYMBOL_EMPTY, E_SYMBOL_LONG, E_URI_LONG = 6012, 6013, 6014, 6015, 6016
E_UNAUTHORIZED, E_INVALID_ACCOUNT, E_ALREADY_INIT, E_NOT_COMPLETE, E_FEE_BPS = 6017, 6018, 6019, 6020, 6022
E_ALREADY_MIGRATED, E_POOL_NOT_OPEN = 6021, 6010


@pytest.fixture
def chain():
    return Chain()


def traded(chain: Chain):
    """A chain with a coin whose trading is open (next slot)."""
    creator, mint = chain.create_coin()
    chain.advance(1, 1)
    return creator, mint.pubkey()


# ----------------------------------------------------------------- admin


def test_initialize_global_writes_the_config_once(chain):
    g = chain.global_()
    assert g.admin == chain.admin.pubkey() and g.fee_recipient == chain.fee_recipient.pubkey()
    assert (g.protocol_fee_bps, g.wallet_cap_bps, g.pool_open_delay_seconds) == (100, 10_000, 2)
    assert g.initial_virtual_token_reserves == C.INITIAL_VIRTUAL_TOKEN_RESERVES
    assert g.token_total_supply == C.TOKEN_TOTAL_SUPPLY and not g.governance_defaults_set
    assert chain.account(global_pda()).owner == LAUNCHPAD_ID
    before = chain.snapshot(global_pda())
    r = chain.send(
        [
            chain.global_ix(
                fee_recipient=chain.admin.pubkey(),
                protocol_fee_bps=5,
                wallet_cap_bps=10_000,
                pool_open_delay_seconds=0,
                initial_virtual_token_reserves=10,
                initial_virtual_sol_reserves=1,
                initial_real_token_reserves=5,
                token_total_supply=5,
            )
        ],
        chain.admin,
    )
    r.expect(E_ALREADY_INIT)
    assert chain.snapshot(global_pda()) == before


@pytest.mark.parametrize(
    "args,code",
    [
        ({"protocol_fee_bps": 1001}, E_FEE_BPS),
        ({"wallet_cap_bps": 0}, E_INVALID_INPUT),
        ({"wallet_cap_bps": 10_001}, E_INVALID_INPUT),
        ({"pool_open_delay_seconds": -1}, E_INVALID_INPUT),
        ({"initial_real_token_reserves": C.INITIAL_VIRTUAL_TOKEN_RESERVES}, E_INVALID_INPUT),
        ({"initial_real_token_reserves": 0}, E_INVALID_INPUT),
        ({"initial_virtual_sol_reserves": 0}, E_INVALID_INPUT),
        ({"token_total_supply": C.INITIAL_REAL_TOKEN_RESERVES - 1}, E_INVALID_INPUT),
    ],
)
def test_initialize_global_refuses_bad_parameters(args, code):
    chain = Chain(initialize=False)
    r = chain.send([chain.global_ix(**args)], chain.admin)
    r.expect(code)
    assert chain.account(global_pda()) is None


def test_set_params_is_admin_only_and_validated(chain):
    stranger = chain.wallet()
    new_admin = chain.wallet()
    args = dict(
        new_admin=new_admin.pubkey(),
        fee_recipient=stranger.pubkey(),
        protocol_fee_bps=250,
        wallet_cap_bps=500,
        pool_open_delay_seconds=7,
    )
    before = chain.snapshot(global_pda())
    chain.send([chain.ix("set_params", {"admin": stranger.pubkey()}, **args)], stranger).expect(E_UNAUTHORIZED)
    chain.send(
        [chain.ix("set_params", {"admin": chain.admin.pubkey()}, **{**args, "protocol_fee_bps": 1001})], chain.admin
    ).expect(E_FEE_BPS)
    assert chain.snapshot(global_pda()) == before
    chain.send_ok([chain.ix("set_params", {"admin": chain.admin.pubkey()}, **args)], chain.admin)
    g = chain.global_()
    # the new admin is only proposed (two steps: test_launchpad_audit.py::test_the_admin_changes_in_two_steps)
    assert (
        g.admin,
        g.pending_admin,
        g.fee_recipient,
        g.protocol_fee_bps,
        g.wallet_cap_bps,
        g.pool_open_delay_seconds,
    ) == (chain.admin.pubkey(), new_admin.pubkey(), stranger.pubkey(), 250, 500, 7)


def test_set_governance_params_is_copied_into_new_coins(chain):
    params = GM.GovernanceParams(
        min_voter_count=2,
        min_lock_amount=5,
        min_participating_supply_bps=1_000,
        approval_bps=5_001,
        proposal_bond_bps=10,
        mutability_window_seconds=3_600,
        max_extension_seconds=60,
        min_vote_duration_seconds=30,
        max_vote_duration_seconds=90,
    )
    bad = GM.GovernanceParams(approval_bps=0)
    chain.send([chain.ix("set_governance_params", {"admin": chain.admin.pubkey()}, params=bad)], chain.admin).expect(
        E_INVALID_INPUT
    )
    chain.send_ok([chain.ix("set_governance_params", {"admin": chain.admin.pubkey()}, params=params)], chain.admin)
    g = chain.global_()
    assert g.governance_defaults_set and g.governance_defaults == params
    _, mint = chain.create_coin()
    gov = chain.governance(mint.pubkey())
    assert gov.mutable_until == gov.created_at + 3_600 == chain.now + 3_600
    assert (
        gov.min_voter_count,
        gov.min_lock_amount,
        gov.min_participating_supply_bps,
        gov.approval_bps,
        gov.proposal_bond_bps,
        gov.max_extension_seconds,
        gov.min_vote_duration_seconds,
        gov.max_vote_duration_seconds,
    ) == (2, 5, 1_000, 5_001, 10, 60, 30, 90)


# ----------------------------------------------------------------- create_coin


def test_create_coin_makes_a_token_2022_mint_with_its_own_metadata(chain):
    creator, mint_kp = chain.create_coin(name="Moon Coin", symbol="MOON", uri="https://x.example/moon.json")
    mint = mint_kp.pubkey()
    acc = chain.account(mint)
    assert acc.owner == TOKEN_2022
    m = chain.mint(mint)
    assert (m.supply, m.decimals, m.is_initialized) == (C.TOKEN_TOTAL_SUPPLY, 6, True)
    assert m.mint_authority is None and m.freeze_authority is None  # supply fixed for good
    assert m.metadata_address == mint and m.metadata_pointer_authority is None
    md = m.metadata
    assert (md.name, md.symbol, md.uri, md.mint) == ("Moon Coin", "MOON", "https://x.example/moon.json", mint)
    assert md.update_authority == governance_pda(mint) and md.additional_metadata == ()
    assert L.TokenMetadata.from_mint(acc.data) == md  # the service reads what the standard's layout says
    # funded for the longest name / symbol / uri, so later updates never lack rent
    assert acc.lamports >= rent(len(acc.data)) and acc.lamports == rent(234 + 4 + 64 + 12 + 4 + 32 + 10 + 200)

    vault = chain.account(ata(curve_pda(mint), mint))
    assert vault.owner == TOKEN_2022 and len(vault.data) == ATA_SIZE
    from .token2022 import decode_account

    v = decode_account(vault.data)
    assert (v.mint, v.owner, v.amount, v.state) == (mint, curve_pda(mint), C.TOKEN_TOTAL_SUPPLY, 1)

    c = chain.curve(mint)
    assert (
        c.mint,
        c.creator,
        c.virtual_token_reserves,
        c.virtual_sol_reserves,
        c.real_token_reserves,
        c.real_sol_reserves,
        c.token_total_supply,
        c.complete,
        c.migrated,
    ) == (
        mint,
        creator.pubkey(),
        C.INITIAL_VIRTUAL_TOKEN_RESERVES,
        C.INITIAL_VIRTUAL_SOL_RESERVES,
        C.INITIAL_REAL_TOKEN_RESERVES,
        0,
        C.TOKEN_TOTAL_SUPPLY,
        False,
        False,
    )
    assert (c.created_slot, c.created_at) == (chain.slot, chain.now)
    gov = chain.governance(mint)
    assert (gov.mint, gov.creator, gov.total_supply, gov.created_at) == (
        mint,
        creator.pubkey(),
        C.TOKEN_TOTAL_SUPPLY,
        chain.now,
    )
    d = GM.DEFAULT_PARAMS
    assert gov.mutable_until == chain.now + d.mutability_window_seconds
    assert (gov.min_voter_count, gov.min_lock_amount, gov.approval_bps, gov.proposal_bond_bps) == (
        d.min_voter_count,
        d.min_lock_amount,
        d.approval_bps,
        d.proposal_bond_bps,
    )
    assert not gov.finalized and gov.active_proposal is None and gov.next_proposal_index == 0


@pytest.mark.parametrize(
    "field,value,code",
    [
        ("name", "", E_NAME_EMPTY),
        ("name", " \t\u3000\x1f", E_NAME_EMPTY),
        ("name", "x" * 33, E_NAME_LONG),
        ("name", "é" * 17, E_NAME_LONG),
        ("symbol", "  ", E_SYMBOL_EMPTY),
        ("symbol", "S" * 11, E_SYMBOL_LONG),
        ("uri", "u" * 201, E_URI_LONG),
    ],
)
def test_create_coin_checks_its_text(chain, field, value, code):
    creator, mint = chain.wallet(), chain.wallet(0)
    r = chain.send([chain.create_coin_ix(creator.pubkey(), mint.pubkey(), **{field: value})], creator, mint)
    r.expect(code)
    assert chain.account(curve_pda(mint.pubkey())) is None


def test_create_coin_at_the_limits(chain):
    creator, mint = chain.create_coin(name="n" * 32, symbol="s" * 10, uri="u" * 200)
    md = chain.mint(mint.pubkey()).metadata
    assert (md.name, md.symbol, md.uri) == ("n" * 32, "s" * 10, "u" * 200)


def test_create_coin_needs_rent(chain):
    poor = chain.wallet(rent(300))
    mint = chain.wallet(0)
    chain.send([chain.create_coin_ix(poor.pubkey(), mint.pubkey())], poor, mint).expect(E_INSUFFICIENT_SOL)


# ----------------------------------------------------------------- trading


def _state(chain: Chain, mint) -> C.CurveState:
    return C.CurveState.of(chain.curve(mint))


def test_buy_equals_the_service_math_and_creates_the_token_2022_ata(chain):
    _, mint = traded(chain)
    user = chain.wallet()
    want = C.buy(_state(chain, mint), 2 * SOL, 100)
    lam, fee_lam, curve_lam = (
        chain.lamports(user.pubkey()),
        chain.lamports(chain.fee_recipient.pubkey()),
        chain.lamports(curve_pda(mint)),
    )
    assert chain.buy(user, mint, 2 * SOL, want.tokens_out).ok
    assert chain.balance(user.pubkey(), mint) == want.tokens_out
    assert lam - chain.lamports(user.pubkey()) == want.sol_in + rent(ATA_SIZE)
    assert chain.lamports(chain.fee_recipient.pubkey()) - fee_lam == want.fee
    assert chain.lamports(curve_pda(mint)) - curve_lam == want.sol_to_curve
    assert _state(chain, mint) == want.state_after
    user_ata = chain.account(ata(user.pubkey(), mint))
    assert user_ata.owner == TOKEN_2022 and len(user_ata.data) == ATA_SIZE


def test_buy_exact_out_and_sell_equal_the_service_math(chain):
    _, mint = traded(chain)
    user = chain.wallet()
    want = C.buy_exact_out(_state(chain, mint), 5_000_000 * 10**6, 100)
    lam = chain.lamports(user.pubkey())
    assert chain.buy_exact_out(user, mint, 5_000_000 * 10**6, want.sol_in).ok
    assert chain.balance(user.pubkey(), mint) == want.tokens_out == 5_000_000 * 10**6
    assert lam - chain.lamports(user.pubkey()) == want.sol_in + rent(ATA_SIZE)
    assert _state(chain, mint) == want.state_after

    s = C.sell(_state(chain, mint), 1_234_567_891, 100)
    lam, fee_lam = chain.lamports(user.pubkey()), chain.lamports(chain.fee_recipient.pubkey())
    assert chain.sell(user, mint, 1_234_567_891, s.sol_out).ok
    assert chain.lamports(user.pubkey()) - lam == s.sol_out
    assert chain.lamports(chain.fee_recipient.pubkey()) - fee_lam == s.fee
    assert chain.balance(user.pubkey(), mint) == want.tokens_out - 1_234_567_891
    assert _state(chain, mint) == s.state_after


def test_slippage_bounds(chain):
    _, mint = traded(chain)
    user = chain.wallet()
    q = C.buy(_state(chain, mint), SOL, 100)
    before = chain.snapshot(curve_pda(mint), user.pubkey())
    chain.buy(user, mint, SOL, q.tokens_out + 1).expect(E_SLIPPAGE)
    e = C.buy_exact_out(_state(chain, mint), 10**12, 100)
    chain.buy_exact_out(user, mint, 10**12, e.sol_in - 1).expect(E_SLIPPAGE)
    assert chain.snapshot(curve_pda(mint), user.pubkey()) == before
    assert chain.buy(user, mint, SOL).ok
    s = C.sell(_state(chain, mint), 10**9, 100)
    chain.sell(user, mint, 10**9, s.sol_out + 1).expect(E_SLIPPAGE)


def test_zero_amounts_and_dust(chain):
    _, mint = traded(chain)
    user = chain.wallet()
    chain.buy(user, mint, 0).expect(E_INVALID_INPUT)
    chain.buy_exact_out(user, mint, 0, SOL).expect(E_INVALID_INPUT)
    chain.sell(user, mint, 0).expect(E_INVALID_INPUT)
    chain.buy(user, mint, 1).expect(E_INVALID_INPUT)  # 1 lamport buys nothing: no tokens out


def test_same_slot_trading_is_blocked_except_for_the_creator(chain):
    creator, mint = chain.create_coin()
    chain.buy(chain.wallet(), mint.pubkey(), SOL).expect(E_SAME_SLOT)
    assert chain.buy(creator, mint.pubkey(), SOL).ok
    chain.advance(1)
    assert chain.buy(chain.wallet(), mint.pubkey(), SOL).ok


def test_wallet_cap(chain):
    chain.send_ok(
        [
            chain.ix(
                "set_params",
                {"admin": chain.admin.pubkey()},
                new_admin=chain.admin.pubkey(),
                fee_recipient=chain.fee_recipient.pubkey(),
                protocol_fee_bps=100,
                wallet_cap_bps=100,
                pool_open_delay_seconds=2,
            )
        ],
        chain.admin,
    )
    _, mint = traded(chain)
    user = chain.wallet()
    cap = C.TOKEN_TOTAL_SUPPLY * 100 // 10_000
    e = C.buy_exact_out(_state(chain, mint), cap, 100)
    assert chain.buy_exact_out(user, mint, cap, e.sol_in).ok
    chain.buy_exact_out(user, mint, 1, SOL).expect(E_BUY_LIMIT)


def test_sell_needs_the_tokens(chain):
    _, mint = traded(chain)
    user = chain.wallet()
    chain.sell(user, mint, 10).expect(E_MISSING_SELL_ATA)
    assert chain.buy(user, mint, SOL).ok
    held = chain.balance(user.pubkey(), mint)
    chain.sell(user, mint, held + 1).expect(E_INSUFFICIENT_TOKENS)
    assert chain.sell(user, mint, held).ok
    assert chain.balance(user.pubkey(), mint) == 0


def test_buy_needs_the_sol(chain):
    _, mint = traded(chain)
    user = chain.wallet(SOL)
    chain.buy(user, mint, SOL).expect(E_INSUFFICIENT_SOL)  # plus the ATA's rent


def test_the_last_buy_is_capped_and_completes_the_curve(chain):
    _, mint = traded(chain)
    whale = chain.wallet(200 * SOL)
    want = C.buy(_state(chain, mint), 100 * SOL, 100)
    assert want.capped and want.completes
    lam = chain.lamports(whale.pubkey())
    assert chain.buy(whale, mint, 100 * SOL).ok
    assert lam - chain.lamports(whale.pubkey()) == want.sol_in + rent(ATA_SIZE)
    assert chain.balance(whale.pubkey(), mint) == C.INITIAL_REAL_TOKEN_RESERVES
    c = chain.curve(mint)
    assert c.complete and c.real_token_reserves == 0 and _state(chain, mint) == want.state_after
    chain.buy(chain.wallet(), mint, SOL).expect(E_CURVE_COMPLETE)
    chain.sell(whale, mint, 10**6).expect(E_CURVE_COMPLETE)


def test_migrate_refuses_an_incomplete_curve(chain):
    _, mint = traded(chain)
    payer = chain.wallet()
    chain.send([chain.migrate_ix(payer.pubkey(), mint)], payer).expect(E_NOT_COMPLETE)


def test_migrate_into_the_pool_program():
    from partner.chain import pool_math as PM

    chain = Chain(pool=True)
    creator, mint = traded(chain)
    whale = chain.wallet(200 * SOL)
    assert chain.buy(whale, mint, 100 * SOL).ok
    c = chain.curve(mint)
    quote, base = c.real_sol_reserves, chain.balance(curve_pda(mint), mint)
    assert base == C.TOKEN_TOTAL_SUPPLY - C.INITIAL_REAL_TOKEN_RESERVES
    curve_lam = chain.lamports(curve_pda(mint))
    assert chain.migrate(mint).ok
    pool = chain.pool(mint)
    assert (
        pool.mint,
        pool.base_vault,
        pool.creator,
        pool.fee_recipient,
        pool.base_reserve,
        pool.quote_reserve,
        pool.fee_bps,
        pool.open_time,
    ) == (
        mint,
        ata(pool_pda(mint), mint),
        creator.pubkey(),
        chain.fee_recipient.pubkey(),
        base,
        quote,
        100,
        chain.now + 2,
    )
    assert chain.balance(pool_pda(mint), mint) == base and chain.balance(curve_pda(mint), mint) == 0
    assert chain.lamports(pool_pda(mint)) == rent(235) + quote
    assert chain.lamports(curve_pda(mint)) == curve_lam - quote == rent(195)
    c = chain.curve(mint)
    assert c.migrated and c.complete and c.real_sol_reserves == 0 and c.real_token_reserves == 0
    chain.migrate(mint).expect(E_ALREADY_MIGRATED)
    chain.buy(whale, mint, SOL).expect(E_CURVE_COMPLETE)
    # the pool trades once open, by partner.chain.pool_math
    user = chain.wallet()
    chain.swap(user, mint, False, SOL).expect(E_POOL_NOT_OPEN)
    chain.advance(5, 2)
    want = PM.swap_quote_in(PM.PoolState.of(chain.pool(mint)), SOL, 100)
    assert chain.swap(user, mint, False, SOL).ok
    assert chain.balance(user.pubkey(), mint) == want.amount_out
    assert PM.PoolState.of(chain.pool(mint)) == want.state_after


def test_migrate_checks_its_accounts():
    chain = Chain(pool=True)
    _, mint = traded(chain)
    assert chain.buy(chain.wallet(200 * SOL), mint, 100 * SOL).ok
    payer = chain.wallet(SOL)
    ix = chain.migrate_ix(payer.pubkey(), mint)
    for index, key in (
        (5, Pubkey.new_unique()),
        (6, ata(curve_pda(mint), mint)),
        (7, TOKEN_2022),
        (4, ata(pool_pda(mint), mint)),
    ):
        before = chain.snapshot(curve_pda(mint), pool_pda(mint))
        chain.send([meta_ix(ix, index, key=key)], payer).expect(E_INVALID_ACCOUNT)
        assert chain.snapshot(curve_pda(mint), pool_pda(mint)) == before
    poor = chain.wallet(rent(235))
    chain.send([chain.migrate_ix(poor.pubkey(), mint)], poor).expect(E_INSUFFICIENT_SOL)


def test_missing_signer_is_refused(chain):
    _, mint = traded(chain)
    user = chain.wallet()
    ix = meta_ix(chain.trade_ix("buy", user.pubkey(), mint, sol_in=SOL, min_tokens_out=0), 0, signer=False)
    chain.send([ix]).expect("MissingRequiredSignature")
