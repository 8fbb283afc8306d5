"""Constant-product pool math (integers only) for migrated coins.

Base = the coin (token base units), quote = native SOL (lamports). The
protocol fee is charged on the SOL side, rounded up; amounts out round down,
amounts in round up; every value must fit in a u64 (MathOverflow). Same
quote-function names and shapes as partner.chain.curve.
"""

from __future__ import annotations

from dataclasses import dataclass

from .curve import (
    DEFAULT_PROTOCOL_FEE_BPS,
    InsufficientLiquidity,
    InvalidAmount,
    MathOverflow,
    _check_amount,
    _check_fee_bps,
    ceil_div,
    check_u64,
    fee_inclusive_split,
    fee_on,
)

__all__ = [
    "PoolState",
    "SwapResult",
    "MathOverflow",
    "InsufficientLiquidity",
    "InvalidAmount",
    "swap_quote_in",
    "swap_base_in",
    "swap_base_out",
]


@dataclass(frozen=True)
class PoolState:
    base_reserve: int
    quote_reserve: int

    @classmethod
    def of(cls, obj) -> PoolState:
        if isinstance(obj, PoolState):
            return obj
        return cls(obj.base_reserve, obj.quote_reserve)


@dataclass(frozen=True)
class SwapResult:
    amount_in: int  # total paid by the trader (SOL: fee included; tokens: exact)
    amount_out: int  # received by the trader (SOL: net of fee; tokens: exact)
    fee: int  # protocol fee lamports
    state_after: PoolState


def _require_liquidity(s: PoolState) -> None:
    if s.base_reserve == 0 or s.quote_reserve == 0:
        raise InsufficientLiquidity("pool is empty")


def _checked(state, amount: int, name: str, fee_bps: int) -> PoolState:
    """The pool a swap of `amount` (its argument `name`) at `fee_bps` runs on, once the three are valid."""
    s = PoolState.of(state)
    _check_amount(amount, name)
    _check_fee_bps(fee_bps)
    _require_liquidity(s)
    return s


def swap_quote_in(state, quote_in: int, fee_bps: int = DEFAULT_PROTOCOL_FEE_BPS) -> SwapResult:
    """Buy base with `quote_in` lamports total (fee included)."""
    s = _checked(state, quote_in, "quote_in", fee_bps)
    net, fee = fee_inclusive_split(quote_in, fee_bps)
    q = s.quote_reserve + net
    check_u64(q)
    out = s.base_reserve * net // q
    return SwapResult(quote_in, out, fee, PoolState(s.base_reserve - out, q))


def swap_base_out(state, base_out: int, fee_bps: int = DEFAULT_PROTOCOL_FEE_BPS) -> SwapResult:
    """Buy exactly `base_out` tokens; must leave at least one token in the pool."""
    s = _checked(state, base_out, "base_out", fee_bps)
    if base_out >= s.base_reserve:
        raise InsufficientLiquidity("pool cannot fill this size")
    net = ceil_div(s.quote_reserve * base_out, s.base_reserve - base_out)
    fee = fee_on(net, fee_bps)
    total = net + fee
    q = s.quote_reserve + net
    check_u64(net, fee, total, q)
    return SwapResult(total, base_out, fee, PoolState(s.base_reserve - base_out, q))


def swap_base_in(state, base_in: int, fee_bps: int = DEFAULT_PROTOCOL_FEE_BPS) -> SwapResult:
    """Sell `base_in` tokens for SOL; fee = ceil(gross * bps / 1e4) out of the gross."""
    s = _checked(state, base_in, "base_in", fee_bps)
    b = s.base_reserve + base_in
    check_u64(b)
    gross = s.quote_reserve * base_in // b
    fee = fee_on(gross, fee_bps)
    return SwapResult(base_in, gross - fee, fee, PoolState(b, s.quote_reserve - gross))
