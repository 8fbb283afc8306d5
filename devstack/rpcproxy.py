"""A second chain endpoint for the devstack: a small JSON-RPC proxy with faults of its own, so failover
can be shown with one chain (the first endpoint down, slow or behind, the second serving).

    proxy = start_rpc_proxy(chain.url)     # port 0: any free port
    proxy.url                              # a second entry of RPC_URLS
    proxy.set_fault("down")                # or "error", "slow" (delay=s), "behind" (slots=N), "none"
    proxy.stop()
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, cast

import urllib3

from devstack.httpserver import Answer, HttpRequest, HttpServer, ReadTimeouts

__all__ = ["RpcProxy", "start_rpc_proxy", "MODES"]

MODES = ("none", "down", "error", "slow", "behind")
FAULT_PATH = "/_devstack/fault"
MAX_BODY = 8 * 1024 * 1024


@dataclass
class Fault:
    mode: str = "none"
    count: int | None = None
    delay: float = 2.0
    slots: int = 150


@dataclass
class RpcProxy:
    """Forwards every POST to the upstream and answers what it answered, unless a fault is set:

    - ``down``: the connection is closed without an answer (a node that went away);
    - ``error``: HTTP 503 (a load balancer with no healthy node behind it);
    - ``slow``: waits ``delay`` seconds, then forwards (a client's timeout fires first);
    - ``behind``: a node ``slots`` slots behind: ``getHealth`` answers -32005 "Node is behind
      by N slots", a ``sendTransaction`` with preflight answers -32005 (Agave refuses to
      simulate on an unhealthy node), a call whose ``minContextSlot`` is above the upstream's
      slot minus ``slots`` answers -32016 "Minimum context slot has not been reached", and
      ``getSlot`` / ``getBlockHeight`` answer ``slots`` less; other reads are forwarded
      (their state is not made stale).

    ``count`` limits a fault to that many requests (None: until cleared). Over HTTP:
    ``POST /_devstack/fault`` with ``{"mode", "count", "delay", "slots"}`` and ``GET
    /_devstack/fault``. ``requests`` counts the JSON-RPC methods the proxy received and
    ``forwarded`` those it passed on, unchanged, to the upstream (tests check where a read or
    a send went).
    """

    upstream: str
    server: HttpServer
    thread: threading.Thread
    fault: Fault = field(default_factory=Fault)
    requests: Counter[str] = field(default_factory=Counter)
    forwarded: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        host, port = cast(tuple[str, int], self.server.server_address[:2])
        return f"http://{host}:{port}"

    def set_fault(self, mode: str, *, count: int | None = None, delay: float = 2.0, slots: int = 150) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown fault mode {mode!r} (one of {', '.join(MODES)})")
        if count is not None and count < 1 or delay < 0 or slots < 0:
            raise ValueError("count >= 1, delay >= 0, slots >= 0")
        with self.lock:
            self.fault = Fault(mode, count, float(delay), int(slots))

    def clear_fault(self) -> None:
        self.set_fault("none")

    def state(self) -> dict[str, Any]:
        with self.lock:
            f = self.fault
            return {"mode": f.mode, "count": f.count, "delay": f.delay, "slots": f.slots}

    def take(self) -> Fault:
        """The fault for one request (and one less of a counted one)."""
        with self.lock:
            f = self.fault
            if f.mode == "none":
                return f
            if f.count is not None:
                self.fault = Fault() if f.count <= 1 else Fault(f.mode, f.count - 1, f.delay, f.slots)
            return f

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def _error(id_: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    err: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return {"jsonrpc": "2.0", "id": id_, "error": err}


def _min_context_slot(request: dict[str, Any]) -> int | None:
    params = request.get("params")
    if isinstance(params, list) and params and isinstance(params[-1], dict):
        value = params[-1].get("minContextSlot")
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def _preflight(request: dict[str, Any]) -> bool:
    params = request.get("params")
    config = params[1] if isinstance(params, list) and len(params) > 1 and isinstance(params[1], dict) else {}
    return not config.get("skipPreflight", False)


def _json(status: int, body: bytes) -> Answer:
    return status, [("Content-Type", "application/json")], body


class _ProxyApp:
    """The proxy behind the HTTP server (``devstack.httpserver``)."""

    max_body = MAX_BODY
    read_timeouts = ReadTimeouts()

    def __init__(self, pool: urllib3.PoolManager) -> None:
        self.pool = pool
        self.proxy: RpcProxy  # set by start_rpc_proxy

    def refuse(self, status: int, message: str, request: HttpRequest) -> Answer:
        return (
            status,
            [("Content-Type", "application/json"), ("Connection", "close")],
            json.dumps({"error": message}).encode(),
        )

    def handle(self, request: HttpRequest) -> Answer | None:
        if request.method != "POST":
            if request.target == FAULT_PATH:
                return _json(200, json.dumps(self.proxy.state()).encode())
            return _json(404, b'{"error":"not found"}')
        raw = request.body
        if request.target == FAULT_PATH:
            try:
                spec = json.loads(raw or b"{}")
                self.proxy.set_fault(
                    str(spec.get("mode", "none")),
                    count=spec.get("count"),
                    delay=float(spec.get("delay", 2.0)),
                    slots=int(spec.get("slots", 150)),
                )
            except (ValueError, TypeError, AttributeError) as exc:
                return _json(400, json.dumps({"error": str(exc)}).encode())
            return _json(200, json.dumps(self.proxy.state()).encode())
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        items = body if isinstance(body, list) else [body]
        with self.proxy.lock:
            for item in items:
                if isinstance(item, dict):
                    self.proxy.requests[str(item.get("method"))] += 1
        fault = self.proxy.take()
        if fault.mode == "down":
            return None  # the connection is closed without an answer
        if fault.mode == "error":
            return _json(503, b'{"error":"no healthy upstream"}')
        if fault.mode == "slow":
            time.sleep(fault.delay)
        if fault.mode == "behind" and body is not None:
            out = self._behind(request.target, items, fault.slots)
            if out is not None:
                return _json(200, json.dumps(out if isinstance(body, list) else out[0]).encode())
        status, data = self._forward(request.target, raw)
        with self.proxy.lock:
            for item in items:
                if isinstance(item, dict):
                    self.proxy.forwarded[str(item.get("method"))] += 1
        return _json(status, data)

    def _forward(self, target: str, raw: bytes) -> tuple[int, bytes]:
        try:
            response = self.pool.request(
                "POST",
                self.proxy.upstream + target,
                body=raw,
                headers={"Content-Type": "application/json"},
                redirect=False,
            )
        except urllib3.exceptions.HTTPError:
            return 502, b'{"error":"upstream unreachable"}'
        return response.status, response.data

    def _upstream(self, target: str, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        status, data = self._forward(target, json.dumps(requests).encode())
        answers = json.loads(data) if status == 200 else []
        return answers if isinstance(answers, list) else [answers]

    def _behind(self, target: str, items: list[Any], slots: int) -> list[dict[str, Any]] | None:
        """Answers for a node `slots` behind; None: forward the request unchanged."""
        if not all(isinstance(i, dict) for i in items):
            return None
        slot = None
        if any(_min_context_slot(i) is not None for i in items):
            slot = self._upstream(target, [{"jsonrpc": "2.0", "id": 0, "method": "getSlot"}])[0].get("result", 0)
        local: dict[int, dict[str, Any]] = {}
        for n, item in enumerate(items):
            method, id_ = item.get("method"), item.get("id")
            behind = {"numSlotsBehind": slots}
            wanted = _min_context_slot(item)
            if method == "getHealth":
                local[n] = _error(id_, -32005, f"Node is behind by {slots} slots", behind)
            elif method == "sendTransaction" and _preflight(item):
                local[n] = _error(id_, -32005, f"Node is unhealthy: behind by {slots} slots", behind)
            elif wanted is not None and slot is not None and wanted > slot - slots:
                local[n] = _error(
                    id_, -32016, "Minimum context slot has not been reached", {"contextSlot": max(0, slot - slots)}
                )
        lowered = [
            n for n, i in enumerate(items) if n not in local and i.get("method") in ("getSlot", "getBlockHeight")
        ]
        if not local and not lowered:
            return None
        rest = [(n, i) for n, i in enumerate(items) if n not in local]
        answers = self._upstream(target, [i for _, i in rest]) if rest else []
        by_id = {a.get("id"): a for a in answers if isinstance(a, dict)}
        out = []
        for n, item in enumerate(items):
            if n in local:
                out.append(local[n])
                continue
            answer = dict(by_id.get(item.get("id")) or _error(item.get("id"), -32603, "upstream dropped it"))
            if n in lowered and isinstance(answer.get("result"), int):
                answer["result"] = max(0, answer["result"] - slots)
            out.append(answer)
        return out


def start_rpc_proxy(upstream: str, host: str = "127.0.0.1", port: int = 0) -> RpcProxy:
    """Start a proxy in front of `upstream` (the devstack chain's URL) in a background thread."""
    pool = urllib3.PoolManager(maxsize=16, retries=False, timeout=urllib3.Timeout(connect=5, read=60))
    app = _ProxyApp(pool)
    server = HttpServer((host, port), app, server_name="devstack-rpc-proxy")
    thread = threading.Thread(target=server.serve_forever, name="devstack-rpc-proxy", daemon=True)
    proxy = app.proxy = RpcProxy(upstream=upstream.rstrip("/"), server=server, thread=thread)
    thread.start()
    return proxy
