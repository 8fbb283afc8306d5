"""python -m bench.tracker [N ...]: what one tracker pass costs with N open transaction records.

Starts moto (server mode, the template's tables and queues) and the devstack chain, writes N
open records whose signatures the chain does not know (the worst case: every one is looked
up, none moves), and times `partner.features.tracker.run()`: the open-index queries, one
getBlockHeight, getSignatureStatuses in batches of 256, one BatchGetItem of clients. Prints
figures only (bench/results.json belongs to `make bench`).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str]) -> int:
    sizes = [int(a) for a in argv] or [100, 1000, 2000]
    from devstack.aws import aws_env, create_resources, start_moto
    from devstack.chain.server import start_chain

    moto, chain = start_moto(), start_chain(port=0)
    try:
        os.environ.update(aws_env(moto.url))
        os.environ.update(create_resources(ROOT / "template.yaml", moto.url, prefix="bench").environment())
        os.environ.update({"RPC_URL": chain.url, "BLOCK_ENGINE_URL": chain.bundle_url})
        from solders.keypair import Keypair

        from partner.features import tracker
        from partner.store import txrecords
        from partner.core.settings import reset_settings
        from partner.store import ddb

        reset_settings()
        written = 0
        for n in sizes:
            for i in range(written, n):
                signature = str(Keypair().sign_message(i.to_bytes(8, "little")))
                ddb.put(txrecords.table(), {
                    "pk": signature, "signatures": [signature], "kind": "buy", "client_id": "bench", "user_id": "u",
                    "mint": None, "wallet": "w", "last_valid_block_height": 10**12, "sent_at": i, "status": "sent",
                    "track": txrecords.shard(signature), "expires_at": int(time.time()) + 3600})
            written = n
            tracker.run()  # warm
            runs = []
            for _ in range(3):
                started = time.perf_counter()
                summary = tracker.run()
                runs.append(time.perf_counter() - started)
            read = summary["open"]  # at most 2000 a pass (500 per index partition)
            print(f"open records {n:>5}: tracker pass over {read} {min(runs) * 1000:8.1f} ms (best of 3), "
                  f"{min(runs) / read * 1e6:7.1f} us per record, getSignatureStatuses calls {-(-read // 256)}")
    finally:
        chain.stop()
        moto.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
