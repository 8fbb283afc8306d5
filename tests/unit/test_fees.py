"""Fee estimate math (partner/features/fees.py): percentiles, lamports for the trade's compute-unit limit."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from partner.features import fees


@settings(deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=10**12), max_size=150))
def test_percentiles_are_monotonic_and_never_below_the_minimums(prices):
    out = fees.from_samples("mint", [{"slot": i, "prioritizationFee": p} for i, p in enumerate(prices)])
    lamports = [int(out["priorityFeeLamports"][k]) for k in ("p25", "p50", "p75", "p95")]
    micro = [int(out["computeUnitPriceMicroLamports"][k]) for k in ("p25", "p50", "p75", "p95")]
    assert lamports == sorted(lamports) and micro == sorted(micro)
    assert lamports[0] >= 1000 and int(out["tipLamports"]) == 1_000_000
    for fee, price in zip(lamports, micro, strict=True):  # the fee buys at least the price
        assert fee * 1_000_000 // out["computeUnitLimit"] >= price
        assert all(isinstance(v, str) and v.isdigit() for v in out["priorityFeeLamports"].values())


def test_nearest_rank_percentiles_and_rounding_up():
    assert fees.percentile([], 50) == 0
    assert [fees.percentile([1, 2, 3, 4], p) for p in (25, 50, 75, 95)] == [1, 2, 3, 4]
    assert fees.lamports_for(0) == 1000  # the spec minimum
    assert fees.lamports_for(10_000_000, 200_000) == 2_000_000  # 10 lamports per unit x 200,000 units
    assert fees.lamports_for(10_000_001, 200_000) == 2_000_001  # rounded up: never below the price
    assert fees.lamports_for(10_000_000) == 1_300_000  # a trade's limit: 130,000 units (measured, pipeline)
    assert fees.lamports_for(10_000_001) == 1_300_001
