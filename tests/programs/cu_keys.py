"""Compute units of every instruction of both programs over many random key sets (PDA and ATA
addresses, and with them any bump search's cost, depend on the keys):

    python -m tests.programs.cu_keys --keys 1000     # min / median / max CU per case

Each key set is one seed: the launchpad's coin life (`launchpad_cu.lifecycle`, every instruction)
and a trade run that separates the trades into an existing token account from the ones that
create it; the pool's cases (`pool_cu.measure`). `measure_keys()` is shared with the budget tests
(test_launchpad_cu.py, test_pool_cu.py)."""

from __future__ import annotations

import argparse
import statistics

from .launchpad_chain import SOL, Chain, Result
from .launchpad_cu import lifecycle
from .pool_cu import measure as pool_measure

TRADES = ("buy", "sell", "buy_exact_out")


def _cu(r: Result) -> int:
    assert r.ok, r.logs
    return r.cu - 150  # the compute-budget instruction's own cost


def launchpad_trades(seed: int) -> dict[str, list[int]]:
    """One coin and two fresh traders (keys from `seed`) -> CU per trade case."""
    c = Chain(seed=seed)
    _, mint = c.create_coin()
    c.advance(1, 1)
    m = mint.pubkey()
    u, v = c.wallet(), c.wallet()
    return {
        "buy (creates the ATA)": [_cu(c.buy(u, m, SOL))],
        "buy": [_cu(c.buy(u, m, SOL))],
        "sell": [_cu(c.sell(u, m, c.balance(u.pubkey(), m) // 2))],
        "buy_exact_out": [_cu(c.buy_exact_out(u, m, 10**12, 10 * SOL))],
        "buy_exact_out (creates the ATA)": [_cu(c.buy_exact_out(v, m, 10**12, 10 * SOL))],
    }


def measure_keys(keys: int, first_seed: int = 0) -> dict[str, dict[str, list[int]]]:
    """`keys` key sets (seeds first_seed ..) -> {"launchpad": {case: CU list}, "pool": {case: CU list}}."""
    out: dict[str, dict[str, list[int]]] = {"launchpad": {}, "pool": {}}
    for seed in range(first_seed, first_seed + keys):
        runs = {name: v for name, v in lifecycle(seed).items() if name not in TRADES}
        runs.update(launchpad_trades(seed))
        for name, values in runs.items():
            out["launchpad"].setdefault(name, []).extend(values)
        for name, values in pool_measure().items():  # the pool env draws fresh random keys
            out["pool"].setdefault(name, []).extend(values)
    return out


def spread(values: list[int]) -> float:
    """max / min - 1."""
    return max(values) / min(values) - 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--keys", type=int, default=100, help="number of random key sets")
    ap.add_argument("--first-seed", type=int, default=10_000)
    a = ap.parse_args()
    cu = measure_keys(a.keys, a.first_seed)
    print(f"{a.keys} key sets")
    print(f"{'program':10s} {'case':34s} {'min':>7s} {'median':>7s} {'max':>7s} {'spread':>7s}")
    for program, cases in cu.items():
        for name, v in cases.items():
            print(
                f"{program:10s} {name:34s} {min(v):7d} {round(statistics.median(v)):7d} {max(v):7d} "
                f"{100 * spread(v):6.1f}%"
            )


if __name__ == "__main__":
    main()
