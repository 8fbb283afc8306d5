"""python -m bench.tracker [--json] [--no-webhooks] [N ...]: the tracker with N open transaction records
(default 10, 100, 1000): throughput and lag (`throughput`), with one group of index partitions and with
TRACKER_GROUPS groups passing at once (as the scheduled function fans out: on the model, a pass takes the
longest group's time, since each group runs in an invocation, so on a CPU, of its own), then the cost of
one pass (`pass_cost`), on moto (a process of its own) and the devstack chain, 150 clients each with a
webhook, on the wall clock and on the latency model's (`ModelClock`). Prints figures (`--json`: one JSON object, for
`make bench`'s `tracker` part in bench/run.py).
"""

from __future__ import annotations

import heapq
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PAUSE = 1.0  # tracker.run_for's default pause between passes that were not full
SQS_MS = 20.0  # SendMessageBatch on the model: devstack.latency has no SQS figure; an assumption
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


def _patient_clients() -> None:
    """The service's clients wait up to 300 s for an answer (its own: 5 s): moto answers one request
    at a time, and under four groups passing at once it kept a group's index query waiting past 5 s,
    so every pass failed. Neither clock counts that wait (moto's time is in neither)."""
    from botocore.config import Config

    from partner.store import aws

    real = aws._config

    def patient(name: str) -> Config:
        return real(name).merge(Config(read_timeout=300))

    aws._config = patient
    aws.reset()


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


class ModelClock:
    """A pass's time on the latency model: its own CPU plus the model's time of its calls.

    On each thread: the thread's CPU time (`time.thread_time`: not the time it waits for a call's
    answer, nor for the interpreter lock while moto's or the chain's threads run) plus, per call,
    the model's figure for its kind (`devstack.latency.DEFAULTS`; SQS `SQS_MS`). The calls a pass
    makes at once (`parallel.map_at_most`) overlap: each task's time (its CPU and its calls) is
    placed on the map's workers in order, each task on the first free worker, and the map takes the
    longer of that schedule's end and the sum of the tasks' CPU (one interpreter runs one thread's
    Python at a time). moto's own time, which is spent one request at a time, is in neither."""

    def __init__(self, figures: dict[str, float]) -> None:
        self.figures = figures
        self._local = threading.local()
        self.calls: dict[str, int] = {}
        self.follows = False  # whether the pass's fan-out runs through `parallel.map_at_most`

    def _charge(self, kind: str) -> None:
        self.calls[kind] = self.calls.get(kind, 0) + 1
        self._local.ms = getattr(self._local, "ms", 0.0) + self.figures.get(kind, 0.0)

    def _after_call(self, event_name: str = "", **_: Any) -> None:
        service, operation = event_name.split(".")[1:3]
        if service == "dynamodb":
            self._charge("transact" if operation.startswith("Transact") else "ddb")
        elif service in ("kms", "sqs"):
            self._charge(service)

    def _get(self, name: str) -> float:
        return float(getattr(self._local, name, 0.0))

    def start(self) -> tuple[float, float, float, float]:
        """This thread's mark (CPU s, model ms, CPU s left out, its maps' tasks' CPU ms) for `since`."""
        return time.thread_time(), self._get("ms"), self._get("excluded"), self._get("task_cpu")

    def since(self, mark: tuple[float, float, float, float]) -> tuple[float, float]:
        """(ms on the model, of which CPU ms: this thread's and its maps' tasks') on this thread since `mark`."""
        cpu0, ms0, excluded0, task_cpu0 = mark
        cpu = (time.thread_time() - cpu0 - (self._get("excluded") - excluded0)) * 1000
        return cpu + self._get("ms") - ms0, cpu + self._get("task_cpu") - task_cpu0

    def _map(self, real: Callable[..., list[Any]]) -> Callable[..., list[Any]]:
        def clocked(fn: Callable[[Any], Any], items: list[Any], workers: int) -> list[Any]:
            spans: list[tuple[float, float]] = [(0.0, 0.0)] * len(items)  # each task's (ms, CPU ms)

            def task(job: tuple[int, Any]) -> Any:
                mark = self.start()
                try:
                    return fn(job[1])
                finally:
                    spans[job[0]] = self.since(mark)

            local = self._local
            before, ms, task_cpu = time.thread_time(), self._get("ms"), self._get("task_cpu")
            results = real(task, list(enumerate(items)), workers)
            # a task run on this thread (a map of one) is counted by the schedule, not here too
            local.excluded = self._get("excluded") + time.thread_time() - before
            free = [0.0] * max(1, min(workers, len(items)))
            for took, _cpu in spans:
                heapq.heappush(free, heapq.heappop(free) + took)
            cpu = sum(cpu for _took, cpu in spans)
            local.ms, local.task_cpu = ms + max(max(free), cpu), task_cpu + cpu
            return results

        return clocked

    def install(self) -> None:
        from devstack.latency import rpc_kind
        from partner.chain import rpc as rpc_module
        from partner.core import parallel
        from partner.store import aws

        aws.add_hook("after-call", self._after_call)
        real_post = rpc_module.Rpc._post_to

        def post_to(rpc: Any, url: str, payload: str, *, sending: bool) -> Any:
            request = json.loads(payload)
            methods = [r.get("method", "") for r in (request if isinstance(request, list) else [request])]
            try:
                return real_post(rpc, url, payload, sending=sending)
            finally:
                self._charge(rpc_kind(methods) or "unmodeled")

        patched: Any = post_to
        rpc_module.Rpc._post_to = patched  # type: ignore[method-assign]  # timing patch
        if hasattr(parallel, "map_at_most"):  # (an older checkout, measured for comparison, has none: no model)
            parallel.map_at_most = self._map(parallel.map_at_most)
            self.follows = True


class Drain:
    """The webhook consumer's stand-in: receives and deletes the queued events as the delivery
    function's event source would (moto's SendMessageBatch slows with the queue's length)."""

    THREADS = 4  # pollers at once (one fell behind 8 senders, and moto's send slows with the queue's length)

    def __init__(self) -> None:
        self.stopped = threading.Event()
        self.threads = [threading.Thread(target=self._run, daemon=True) for _ in range(self.THREADS)]
        for thread in self.threads:
            thread.start()

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
        for thread in self.threads:
            thread.join(timeout=10)


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


def _group_pass(clock: ModelClock, parts: list[list[int]], limit: int) -> tuple[list[dict[str, Any]], float, float]:
    """One pass of each group of partitions at once, each on a thread of its own as each runs in an
    invocation of its own: (the groups' summaries, the pass's model ms, its CPU ms). The invocations
    have CPUs of their own, so on the model the pass takes the longest group's time (its CPU, the
    CPU of that group); here their threads share one interpreter, which the wall clock shows."""
    from partner.jobs import tracker

    failed = {"open": 0, "moved": 0, "events": 0, "errors": 1}  # a pass that raised (the next one retries)
    out: list[tuple[dict[str, Any], float, float]] = [(failed, 0.0, 0.0)] * len(parts)

    def one(at: int) -> None:
        mark = clock.start()
        try:
            summary = tracker.run(limit=limit, shards=parts[at])
        except Exception as exc:  # on Lambda the invocation fails; the next scheduled run retries
            print(f"bench.tracker: a pass of partitions {parts[at]} failed: {exc!r}", file=sys.stderr, flush=True)
            summary = failed
        out[at] = (summary, *clock.since(mark))

    threads = [threading.Thread(target=one, args=(at,)) for at in range(len(parts))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    _summary, ms, cpu_ms = max(out, key=lambda got: got[1])
    return [got[0] for got in out], ms, cpu_ms


def throughput(chain_url: str, n: int, clock: ModelClock, groups: int = 1) -> dict[str, Any]:
    """N transactions land in a burst (airdrops: real landed signatures), their records are written
    as the service writes them (`sent`), and passes run as the scheduled function runs them until no
    record is `sent`: each of `groups` groups of index partitions (`tracker.groups`) passes on a thread
    of its own (`_group_pass`: on Lambda, the scheduled invocation and one it invokes per other group),
    each pass after the last (`tracker.run_for`'s rule: at once while a group's pass was full).
    Records moved per second = N / the time of the passes that moved them; lag = from the burst's last
    landing to the end of the pass that moved the last record (it includes the devstack's one-slot
    confirmation, 400 ms). Whether a record is still `sent` is asked between passes with a COUNT query,
    outside the passes' time.
    On the model (`clock`): the same passes' time on `ModelClock`, a pass the longest group's (the
    groups' invocations run on CPUs of their own); the lag is one pause (the longest a landing waits
    for the next pass; it covers the 400 ms confirmation), then the passes' time on the model and the
    pauses between them."""
    from concurrent.futures import ThreadPoolExecutor

    from solders.keypair import Keypair

    from partner.jobs import tracker
    from partner.store import txrecords
    from testkit.chain import rpc

    height = int(rpc(chain_url, "getBlockHeight"))
    with ThreadPoolExecutor(8) as pool:
        signatures = list(
            pool.map(lambda _: rpc(chain_url, "requestAirdrop", [str(Keypair().pubkey()), 1_000_000]), range(n))
        )
    landed = time.monotonic()
    _write(txrecords.table(), [_record(s, i, height + 150) for i, s in enumerate(signatures)])
    row = {"records": n, "groups": groups, "passes": 0, "moved": 0, "events": 0, "errors": 0}
    busy, model, cpu, pauses, limit = 0.0, 0.0, 0.0, PAUSE, max(2000, 2 * n)
    parts = tracker.groups(groups)
    while True:
        started = time.monotonic()
        summaries, ms, cpu_ms = _group_pass(clock, parts, limit)
        ended = time.monotonic()
        busy, model, cpu = busy + ended - started, model + ms / 1000, cpu + cpu_ms / 1000
        row["passes"] += 1
        for key in ("moved", "events", "errors"):
            row[key] += sum(summary[key] for summary in summaries)
        if not _still_sent():
            break
        pause = 0 if any(summary["open"] >= limit for summary in summaries) else PAUSE
        pauses += pause
        time.sleep(pause)
    return {
        **row,
        "records_per_s": round(n / busy, 1),
        "pass_ms": round(busy * 1000),
        "lag_s": round(ended - landed, 2),
        "model_records_per_s": round(n / model, 1),
        "model_pass_ms": round(model * 1000),
        "model_cpu_ms": round(cpu * 1000),
        "model_lag_s": round(model + pauses, 2),
    }


def pass_cost(n: int, clock: ModelClock) -> dict[str, Any]:
    """The time of one `tracker.run()` pass over N open records whose signatures the chain does not
    know (the worst case: every one is looked up, none moves), on the wall clock and on the model."""
    from solders.keypair import Keypair

    from partner.jobs import tracker
    from partner.store import txrecords

    _write(
        txrecords.table(),
        [_record(str(Keypair().sign_message(i.to_bytes(8, "little"))), i, 10**12) for i in range(n)],
    )
    tracker.run(limit=10**6)  # warm
    runs, model = [], []
    for _ in range(3):
        started, mark = time.perf_counter(), clock.start()
        summary = tracker.run(limit=10**6)
        runs.append(time.perf_counter() - started)
        model.append(clock.since(mark)[0])
    return {"open": summary["open"], "best_ms": round(min(runs) * 1000, 1), "model_ms": round(min(model), 1)}


def line(kind: str, row: dict[str, Any]) -> str:
    if kind == "throughput":
        return (
            f"{row['records']:>5} landed records, {row['groups']} group(s): moved {row['records_per_s']:8.0f} "
            f"records/s over {row['passes']} "
            f"passes ({row['pass_ms']:7d} ms in passes), lag landing -> confirmed {row['lag_s']:5.2f} s; "
            f"on the model {row['model_records_per_s']:8.0f} records/s ({row['model_pass_ms']} ms, "
            f"{row['model_cpu_ms']} ms of it CPU), lag {row['model_lag_s']:5.2f} s"
        )
    return (
        f"pass over {row['open']:>5} unknown records {row['best_ms']:8.1f} ms (best of 3), "
        f"{row['best_ms'] / row['open'] * 1000:7.1f} us per record; on the model {row['model_ms']:8.1f} ms"
    )


def _moto_process() -> tuple[subprocess.Popen[str], str]:
    """moto in a process of its own (as DynamoDB and SQS are not in the tracker's): its CPU and its
    one-request-at-a-time lock are then not the tracker's interpreter's. (process, URL)"""
    code = (
        "import sys, time\nfrom devstack.aws import start_moto\nprint(start_moto().url, flush=True)\nsys.stdin.read()\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


def measure(sizes: list[int], out: Any = None, hooks: bool = True) -> dict[str, Any]:
    """Every size's throughput and lag, then every size's pass cost, on a moto and a chain of their own.
    Each figure's line is printed to `out` as it is measured."""
    from devstack.aws import aws_env, create_resources
    from devstack.chain.server import start_chain
    from devstack.latency import DEFAULTS

    result: dict[str, Any] = {
        "measured_at": time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()),
        "load_average": [round(os.getloadavg()[0], 2)],
        "throughput": [],
        "pass_cost": [],
        "lines": [],
        "model_ms": {**DEFAULTS, "sqs": SQS_MS},
    }
    (moto, url), chain = _moto_process(), start_chain(port=0, plugins=False)
    try:
        os.environ.update(aws_env(url))
        os.environ.update(create_resources(ROOT / "template.yaml", url, prefix="bench").environment())
        os.environ.update({"RPC_URL": chain.url, "RPC_URLS": chain.url, "BLOCK_ENGINE_URL": chain.bundle_url})
        from partner.core.settings import get_settings, reset_settings
        from partner.jobs import tracker

        reset_settings()
        _patient_clients()
        clock = ModelClock(result["model_ms"])
        clock.install()
        if hooks:
            _clients()
        fanned = len(tracker.groups())  # TRACKER_GROUPS, clamped to the partitions
        result.update(
            webhooks=hooks, shards=int(get_settings().tracker_shards), groups=fanned, model_follows=clock.follows
        )
        drain = Drain()
        for kind in ("throughput", "pass_cost"):
            for n in sizes:
                for groups in sorted({1, fanned}) if kind == "throughput" else [1]:
                    row = throughput(chain.url, n, clock, groups) if kind == "throughput" else pass_cost(n, clock)
                    result[kind].append(row)
                    result["lines"].append(f"open records {n:>5}: {line(kind, row)}")
                    if out is not None:
                        print(result["lines"][-1], file=out, flush=True)
        drain.stop()
    finally:
        chain.stop()
        moto.communicate("")
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
