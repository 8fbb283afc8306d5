"""The devstack chain's PubSub websocket, on the RPC port + 1 as `solana-test-validator` serves it:
what `@solana/web3.js`'s `sendAndConfirmTransaction`, `@solana/kit`'s `rpcSubscriptions` and
solana-py's `websocket_api` wait on.

Methods (Agave's `rpc/src/rpc_pubsub.rs` shapes): `signatureSubscribe` (with
`enableReceivedNotification`; one notification, then the subscription ends), `accountSubscribe`,
`programSubscribe` (`filters`: `dataSize`, `memcmp`, `tokenAccountState`), `logsSubscribe`
(`"all"`, `"allWithVotes"`, `{"mentions": [pubkey]}`), `slotSubscribe`, `rootSubscribe`, and each
one's `...Unsubscribe` (`true`, or -32602 "Invalid subscription id." for an unknown one).

Commitment is Agave's: a subscription at `confirmed` (the default is `finalized`) is notified when
the ledger's `confirmed` view holds the slot, i.e. `confirmed_after` slots after it landed;
account and program notifications carry the account's state as of that slot, once per slot.

The chain never waits for a subscriber: a landed transaction is handed over through a queue
(`Ledger.listeners`), the websocket runs on an event loop of its own thread, and each connection
has a bounded queue of notifications: a reader that falls `MAX_QUEUED` behind is disconnected
(close code 1008), as Agave drops a subscriber whose queue is full.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import queue
import threading
from dataclasses import dataclass, field
from typing import Any

from solders.pubkey import Pubkey
from solders.signature import Signature
from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed

from . import constants as C
from .ledger import Account, TxResult

MAX_QUEUED = 4_096  # notifications a connection may have unsent before it is closed
TICK_SECONDS = 0.05  # how often commitment levels and slots are looked at
COMMITMENTS = ("processed", "confirmed", "finalized")
RANK = {c: i for i, c in enumerate(COMMITMENTS)}
NOTIFICATION = {
    "account": "accountNotification",
    "program": "programNotification",
    "signature": "signatureNotification",
    "logs": "logsNotification",
    "slot": "slotNotification",
    "root": "rootNotification",
}


class _Invalid(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def _invalid_params(message: str) -> _Invalid:
    return _Invalid(-32602, message)


@dataclass
class _Sub:
    id: int
    kind: str
    conn: _Conn
    commitment: str = "finalized"
    key: Any = None  # account / program Pubkey, Signature, or a logs filter
    config: dict[str, Any] = field(default_factory=dict)
    received: bool = False  # signatureSubscribe's enableReceivedNotification
    last_slot: int = -1  # account / program: one notification per slot


class _Conn:
    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.queue: asyncio.Queue[str] = asyncio.Queue(MAX_QUEUED)
        self.subs: set[int] = set()
        self.closed = False

    def push(self, message: dict[str, Any]) -> None:
        if self.closed:
            return
        try:
            self.queue.put_nowait(json.dumps(message))
        except asyncio.QueueFull:  # a slow reader: dropped, as Agave drops it
            self.closed = True
            asyncio.ensure_future(self.ws.close(1008, "notification queue full"))


@dataclass
class _Landed:
    result: TxResult
    reached: int = -1  # the highest commitment rank already notified


class PubSub:
    """The websocket server over a ChainRPC's bank (started by `start`, on its own thread)."""

    def __init__(self, rpc: Any) -> None:
        self.rpc = rpc
        self.bank = rpc.bank
        self._incoming: queue.SimpleQueue[list[TxResult]] = queue.SimpleQueue()
        self._subs: dict[int, _Sub] = {}
        self._ids = itertools.count(0)
        self._landed: list[_Landed] = []
        self._fresh: set[int] = set()  # signature subscriptions answered, not yet looked up
        self._slot = -1
        self._root = -1
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self.port = 0
        self.notified = 0  # notifications queued, for tests and figures

    # ------------------------------------------------------------------ lifecycle
    def start(self, host: str = "127.0.0.1", port: int = 0) -> PubSub:
        ready = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            try:
                self._server = loop.run_until_complete(self._listen(host, port))
            except BaseException as exc:  # reported by start
                failure.append(exc)
                ready.set()
                return
            self.port = self._server.sockets[0].getsockname()[1]
            ticker = loop.create_task(self._tick_forever())
            ready.set()
            try:
                loop.run_forever()
            finally:
                ticker.cancel()
                loop.run_until_complete(asyncio.sleep(0))
                loop.close()

        with self.bank.lock:
            self.bank.listeners.append(self._incoming.put)
        self._thread = threading.Thread(target=run, name="devstack-chain-pubsub", daemon=True)
        self._thread.start()
        ready.wait(10)
        if failure:
            raise failure[0]
        return self

    async def _listen(self, host: str, port: int) -> Any:
        return await serve(self._connection, host, port, max_size=1 << 20, ping_interval=None)

    def stop(self) -> None:
        with self.bank.lock:
            if self._incoming.put in self.bank.listeners:
                self.bank.listeners.remove(self._incoming.put)
        loop = self._loop
        if loop is None or self._server is None:
            return

        async def close() -> None:
            self._server.close()
            await self._server.wait_closed()
            loop.stop()

        asyncio.run_coroutine_threadsafe(close(), loop)
        if self._thread is not None:
            self._thread.join(5)

    # ------------------------------------------------------------------ connections
    async def _connection(self, ws: Any) -> None:
        conn = _Conn(ws)
        writer = asyncio.ensure_future(self._write(conn))
        try:
            async for raw in ws:
                conn.push(self._request(conn, raw))
                for sub_id in conn.subs & self._fresh:  # after its id: a signature already there
                    self._signature_now(self._subs[sub_id])
                self._fresh.clear()
        except ConnectionClosed:
            pass
        finally:
            conn.closed = True
            for sub_id in list(conn.subs):
                self._subs.pop(sub_id, None)
            writer.cancel()

    @staticmethod
    async def _write(conn: _Conn) -> None:
        try:
            while True:
                await conn.ws.send(await conn.queue.get())
        except (ConnectionClosed, asyncio.CancelledError):
            pass

    def _request(self, conn: _Conn, raw: Any) -> dict[str, Any]:
        try:
            request = json.loads(raw)
        except (TypeError, ValueError):
            return {"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": None}
        if not isinstance(request, dict) or request.get("jsonrpc") != "2.0" or "method" not in request:
            return {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid request"}, "id": None}
        rid = request.get("id")
        method, params = request["method"], request.get("params", [])
        try:
            if not isinstance(params, list):
                raise _invalid_params("Invalid params: expected an array")
            result = self._dispatch(conn, method, params)
        except _Invalid as exc:
            return {"jsonrpc": "2.0", "error": {"code": exc.code, "message": exc.message}, "id": rid}
        return {"jsonrpc": "2.0", "result": result, "id": rid}

    def _dispatch(self, conn: _Conn, method: str, params: list[Any]) -> Any:
        if method.endswith("Unsubscribe"):
            kind = method[: -len("Unsubscribe")]
            if kind not in NOTIFICATION:
                raise _Invalid(-32601, "Method not found")
            if len(params) != 1 or isinstance(params[0], bool) or not isinstance(params[0], int):
                raise _invalid_params("Invalid params: expected a subscription id")
            sub = self._subs.get(params[0])
            if sub is None or sub.kind != kind or sub.conn is not conn:
                raise _invalid_params("Invalid subscription id.")
            self._drop(sub)
            return True
        if not method.endswith("Subscribe") or method[: -len("Subscribe")] not in NOTIFICATION:
            raise _Invalid(-32601, "Method not found")
        kind = method[: -len("Subscribe")]
        sub = getattr(self, f"_new_{kind}")(conn, params)
        self._subs[sub.id] = sub
        conn.subs.add(sub.id)
        if kind == "signature":
            self._fresh.add(sub.id)
        return sub.id

    def _drop(self, sub: _Sub) -> None:
        self._subs.pop(sub.id, None)
        sub.conn.subs.discard(sub.id)

    # ------------------------------------------------------------------ subscribe
    @staticmethod
    def _config(params: list[Any], i: int) -> dict[str, Any]:
        if len(params) <= i or params[i] is None:
            return {}
        if not isinstance(params[i], dict):
            raise _invalid_params("Invalid params: expected a configuration object")
        return params[i]

    @staticmethod
    def _commitment(cfg: dict[str, Any]) -> str:
        c = cfg.get("commitment", "finalized")
        c = {"recent": "processed", "single": "confirmed", "singleGossip": "confirmed", "max": "finalized"}.get(c, c)
        if c not in COMMITMENTS:
            raise _invalid_params(f"Invalid params: unknown commitment {c!r}")
        return c

    @staticmethod
    def _pubkey(v: Any) -> Pubkey:
        try:
            return Pubkey.from_string(v)
        except Exception:
            raise _invalid_params("Invalid Request: Invalid pubkey provided") from None

    def _sub(self, kind: str, conn: _Conn, **kw: Any) -> _Sub:
        return _Sub(next(self._ids), kind, conn, **kw)

    def _new_account(self, conn: _Conn, p: list[Any]) -> _Sub:
        if not p:
            raise _invalid_params("Invalid params: missing pubkey")
        cfg = self._config(p, 1)
        self._check_encoding(cfg)
        return self._sub("account", conn, key=self._pubkey(p[0]), commitment=self._commitment(cfg), config=cfg)

    def _new_program(self, conn: _Conn, p: list[Any]) -> _Sub:
        if not p:
            raise _invalid_params("Invalid params: missing program id")
        cfg = self._config(p, 1)
        self._check_encoding(cfg)
        filters = cfg.get("filters") or []
        if not isinstance(filters, list) or len(filters) > 4:
            raise _invalid_params("Too many filters provided; max 4")
        try:  # the RPC's own filter check, on an empty account
            self.rpc._matches(Account(), filters)
        except Exception as exc:
            raise _invalid_params(getattr(exc, "message", str(exc))) from None
        return self._sub("program", conn, key=self._pubkey(p[0]), commitment=self._commitment(cfg), config=cfg)

    def _new_signature(self, conn: _Conn, p: list[Any]) -> _Sub:
        if not p or not isinstance(p[0], str):
            raise _invalid_params("Invalid params: missing signature")
        try:
            sig = Signature.from_string(p[0])
        except Exception:
            raise _invalid_params("Invalid Request: Invalid signature provided") from None
        cfg = self._config(p, 1)
        return self._sub(
            "signature",
            conn,
            key=sig,
            commitment=self._commitment(cfg),
            received=bool(cfg.get("enableReceivedNotification")),
        )

    def _new_logs(self, conn: _Conn, p: list[Any]) -> _Sub:
        if not p:
            raise _invalid_params("Invalid params: missing filter")
        f = p[0]
        if f in ("all", "allWithVotes"):
            key: Any = f
        elif isinstance(f, dict) and isinstance(f.get("mentions"), list):
            if len(f["mentions"]) != 1:
                raise _invalid_params("Invalid Request: Only 1 address supported")
            key = self._pubkey(f["mentions"][0])
        else:
            raise _invalid_params("Invalid params: unknown logs filter")
        return self._sub("logs", conn, key=key, commitment=self._commitment(self._config(p, 1)))

    def _new_slot(self, conn: _Conn, p: list[Any]) -> _Sub:
        return self._sub("slot", conn)

    def _new_root(self, conn: _Conn, p: list[Any]) -> _Sub:
        return self._sub("root", conn)

    def _check_encoding(self, cfg: dict[str, Any]) -> None:
        enc = cfg.get("encoding", "base58")
        if enc not in ("base58", "base64", "base64+zstd", "jsonParsed"):
            raise _invalid_params(f"Invalid params: unknown encoding {enc!r}")

    # ------------------------------------------------------------------ notifications
    def _notify(self, sub: _Sub, result: Any) -> None:
        sub.conn.push(
            {"jsonrpc": "2.0", "method": NOTIFICATION[sub.kind], "params": {"result": result, "subscription": sub.id}}
        )
        self.notified += 1

    def _ctx(self, slot: int, value: Any) -> dict[str, Any]:
        return {"context": {"slot": slot}, "value": value}

    def _signature_now(self, sub: _Sub) -> None:
        """A signature that already reached the subscription's commitment is notified at once."""
        with self.bank.lock:
            r = self.bank.transactions.get(sub.key)
            status = None if r is None else self.bank.confirmation_status(r.slot)[0]
        if r is None:
            return
        if status is not None and RANK[status] >= RANK[sub.commitment]:
            self._notify(sub, self._ctx(r.slot, {"err": r.err}))
            self._drop(sub)
        elif sub.received:
            sub.received = False  # once
            self._notify(sub, self._ctx(r.slot, "receivedSignature"))

    async def _tick_forever(self) -> None:
        while True:
            try:
                self._tick()
            except Exception as exc:  # never let one bad notification stop the ticker
                print(f"devstack.chain.pubsub: {type(exc).__name__}: {exc}", flush=True)
            await asyncio.sleep(TICK_SECONDS)

    def _tick(self) -> None:
        while True:
            try:
                self._landed.extend(_Landed(r) for r in self._incoming.get_nowait() if r.landed)
            except queue.Empty:
                break
        with self.bank.lock:
            slot = self.bank.slot
            self._slots(slot)
            if self._landed:
                self._transactions()

    def _slots(self, slot: int) -> None:
        if self._slot < 0:
            self._slot = slot
        for s in range(self._slot + 1, slot + 1):
            for sub in [x for x in self._subs.values() if x.kind == "slot"]:
                self._notify(sub, {"parent": max(0, s - 1), "root": max(0, s - C.FINALIZED_AFTER_SLOTS), "slot": s})
        self._slot = max(self._slot, slot)
        root = max(0, slot - C.FINALIZED_AFTER_SLOTS)
        if root > self._root:
            if self._root >= 0:
                for sub in [x for x in self._subs.values() if x.kind == "root"]:
                    self._notify(sub, root)
            self._root = root

    def _transactions(self) -> None:
        keep: list[_Landed] = []
        for entry in self._landed:
            r = entry.result
            status = RANK[self.bank.confirmation_status(r.slot)[0]]
            for rank in range(entry.reached + 1, status + 1):
                self._landed_at(r, COMMITMENTS[rank], first=entry.reached < 0 and rank == 0)
            entry.reached = max(entry.reached, status)
            if entry.reached < RANK["finalized"]:
                keep.append(entry)
        self._landed = keep

    def _landed_at(self, r: TxResult, commitment: str, first: bool) -> None:
        """`r` has reached `commitment`: the subscriptions at that level are notified."""
        keys = list(r.tx.message.account_keys)
        for sub in list(self._subs.values()):
            if sub.kind == "signature" and sub.key == r.signature:
                if sub.commitment == commitment:
                    self._notify(sub, self._ctx(r.slot, {"err": r.err}))
                    self._drop(sub)
                elif first and sub.received:
                    sub.received = False  # once
                    self._notify(sub, self._ctx(r.slot, "receivedSignature"))
            if sub.commitment != commitment:
                continue
            if sub.kind == "logs" and (sub.key in ("all", "allWithVotes") or sub.key in keys):
                self._notify(
                    sub, self._ctx(r.slot, {"signature": str(r.signature), "err": r.err, "logs": list(r.logs)})
                )
            elif sub.kind == "account" and sub.key in r.writable_keys and sub.last_slot < r.slot:
                sub.last_slot = r.slot
                account = self.bank.get_account(sub.key, r.slot)
                self._notify(sub, self._ctx(r.slot, self._encode(account, sub.config, sub.key)))
            elif sub.kind == "program" and sub.last_slot < r.slot:
                self._program(sub, r)

    def _program(self, sub: _Sub, r: TxResult) -> None:
        changed = False
        for key in r.writable_keys:
            account = self.bank.get_account(key, r.slot)
            if account is None or account.owner != sub.key:
                continue
            if not self.rpc._matches(account, sub.config.get("filters") or []):
                continue
            changed = True
            self._notify(
                sub, self._ctx(r.slot, {"pubkey": str(key), "account": self._encode(account, sub.config, key)})
            )
        if changed:
            sub.last_slot = r.slot

    def _encode(self, account: Any, cfg: dict[str, Any], key: Any) -> Any:
        from .server import encode_account

        encoded = encode_account(account, cfg, self.bank, key)
        if encoded is None:  # a closed account: Agave notifies it empty, owned by the System program
            encoded = {
                "lamports": 0,
                "data": ["", "base64"] if cfg.get("encoding") in ("base64", "base64+zstd") else "",
                "owner": str(C.SYSTEM_PROGRAM_ID),
                "executable": False,
                "rentEpoch": 0,
                "space": 0,
            }
        return encoded


__all__ = ["PubSub", "MAX_QUEUED"]
