"""python -m bench.tracker [N ...]: the tracker with N open transaction records.

Starts moto (server mode, the template's tables and queues) and the devstack chain. For each N:

- pass cost: N open records whose signatures the chain does not know (the worst case: every
  one is looked up, none moves), and the time of one `tracker.run()` pass;
- throughput and lag: N transactions land in a burst (airdrops: real landed signatures), their
  records are written as the service writes them (`sent`), and passes run as the scheduled
  function runs them (`tracker.run_for`'s rule: the next pass at once after a full pass, else
  after the pause) until every record is `confirmed` or further. Records moved per second =
  N / the time of the passes that moved them; lag = from the burst's last landing to the last
  record's move (it includes the devstack's one-slot confirmation, 400 ms).

Prints figures only (bench/results.json belongs to `make bench`).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAUSE = 2.0  # tracker.run_for's default pause between passes that were not full


def _record(signature: str, n: int, status_height: int) -> dict:
    from partner.store import txrecords

    return {
        "pk": signature,
        "signatures": [signature],
        "kind": "buy",
        "client_id": f"bench{n % 150}",
        "user_id": "u",
        "mint": None,
        "wallet": "w",
        "last_valid_block_height": status_height,
        "sent_at": n,
        "status": "sent",
        "track": txrecords.shard(signature),
        "expires_at": int(time.time()) + 3600,
    }


def _write(items: list[dict]) -> None:
    from partner.store import ddb, txrecords

    for start in range(0, len(items), 25):
        ddb.batch_write(txrecords.table(), items[start : start + 25])


def pass_cost(n: int) -> str:
    from solders.keypair import Keypair

    from partner.features import tracker

    _write([_record(str(Keypair().sign_message(i.to_bytes(8, "little"))), i, 10**12) for i in range(n)])
    tracker.run(limit=10**6)  # warm
    runs = []
    for _ in range(3):
        started = time.perf_counter()
        summary = tracker.run(limit=10**6)
        runs.append(time.perf_counter() - started)
    read = summary["open"]
    return (
        f"pass over {read:>5} unknown records {min(runs) * 1000:8.1f} ms (best of 3), "
        f"{min(runs) / read * 1e6:7.1f} us per record"
    )


def throughput(chain_url: str, n: int) -> str:
    from concurrent.futures import ThreadPoolExecutor

    from solders.keypair import Keypair

    from partner.features import tracker
    from partner.store import ddb, txrecords
    from tests.chainutil import rpc

    height = int(rpc(chain_url, "getBlockHeight"))
    with ThreadPoolExecutor(8) as pool:
        signatures = list(
            pool.map(lambda _: rpc(chain_url, "requestAirdrop", [str(Keypair().pubkey()), 1_000_000]), range(n))
        )
    landed = time.monotonic()
    _write([_record(s, i, height + 150) for i, s in enumerate(signatures)])
    busy, passes, remaining, limit = 0.0, 0, set(signatures), max(2000, 2 * n)
    while remaining:
        started = time.monotonic()
        summary = tracker.run(limit=limit)
        busy += time.monotonic() - started
        passes += 1
        got = ddb.batch_get({txrecords.table(): sorted(remaining)})[txrecords.table()]
        remaining = {s for s in remaining if got[s]["status"] == "sent"}
        if remaining:
            time.sleep(0 if summary["open"] >= limit else PAUSE)
    lag = time.monotonic() - landed
    return (
        f"{n:>5} landed records: moved {n / busy:8.0f} records/s over {passes} passes "
        f"({busy * 1000:7.0f} ms in passes), lag landing -> confirmed {lag:5.2f} s"
    )


def main(argv: list[str]) -> int:
    sizes = [int(a) for a in argv] or [10, 100, 1000]
    from devstack.aws import aws_env, create_resources, start_moto
    from devstack.chain.server import start_chain

    moto, chain = start_moto(), start_chain(port=0)
    try:
        os.environ.update(aws_env(moto.url))
        os.environ.update(create_resources(ROOT / "template.yaml", moto.url, prefix="bench").environment())
        os.environ.update({"RPC_URL": chain.url, "RPC_URLS": chain.url, "BLOCK_ENGINE_URL": chain.bundle_url})
        from partner.core.settings import reset_settings

        reset_settings()
        for n in sizes:
            print(f"open records {n:>5}: {throughput(chain.url, n)}", flush=True)
        for n in sizes:
            print(f"open records {n:>5}: {pass_cost(n)}", flush=True)
    finally:
        chain.stop()
        moto.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
