"""Fee estimate math (partner/features/fees.py): percentiles, lamports for the trade's compute-unit limit."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from partner.features import fees


@settings(deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=10**12), max_size=150))
def test_percentiles_are_monotonic_and_never_below_the_minimums(prices):
    out = fees.from_samples("mint", [{"slot": i, "prioritizationFee": p} for i, p in enumerate(prices)], [])
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
    assert fees.lamports_for(10_000_000) == 332_600  # a trade's limit: 33,260 units (the dearest trade's, units)
    assert fees.lamports_for(10_000_001) == 332_601


@settings(deadline=None)
@given(
    st.lists(st.integers(min_value=1, max_value=10**12), min_size=1, max_size=60),
    st.integers(min_value=0, max_value=150),
)
def test_slots_where_nothing_paid_do_not_pull_the_estimate_down(paid, unpaid):
    """Mainnet's per-slot answer is 0 wherever the accounts were not written at a price: those slots
    are left out, so the estimate is what the paid slots alone give, however many empty ones."""
    samples = [{"slot": i, "prioritizationFee": p} for i, p in enumerate(paid)]
    mixed = samples + [{"slot": 1000 + i, "prioritizationFee": 0} for i in range(unpaid)]
    alone, out = fees.from_samples("m", samples, []), fees.from_samples("m", mixed, [])
    assert {k: v for k, v in out.items() if k != "sampledSlots"} == {
        k: v for k, v in alone.items() if k != "sampledSlots"
    }
    assert out["slots"] == len(paid) and out["sampledSlots"] == len(paid) + unpaid
    ranked = sorted(paid)
    assert int(out["recommended"]["computeUnitPriceMicroLamports"]) == ranked[-(-75 * len(ranked) // 100) - 1]
    assert out["recommended"]["percentile"] == 75
    assert out["recommended"]["priorityFeeLamports"] == str(fees.lamports_for(ranked[-(-75 * len(ranked) // 100) - 1]))


def test_a_market_with_no_paid_slot_is_the_minimum():
    out = fees.from_samples("m", [{"slot": i, "prioritizationFee": 0} for i in range(150)], [])
    assert out["slots"] == 0 and out["sampledSlots"] == 150
    assert set(out["priorityFeeLamports"].values()) == {"1000"} and out["recommended"]["priorityFeeLamports"] == "1000"


def test_the_accounts_are_what_a_trade_write_locks_without_the_traders_own():
    from solders.keypair import Keypair

    from partner.chain import instructions as ix
    from partner.chain import programs as P

    mint, recipient, pool_recipient, trader = (Keypair().pubkey() for _ in range(4))
    got = fees.trade_accounts(mint, [recipient, pool_recipient])
    curve = P.bonding_curve_pda(mint)[0]
    pool = P.pool_pda(mint)[0]
    expected = {
        curve,
        P.associated_token_address(curve, mint),
        pool,
        P.associated_token_address(pool, mint),
        recipient,
        pool_recipient,
    }
    assert set(got) == expected and len(got) == len(expected)
    for instruction in (
        ix.buy(trader, mint, recipient, 1, 1),
        ix.sell(trader, mint, recipient, 1, 1),
        ix.swap(trader, mint, pool_recipient, True, 1, 1),
    ):
        written = {m.pubkey for m in instruction.accounts if m.is_writable}
        assert written - {trader, P.associated_token_address(trader, mint)} <= expected
