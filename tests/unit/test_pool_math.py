"""Property tests of the constant-product pool math against exact Fractions."""

from fractions import Fraction as F

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from partner.chain import pool_math as PM
from partner.chain.curve import U64_MAX

fee_bps_st = st.integers(min_value=0, max_value=1000)
pools = st.builds(
    PM.PoolState, st.integers(min_value=10**6, max_value=10**15), st.integers(min_value=10**6, max_value=10**12)
)
amt = st.integers(min_value=1, max_value=10**13)


def k(s):
    return s.base_reserve * s.quote_reserve


@settings(max_examples=300, deadline=None)
@given(pools, amt, fee_bps_st)
def test_quote_in(s, q, fee_bps):
    r = PM.swap_quote_in(s, q, fee_bps)
    exact_fee = F(q * fee_bps, 10_000 + fee_bps)
    assert exact_fee <= r.fee < exact_fee + 1
    net = q - r.fee
    exact_out = F(s.base_reserve * net, s.quote_reserve + net)
    assert exact_out - 1 < r.amount_out <= exact_out
    assert r.amount_out < s.base_reserve
    assert k(r.state_after) >= k(s)


@settings(max_examples=300, deadline=None)
@given(pools, amt, fee_bps_st)
def test_base_out(s, b, fee_bps):
    assume(b < s.base_reserve)
    r = PM.swap_base_out(s, b, fee_bps)
    exact_net = F(s.quote_reserve * b, s.base_reserve - b)
    net = r.amount_in - r.fee
    assert exact_net <= net < exact_net + 1
    exact_fee = F(net * fee_bps, 10_000)
    assert exact_fee <= r.fee < exact_fee + 1
    assert k(r.state_after) >= k(s)
    assert PM.swap_quote_in(s, r.amount_in, fee_bps).amount_out >= b


@settings(max_examples=300, deadline=None)
@given(pools, amt, fee_bps_st)
def test_base_in(s, b, fee_bps):
    r = PM.swap_base_in(s, b, fee_bps)
    exact_gross = F(s.quote_reserve * b, s.base_reserve + b)
    gross = r.amount_out + r.fee
    assert exact_gross - 1 < gross <= exact_gross
    exact_fee = F(gross * fee_bps, 10_000)
    assert exact_fee <= r.fee < exact_fee + 1
    assert k(r.state_after) >= k(s)


@settings(max_examples=300, deadline=None)
@given(pools, amt, fee_bps_st)
def test_round_trip_creates_no_value(s, q, fee_bps):
    b = PM.swap_quote_in(s, q, fee_bps)
    assume(b.amount_out > 0)
    r = PM.swap_base_in(b.state_after, b.amount_out, fee_bps)
    assert r.amount_out <= q


@settings(max_examples=200, deadline=None)
@given(pools, amt, amt, fee_bps_st)
def test_monotonic(s, a, b, fee_bps):
    lo, hi = sorted((a, b))
    assert PM.swap_quote_in(s, lo, fee_bps).amount_out <= PM.swap_quote_in(s, hi, fee_bps).amount_out
    assert PM.swap_base_in(s, lo, fee_bps).amount_out <= PM.swap_base_in(s, hi, fee_bps).amount_out
    if hi < s.base_reserve:
        assert PM.swap_base_out(s, lo, fee_bps).amount_in <= PM.swap_base_out(s, hi, fee_bps).amount_in


def test_insufficient_liquidity_and_bounds():
    s = PM.PoolState(1000, 10**9)
    with pytest.raises(PM.InsufficientLiquidity):
        PM.swap_base_out(s, 1000)
    with pytest.raises(PM.InsufficientLiquidity):
        PM.swap_quote_in(PM.PoolState(0, 10), 5)
    with pytest.raises(PM.MathOverflow):
        PM.swap_quote_in(s, U64_MAX + 1)
    with pytest.raises(PM.MathOverflow):
        PM.swap_quote_in(PM.PoolState(10**6, U64_MAX - 5), 100)
    with pytest.raises(PM.MathOverflow):
        PM.swap_base_in(PM.PoolState(U64_MAX - 5, 10**6), 100)
    with pytest.raises(PM.MathOverflow):
        PM.swap_base_out(PM.PoolState(10**6, U64_MAX // 2), 10**6 - 1)
    with pytest.raises(PM.InvalidAmount):
        PM.swap_base_in(s, 0)


def test_known_values():
    s = PM.PoolState(206_900_000 * 10**6, 85_000_000_000)
    r = PM.swap_quote_in(s, 10**9, 100)
    assert r.fee == 9_900_991
    assert r.amount_out == s.base_reserve * 990_099_009 // (s.quote_reserve + 990_099_009)
