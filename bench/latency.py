"""The latency model: each trade's and /me's warm p50 against the floor that the same model gives
for its critical path (`FLOORS`, `measure`).

    python -m bench.latency [N]     N requests per endpoint and setting (default DEFAULT_N, 60); prints JSON
"""

from __future__ import annotations

import json
import statistics
import sys
import threading
import time
from typing import Any

SOL = 10**9
PRIO = {"priorityFeeLamports": "1000", "tipLamports": "1000000"}

# endpoint -> stages of its critical path (each stage: the kinds of the calls it makes at once)
ADMISSION = [["ddb"], ["ddb", "ddb"]]  # the token's BatchGetItem; the bucket and the tier budget
FLOORS: dict[str, list[list[str]]] = {
    "me": ADMISSION,
    # the value is in the request: the reservation (client's day and grant's day, both at once) runs
    # beside the chain read and the Decrypt; then the record, then the send
    "trades_buy": [*ADMISSION, ["rpc_read", "kms", "ddb", "ddb"], ["ddb"], ["rpc_send"]],
    # valued by the quote (slippage mode): the reservation needs the read's state
    "trades_buy_exact_out": [*ADMISSION, ["rpc_read", "kms"], ["ddb", "ddb"], ["ddb"], ["rpc_send"]],
    "trades_sell": [*ADMISSION, ["rpc_read", "kms"], ["ddb", "ddb"], ["ddb"], ["rpc_send"]],
}
GOAL_RATIO = 1.3


def floor_ms(stages: list[list[str]], figures: dict[str, float]) -> float:
    """The floor of a critical path (as in `FLOORS`: the calls of one stage need nothing from each
    other and may run at once; a stage waits for the one before): over the stages, the sum of the
    stage's slowest call under the model."""
    return sum(max(figures[k] for k in stage) for stage in stages)


def sequential_ms(stages: list[list[str]], figures: dict[str, float]) -> float:
    """The sum over every call: nothing at once."""
    return sum(figures[k] for stage in stages for k in stage)


class Endpoints:
    """A fresh connection per endpoint (their own buckets), the bench coin, and one request each."""

    PATHS = {
        "trades_buy": "/partner/v1/trades/buy",
        "trades_buy_exact_out": "/partner/v1/trades/buy-exact-out",
        "trades_sell": "/partner/v1/trades/sell",
    }

    PER_CONNECTION = 25  # requests per connection: within a trade bucket's 60 a minute

    def __init__(self, bench: Any) -> None:
        self.b = bench
        self.conns: dict[tuple[str, int | str], Any] = {}
        self.counts: dict[str, int] = {}

    def prepare(self, name: str, requests: int) -> None:
        """The connections `requests` requests of `name` will use (made before any is timed)."""
        keys: list[Any] = ["replayed", *range(-(-requests // self.PER_CONNECTION))]
        for k in keys:
            if (name, k) not in self.conns:
                self.conns[name, k] = self.b.member(sol=0) if name == "me" else self.b.member(sol=20, tokens=True)

    def conn(self, name: str) -> Any:
        k = self.counts[name] = self.counts.get(name, -1) + 1
        return self.conns[name, k // self.PER_CONNECTION]

    def event(self, name: str, i: int, replayed: bool = False) -> dict[str, Any]:
        """The i-th request of `name`; `replayed`: on the connection whose answers were recorded (the
        replayed token's read answers that token only; replayed requests draw on no real bucket)."""
        from devstack.events import ApiRequest, api_event

        conn = self.conns[name, "replayed"] if replayed else self.conn(name)
        if name == "me":
            return api_event(ApiRequest("GET", "/partner/v1/me", headers=conn.bearer()))
        body = {
            "trades_buy": {"maxSolIn": str(SOL // 100 + i), "slippageBps": 500},
            "trades_buy_exact_out": {"tokensOut": str(1_000_000_000 + i), "slippageBps": 500},
            "trades_sell": {"tokensIn": str(1_000_000 + i), "slippageBps": 500},
        }[name]
        return api_event(
            ApiRequest(
                "POST",
                self.PATHS[name],
                headers={**conn.bearer(), "Content-Type": "application/json"},
                body=json.dumps({"mint": self.b.coin, **body, **PRIO}),
            )
        )


class Replay:
    """The service against stand-ins that cost nothing: each AWS and RPC call is answered from the
    answer the real stand-in gave to the same operation (recorded on an earlier request of the same
    endpoint), and takes the model's figure for its kind. A send answers the signature of the
    transaction it was given. What a request takes is then the service's own time plus the model's
    time on its critical path.

    The model's time is kept on a virtual clock (`virtual`, the default): each thread has an offset,
    a call adds its figure to its thread's, a task the request submits (`partner.core.parallel.submit`)
    starts from its submitter's offset, and taking its result moves the submitter's offset up to the
    task's. A request's time is its wall time plus its thread's offset at the end: the service's own
    time, and the model's along the critical path as the code really ran it (calls it makes at once
    count once). Sleeping instead (`virtual = False`) measures the same on a real clock, but on a
    loaded machine each wake-up can come milliseconds late (a 5 ms sleep's p90 was 3.7 ms over here),
    and a trade has five stages of them."""

    def offset(self) -> float:
        return getattr(self._clock, "ms", 0.0)

    def set_offset(self, ms: float) -> None:
        self._clock.ms = ms

    def _wait(self, kind: str) -> None:
        if self.virtual:
            self.set_offset(self.offset() + self.figures[kind])
        else:
            time.sleep(self.figures[kind] / 1000)

    def __init__(self, figures: dict[str, float]) -> None:
        self.figures = figures
        self.mode: str | None = None  # "record", "replay" or None (pass through)
        self.virtual = True  # count the model's time on a virtual clock (below) instead of sleeping
        self._clock = threading.local()
        self.aws: dict[tuple[str, str], tuple[int, dict[str, str], bytes]] = {}
        self.rpc: dict[tuple[str, ...], Any] = {}
        self.calls: dict[str, int] = {}

    @staticmethod
    def _op(event_name: str) -> tuple[str, str]:
        _, service, operation = event_name.split(".")[:3]
        return service, operation

    def _kind(self, service: str, operation: str) -> str | None:
        if service == "dynamodb":
            return "transact" if operation.startswith("Transact") else "ddb"
        return "kms" if service == "kms" else None

    def _after_call(self, event_name: str = "", http_response: Any = None, **_: Any) -> None:
        if self.mode == "record" and http_response is not None and http_response.status_code < 300:
            self.aws[self._op(event_name)] = (
                http_response.status_code,
                dict(http_response.headers),
                bytes(http_response.content),
            )

    def _before_send(self, request: Any = None, event_name: str = "", **_: Any) -> Any:
        if self.mode != "replay":
            return None
        from botocore.awsrequest import AWSResponse

        key = self._op(event_name)
        status, headers, body = self.aws[key]  # a KeyError: the warm-up did not make this call
        kind = self._kind(*key)
        self.calls[kind or key[0]] = self.calls.get(kind or key[0], 0) + 1
        if kind:
            self._wait(kind)
        response = AWSResponse(request.url, status, headers, None)
        response._content = body
        return response

    def _rpc(self, real: Any) -> Any:
        replay = self

        def post_to(rpc: Any, url: str, payload: str, *, sending: bool) -> Any:
            request = json.loads(payload)
            methods = tuple(r.get("method", "") for r in (request if isinstance(request, list) else [request]))
            if replay.mode == "record":
                body = real(rpc, url, payload, sending=sending)
                replay.rpc[methods] = body
                return body
            if replay.mode != "replay":
                return real(rpc, url, payload, sending=sending)
            kind = "rpc_send" if "sendTransaction" in methods else "rpc_read"
            replay.calls[kind] = replay.calls.get(kind, 0) + 1
            replay._wait(kind)
            if methods == ("sendTransaction",):
                import base64

                from solders.transaction import Transaction

                tx = Transaction.from_bytes(base64.b64decode(request["params"][0]))
                return {"jsonrpc": "2.0", "result": str(tx.signatures[0]), "id": request.get("id")}
            return replay.rpc[methods]

        return post_to

    def __enter__(self) -> Replay:
        from partner.chain import rpc as rpc_module
        from partner.store import aws

        aws.add_hook("after-call", self._after_call)
        aws.add_hook("before-send", self._before_send)
        self._real = rpc_module.Rpc._post_to
        rpc_module.Rpc._post_to = self._rpc(self._real)  # type: ignore[method-assign]  # answers replayed
        try:  # (an older checkout, measured for comparison, runs nothing at once)
            from partner.core import parallel
        except ImportError:
            parallel = None  # type: ignore[assignment]  # an older checkout has no module
        if parallel is not None:
            self._real_submit = parallel.submit
            parallel.submit = self._submit
        return self

    def _submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        return _clocked_submit(self, self._real_submit, fn, args, kwargs, wall=False)

    def __exit__(self, *exc: Any) -> None:
        from partner.chain import rpc as rpc_module
        from partner.store import aws

        if hasattr(self, "_real_submit"):
            from partner.core import parallel

            parallel.submit = self._real_submit
        rpc_module.Rpc._post_to = self._real  # type: ignore[method-assign]  # patch undone
        aws.remove_hook("before-send", self._before_send)
        aws.remove_hook("after-call", self._after_call)


def _clocked_submit(
    clock: Replay | Live, real_submit: Any, fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any], *, wall: bool
) -> _Joined:
    """`parallel.submit` on `clock`: the task starts at its submitter's virtual time, and its end (with
    the wall time for `Live`, `wall`) is joined into whoever takes its result."""
    start, box = clock.offset(), {}

    def task(*a: Any, **k: Any) -> Any:
        clock.set_offset(start)
        try:
            return fn(*a, **k)
        finally:
            box["end"] = clock.offset()
            if wall:
                box["end_wall"] = time.perf_counter()

    return _Joined(real_submit(task, *args, **kwargs), box, clock)


class _Joined:
    """A pool task's future whose result also joins the task's virtual clock into the taker's."""

    def __init__(self, future: Any, box: dict[str, float], replay: Replay | Live) -> None:
        self._future, self._box, self._replay = future, box, replay

    def result(self, timeout: float | None = None) -> Any:
        taken, own = time.perf_counter(), self._replay.offset()
        try:
            return self._future.result(timeout)
        finally:
            if "end_wall" in self._box:  # `Live`: the wait is the task's time, not the taker's
                ended, joined = self._box["end_wall"], time.perf_counter()
                at = max(taken * 1000 + own, ended * 1000 + self._box["end"]) + (joined - max(taken, ended)) * 1000
                self._replay.set_offset(at - joined * 1000)
            elif "end" in self._box:
                self._replay.set_offset(max(self._replay.offset(), self._box["end"]))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._future, name)


BUNDLE_METHODS = frozenset({"sendBundle", "getBundleStatuses", "getInflightBundleStatuses"})


def methods_of(body: bytes) -> list[str]:
    from devstack.latency import methods_of as parse

    return parse(body)


def rpc_kind(methods: list[str]) -> str | None:
    from devstack.latency import rpc_kind as kind

    return kind(methods)


class Live:
    """The service against the real stand-ins, each call's time on the stand-in replaced by the model's
    figure for its kind on the virtual clock (`Replay`'s): used where answers cannot be replayed, such as
    the first request after a SnapStart restore of every function (`bench/coldstart_child.py`).

    Every AWS call is sent by this class (botocore's `before-send`, on a connection of its own per process)
    and every HTTP call of `partner.core.transport` (the RPC, the block engine, the pin server, the sign-in
    provider) is made as the service makes it; the wall time each took is taken off the calling thread's
    clock and the model's figure added (DynamoDB, KMS, the RPC; 0 ms for what the model does not have: S3,
    SQS, the block engine, the pin server). A request's time is its wall time plus its clock at the end:
    the service's own time and the model's along its critical path, none of the stand-ins' own. Connection
    setup to the stand-ins (loopback) is taken off with the call, as `Replay` never opens one. Calls through
    `partner.core.egress` (a webhook to its receiver) keep their real time.

    Only modules already imported are patched (`install` after the function's import), so that the
    measurement imports nothing the function would otherwise import on its first request."""

    def __init__(self, figures: dict[str, float]) -> None:
        self.figures = figures
        self.on = False  # off while the before-snapshot hooks make their dry calls (answered locally)
        self._clock = threading.local()
        self._http: Any = None
        self._pid = 0
        self.calls: dict[str, int] = {}
        import devstack.latency  # noqa: F401 - imported here, not inside a timed request (`_transport_kind`)

    def offset(self) -> float:
        return getattr(self._clock, "ms", 0.0)

    def set_offset(self, ms: float) -> None:
        self._clock.ms = ms

    def now(self) -> float:
        """This thread's time on the measured clock (ms): wall time plus the clock's offset."""
        return time.perf_counter() * 1000 + self.offset()

    def _charge(self, kind: str | None, spent_s: float) -> None:
        self.calls[kind or "unmodeled"] = self.calls.get(kind or "unmodeled", 0) + 1
        self.set_offset(self.offset() - spent_s * 1000 + (self.figures.get(kind, 0.0) if kind else 0.0))

    @staticmethod
    def _connect_first(pool: Any) -> None:
        """A pool's first connection, opened outside the timed call: its setup (the socket, urllib3's
        objects, the first use of the IDNA codec) is the service's own time, over loopback and without
        TLS here; the model has no figure for a new connection."""
        if pool.num_connections == 0:
            conn = pool._get_conn()
            conn.connect()
            pool._put_conn(conn)

    def _session(self) -> Any:
        import os

        if self._http is None or (self._pid != os.getpid() and self._http._manager.pools):  # nothing from before a fork
            from botocore.httpsession import URLLib3Session

            self._http, self._pid = URLLib3Session(max_pool_connections=16), os.getpid()
        return self._http

    def _before_send(self, request: Any = None, event_name: str = "", **_: Any) -> Any:
        if not self.on:
            return None
        session = self._session()
        self._connect_first(session._get_connection_manager(request.url, None).connection_from_url(request.url))
        t = time.perf_counter()
        response = session.send(request)
        _ = response.content  # the body read inside the timed call
        service, operation = Replay._op(event_name)
        kind = "transact" if service == "dynamodb" and operation.startswith("Transact") else None
        kind = kind or ("ddb" if service == "dynamodb" else "kms" if service == "kms" else None)
        self._charge(kind, time.perf_counter() - t)
        return response

    @staticmethod
    def _transport_kind(body: Any) -> str | None:
        if not isinstance(body, (bytes, str)):
            return None
        methods = methods_of(body if isinstance(body, bytes) else body.encode())
        if not methods or any(m in BUNDLE_METHODS for m in methods):
            return None
        return rpc_kind(methods)

    def _timed(self, real: Any, kind_of: Any, transport: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            if not self.on:
                return real(*args, **kwargs)
            url, timeout, connect = args[0], kwargs["timeout"], kwargs.get("connect")
            if "params" not in kwargs:  # the service's own pool, as `transport` picks it
                https = url.lower().startswith("https:")
                pools = transport._pool(timeout if connect is None else connect, timeout, https)
                self._connect_first(pools.connection_from_url(url))
            t = time.perf_counter()
            try:
                return real(*args, **kwargs)
            finally:
                self._charge(kind_of(kwargs), time.perf_counter() - t)

        return call

    def install(self) -> None:
        """Hook what the function has imported (call after its import, before the snapshot hooks)."""
        self._session()  # made here, outside every timed request (it opens no connection before a fork)
        aws = sys.modules.get("partner.store.aws")
        if aws is not None:
            aws.add_hook("before-send", self._before_send)
        transport = sys.modules.get("partner.core.transport")
        if transport is not None:
            post = self._timed(transport.post, lambda kw: self._transport_kind(kw.get("body")), transport)
            transport.post, transport.get = post, self._timed(transport.get, lambda kw: None, transport)  # type: ignore[attr-defined]  # timing patch
        parallel = sys.modules.get("partner.core.parallel")
        if parallel is not None:
            real_submit = parallel.submit

            def submit(fn: Any, /, *args: Any, **kwargs: Any) -> Any:
                return _clocked_submit(self, real_submit, fn, args, kwargs, wall=True)

            parallel.submit = submit  # type: ignore[attr-defined]  # timing patch


# Requests per endpoint and setting: a p50 of 20 moved 1-2 ms from run to run on the same tree.
DEFAULT_N = 60


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def measure(bench: Any, n: int = DEFAULT_N, names: list[str] | None = None) -> dict[str, Any]:
    """Per endpoint, in turn, request by request: (a) `replayed`: the service against stand-ins that
    cost nothing, with the model's time (`Replay`): the figure the goal is judged on; (b) `devstack`:
    against the devstack's stand-ins held to the model (`devstack.latency`), their excess over it
    included (`over_model` calls); (c) `bare`: against the bare stand-ins.

    The devstack holds each call of its stand-ins for the model's time for its kind
    (`devstack.latency`; `DEVSTACK_LATENCY` overrides it) from when the stand-in received it, so the
    stand-in's own processing is inside the model's figure; a request then takes the service's own
    time plus the model's time of the calls on its critical path. Each request is a handler call in
    this process (no gateway: its HTTP parsing is API Gateway's stand-in, not the service), the
    settings alternating request by request so that all see the same machine load."""
    from devstack.events import lambda_context
    from devstack.latency import DEFAULTS, model
    from testkit.helpers import handler

    figures = model.figures or dict(DEFAULTS)
    saved = model.figures
    endpoints = Endpoints(bench)
    out: dict[str, Any] = {"figures_ms": figures, "n": n, "goal_ratio": GOAL_RATIO, "endpoints": {}}
    settings = ("model", "slept", "devstack", "bare")
    try:
        with Replay(figures) as replay:
            for name in names or list(FLOORS):
                fn = handler(name)
                model.configure(None)
                replay.mode = None
                endpoints.prepare(name, 2 * n)  # the requests against the real stand-ins
                replay.mode = "record"  # per-process work (hash secret, clients) and this endpoint's answers
                for i in range(2):
                    result = fn(endpoints.event(name, i, replayed=True), lambda_context(name))
                    assert result["statusCode"] == 200, result
                times: dict[str, list[float]] = {k: [] for k in settings}
                statuses: set[int] = set()
                model.reset_stats()
                replay.calls = {}
                over: dict[str, Any] = {}
                for i in range(len(settings) * n):
                    setting = settings[i % len(settings)]
                    replay.mode = "replay" if setting in ("model", "slept") else None
                    replay.virtual = setting == "model"
                    model.configure(figures if setting == "devstack" else None)
                    event = endpoints.event(name, 100 + i, replayed=replay.mode == "replay")
                    replay.set_offset(0.0)
                    t0 = time.perf_counter()
                    result = fn(event, lambda_context(name))
                    times[setting].append((time.perf_counter() - t0) * 1000 + replay.offset())
                    statuses.add(int(result.get("statusCode", 0)))
                    if setting == "devstack":
                        over = model.stats()
                replay.mode = None
                model.configure(None)
                floor = floor_ms(FLOORS[name], figures)
                p50 = statistics.median(times["model"])
                row: dict[str, Any] = {
                    "p50_ms": round(p50, 1),
                    "p90_ms": round(_p(times["model"], 0.9), 1),
                    "slept_p50_ms": round(statistics.median(times["slept"]), 1),
                    "devstack_p50_ms": round(statistics.median(times["devstack"]), 1),
                    "bare_p50_ms": round(statistics.median(times["bare"]), 1),
                    "floor_ms": floor,
                    "sequential_ms": sequential_ms(FLOORS[name], figures),
                    "ratio": round(p50 / floor, 2),
                    "above_floor_ms": round(p50 - floor, 1),
                    "stages": FLOORS[name],
                    "statuses": sorted(statuses),
                    "replayed_calls": {k: round(v / (2 * n), 2) for k, v in sorted(replay.calls.items())},
                    "devstack_calls": over,
                    "over_model": sum(int(v["over"]) for v in over.values()),
                }
                row["goal_met"] = row["ratio"] <= GOAL_RATIO and row["statuses"] == [200]
                out["endpoints"][name] = row
                print(
                    f"bench: latency {name}: p50 {row['p50_ms']} ms, service + model (floor {floor} ms: "
                    f"{row['ratio']}x; sequential {row['sequential_ms']} ms); slept {row['slept_p50_ms']} ms; "
                    f"devstack held to the model {row['devstack_p50_ms']} ms ({row['over_model']} calls over it), "
                    f"bare {row['bare_p50_ms']} ms; statuses {row['statuses']}",
                    file=sys.stderr,
                    flush=True,
                )
    finally:
        model.configure(saved)
    return out


def main(argv: list[str] | None = None) -> int:
    import os

    args = sys.argv[1:] if argv is None else argv
    n = int(args[0]) if args else DEFAULT_N
    from bench.stack import Bench

    bench = Bench()
    try:
        result = measure(bench, n)
    finally:
        bench.stop()
    result["load_average"] = round(os.getloadavg()[0], 2)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
