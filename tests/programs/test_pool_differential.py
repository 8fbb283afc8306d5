"""The service's pool math equals the program's: random sequences of buys, exact-out buys
and sells (hypothesis) run through the pool program in LiteSVM and through
`partner.chain.pool_math`; every step must agree on the outcome (success or the same
error) and on every amount (tokens out, SOL paid / received, fee, reserves)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from partner.chain import curve as C
from partner.chain import pool_math as PM
from partner.chain.errors import ProgramErrorCode as E
from tests.programs.pool_env import PoolEnv
from tests.programs.svm import SOL, ata

ERRORS = {
    C.MathOverflow: E.MathOverflow,
    C.InsufficientLiquidity: E.InsufficientLiquidity,
    C.InvalidAmount: E.InvalidInput,
}

step = st.one_of(
    st.tuples(st.just("buy"), st.integers(1, 200 * SOL)),
    st.tuples(st.just("buy_exact"), st.integers(1, 300_000_000 * 10**6)),
    st.tuples(st.just("sell"), st.floats(0.0, 1.0)),
    st.tuples(st.just("buy"), st.sampled_from([1, 2, 99, 2**64 - 1])),
    st.tuples(st.just("buy_exact"), st.sampled_from([1, 2**64 - 1])),
)


@pytest.fixture(scope="module")
def env():
    return PoolEnv(base_amount=206_900_000 * 10**6, quote_amount=85 * SOL, fee_bps=100)


def _expected(kind, state, amount, fee_bps):
    fn = {"buy": PM.swap_quote_in, "buy_exact": PM.swap_base_out, "sell": PM.swap_base_in}[kind]
    try:
        r = fn(state, amount, fee_bps)
    except C.CurveMathError as exc:
        return None, ERRORS[type(exc)]
    if r.amount_out == 0:
        return None, E.InvalidInput
    return r, None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(step, min_size=1, max_size=8))
def test_swaps_match_pool_math(env, steps):
    user = env.s.funded(1_000 * SOL)
    for kind, amount in steps:
        pool = env.state()
        state = PM.PoolState(pool.base_reserve, pool.quote_reserve)
        held = env.tokens(user.pubkey())
        if kind == "sell":
            amount = int(held * amount)
            if amount == 0:
                continue
        expect, err = _expected(kind, state, amount, env.fee_bps)
        lam0, fee0 = env.lamports(user.pubkey()), env.lamports(env.fee_recipient)
        had_ata = env.svm.get_account(ata(user.pubkey(), env.mint)) is not None
        rent = 0 if had_ata else env.svm.minimum_balance_for_rent_exemption(170)
        if expect is not None and kind != "sell" and lam0 < expect.amount_in + rent:
            expect, err = None, E.InsufficientSol
        if kind == "buy":
            o = env.buy(user, amount)
        elif kind == "buy_exact":
            o = env.buy_exact(user, amount, 2**64 - 1)
        else:
            o = env.sell(user, amount)
        if err is not None:
            assert not o.ok and o.custom == int(err), (kind, amount, state, o.err, o.logs[-3:])
            assert env.state() == pool
            continue
        assert o.ok, (kind, amount, state, o.logs[-4:])
        after = env.state()
        assert (after.base_reserve, after.quote_reserve) == (
            expect.state_after.base_reserve,
            expect.state_after.quote_reserve,
        )
        assert env.lamports(env.fee_recipient) - fee0 == expect.fee
        if kind == "sell":
            assert env.tokens(user.pubkey()) == held - amount
            assert env.lamports(user.pubkey()) - lam0 == expect.amount_out
        else:
            assert env.tokens(user.pubkey()) == held + expect.amount_out
            assert lam0 - env.lamports(user.pubkey()) == expect.amount_in + rent
