"""Constants and the address check shared by the request models and light read routes
(fees/estimate), without importing pydantic or the trade planner."""

from __future__ import annotations

import re

from solders.pubkey import Pubkey

# the dearest trade's compute-unit limit (partner.chain.units.DEAREST_TRADE_UNITS): the fee estimate's
TRADE_UNITS = 33_260
MIN_PRIORITY_FEE = 1000  # lamports, the spec's minimums
MIN_TIP = 1_000_000
# The largest priorityFeeLamports accepted (input validation): the compute-unit price
# ceil(fee * 1e6 / units) then fits u64 for every compute-unit limit (>= 1), so building the
# SetComputeUnitPrice instruction cannot overflow. 18,446,744,073,709 lamports (about 18,447 SOL).
MAX_PRIORITY_FEE = (2**64 - 1) // 1_000_000
_BASE58 = re.compile(r"[1-9A-HJ-NP-Za-km-z]{32,44}")  # fullmatch: `$` also matches before "\n"


def check_address(value: str) -> str:
    """A Base58 public key, else ValueError."""
    if not _BASE58.fullmatch(value):
        raise ValueError("must be a Base58 public key")
    try:
        Pubkey.from_string(value)
    except ValueError as exc:
        raise ValueError("must be a Base58 public key") from exc
    return value
