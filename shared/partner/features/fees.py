"""Fees: the client's fee ceiling on every write (issue 17), and GET /partner/v1/fees/estimate
(issue 11): what priority fee a trade on a mint needs now.

Ceiling: a tip or a priority fee is not trade volume, so the caps do not bound it; each client has
`max_fee_lamports` (default 0.1 SOL, the `default_max_fee_lamports` setting; `partnerctl client
limits`), and every write refuses a transaction whose `priorityFeeLamports + tipLamports` is over
it (a launch bundle: the sum over its transactions) with 400 `invalid_input` naming the larger of
the two fields (the tip on a tie) and `maxFeeLamports`. It is an added refusal, checked last by
the send pipeline (partner.features.pipeline), after every spec check and before signing, so that
a spec error of the same request answers first (issue 25 item 5).

Estimate:
The chain's `getRecentPrioritizationFees` for the accounts a trade on the mint writes (its
bonding curve and its pool: whichever is live is the contended one; the other is idle and
adds nothing) gives, per recent slot, the compute-unit price (micro-lamports) that landed a
transaction writing them. Percentiles (nearest rank) of those prices, converted to lamports
for the service's compute-unit limit of a trade (`limits.TRADE_UNITS`) and rounded up, so
that `priorityFeeLamports` sent back to a trade pays at least that price; never below the
spec's minimum. `tipLamports` is the spec's minimum tip.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from partner.chain import programs as P
from partner.chain.rpc import Rpc
from partner.core.errors import ApiError
from partner.core.limits import MIN_PRIORITY_FEE, MIN_TIP, TRADE_UNITS, check_address
from partner.core.settings import get_settings

if TYPE_CHECKING:
    from partner.edge.access import Principal

PERCENTILES = (25, 50, 75, 95)
MICRO_LAMPORTS = 1_000_000


def check_ceiling(principal: Principal, priority_fee: int, tip: int, *, transactions: int = 1,
                  extra_tip: int = 0, field: str | None = None) -> None:
    """400 invalid_input when `transactions` x `priority_fee` + `tip` + `extra_tip` (what the write's
    transactions spend besides their program's movements) is over the client's ceiling."""
    ceiling = principal.client.max_fee_lamports
    total = transactions * priority_fee + tip + extra_tip
    if total <= ceiling:
        return
    name = field or ("tipLamports" if tip >= priority_fee else "priorityFeeLamports")
    raise ApiError("invalid_input", f"{name}: priorityFeeLamports + tipLamports come to {total} lamports, over "
                                    f"this client's fee ceiling of {ceiling} per transaction.",
                   field=name, maxFeeLamports=str(ceiling))


def parse_mint(query: dict[str, list[str]]) -> str:
    values = query.get("mint") or []
    if len(values) != 1:
        raise ApiError("invalid_input", "mint is required, once." if not values else "mint is repeated.",
                       field="mint")
    try:
        return check_address(values[0])
    except ValueError as exc:
        raise ApiError("invalid_input", "mint must be a Base58 public key.", field="mint") from exc


def percentile(sorted_values: list[int], p: int) -> int:
    """Nearest-rank percentile of ascending values (0 for none)."""
    if not sorted_values:
        return 0
    rank = max(1, math.ceil(p / 100 * len(sorted_values)))
    return sorted_values[rank - 1]


def lamports_for(micro_lamports_per_unit: int, units: int = TRADE_UNITS) -> int:
    """The priority fee in lamports that buys at least this compute-unit price, at least the minimum."""
    return max(MIN_PRIORITY_FEE, -(-micro_lamports_per_unit * units // MICRO_LAMPORTS))


def from_samples(mint: str, samples: list[dict[str, Any]]) -> dict[str, Any]:
    prices = sorted(int(s.get("prioritizationFee") or 0) for s in samples)
    price = {f"p{p}": percentile(prices, p) for p in PERCENTILES}
    return {
        "mint": mint,
        "computeUnitLimit": TRADE_UNITS,
        "priorityFeeLamports": {k: str(lamports_for(v)) for k, v in price.items()},
        "computeUnitPriceMicroLamports": {k: str(v) for k, v in price.items()},
        "tipLamports": str(MIN_TIP),
        "slots": len(prices),
    }


def estimate(mint: str, rpc: Rpc | None = None) -> dict[str, Any]:
    rpc = rpc or Rpc(get_settings().rpc_endpoints)
    accounts = [str(P.bonding_curve_pda(mint)[0]), str(P.pool_pda(mint)[0])]
    samples = rpc.call("getRecentPrioritizationFees", [accounts]) or []
    return from_samples(mint, samples)
