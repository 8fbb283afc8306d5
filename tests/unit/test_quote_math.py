"""Property tests of the quote's math (partner.features.trading fills and bounds), the same functions the
trade planners use: fills agree with the curve and pool math, bounds are the slippage-mode bounds,
the price impact is exact."""

from __future__ import annotations

from fractions import Fraction as F
from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st

from partner.chain import curve as C
from partner.chain import pool_math as PM
from partner.features import trading
from tests.unit.test_curve_math import curve_states

fee_st = st.integers(min_value=0, max_value=1000)
partner_st = st.integers(min_value=0, max_value=9999)
slip_st = st.integers(min_value=0, max_value=5000)


def coin(curve: C.CurveState, fee_bps: int, pool: PM.PoolState | None = None, pool_fee: int = 100):
    pool_ns = (
        None
        if pool is None
        else SimpleNamespace(base_reserve=pool.base_reserve, quote_reserve=pool.quote_reserve, fee_bps=pool_fee)
    )
    return SimpleNamespace(curve=curve, pool=pool_ns, global_config=SimpleNamespace(protocol_fee_bps=fee_bps))


def exact_impact(net: int, tokens: int, sol_reserve: int, token_reserve: int) -> int:
    if tokens == 0:
        return 10_000
    value = F(net * token_reserve - tokens * sol_reserve, tokens * sol_reserve) * 10_000
    return max(0, int(value + F(1, 2)) if value >= 0 else 0)


@given(curve_states(), st.integers(min_value=1, max_value=100 * 10**9), fee_st)
def test_curve_buy_fill(s, sol_in, fee_bps):
    fill = trading.fill_buy(coin(s, fee_bps), "curve", sol_in)
    r = C.buy(s, sol_in, fee_bps)
    assert (fill.tokens, fill.sol, fill.protocol_fee, fill.completes_curve) == (
        r.tokens_out,
        r.sol_in,
        r.fee,
        r.completes,
    )
    assert fill.price_impact_bps == exact_impact(
        r.sol_to_curve, r.tokens_out, s.virtual_sol_reserves, s.virtual_token_reserves
    )


@given(curve_states(), st.integers(min_value=1, max_value=C.INITIAL_REAL_TOKEN_RESERVES), fee_st)
def test_curve_sell_fill(s, tokens, fee_bps):
    try:
        r = C.sell(s, tokens, fee_bps)
    except C.InsufficientLiquidity:
        return
    fill = trading.fill_sell(coin(s, fee_bps), "curve", tokens)
    assert (fill.sol, fill.protocol_fee, fill.completes_curve) == (r.sol_out, r.fee, False)
    value = (
        F(
            tokens * s.virtual_sol_reserves - r.sol_from_curve * s.virtual_token_reserves,
            tokens * s.virtual_sol_reserves,
        )
        * 10_000
    )
    assert fill.price_impact_bps == int(value + F(1, 2))
    assert fill.price_impact_bps >= 0


@given(
    st.integers(min_value=10**12, max_value=10**15),
    st.integers(min_value=10**9, max_value=10**12),
    st.integers(min_value=1, max_value=10**11),
    fee_st,
)
def test_pool_fills(base, quote, amount, fee_bps):
    pool = PM.PoolState(base, quote)
    state = coin(C.INITIAL_CURVE, 100, pool, fee_bps)
    bought = trading.fill_buy(state, "pool", amount)
    r = PM.swap_quote_in(pool, amount, fee_bps)
    assert (bought.tokens, bought.sol, bought.protocol_fee) == (r.amount_out, r.amount_in, r.fee)
    assert bought.price_impact_bps == exact_impact(amount - r.fee, r.amount_out, quote, base)
    sold = trading.fill_sell(state, "pool", amount)
    assert sold.sol == PM.swap_base_in(pool, amount, fee_bps).amount_out


@given(st.integers(min_value=0, max_value=10**18), slip_st)
def test_min_out_bound(expected, slip):
    assert trading.min_out_bound(expected, slip) == expected * (10_000 - slip) // 10_000 <= expected


@given(st.integers(min_value=1, max_value=10**15), slip_st, partner_st)
def test_max_in_bound_is_the_smallest_that_leaves_the_venue_ceiling(quote, slip, partner_bps):
    ceiling = -(-quote * (10_000 + slip) // 10_000)
    m = trading.max_in_bound(quote, slip, partner_bps)

    def left(x: int) -> int:
        return x - x * partner_bps // 10_000

    assert left(m) >= ceiling
    assert m == 0 or left(m - 1) < ceiling
