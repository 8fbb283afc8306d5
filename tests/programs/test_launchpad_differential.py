"""The service's math equals the program's (issue 24, item 6): random sequences of buys,
buy-exact-outs and sells run through the launchpad SBF program in LiteSVM and through
partner.chain.curve, with equal amounts (tokens, lamports charged and paid, fees, reserves)
or the same error on every step; and the governance thresholds (quorum, approval, bond)
against partner.chain.governance_math, at and around their edges."""
from __future__ import annotations

from dataclasses import dataclass

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from partner.chain import curve as C
from partner.chain import governance_math as GM
from partner.chain import pool_math as PM
from partner.chain.governance_math import ActionKind, VoteSide

from .launchpad_chain import ATA_SIZE, SOL, Chain, ata, curve_pda, governance_pda, pool_pda, proposal_pda, rent

U64_MAX = 2**64 - 1
BALANCE = 3_000 * SOL
MATH_ERRORS = {C.MathOverflow: 6006, C.InsufficientLiquidity: 6007, C.CurveComplete: 6002, C.InvalidAmount: 6000,
               PM.MathOverflow: 6006, PM.InsufficientLiquidity: 6007, PM.InvalidAmount: 6000}

lamports = st.one_of(st.integers(1, 100 * SOL), st.integers(1, 10_000), st.sampled_from([1, 101, 10_100, U64_MAX]),
                     st.integers(BALANCE - 10**6, BALANCE + 10**6))
tokens = st.one_of(st.integers(1, C.INITIAL_REAL_TOKEN_RESERVES + 10**9), st.integers(1, 10**6),
                   st.sampled_from([1, C.INITIAL_REAL_TOKEN_RESERVES, U64_MAX]))
ops = st.lists(st.one_of(
    st.tuples(st.just("buy"), st.integers(0, 1), lamports),
    st.tuples(st.just("buy_exact_out"), st.integers(0, 1), tokens),
    st.tuples(st.just("sell"), st.integers(0, 1), st.one_of(st.integers(0, 10_000), tokens.map(lambda t: -t))),
    st.tuples(st.just("complete"), st.integers(0, 1), st.just(U64_MAX)),
    st.tuples(st.just("migrate"), st.just(0), st.just(0)),
), min_size=1, max_size=14)


def _math(fn, *args):
    try:
        return fn(*args), None
    except C.CurveMathError as e:
        return None, MATH_ERRORS[type(e)]


@dataclass(frozen=True)
class Want:
    """What one trade that succeeds changes, by the service's math."""
    state_after: C.CurveState | PM.PoolState
    tokens: int     # the user's token balance
    lamports: int   # the user's lamports (a new ATA's rent included)
    venue: int      # the curve's or the pool's lamports
    fee: int        # the fee recipient's lamports


def expected(kind: str, state: C.CurveState | PM.PoolState, amount: int, fee_bps: int, has_ata: bool, held: int,
             lamports_: int) -> tuple[Want | None, int | None]:
    """(Want, None) or (None, error) of one trade by the reference programs' rules: on the curve by
    partner.chain.curve, after migration (a PoolState) on the pool by partner.chain.pool_math."""
    pool = isinstance(state, PM.PoolState)
    if amount == 0:
        return None, 6000
    if not pool and state.complete:
        return None, 6002
    if kind == "sell":
        if not has_ata:
            return None, 6011
        if held < amount:
            return None, 6009
        r, err = _math(PM.swap_base_in if pool else C.sell, state, amount, fee_bps)
        if err:
            return None, err
        sol_out, from_venue = (r.amount_out, r.amount_out + r.fee) if pool else (r.sol_out, r.sol_from_curve)
        if sol_out == 0:
            return None, 6000
        return Want(r.state_after, -amount, sol_out, -from_venue, r.fee), None
    buys = {"buy": (C.buy, PM.swap_quote_in), "buy_exact_out": (C.buy_exact_out, PM.swap_base_out)}
    r, err = _math(buys[kind][pool], state, amount, fee_bps)
    if err:
        return None, err
    if pool:
        tokens_out, sol_in, to_venue = r.amount_out, r.amount_in, r.amount_in - r.fee
    else:
        tokens_out, sol_in, to_venue = r.tokens_out, r.sol_in, r.sol_to_curve
    if tokens_out == 0:
        return None, 6000
    paid = sol_in + (0 if has_ata else rent(ATA_SIZE))
    if lamports_ < paid:
        return None, 6008
    return Want(r.state_after, tokens_out, -paid, to_venue, r.fee), None


def trade(chain: Chain, mint, user, kind: str, amount: int, pool: bool):
    if kind == "buy":
        return chain.swap(user, mint, False, amount) if pool else chain.buy(user, mint, amount)
    if kind == "buy_exact_out":
        return (chain.swap_exact_out if pool else chain.buy_exact_out)(user, mint, amount, U64_MAX)
    return chain.swap(user, mint, True, amount) if pool else chain.sell(user, mint, amount)


def trade_step(chain: Chain, mint, user, kind: str, amount: int, fee_bps: int, pool: bool) -> None:
    """One trade through the launchpad (or after migration the pool) program, checked against the service's math."""
    def state():
        return PM.PoolState.of(chain.pool(mint)) if pool else C.CurveState.of(chain.curve(mint))

    venue, fee_to, owner = pool_pda(mint) if pool else curve_pda(mint), chain.fee_recipient.pubkey(), user.pubkey()
    before = state()
    has_ata = chain.account(ata(owner, mint)) is not None
    held = chain.balance(owner, mint)
    if kind == "sell":
        amount = held * amount // 10_000 if amount >= 0 else -amount
    lam, fee_lam, venue_lam = chain.lamports(owner), chain.lamports(fee_to), chain.lamports(venue)
    want, err = expected(kind, before, amount, fee_bps, has_ata, held, lam)
    res = trade(chain, mint, user, kind, amount, pool)
    if err is not None:
        res.expect(err)
        assert state() == before and chain.balance(owner, mint) == held
        return
    assert want is not None and res.ok, (kind, amount, res.err, res.logs)
    assert state() == want.state_after
    assert chain.balance(owner, mint) - held == want.tokens
    assert chain.lamports(owner) - lam == want.lamports
    assert chain.lamports(venue) - venue_lam == want.venue
    assert chain.lamports(fee_to) - fee_lam == want.fee


def migrate_step(chain: Chain, mint) -> bool:
    """Migrate when the reference allows it (else its error); True once migrated."""
    c = chain.curve(mint)
    res = chain.migrate(mint)
    if c.migrated:
        res.expect(6021)
        return True
    if not c.complete:
        res.expect(6020)
        return False
    assert res.ok, res.logs
    pool = chain.pool(mint)
    assert (pool.base_reserve, pool.quote_reserve) == (C.TOKEN_TOTAL_SUPPLY - C.INITIAL_REAL_TOKEN_RESERVES,
                                                       c.real_sol_reserves)
    chain.advance(1, 2)                              # past the pool's open_time
    return True


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=ops, fee_bps=st.sampled_from([0, 1, 100, 333, 1000]))
def test_random_trades_equal_the_service_math(steps, fee_bps):
    """Across migration: the curve by partner.chain.curve, then the pool by pool_math."""
    chain = Chain(pool=True, protocol_fee_bps=fee_bps)
    _, mint_kp = chain.create_coin()
    chain.advance(1, 1)
    mint = mint_kp.pubkey()
    users = [chain.wallet(BALANCE), chain.wallet(BALANCE)]
    migrated = False
    for kind, who, amount in steps:
        if kind == "migrate":
            migrated = migrate_step(chain, mint)
            continue
        if migrated:
            event("traded on the pool after migration")
        trade_step(chain, mint, users[who], "buy" if kind == "complete" else kind, amount, fee_bps, migrated)


# ----------------------------------------------------------------- governance thresholds

TOTAL = C.TOKEN_TOTAL_SUPPLY


@st.composite
def governance_case(draw):
    params = GM.GovernanceParams(
        min_voter_count=draw(st.integers(0, 3)),
        min_lock_amount=draw(st.sampled_from([0, 1, GM.DEFAULT_MIN_LOCK_AMOUNT, 10**12])),
        min_participating_supply_bps=draw(st.one_of(st.integers(0, 600), st.sampled_from([0, 1, 500]))),
        approval_bps=draw(st.one_of(st.integers(1, 10_000), st.sampled_from([1, 5_000, 6_000, 10_000]))),
        proposal_bond_bps=draw(st.one_of(st.integers(0, 300), st.sampled_from([0, 1, 100]))),
    )
    quorum = GM.min_participating_supply(TOTAL, params.min_participating_supply_bps)
    near = st.sampled_from([quorum - 1, quorum, quorum + 1, quorum // 2, quorum // 3 + 1]).filter(lambda v: v > 0)
    votes = draw(st.lists(st.tuples(st.sampled_from([VoteSide.YES, VoteSide.NO]),
                                    st.one_of(near, st.integers(1, 3 * 10**13), st.sampled_from(
                                        [1, params.min_lock_amount or 1, max(1, params.min_lock_amount - 1)]))),
                          min_size=0, max_size=3))
    if len(votes) == 2 and params.approval_bps < 10_000 and draw(st.booleans()):
        # the approval edge: yes exactly at (or one below) the smallest passing weight against `no`
        no = votes[1][1]
        yes = GM.min_yes_votes(no, params.approval_bps) - draw(st.integers(0, 1))
        if yes > 0:
            votes = [(VoteSide.YES, yes), (VoteSide.NO, no)]
    return params, votes


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=governance_case())
def test_governance_thresholds_equal_the_service_math(case):
    params, votes = case
    chain = Chain()
    chain.send_ok([chain.ix("set_governance_params", {"admin": chain.admin.pubkey()}, params=params)], chain.admin)
    _, mint_kp = chain.create_coin(name="Gov Coin")
    mint = mint_kp.pubkey()
    chain.advance(1, 1)
    proposer, *voters = [chain.wallet(50 * SOL) for _ in range(1 + len(votes))]
    for w in (proposer, *voters):
        assert chain.buy(w, mint, 10 * SOL).ok
    gov = governance_pda(mint)
    prop = proposal_pda(gov, 0)
    r = chain.send([chain.ix("create_proposal", {"proposer": proposer.pubkey(), "mint": mint, "metadata": mint,
                                                 "proposal": prop},
                             action_kind=ActionKind.UPDATE_CONTENT, base_content_revision=0,
                             vote_duration_seconds=params.min_vote_duration_seconds, name="New", symbol=None,
                             uri=None, additional_seconds=None, changed_fields=1,
                             content_digests=chain.governance(mint).content_digests)], proposer)
    assert r.ok, r.logs
    assert chain.proposal(prop).bond_amount == GM.bond_amount(TOTAL, params.proposal_bond_bps)
    for w, (side, amount) in zip(voters, votes):
        assert chain.send([chain.ix("cast_vote", {"voter": w.pubkey(), "mint": mint, "proposal": prop}, side=side,
                                    amount=amount)], w).ok
    chain.advance(10, params.min_vote_duration_seconds)
    payer = chain.wallet(SOL)
    assert chain.send([chain.ix("settle_proposal", {"payer": payer.pubkey(), "proposal": prop, "metadata": mint,
                                                     "governance.mint": mint})], payer).ok
    p = chain.proposal(prop)
    yes = sum(a for s, a in votes if s == VoteSide.YES)
    no = sum(a for s, a in votes if s == VoteSide.NO)
    counted = sum(1 for _, a in votes if GM.counted_as_voter(a, params.min_lock_amount))
    want = GM.outcome(yes_votes=yes, no_votes=no, participating_voters=counted, total_supply=TOTAL, params=params)
    assert (p.yes_votes, p.no_votes, p.participating_supply, p.participating_voters) == (yes, no, yes + no, counted)
    assert p.outcome == want
    assert p.executed == (want == GM.Outcome.PASSED)
    assert (chain.mint(mint).metadata.name == "New") == (want == GM.Outcome.PASSED)
