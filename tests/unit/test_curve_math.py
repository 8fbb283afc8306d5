"""Property tests of the bonding-curve math against exact Fraction arithmetic."""

import math
from fractions import Fraction as F

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from partner.chain import curve as C

U64 = C.U64_MAX
fee_bps_st = st.integers(min_value=0, max_value=1000)


@st.composite
def curve_states(draw):
    """A reachable curve state: the initial curve after some net SOL bought in."""
    sold = draw(st.integers(min_value=0, max_value=C.INITIAL_REAL_TOKEN_RESERVES - 1))
    s = C.INITIAL_CURVE
    if sold:
        s = C.buy_exact_out(s, sold, 0).state_after
    return s


sol_st = st.integers(min_value=1, max_value=200 * 10**9)
tok_st = st.integers(min_value=1, max_value=C.INITIAL_REAL_TOKEN_RESERVES)


def k(s):
    return s.virtual_sol_reserves * s.virtual_token_reserves


def test_constants():
    s = C.INITIAL_CURVE
    assert s.virtual_token_reserves == 1_073_000_000_000_000
    assert s.virtual_sol_reserves == 30_000_000_000
    assert s.real_token_reserves == 793_100_000_000_000
    assert s.token_total_supply == 10**15
    assert C.TOKEN_DECIMALS == 6


def test_known_values():
    r = C.buy(C.INITIAL_CURVE, 10**9, 100)
    assert (r.tokens_out, r.fee, r.sol_to_curve, r.sol_in) == (34_281_150_129_545, 9_900_991, 990_099_009, 10**9)
    assert C.buy_quote(C.INITIAL_CURVE, 10**9) == (34_281_150_129_545, 9_900_991)
    sol_in, fee = C.buy_exact_out_quote(C.INITIAL_CURVE, 10**12)
    net = -(-30 * 10**9 * 10**12 // (1_073_000_000_000_000 - 10**12))
    assert fee == -(-net // 100) and sol_in == net + fee
    assert C.sol_to_complete(C.INITIAL_CURVE) == 85_855_412_648


@settings(max_examples=300, deadline=None)
@given(curve_states(), sol_st, fee_bps_st)
def test_buy_rounding(s, sol_in, fee_bps):
    r = C.buy(s, sol_in, fee_bps)
    # fee rounds up, within 1, and never below the fee on the SOL reaching the curve
    exact_fee = F(sol_in * fee_bps, 10_000 + fee_bps)
    if not r.capped:
        assert exact_fee <= r.fee < exact_fee + 1
        assert r.fee >= math.ceil(F(r.sol_to_curve * fee_bps, 10_000))
        assert r.sol_in == sol_in == r.sol_to_curve + r.fee
        exact_out = F(s.virtual_token_reserves * r.sol_to_curve, s.virtual_sol_reserves + r.sol_to_curve)
        assert exact_out - 1 < r.tokens_out <= exact_out
    else:
        assert r.tokens_out == s.real_token_reserves
        assert r.sol_in <= sol_in
        assert r.state_after.complete
    assert k(r.state_after) >= k(s)
    assert r.state_after.real_token_reserves == s.real_token_reserves - r.tokens_out
    assert r.state_after.real_sol_reserves == s.real_sol_reserves + r.sol_to_curve


@settings(max_examples=300, deadline=None)
@given(curve_states(), tok_st, fee_bps_st)
def test_buy_exact_out_rounding(s, tokens, fee_bps):
    r = C.buy_exact_out(s, tokens, fee_bps)
    t = min(tokens, s.real_token_reserves)
    assert r.tokens_out == t and r.capped == (tokens > s.real_token_reserves)
    exact_net = F(s.virtual_sol_reserves * t, s.virtual_token_reserves - t)
    assert exact_net <= r.sol_to_curve < exact_net + 1
    exact_fee = F(r.sol_to_curve * fee_bps, 10_000)
    assert exact_fee <= r.fee < exact_fee + 1
    assert r.sol_in == r.sol_to_curve + r.fee
    assert k(r.state_after) >= k(s)
    # paying that much with buy() yields at least the same tokens
    assert C.buy(s, r.sol_in, fee_bps).tokens_out >= t


@settings(max_examples=300, deadline=None)
@given(curve_states(), tok_st, fee_bps_st)
def test_sell_rounding(s, tokens, fee_bps):
    sold = C.INITIAL_REAL_TOKEN_RESERVES - s.real_token_reserves
    assume(sold > 0)
    tokens = min(tokens, sold)
    r = C.sell(s, tokens, fee_bps)
    exact_gross = F(s.virtual_sol_reserves * tokens, s.virtual_token_reserves + tokens)
    assert exact_gross - 1 < r.sol_from_curve <= exact_gross
    exact_fee = F(r.sol_from_curve * fee_bps, 10_000)
    assert exact_fee <= r.fee < exact_fee + 1
    assert r.sol_out == r.sol_from_curve - r.fee >= 0
    assert k(r.state_after) >= k(s)
    assert r.state_after.real_sol_reserves >= 0
    assert C.sell_quote(s, tokens, fee_bps) == (r.sol_out, r.fee)


@settings(max_examples=300, deadline=None)
@given(curve_states(), sol_st, fee_bps_st)
def test_buy_then_sell_creates_no_value(s, sol_in, fee_bps):
    b = C.buy(s, sol_in, fee_bps)
    assume(b.tokens_out > 0 and not b.completes)
    r = C.sell(b.state_after, b.tokens_out, fee_bps)
    assert r.sol_out <= b.sol_in
    assert r.sol_from_curve <= b.sol_to_curve


@settings(max_examples=200, deadline=None)
@given(curve_states(), sol_st, sol_st, fee_bps_st)
def test_buy_monotonic(s, a, b, fee_bps):
    lo, hi = sorted((a, b))
    assert C.buy(s, lo, fee_bps).tokens_out <= C.buy(s, hi, fee_bps).tokens_out


@settings(max_examples=200, deadline=None)
@given(curve_states(), tok_st, tok_st, fee_bps_st)
def test_exact_out_and_sell_monotonic(s, a, b, fee_bps):
    lo, hi = sorted((a, b))
    assert C.buy_exact_out(s, lo, fee_bps).sol_in <= C.buy_exact_out(s, hi, fee_bps).sol_in
    sold = C.INITIAL_REAL_TOKEN_RESERVES - s.real_token_reserves
    assume(sold >= hi)
    assert C.sell(s, lo, fee_bps).sol_out <= C.sell(s, hi, fee_bps).sol_out


@settings(max_examples=100, deadline=None)
@given(curve_states(), fee_bps_st)
def test_completion_cap(s, fee_bps):
    need = C.sol_to_complete(s, fee_bps)
    r = C.buy(s, need + 10**9, fee_bps)
    assert r.capped and r.completes and r.tokens_out == s.real_token_reserves and r.sol_in == need
    assert r.state_after.real_token_reserves == 0
    with pytest.raises(C.CurveComplete):
        C.buy(r.state_after, 1, fee_bps)
    with pytest.raises(C.CurveComplete):
        C.sell(r.state_after, 1, fee_bps)
    # exact-out past the remainder is capped the same way
    r2 = C.buy_exact_out(s, s.real_token_reserves + 1, fee_bps)
    assert r2.capped and r2.sol_in == need and r2.completes


def test_u64_bounds():
    with pytest.raises(C.MathOverflow):
        C.buy(C.INITIAL_CURVE, U64 + 1)
    with pytest.raises(C.MathOverflow):
        C.sell(C.INITIAL_CURVE, U64 + 1)
    with pytest.raises(C.MathOverflow):
        C.buy_exact_out(C.INITIAL_CURVE, U64 + 1)
    big = C.CurveState(U64 - 10, U64 - 10, U64 - 20, 0, U64)
    with pytest.raises(C.MathOverflow):
        C.buy(big, 100)
    with pytest.raises(C.MathOverflow):
        C.sell(big, 100)
    # u64 max input that fits is fine on the initial curve (capped)
    r = C.buy(C.INITIAL_CURVE, U64)
    assert r.capped


@pytest.mark.parametrize("fn", [C.buy, C.buy_exact_out, C.sell])
def test_zero_amount_is_invalid(fn):
    with pytest.raises(C.InvalidAmount):
        fn(C.INITIAL_CURVE, 0)


def test_sell_more_than_curve_sol_is_insufficient_liquidity():
    with pytest.raises(C.InsufficientLiquidity):
        C.sell(C.INITIAL_CURVE, 10**12)  # nothing was bought: no real SOL


def test_curve_state_of_layout():
    from solders.pubkey import Pubkey

    from partner.chain.layouts import BondingCurve

    bc = BondingCurve(Pubkey.default(), Pubkey.default(), 1, 2, 3, 4, 5)
    assert C.CurveState.of(bc) == C.CurveState(1, 2, 3, 4, 5, False)
