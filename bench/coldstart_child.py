"""One cold start, in a fresh interpreter: import a function's module, serve its first request.

Run by bench/run.py as `python bench/coldstart_child.py [--floor|--snapstart] SPEC.json`; prints one
JSON line (`main`).
"""

import json
import os
import resource
import sys
import time
from typing import Any

T0 = time.perf_counter()


class Context:
    """The attributes of the Python runtime's Lambda context object (no imports)."""

    def __init__(self, name: str) -> None:
        self.function_name = name
        self.function_version = "$LATEST"
        self.invoked_function_arn = f"arn:aws:lambda:us-east-1:123456789012:function:{name}"
        self.memory_limit_in_mb = 512
        self.aws_request_id = "00000000-0000-4000-8000-000000000000"
        self.log_group_name = f"/aws/lambda/{name}"
        self.log_stream_name = "bench"
        self.identity = None
        self.client_context = None
        self.tenant_id = None
        self._deadline = time.monotonic() + 29

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


def floor(spec: dict) -> dict:
    import boto3

    t1 = time.perf_counter()
    out = boto3.client("dynamodb").get_item(TableName=spec["table"], Key=spec["key"])
    done = time.perf_counter()
    return {
        "import_ms": (t1 - T0) * 1000,
        "first_ms": (done - t1) * 1000,
        "done_at": done,
        "status": out["ResponseMetadata"]["HTTPStatusCode"],
    }


def load(spec: dict):
    """Import the function's app.py as the Lambda runtime does (module `app`)."""
    import importlib.util

    path = f"{spec['root']}/functions/{spec['function']}/app.py"
    sys.path.insert(0, f"{spec['root']}/functions/{spec['function']}")
    module_spec = importlib.util.spec_from_file_location("app", path)
    if module_spec is None or module_spec.loader is None:
        raise ImportError(path)
    module = importlib.util.module_from_spec(module_spec)
    sys.modules["app"] = module
    module_spec.loader.exec_module(module)
    return module


def function(spec: dict) -> dict:
    module = load(spec)
    t1 = time.perf_counter()
    profile_dir = os.environ.get("BENCH_PROFILE")  # a cProfile of the first request, for digging
    if profile_dir:
        import cProfile

        profiler = cProfile.Profile()
        out = profiler.runcall(module.lambda_handler, spec["event"], Context(spec["function"]))
        profiler.dump_stats(f"{profile_dir}/{spec['function']}.prof")
    else:
        out = module.lambda_handler(spec["event"], Context(spec["function"]))
    done = time.perf_counter()
    result: dict[str, Any] = {
        "import_ms": (t1 - T0) * 1000,
        "first_ms": (done - t1) * 1000,
        "done_at": done,
        "status": _status(out),
    }
    if spec.get("repeat"):  # warm: the same (read-only) request again, in this now-warm process
        warm = []
        for _ in range(spec["repeat"]):
            t = time.perf_counter()
            module.lambda_handler(spec["event"], Context(spec["function"]))
            warm.append((time.perf_counter() - t) * 1000)
        result["warm_ms"] = warm
    return result


def _status(out) -> int | None:
    return out.get("statusCode") if isinstance(out, dict) else None


def _time_hash_secret(clock=None) -> dict:
    """Times the per-process hash secret's derivation (one KMS GenerateMac, the one call a restored
    copy makes that a warm one does not): {"ms": ...} once it ran in this process; with `clock` (the
    latency model's, `bench.latency.Live.now`) also {"model_ms": ...} on it."""
    timing: dict = {}
    crypto = sys.modules.get("partner.store.crypto")
    if crypto is None:
        return timing
    real = crypto._hash_secret

    def timed():
        if crypto._secret is not None:
            return real()
        t = time.perf_counter()
        m = clock() if clock else 0.0
        try:
            return real()
        finally:
            timing["ms"] = (time.perf_counter() - t) * 1000
            if clock:
                timing["model_ms"] = clock() - m

    crypto._hash_secret = timed  # type: ignore[attr-defined]  # timing the restore's MAC key fetch
    return timing


def snapstart(spec: dict) -> dict:
    """SnapStart as Lambda pays it. This process is init: it imports the function and runs the
    before-snapshot hooks (`partner.core.snapshot`), as Lambda does once per published version. Each
    of `spec["events"]` is then served by a fork of it, the stand-in for an environment
    restored from the snapshot: the child runs the after-restore hooks and serves that one
    first request. `restore_ms` is fork to response (the same monotonic clock on both sides).
    `warm_ms`: this process then restores too and serves `spec["warm"]` (its first request
    excluded), the same function's warm latency for the same kind of request.

    With `spec["model"]` (the latency model's figures) every call to a stand-in also takes the model's
    time instead of the stand-in's (`bench.latency.Live`): each time is then also given as the
    service's own time plus the model's (`*_model`)."""
    module = load(spec)
    from partner.core import snapshot

    live = None
    if spec.get("model"):
        sys.path.insert(0, spec["root"])
        from bench.latency import Live

        live = Live(spec["model"])
        live.install()
    secret = _time_hash_secret(live.now if live else None)
    t1 = time.perf_counter()
    snapshot.run_before_snapshot()
    before_ms = (time.perf_counter() - t1) * 1000
    restores: list[Any] = []
    for event in spec["events"]:
        sys.stdout.flush()
        sys.stderr.flush()
        read_end, write_end = os.pipe()
        t0 = time.perf_counter()
        pid = os.fork()
        if pid == 0:  # the restored environment
            forked = time.perf_counter()
            os.close(read_end)
            try:
                profile_dir = os.environ.get("BENCH_PROFILE")  # a cProfile of restore + first request
                if profile_dir:
                    import cProfile

                    profiler = cProfile.Profile()
                    profiler.enable()
                faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt  # page faults: copy-on-write
                if live:
                    live.set_offset(0.0)
                    live.on = True
                snapshot.run_after_restore()
                hooked = time.perf_counter()
                out = module.lambda_handler(event, Context(spec["function"]))
                row = {
                    "restore_ms": (time.perf_counter() - t0) * 1000,
                    "fork_ms": (forked - t0) * 1000,  # fork() to the child's first line
                    "hooks_ms": (hooked - forked) * 1000,  # to the after-restore hooks' end
                    "status": _status(out),
                    "secret_ms": secret.get("ms", 0.0),
                }
                row["page_faults"] = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
                if live:
                    row["restore_model_ms"] = row["restore_ms"] + live.offset()
                    row["secret_model_ms"] = secret.get("model_ms", 0.0)
                    row["calls"] = live.calls
                if profile_dir:
                    profiler.disable()
                    profiler.dump_stats(f"{profile_dir}/{spec['function']}-restore-{len(restores)}.prof")
            except BaseException as exc:  # reported to the driver, which fails the run
                row = {"error": repr(exc)}
            os.write(write_end, json.dumps(row).encode())
            sys.stdout.flush()
            os._exit(0)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as pipe:
            data = pipe.read()
        os.waitpid(pid, 0)
        row = json.loads(data or b'{"error": "the restored child died"}')
        if "error" in row:
            raise RuntimeError(f"restored child failed: {row['error']}")
        restores.append(row)
    if live:
        live.on = True
    snapshot.run_after_restore()
    warm, warm_model, warm_faults = [], [], []
    for k, event in enumerate(spec["warm"]):
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        if live:
            live.set_offset(0.0)
        profile_dir = os.environ.get("BENCH_PROFILE") if k == 1 else None  # a warm request's, to compare
        if profile_dir:
            import cProfile

            profiler = cProfile.Profile()
            profiler.enable()
        t = time.perf_counter()
        out = module.lambda_handler(event, Context(spec["function"]))
        if k:
            warm.append((time.perf_counter() - t) * 1000)
            warm_faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults)
            if live:
                warm_model.append(warm[-1] + live.offset())
        if profile_dir:
            profiler.disable()
            profiler.dump_stats(f"{profile_dir}/{spec['function']}-warm.prof")
    result = {
        "before_snapshot_ms": before_ms,
        "restores": restores,
        "warm_ms": warm,
        "warm_page_faults": warm_faults,
        "warm_status": _status(out),
    }
    if live:
        result["warm_model_ms"] = warm_model
    return result


def main() -> None:
    """The spec names the function directory and carries a prebuilt event (built by the driver, so
    this process imports nothing the Lambda runtime would not). `--floor` instead imports boto3 and
    makes one DynamoDB GetItem: the floor every function is compared with. With `"repeat": n` in the
    spec (read-only requests) the same request is then served n more times, as `warm_ms`.
    `--snapstart` serves a SnapStart restore instead (`snapstart`). The JSON line: import_ms,
    first_ms (handler call), status, and done_at (time.perf_counter() when the response was ready:
    CLOCK_MONOTONIC, the driver's clock, so the driver gets spawn-to-response without the exit)."""
    with open(sys.argv[-1]) as f:
        spec = json.load(f)
    if "--snapstart" in sys.argv:
        result = snapstart(spec)
    else:
        result = floor(spec) if "--floor" in sys.argv else function(spec)
    if "--modules" in sys.argv:
        result["modules"] = sorted(m for m in sys.modules if "." not in m)
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
