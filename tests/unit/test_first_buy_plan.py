"""The first-buy plan of coins/create against exact (Fraction) arithmetic: rules 1-6 of the spec."""

from __future__ import annotations

from fractions import Fraction
from math import ceil, floor

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from partner.chain import curve
from partner.core.errors import ApiError
from partner.features.launch.first_buy import InitialBuy, first_buy_cap, plan_first_buy

SUPPLY = curve.TOKEN_TOTAL_SUPPLY
CAP = 25_000_000 * 10**6  # 2.5% of supply
FEE_BPS = 100
FRESH = curve.INITIAL_CURVE


def exact_tokens_for_sol(state: curve.CurveState, sol: int, bps: int) -> int:
    """Tokens `sol` (fee included) buys, uncapped: fee = ceil(sol*bps/(1e4+bps)), floor(vT*net/(vS+net))."""
    fee = ceil(Fraction(sol * bps, 10_000 + bps))
    net = sol - fee
    return floor(Fraction(state.virtual_token_reserves * net, state.virtual_sol_reserves + net))


def exact_cost(state: curve.CurveState, tokens: int, bps: int) -> int:
    net = ceil(Fraction(state.virtual_sol_reserves * tokens, state.virtual_token_reserves - tokens))
    return net + ceil(Fraction(net * bps, 10_000))


def test_cap_is_two_and_a_half_percent_of_supply():
    assert first_buy_cap(SUPPLY) == CAP
    assert first_buy_cap(SUPPLY, wallet_cap_bps=100) == SUPPLY // 100  # a lower per-wallet cap wins


def test_small_sol_buy_is_not_clamped():
    sol = 5 * 10**8  # 1 SOL would buy about 34M tokens, over the 25M cap
    plan = plan_first_buy(FRESH, FEE_BPS, CAP, InitialBuy(sol=sol))
    tokens, _ = curve.buy_quote(FRESH, sol, FEE_BPS)
    assert plan.to_json() == {
        "kind": "buy",
        "authorizedMaxSolIn": str(sol),
        "expectedSolIn": str(sol),
        "expectedTokensOut": str(tokens),
        "capacityTokensOut": str(CAP),
        "clamped": False,
        "clampReasons": [],
    }
    assert not plan.exact_out and plan.min_tokens_out == tokens


def test_slippage_lowers_the_minimum_out_only():
    plan = plan_first_buy(FRESH, FEE_BPS, CAP, InitialBuy(sol=5 * 10**8, slippage_bps=500))
    assert plan.min_tokens_out == plan.expected_tokens_out * 9_500 // 10_000


def test_sol_above_the_cap_is_clamped_by_token_balance_and_net_bought_together():
    plan = plan_first_buy(FRESH, FEE_BPS, CAP, InitialBuy(sol=5 * 10**9))
    assert plan.clamped and plan.exact_out
    assert plan.clamp_reasons == ("token_balance", "net_bought")
    assert plan.expected_tokens_out == plan.capacity_tokens_out == CAP
    assert plan.authorized_max_sol_in == 5 * 10**9
    assert plan.expected_sol_in == exact_cost(FRESH, CAP, FEE_BPS) < 5 * 10**9


def test_migration_threshold_listed_when_it_binds():
    state = curve.CurveState(real_token_reserves=10 * 10**6)
    plan = plan_first_buy(state, FEE_BPS, CAP, InitialBuy(sol=10**9))
    assert plan.clamped and plan.clamp_reasons == ("migration_threshold",)
    assert plan.expected_tokens_out == 10 * 10**6
    tie = curve.CurveState(real_token_reserves=CAP)
    assert plan_first_buy(tie, FEE_BPS, CAP, InitialBuy(sol=5 * 10**9)).clamp_reasons == CLAMP_ALL


CLAMP_ALL = ("token_balance", "net_bought", "migration_threshold")


def test_tokens_at_the_cap_pass_and_above_are_buy_limit_exceeded():
    plan = plan_first_buy(FRESH, FEE_BPS, CAP, InitialBuy(tokens=CAP, max_sol_in=10**10))
    assert not plan.clamped and plan.exact_out and plan.expected_tokens_out == CAP
    assert plan.expected_sol_in == exact_cost(FRESH, CAP, FEE_BPS)
    with pytest.raises(ApiError) as info:
        plan_first_buy(FRESH, FEE_BPS, CAP, InitialBuy(tokens=CAP + 1, max_sol_in=10**10))
    assert info.value.code == "buy_limit_exceeded" and info.value.status == 422
    assert info.value.extra["capacityTokensOut"] == str(CAP)


def test_tokens_need_a_ceiling_that_covers_the_cost():
    cost = exact_cost(FRESH, 10**12, FEE_BPS)
    assert plan_first_buy(FRESH, FEE_BPS, CAP, InitialBuy(tokens=10**12, max_sol_in=cost)).expected_sol_in == cost
    with pytest.raises(ApiError) as info:
        plan_first_buy(FRESH, FEE_BPS, CAP, InitialBuy(tokens=10**12, max_sol_in=cost - 1))
    assert info.value.code == "slippage_exceeded" and info.value.extra["requiredLamports"] == str(cost)
    with pytest.raises(ApiError) as info:
        plan_first_buy(FRESH, FEE_BPS, CAP, InitialBuy(tokens=10**12))
    assert info.value.code == "invalid_input"


def test_both_modes_or_neither_is_invalid_input():
    for kwargs in ({}, {"sol": 1, "tokens": 1, "max_sol_in": 1}):
        with pytest.raises(ApiError) as info:
            plan_first_buy(FRESH, FEE_BPS, CAP, InitialBuy(**kwargs))
        assert info.value.code == "invalid_input"


def test_one_lamport_buys_nothing():
    with pytest.raises(ApiError) as info:
        plan_first_buy(FRESH, FEE_BPS, CAP, InitialBuy(sol=1))
    assert info.value.code == "invalid_input"


reserves = st.builds(
    lambda vt, vs, frac: curve.CurveState(
        virtual_token_reserves=vt, virtual_sol_reserves=vs, real_token_reserves=max(1, vt * frac // 1000)
    ),
    st.integers(10**12, 2 * 10**15),
    st.integers(10**9, 10**11),
    st.integers(1, 900),
)


@settings(max_examples=300, deadline=None)
@given(
    state=reserves,
    sol=st.integers(1_000, 10**12),
    bps=st.integers(0, 1000),
    balance=st.integers(0, CAP),
    bought=st.integers(0, CAP),
)
def test_sol_plan_against_exact_arithmetic(state, sol, bps, balance, bought):
    try:
        plan = plan_first_buy(state, bps, CAP, InitialBuy(sol=sol), token_balance=balance, net_bought=bought)
    except ApiError as exc:
        assert exc.code in ("invalid_input", "buy_limit_exceeded")
        return
    limits = {
        "token_balance": CAP - balance,
        "net_bought": CAP - bought,
        "migration_threshold": state.real_token_reserves,
    }
    capacity = min(limits.values())
    requested = exact_tokens_for_sol(state, sol, bps)
    assert plan.capacity_tokens_out == capacity
    assert plan.expected_tokens_out <= CAP and plan.expected_tokens_out <= capacity
    assert plan.expected_sol_in <= plan.authorized_max_sol_in == sol
    assert plan.clamped == (requested > capacity)
    if plan.clamped:
        assert plan.expected_tokens_out == capacity
        assert plan.expected_sol_in == exact_cost(state, capacity, bps)
        assert set(plan.clamp_reasons) == {k for k, v in limits.items() if v == capacity}
    else:
        assert plan.expected_tokens_out == requested and plan.clamp_reasons == ()
        assert plan.expected_sol_in == sol


@settings(max_examples=300, deadline=None)
@given(tokens=st.integers(1, 2 * CAP), bps=st.integers(0, 1000), slack=st.integers(-(10**6), 10**9))
def test_tokens_plan_against_exact_arithmetic(tokens, bps, slack):
    cost = exact_cost(FRESH, tokens, bps)
    ceiling = max(1, cost + slack)
    try:
        plan = plan_first_buy(FRESH, bps, CAP, InitialBuy(tokens=tokens, max_sol_in=ceiling))
    except ApiError as exc:
        if tokens > CAP:
            assert exc.code == "buy_limit_exceeded"
        else:
            assert exc.code == "slippage_exceeded" and ceiling < cost
        return
    assert tokens <= CAP and not plan.clamped
    assert plan.expected_tokens_out == tokens
    assert plan.expected_sol_in == cost <= plan.authorized_max_sol_in == ceiling
