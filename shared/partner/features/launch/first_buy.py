"""The creator's first buy in the launch bundle: its plan (the spec's rules 1-6)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from solders.instruction import Instruction
from solders.pubkey import Pubkey

from partner.chain import curve as curve_math
from partner.chain import instructions as ix
from partner.chain.layouts import Global
from partner.core.errors import ApiError
from partner.features.launch.form import LaunchForm
from partner.features.launch.rules import BPS, RULES

CLAMP_LIMITS = ("token_balance", "net_bought", "migration_threshold")


@dataclass(frozen=True)
class FirstBuyPlan:
    authorized_max_sol_in: int
    expected_sol_in: int
    expected_tokens_out: int
    capacity_tokens_out: int
    clamped: bool
    clamp_reasons: tuple[str, ...]
    exact_out: bool  # buy_exact_out(expected_tokens_out, authorized_max_sol_in), else buy(sol, min_tokens_out)
    min_tokens_out: int = 0

    def instruction(self, user: Pubkey, mint: Pubkey, fee_recipient: Pubkey) -> Instruction:
        if self.exact_out:
            return ix.buy_exact_out(user, mint, fee_recipient, self.expected_tokens_out, self.authorized_max_sol_in)
        return ix.buy(user, mint, fee_recipient, self.authorized_max_sol_in, self.min_tokens_out)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": "buy",
            "authorizedMaxSolIn": str(self.authorized_max_sol_in),
            "expectedSolIn": str(self.expected_sol_in),
            "expectedTokensOut": str(self.expected_tokens_out),
            "capacityTokensOut": str(self.capacity_tokens_out),
            "clamped": self.clamped,
            "clampReasons": list(self.clamp_reasons),
        }


def _math(call):
    try:
        return call()
    except curve_math.MathOverflow as exc:
        raise ApiError("math_overflow") from exc
    except curve_math.InsufficientLiquidity as exc:
        raise ApiError("insufficient_liquidity") from exc
    except curve_math.CurveComplete as exc:
        raise ApiError("curve_complete") from exc
    except curve_math.InvalidAmount as exc:
        raise ApiError("invalid_input", str(exc)) from exc


def first_buy_cap(token_total_supply: int, cap_bps: int | None = None, wallet_cap_bps: int = BPS) -> int:
    """Token base units a first buy may reach: 2.5% of supply (and the per-wallet cap if lower)."""
    bps = RULES.first_buy_cap_bps if cap_bps is None else cap_bps
    return min(token_total_supply * bps // BPS, token_total_supply * wallet_cap_bps // BPS)


@dataclass(frozen=True)
class InitialBuy:
    """The first buy a launch asks for: exactly one of `sol` (initialBuySol, with `slippage_bps`)
    and `tokens` (initialBuyTokens, which needs `max_sol_in`: initialBuyMaxSolIn)."""

    sol: int | None = None
    tokens: int | None = None
    max_sol_in: int | None = None
    slippage_bps: int = 0


def plan_first_buy(
    curve: curve_math.CurveState,
    fee_bps: int,
    cap_tokens: int,
    ask: InitialBuy,
    *,
    token_balance: int = 0,
    net_bought: int = 0,
) -> FirstBuyPlan:
    """The first buy on `curve`.

    First-buy plan (rules 1-6 of the spec): the cap is 2.5% of supply (and the per-wallet cap
    when one is set); capacity = min over `token_balance` (cap - balance), `net_bought`
    (cap - net bought) and `migration_threshold` (real tokens left on the curve); at launch both
    balances are zero, so a supply-cap clamp lists `token_balance` and `net_bought` together.
    `initialBuySol` whose tokens exceed the capacity is clamped to an exact-out buy of the
    capacity with `max_sol_in` = initialBuySol; `initialBuyTokens` above it -> 422
    `buy_limit_exceeded`. Per-trade and daily caps do not apply.
    """
    if (ask.sol is None) == (ask.tokens is None):
        raise ApiError("invalid_input", "Send exactly one of initialBuySol and initialBuyTokens.")
    limits = {
        "token_balance": cap_tokens - token_balance,
        "net_bought": cap_tokens - net_bought,
        "migration_threshold": curve.real_token_reserves,
    }
    capacity = max(0, min(limits.values()))
    reasons = tuple(name for name in CLAMP_LIMITS if max(0, limits[name]) == capacity)
    if ask.tokens is not None:
        return _plan_tokens(curve, fee_bps, ask, capacity, reasons)
    return _plan_sol(curve, fee_bps, ask, capacity, reasons)


def _over_capacity(message: str, capacity: int, reasons: tuple[str, ...]) -> ApiError:
    return ApiError("buy_limit_exceeded", message, capacityTokensOut=str(capacity), clampReasons=list(reasons))


def _plan_tokens(
    curve: curve_math.CurveState, fee_bps: int, ask: InitialBuy, capacity: int, reasons: tuple[str, ...]
) -> FirstBuyPlan:
    """initialBuyTokens: exactly that many, within the capacity, at most initialBuyMaxSolIn."""
    tokens, max_sol_in = ask.tokens, ask.max_sol_in
    assert tokens is not None
    if max_sol_in is None:
        raise ApiError("invalid_input", "initialBuyTokens needs initialBuyMaxSolIn.", field="initialBuyMaxSolIn")
    if tokens > capacity:
        raise _over_capacity(
            f"initialBuyTokens {tokens} is over the first buy's capacity {capacity}.", capacity, reasons
        )
    cost = _math(lambda: curve_math.buy_exact_out(curve, tokens, fee_bps)).sol_in
    if cost > max_sol_in:
        raise ApiError(
            "slippage_exceeded",
            f"The first buy costs {cost} lamports, over initialBuyMaxSolIn {max_sol_in}.",
            requiredLamports=str(cost),
        )
    return FirstBuyPlan(max_sol_in, cost, tokens, capacity, False, (), exact_out=True)


def _plan_sol(
    curve: curve_math.CurveState, fee_bps: int, ask: InitialBuy, capacity: int, reasons: tuple[str, ...]
) -> FirstBuyPlan:
    """initialBuySol: what it buys, or clamped to an exact-out buy of the capacity."""
    sol = ask.sol
    assert sol is not None
    bought = _math(lambda: curve_math.buy(curve, sol, fee_bps))
    if not bought.capped and bought.tokens_out <= capacity:
        if bought.tokens_out == 0:
            raise ApiError("invalid_input", "initialBuySol is too small to buy any token.", field="initialBuySol")
        min_out = bought.tokens_out * (BPS - ask.slippage_bps) // BPS
        return FirstBuyPlan(
            sol, bought.sol_in, bought.tokens_out, capacity, False, (), exact_out=False, min_tokens_out=min_out
        )
    if capacity == 0:
        raise _over_capacity("Nothing fits under the first buy's limits.", 0, reasons)
    cost = _math(lambda: curve_math.buy_exact_out(curve, capacity, fee_bps)).sol_in
    return FirstBuyPlan(sol, cost, capacity, capacity, True, reasons, exact_out=True)


def requested_buy(form: LaunchForm, global_config: Global) -> FirstBuyPlan:
    curve = curve_math.CurveState(
        virtual_token_reserves=global_config.initial_virtual_token_reserves,
        virtual_sol_reserves=global_config.initial_virtual_sol_reserves,
        real_token_reserves=global_config.initial_real_token_reserves,
        real_sol_reserves=0,
        token_total_supply=global_config.token_total_supply,
    )
    cap = first_buy_cap(global_config.token_total_supply, wallet_cap_bps=global_config.wallet_cap_bps)
    ask = InitialBuy(form.initial_buy_sol, form.initial_buy_tokens, form.initial_buy_max_sol_in, form.slippage_bps)
    return plan_first_buy(curve, global_config.protocol_fee_bps, cap, ask)
