"""Bonding-curve quote math (integers only), shared by the service and the
reference launchpad program. See docs/onchain.md "Curve math".

Rules: constant product on virtual reserves; amounts out round down; amounts
in and fees round up; every amount and every resulting reserve must fit in a
u64, else MathOverflow. A buy that would take more than the remaining real
tokens is capped to the remainder and charged only for it (that buy completes
the curve).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

U64_MAX = (1 << 64) - 1
BPS_DENOMINATOR = 10_000

TOKEN_DECIMALS = 6
TOKEN_TOTAL_SUPPLY = 1_000_000_000 * 10**6
INITIAL_VIRTUAL_TOKEN_RESERVES = 1_073_000_000 * 10**6
INITIAL_VIRTUAL_SOL_RESERVES = 30 * 10**9
INITIAL_REAL_TOKEN_RESERVES = 793_100_000 * 10**6
DEFAULT_PROTOCOL_FEE_BPS = 100


class CurveMathError(Exception):
    """Base of the math errors (each maps to one program error / spec code)."""


class MathOverflow(CurveMathError):
    """A value went past u64 (spec: math_overflow)."""


class InvalidAmount(CurveMathError, ValueError):
    """Zero or negative amount, or bad fee bps (spec: invalid_input)."""


class InsufficientLiquidity(CurveMathError):
    """The venue cannot fill at this size (spec: insufficient_liquidity)."""


class CurveComplete(CurveMathError):
    """The curve has no real tokens left (spec: curve_complete)."""


def ceil_div(a: int, b: int) -> int:
    return -((-a) // b)


def check_u64(*values: int) -> None:
    for v in values:
        if v < 0 or v > U64_MAX:
            raise MathOverflow(f"value {v} outside u64")


def _check_amount(amount: int, name: str) -> None:
    if not isinstance(amount, int) or isinstance(amount, bool):
        raise InvalidAmount(f"{name} must be an integer")
    if amount > U64_MAX:
        raise MathOverflow(f"{name} {amount} exceeds u64")
    if amount <= 0:
        raise InvalidAmount(f"{name} must be greater than 0")


def _check_fee_bps(fee_bps: int) -> None:
    if not (0 <= fee_bps < BPS_DENOMINATOR):
        raise InvalidAmount("fee_bps must be in [0, 10000)")


def fee_on(amount: int, fee_bps: int) -> int:
    """Fee on a SOL amount, rounded up: ceil(amount * fee_bps / 10000)."""
    return ceil_div(amount * fee_bps, BPS_DENOMINATOR)


def fee_inclusive_split(gross_in: int, fee_bps: int) -> tuple[int, int]:
    """Split a gross SOL input into (net, fee) with fee = ceil(gross*bps/(10000+bps)).

    The fee is never below fee_on(net) (fees round up; see docs).
    """
    fee = ceil_div(gross_in * fee_bps, BPS_DENOMINATOR + fee_bps)
    return gross_in - fee, fee


@dataclass(frozen=True)
class CurveState:
    virtual_token_reserves: int = INITIAL_VIRTUAL_TOKEN_RESERVES
    virtual_sol_reserves: int = INITIAL_VIRTUAL_SOL_RESERVES
    real_token_reserves: int = INITIAL_REAL_TOKEN_RESERVES
    real_sol_reserves: int = 0
    token_total_supply: int = TOKEN_TOTAL_SUPPLY
    complete: bool = False

    @classmethod
    def of(cls, obj) -> CurveState:
        """From any object with the reserve attributes (e.g. layouts.BondingCurve)."""
        if isinstance(obj, CurveState):
            return obj
        return cls(
            virtual_token_reserves=obj.virtual_token_reserves,
            virtual_sol_reserves=obj.virtual_sol_reserves,
            real_token_reserves=obj.real_token_reserves,
            real_sol_reserves=obj.real_sol_reserves,
            token_total_supply=obj.token_total_supply,
            complete=bool(obj.complete),
        )


INITIAL_CURVE = CurveState()


@dataclass(frozen=True)
class BuyResult:
    tokens_out: int  # tokens the buyer receives
    sol_in: int  # total lamports charged to the buyer (sol_to_curve + fee)
    fee: int  # protocol fee lamports (to the fee recipient)
    sol_to_curve: int  # lamports added to the curve's real SOL reserves
    capped: bool  # the request was capped to the remaining real tokens
    state_after: CurveState

    @property
    def completes(self) -> bool:
        return self.state_after.complete


@dataclass(frozen=True)
class SellResult:
    tokens_in: int
    sol_out: int  # net lamports to the seller
    fee: int  # protocol fee lamports (to the fee recipient)
    sol_from_curve: int  # gross lamports leaving the curve (sol_out + fee)
    state_after: CurveState


def _require_open(s: CurveState) -> None:
    if s.complete or s.real_token_reserves == 0:
        raise CurveComplete("curve is complete")


def _after_buy(s: CurveState, tokens: int, sol_net: int) -> CurveState:
    vs = s.virtual_sol_reserves + sol_net
    rs = s.real_sol_reserves + sol_net
    check_u64(vs, rs)
    rt = s.real_token_reserves - tokens
    return replace(
        s,
        virtual_token_reserves=s.virtual_token_reserves - tokens,
        virtual_sol_reserves=vs,
        real_token_reserves=rt,
        real_sol_reserves=rs,
        complete=rt == 0,
    )


def _sol_cost_for_tokens(s: CurveState, tokens: int) -> int:
    """Net lamports needed to take `tokens` off the curve (rounded up)."""
    return ceil_div(s.virtual_sol_reserves * tokens, s.virtual_token_reserves - tokens)


def buy_exact_out(state, tokens_out: int, fee_bps: int = DEFAULT_PROTOCOL_FEE_BPS) -> BuyResult:
    """Buy exactly `tokens_out` (capped to the remaining real tokens)."""
    s = CurveState.of(state)
    _check_amount(tokens_out, "tokens_out")
    _check_fee_bps(fee_bps)
    _require_open(s)
    capped = tokens_out > s.real_token_reserves
    tokens = min(tokens_out, s.real_token_reserves)
    sol_net = _sol_cost_for_tokens(s, tokens)
    fee = fee_on(sol_net, fee_bps)
    total = sol_net + fee
    check_u64(sol_net, fee, total)
    return BuyResult(tokens, total, fee, sol_net, capped, _after_buy(s, tokens, sol_net))


def buy(state, sol_in: int, fee_bps: int = DEFAULT_PROTOCOL_FEE_BPS) -> BuyResult:
    """Spend `sol_in` lamports in total (fee included).

    fee = ceil(sol_in * bps / (10000 + bps)); the rest goes to the curve and
    buys floor(vT * net / (vS + net)) tokens. If that is more than the real
    tokens left, the buy takes exactly the remainder and is charged as
    buy_exact_out(remainder), which is never more than sol_in.
    """
    s = CurveState.of(state)
    _check_amount(sol_in, "sol_in")
    _check_fee_bps(fee_bps)
    _require_open(s)
    sol_net, fee = fee_inclusive_split(sol_in, fee_bps)
    check_u64(s.virtual_sol_reserves + sol_net, s.real_sol_reserves + sol_net)
    tokens = s.virtual_token_reserves * sol_net // (s.virtual_sol_reserves + sol_net)
    if tokens > s.real_token_reserves:
        r = buy_exact_out(s, s.real_token_reserves, fee_bps)
        return replace(r, capped=True)
    return BuyResult(tokens, sol_in, fee, sol_net, False, _after_buy(s, tokens, sol_net))


def sell(state, tokens_in: int, fee_bps: int = DEFAULT_PROTOCOL_FEE_BPS) -> SellResult:
    """Sell `tokens_in`: gross = floor(vS * t / (vT + t)); fee = ceil(gross*bps/1e4)."""
    s = CurveState.of(state)
    _check_amount(tokens_in, "tokens_in")
    _check_fee_bps(fee_bps)
    _require_open(s)
    vt = s.virtual_token_reserves + tokens_in
    rt = s.real_token_reserves + tokens_in
    check_u64(vt, rt)
    gross = s.virtual_sol_reserves * tokens_in // vt
    if gross > s.real_sol_reserves:
        raise InsufficientLiquidity("curve holds less SOL than this sell returns")
    fee = fee_on(gross, fee_bps)
    net = gross - fee
    after = replace(
        s,
        virtual_token_reserves=vt,
        virtual_sol_reserves=s.virtual_sol_reserves - gross,
        real_token_reserves=rt,
        real_sol_reserves=s.real_sol_reserves - gross,
    )
    return SellResult(tokens_in, net, fee, gross, after)


def buy_quote(state, sol_in: int, fee_bps: int = DEFAULT_PROTOCOL_FEE_BPS) -> tuple[int, int]:
    """-> (tokens_out, fee). With the completion cap the charge can be below
    sol_in; use buy() for the exact charged amount."""
    r = buy(state, sol_in, fee_bps)
    return r.tokens_out, r.fee


def buy_exact_out_quote(state, tokens_out: int, fee_bps: int = DEFAULT_PROTOCOL_FEE_BPS) -> tuple[int, int]:
    """-> (sol_in_total, fee) for tokens_out (capped to the remaining real tokens)."""
    r = buy_exact_out(state, tokens_out, fee_bps)
    return r.sol_in, r.fee


def sell_quote(state, tokens_in: int, fee_bps: int = DEFAULT_PROTOCOL_FEE_BPS) -> tuple[int, int]:
    """-> (sol_out_net, fee)."""
    r = sell(state, tokens_in, fee_bps)
    return r.sol_out, r.fee


def sol_to_complete(state, fee_bps: int = DEFAULT_PROTOCOL_FEE_BPS) -> int:
    """Total lamports (fee included) a buy needs to take all remaining tokens."""
    s = CurveState.of(state)
    return buy_exact_out(s, s.real_token_reserves, fee_bps).sol_in
