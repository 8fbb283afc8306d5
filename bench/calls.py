"""What one request costs in calls: AWS operations, DynamoDB capacity units, RPC round trips and
log bytes, counted for the request being measured only (`measure`).

    calls, result = measure(handler, event, context)
    calls.aws            # Counter {"dynamodb.UpdateItem": 2, ...}
    calls.rpc_methods    # the RPC round trips (method names; "batch" for a batch)
    calls.read_units, calls.write_units, calls.log_bytes
"""

from __future__ import annotations

import contextvars
import io
import json
import math
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, redirect_stdout
from dataclasses import dataclass, field
from typing import Any

_MEASURED: contextvars.ContextVar[bool] = contextvars.ContextVar("bench_measured", default=False)

# Lambda's own lines per invocation (START, END, REPORT with the X-Ray segment): about this many
# bytes, measured from CloudWatch Logs of a Python 3.13 function with tracing active
PLATFORM_LOG_BYTES = 330
ITEM_WRITE_KB = 1  # a write unit covers 1 KB: the service's items are smaller
READ_KB = 4  # a read unit covers 4 KB (strongly consistent; eventually: half)


@dataclass
class Calls:
    aws: Counter[str] = field(default_factory=Counter)
    rpc_methods: list[Any] = field(default_factory=list)
    read_units: float = 0.0
    write_units: float = 0.0
    log_bytes: int = 0

    def service(self, name: str) -> int:
        return sum(n for op, n in self.aws.items() if op.startswith(name + "."))


def _read_units(consistent: Any, n: int = 1) -> float:
    return n * (1.0 if consistent else 0.5)


def units_of(operation: str, params: dict[str, Any]) -> tuple[float, float]:
    """(read units, write units) of one DynamoDB call from its parameters (items within 1 KB
    written, 4 KB read; a Query's are added from its answer's size by `query_units`)."""
    if operation == "GetItem":
        return _read_units(params.get("ConsistentRead")), 0.0
    if operation == "BatchGetItem":
        return sum(
            _read_units(t.get("ConsistentRead"), len(t.get("Keys") or []))
            for t in (params.get("RequestItems") or {}).values()
        ), 0.0
    if operation in ("PutItem", "UpdateItem", "DeleteItem"):
        return 0.0, float(ITEM_WRITE_KB)
    if operation == "BatchWriteItem":
        return 0.0, float(sum(len(v) for v in (params.get("RequestItems") or {}).values()))
    if operation == "TransactWriteItems":  # a transaction costs two units per item
        return 0.0, 2.0 * len(params.get("TransactItems") or [])
    if operation == "TransactGetItems":
        return 2.0 * len(params.get("TransactItems") or []), 0.0
    return 0.0, 0.0


def query_units(body_bytes: int, consistent: Any) -> float:
    """A Query reads at least one unit, then one per 4 KB of what it returned."""
    return _read_units(consistent, max(1, math.ceil(body_bytes / (READ_KB * 1024))))


class _CountingStream(io.TextIOBase):
    """Passes text on to `target`, counting the bytes written inside the measured context."""

    def __init__(self, target: Any, calls: Calls) -> None:
        self.target, self.calls = target, calls

    def write(self, text: str) -> int:
        if _MEASURED.get():
            self.calls.log_bytes += len(text.encode())
        return self.target.write(text)

    def flush(self) -> None:
        self.target.flush()

    def __getattr__(self, name: str) -> Any:
        # anything else is the wrapped stream's (pytest's capture reads getvalue() off sys.stdout)
        return getattr(self.target, name)


@contextmanager
def _counting(calls: Calls) -> Iterator[None]:
    from partner.chain import rpc as rpc_module
    from partner.core import observability
    from partner.store import aws

    def before(event_name: str, **_: Any) -> None:  # every service's calls
        if _MEASURED.get():
            service, operation = event_name.split(".")[1:3]
            calls.aws[f"{service}.{operation}"] += 1

    def params_of(event_name: str, params: dict[str, Any] | None = None, context: Any = None, **_: Any) -> None:
        """DynamoDB units from the API parameters (a Query's from its answer, below)."""
        if not _MEASURED.get() or params is None:
            return
        operation = event_name.split(".")[2]
        if operation == "Query" and context is not None:
            context["bench_consistent"] = params.get("ConsistentRead")
            return
        read, write = units_of(operation, params)
        calls.read_units += read
        calls.write_units += write

    def after(event_name: str, http_response: Any = None, context: Any = None, **_: Any) -> None:
        if _MEASURED.get():
            body = getattr(http_response, "content", b"") or b""
            calls.read_units += query_units(len(body), (context or {}).get("bench_consistent"))

    real_post = rpc_module.Rpc._post
    real_submit = ThreadPoolExecutor.submit

    def counting_post(self: Any, payload: Any, **kw: Any) -> Any:
        if _MEASURED.get():
            try:
                body = json.loads(payload)
            except (TypeError, ValueError):
                body = None
            calls.rpc_methods.append(body.get("method") if isinstance(body, dict) else "batch")
        return real_post(self, payload, **kw)

    def submit(self: Any, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        if _MEASURED.get():  # the request's own pool work runs in the request's context
            return real_submit(self, contextvars.copy_context().run, fn, *args, **kwargs)
        return real_submit(self, fn, *args, **kwargs)

    hooks = [
        ("before-call", before),
        ("before-parameter-build.dynamodb", params_of),
        ("after-call.dynamodb.Query", after),
    ]
    for name, hook in hooks:
        aws.add_hook(name, hook)
    streams: list[tuple[Any, Any]] = []
    for log in observability._loggers:
        for handler in log._logger.handlers:
            if hasattr(handler, "setStream"):
                streams.append((handler, handler.setStream(_CountingStream(handler.stream, calls))))  # type: ignore[attr-defined]  # a StreamHandler
    rpc_module.Rpc._post = counting_post  # type: ignore[method-assign]  # counting the request's RPC calls
    ThreadPoolExecutor.submit = submit  # type: ignore[method-assign]  # carries the context
    try:
        with redirect_stdout(_CountingStream(sys.stdout, calls)):  # EMF metrics are printed
            yield
    finally:
        ThreadPoolExecutor.submit = real_submit  # type: ignore[method-assign]  # patch undone
        rpc_module.Rpc._post = real_post  # type: ignore[method-assign]  # patch undone
        for handler, old in streams:
            handler.setStream(old)
        for name, hook in hooks:
            aws.remove_hook(name, hook)


def measure(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Calls, Any]:
    """Call `fn(*args, **kwargs)` and count what that call (and only it) made.

    The devstack runs background work in the same process (the SQS pollers, the schedule timer),
    and their botocore clients fire the same hooks: a process-wide hook counted their calls too (a
    buy showed 13 DynamoDB calls where the code makes 6). So the call runs in a context of its own (a
    `contextvars` variable set only there), and the hooks count a call only inside it. Thread pools
    started from the request carry the context while measuring; a background thread never has it."""
    calls = Calls()

    def run() -> Any:
        _MEASURED.set(True)
        return fn(*args, **kwargs)

    with _counting(calls):
        result = contextvars.copy_context().run(run)
    calls.log_bytes += PLATFORM_LOG_BYTES
    return calls, result
