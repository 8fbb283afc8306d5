"""python -m bench.tracker [--json] [--no-webhooks] [N ...]: the tracker with N open transaction records
(default 10, 100, 1000): throughput and lag (`throughput`), then the cost of one pass (`pass_cost`),
on moto and the devstack chain, 150 clients each with a webhook. Prints figures (`--json`: one JSON
object, for `make bench`'s `tracker` part in bench/run.py).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PAUSE = 2.0  # tracker.run_for's default pause between passes that were not full
CLIENTS = 150  # more than one BatchGetItem's 100 keys
SIZES = (10, 100, 1000)


def _record(signature: str, n: int, status_height: int) -> dict:
    from partner.store import txrecords

    return {
        "pk": signature,
        "signatures": [signature],
        "kind": "buy",
        "client_id": f"bench{n % CLIENTS}",
        "user_id": "u",
        "mint": None,
        "wallet": "w",
        "last_valid_block_height": status_height,
        "sent_at": n,
        "status": "sent",
        "track": txrecords.shard(signature),
        "expires_at": int(time.time()) + 3600,
    }


def _own() -> Any:
    """The bench's own DynamoDB client (its writes and counts): a long read timeout, since a busy
    moto can take longer than the service's 5 s to answer what the bench asks between passes."""
    import boto3
    from botocore.config import Config

    return boto3.client("dynamodb", config=Config(read_timeout=300, retries={"max_attempts": 2}))


def _write(table: str, items: list[dict]) -> None:
    from partner.store import ddb

    client = _own()
    for start in range(0, len(items), 25):
        pending = {table: [{"PutRequest": {"Item": ddb.to_item(item)}} for item in items[start : start + 25]]}
        while pending:
            pending = client.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}


def _clients() -> None:
    """The records' clients, each with a webhook (the tracker queues an event per move)."""
    from partner.core.settings import get_settings

    _write(
        get_settings().clients_table,
        [
            {"pk": f"bench{i}", "status": "live", "webhook_url": "https://example.com/hook", "webhook_secret": "x"}
            for i in range(CLIENTS)
        ],
    )


class Drain:
    """The webhook consumer's stand-in: receives and deletes the queued events as the delivery
    function's event source would (moto's SendMessageBatch slows with the queue's length)."""

    def __init__(self) -> None:
        import threading

        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        from partner.core.settings import get_settings
        from partner.store import aws

        sqs, url = aws.client("sqs"), get_settings().webhook_queue_url
        while not self.stopped.is_set():
            try:
                got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1).get("Messages", [])
                if got:
                    entries = [{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(got)]
                    sqs.delete_message_batch(QueueUrl=url, Entries=entries)
            except Exception:  # a busy moto timed out: poll again
                time.sleep(0.1)

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(timeout=10)


def _still_sent() -> int:
    """Open records still `sent` (a COUNT query per index partition: nothing read back)."""
    from partner.store import txrecords

    client, total = _own(), 0
    for part in range(txrecords.shard_count()):
        kwargs: dict[str, Any] = {
            "TableName": txrecords.table(),
            "IndexName": txrecords.OPEN_INDEX,
            "KeyConditionExpression": "track = :t",
            "FilterExpression": "#st = :sent",
            "ExpressionAttributeNames": {"#st": "status"},
            "ExpressionAttributeValues": {":t": {"S": str(part)}, ":sent": {"S": "sent"}},
            "Select": "COUNT",
        }
        while True:
            page = client.query(**kwargs)
            total += int(page.get("Count", 0))
            if not page.get("LastEvaluatedKey"):
                break
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
    return total


def throughput(chain_url: str, n: int) -> dict[str, Any]:
    """N transactions land in a burst (airdrops: real landed signatures), their records are written
    as the service writes them (`sent`), and passes run as the scheduled function runs them
    (`tracker.run_for`'s rule) until no record is `sent`. Records moved per second = N / the time of
    the passes that moved them; lag = from the burst's last landing to the end of the pass that moved
    the last record (it includes the devstack's one-slot confirmation, 400 ms). Whether a record is
    still `sent` is asked between passes with a COUNT query, outside the passes' time."""
    from concurrent.futures import ThreadPoolExecutor

    from solders.keypair import Keypair

    from partner.features import tracker
    from partner.store import txrecords
    from tests.chainutil import rpc

    height = int(rpc(chain_url, "getBlockHeight"))
    with ThreadPoolExecutor(8) as pool:
        signatures = list(
            pool.map(lambda _: rpc(chain_url, "requestAirdrop", [str(Keypair().pubkey()), 1_000_000]), range(n))
        )
    landed = time.monotonic()
    _write(txrecords.table(), [_record(s, i, height + 150) for i, s in enumerate(signatures)])
    busy, passes, moved, events, errors, limit = 0.0, 0, 0, 0, 0, max(2000, 2 * n)
    while True:
        started = time.monotonic()
        summary = tracker.run(limit=limit)
        ended = time.monotonic()
        busy += ended - started
        passes += 1
        moved += summary["moved"]
        events += summary["events"]
        errors += summary["errors"]
        if not _still_sent():
            break
        time.sleep(0 if summary["open"] >= limit else PAUSE)
    return {
        "records": n,
        "records_per_s": round(n / busy, 1),
        "passes": passes,
        "pass_ms": round(busy * 1000),
        "lag_s": round(ended - landed, 2),
        "moved": moved,
        "events": events,
        "errors": errors,
    }


def pass_cost(n: int) -> dict[str, Any]:
    """The time of one `tracker.run()` pass over N open records whose signatures the chain does not
    know (the worst case: every one is looked up, none moves)."""
    from solders.keypair import Keypair

    from partner.features import tracker
    from partner.store import txrecords

    _write(
        txrecords.table(),
        [_record(str(Keypair().sign_message(i.to_bytes(8, "little"))), i, 10**12) for i in range(n)],
    )
    tracker.run(limit=10**6)  # warm
    runs = []
    for _ in range(3):
        started = time.perf_counter()
        summary = tracker.run(limit=10**6)
        runs.append(time.perf_counter() - started)
    return {"open": summary["open"], "best_ms": round(min(runs) * 1000, 1)}


def line(kind: str, row: dict[str, Any]) -> str:
    if kind == "throughput":
        return (
            f"{row['records']:>5} landed records: moved {row['records_per_s']:8.0f} records/s over {row['passes']} "
            f"passes ({row['pass_ms']:7d} ms in passes), lag landing -> confirmed {row['lag_s']:5.2f} s"
        )
    return (
        f"pass over {row['open']:>5} unknown records {row['best_ms']:8.1f} ms (best of 3), "
        f"{row['best_ms'] / row['open'] * 1000:7.1f} us per record"
    )


def measure(sizes: list[int], out: Any = None, hooks: bool = True) -> dict[str, Any]:
    """Every size's throughput and lag, then every size's pass cost, on a moto and a chain of their own.
    Each figure's line is printed to `out` as it is measured."""
    from devstack.aws import aws_env, create_resources, start_moto
    from devstack.chain.server import start_chain

    result: dict[str, Any] = {
        "measured_at": time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()),
        "load_average": [round(os.getloadavg()[0], 2)],
        "throughput": [],
        "pass_cost": [],
        "lines": [],
    }
    moto, chain = start_moto(), start_chain(port=0, plugins=False)
    try:
        os.environ.update(aws_env(moto.url))
        os.environ.update(create_resources(ROOT / "template.yaml", moto.url, prefix="bench").environment())
        os.environ.update({"RPC_URL": chain.url, "RPC_URLS": chain.url, "BLOCK_ENGINE_URL": chain.bundle_url})
        from partner.core.settings import get_settings, reset_settings

        reset_settings()
        if hooks:
            _clients()
        result["webhooks"] = hooks
        drain = Drain()
        result["shards"] = int(get_settings().tracker_shards)
        for kind, run in (("throughput", lambda n: throughput(chain.url, n)), ("pass_cost", pass_cost)):
            for n in sizes:
                row = run(n)
                result[kind].append(row)
                result["lines"].append(f"open records {n:>5}: {line(kind, row)}")
                if out is not None:
                    print(result["lines"][-1], file=out, flush=True)
        drain.stop()
    finally:
        chain.stop()
        moto.stop()
    result["load_average"].append(round(os.getloadavg()[0], 2))
    return result


def main(argv: list[str]) -> int:
    as_json = "--json" in argv
    sizes = [int(a) for a in argv if not a.startswith("--")] or list(SIZES)
    result = measure(sizes, out=sys.stderr if as_json else sys.stdout, hooks="--no-webhooks" not in argv)
    if as_json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
