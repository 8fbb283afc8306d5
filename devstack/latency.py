"""A latency model for the devstack's stand-ins (moto, the devstack chain): each call takes what it
would take in AWS. Off unless `DEVSTACK_LATENCY` asks for it; `bench/run.py` measures with and without.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

DEFAULTS: dict[str, float] = {"ddb": 5.0, "transact": 12.0, "kms": 6.0, "rpc_read": 4.0, "rpc_send": 15.0}
ENV = "DEVSTACK_LATENCY"
SENDS = frozenset({"sendTransaction"})


def parse(text: str | None) -> dict[str, float] | None:
    """The model `DEVSTACK_LATENCY` names (None: off); ValueError on an unknown kind or a bad figure."""
    text = (text or "").strip().lower()
    if text in ("", "off", "0", "false", "no"):
        return None
    figures = dict(DEFAULTS)
    if text in ("on", "1", "true", "yes", "default"):
        return figures
    for part in text.split(","):
        name, _, value = part.partition("=")
        name = name.strip()
        if name not in DEFAULTS:
            raise ValueError(f"{ENV}: unknown kind {name!r} (one of {', '.join(DEFAULTS)})")
        ms = float(value)
        if not 0 <= ms <= 10_000:
            raise ValueError(f"{ENV}: {name} must be 0 to 10000 ms")
        figures[name] = ms
    return figures


def aws_kind(target: str | None) -> str | None:
    """The kind of an AWS JSON call from its X-Amz-Target header (None: not modeled)."""
    if not target:
        return None
    service, _, operation = target.partition(".")
    if service.startswith("DynamoDB_"):
        return "transact" if operation.startswith("Transact") else "ddb"
    if service == "TrentService":
        return "kms"
    return None


def rpc_kind(methods: Iterable[str]) -> str | None:
    """The kind of one JSON-RPC round trip from its methods (a batch: a send if it holds one)."""
    names = [m for m in methods if m and not m.startswith("devstack_")]
    if not names:
        return None
    return "rpc_send" if any(m in SENDS for m in names) else "rpc_read"


def read_all(result: Iterable[bytes]) -> bytes:
    """The whole body of a WSGI answer, the answer closed after (as PEP 3333 asks of its caller)."""
    try:
        return b"".join(result)
    finally:
        close = getattr(result, "close", None)
        if close:
            close()


class LatencyModel:
    """The stand-ins (moto, the devstack chain) answer on loopback in well under a millisecond of
    network, plus their own processing. With the model on, every call they serve is held until a
    fixed time after it arrived, the figure for its kind, typical of AWS within one region:

        ddb       5 ms   a DynamoDB read or write (GetItem, UpdateItem, BatchGetItem, Query, ...)
        transact 12 ms   a DynamoDB transaction (TransactWriteItems, TransactGetItems)
        kms       6 ms   a KMS call (Decrypt, GenerateMac, Encrypt, Sign, ...)
        rpc_read  4 ms   a JSON-RPC read (one request or one batch) to the chain
        rpc_send 15 ms   sendTransaction with preflight (a batch that holds one)

    Other calls (S3, SQS, SSM, the block engine, `devstack_*` methods) are not modeled (0 ms).
    A call is held from when the stand-in received it, so its own processing (and its lock) is
    inside the figure: the caller sees the model's time as long as the stand-in is faster than it.
    A call the stand-in took longer over is counted in `stats()` (`over`): such a call took the
    stand-in's time instead, and a figure measured with it is not the model's.

    Off unless asked: `DEVSTACK_LATENCY=on` (the figures above) or a list of overrides
    `DEVSTACK_LATENCY=ddb=5,transact=12,kms=6,rpc_read=4,rpc_send=15` (any subset; the rest keep
    their defaults); `off` or unset: no latency. In-process, `model.configure(...)` switches it
    (`bench/run.py` measures with and without).
    """

    def __init__(self, figures: dict[str, float] | None = None) -> None:
        self._lock = threading.Lock()
        self.figures = figures
        self._calls: Counter[str] = Counter()
        self._over: Counter[str] = Counter()
        self._worst: dict[str, float] = {}

    @property
    def enabled(self) -> bool:
        return self.figures is not None

    def configure(self, figures: dict[str, float] | str | None) -> None:
        """Switch the model: figures, a `DEVSTACK_LATENCY` text, or None (off)."""
        self.figures = parse(figures) if isinstance(figures, str) else (dict(figures) if figures else None)

    def ms(self, kind: str) -> float:
        return (self.figures or {}).get(kind, 0.0)

    def hold(self, kind: str | None, received: float) -> None:
        """Wait until the call received at `received` (time.perf_counter()) has taken its kind's time."""
        figures = self.figures
        if figures is None or kind is None:
            return
        target = figures.get(kind, 0.0) / 1000.0
        spent = time.perf_counter() - received
        with self._lock:
            self._calls[kind] += 1
            if spent > target:
                self._over[kind] += 1
            self._worst[kind] = max(self._worst.get(kind, 0.0), spent * 1000)
        if spent < target:
            time.sleep(target - spent)

    def stats(self) -> dict[str, dict[str, float]]:
        """Per kind: calls held, calls the stand-in took longer over than the model (`over`), and the
        stand-in's longest own time (ms)."""
        with self._lock:
            return {
                k: {"calls": self._calls[k], "over": self._over[k], "worst_ms": round(self._worst.get(k, 0), 2)}
                for k in sorted(self._calls)
            }

    def reset_stats(self) -> None:
        with self._lock:
            self._calls.clear()
            self._over.clear()
            self._worst.clear()

    def wsgi(self, app: Callable[..., Any]) -> Callable[..., Any]:
        """WSGI middleware for the moto server: each modeled call is held before its answer goes out."""

        def held(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
            received = time.perf_counter()
            result = app(environ, start_response)
            kind = aws_kind(environ.get("HTTP_X_AMZ_TARGET")) if self.figures is not None else None
            if kind is None:
                return result
            body = read_all(result)
            self.hold(kind, received)
            return [body]

        return held


def methods_of(body: bytes) -> list[str]:
    try:
        req = json.loads(body)
    except ValueError:
        return []
    reqs = req if isinstance(req, list) else [req]
    return [r.get("method", "") if isinstance(r, dict) and isinstance(r.get("method"), str) else "" for r in reqs]


model = LatencyModel(parse(os.environ.get(ENV)))
