"""The devstack chain's block engine, held to Jito's published rules (``POST /api/v1/bundles`` and
``POST /api/v1/transactions``).

The rules, their figures and where each comes from: docs/chain.md, "The block engine: Jito's rules,
and where they come from".
"""

from __future__ import annotations

import hashlib
import os
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from solders.signature import Signature
from solders.transaction import VersionedTransaction

from . import constants as C
from .svm import is_writable

MAX_BUNDLE_TXS = C.MAX_BUNDLE_TXS  # 5
MAX_STATUS_IDS = 5
MIN_TIP_LAMPORTS = 1_000
LOOKBACK_SECONDS = 300
MAX_ENTRIES = 10_000
JITO_DEFAULT_RPS = 1.0
RATE_LIMIT_CODE = -32097
NO_TIP_LOCK = "Bundles must write lock at least one tip account to be eligible for the auction."
TX_NO_TIP_LOCK = "Transaction must write lock at least one tip account."
ALREADY_PROCESSED = "bundle contains an already processed transaction"

_TIPS = frozenset(C.TIP_ACCOUNTS)
_TRANSFER, _TRANSFER_WITH_SEED = 2, 11


class BundleRefused(Exception):
    """A JSON-RPC error of the block engine: ``code``, ``message``, and the HTTP status Jito answers it with."""

    def __init__(self, message: str, code: int = -32602, http_status: int = 400) -> None:
        super().__init__(message)
        self.code, self.message, self.http_status = code, message, http_status


def env_rps() -> float:
    """Requests per second per caller: ``$DEVSTACK_BLOCK_ENGINE_RPS`` (0: no limit), else Jito's 1."""
    value = os.environ.get("DEVSTACK_BLOCK_ENGINE_RPS")
    return JITO_DEFAULT_RPS if value in (None, "") else float(value)


def env_land_delay() -> float:
    """Seconds from a bundle's arrival to its landing: ``$DEVSTACK_BUNDLE_LAND_MS``, else one slot."""
    value = os.environ.get("DEVSTACK_BUNDLE_LAND_MS")
    return C.SLOT_SECONDS if value in (None, "") else float(value) / 1000.0


def rate_limit_message(rps: float) -> str:
    return f"Rate limit exceeded. Limit: {rps:g} per second for txn requests"


class RateLimiter:
    """A token bucket per caller: ``rps`` tokens a second, holding at most ``max(1, rps)``."""

    def __init__(self, rps: float) -> None:
        self._lock = threading.Lock()
        self._buckets: dict[str, tuple[float, float]] = {}  # caller -> (tokens, at)
        self.rps = rps

    def allow(self, caller: str, now: float | None = None) -> bool:
        if self.rps <= 0:
            return True
        now = time.monotonic() if now is None else now
        capacity = max(1.0, self.rps)
        with self._lock:
            tokens, at = self._buckets.get(caller, (capacity, now))
            tokens = min(capacity, tokens + (now - at) * self.rps)
            if tokens < 1.0:
                self._buckets[caller] = (tokens, now)
                return False
            self._buckets[caller] = (tokens - 1.0, now)
            if len(self._buckets) > 10_000:  # forget callers whose bucket is full again
                self._buckets = {k: v for k, v in self._buckets.items() if v[0] + (now - v[1]) * self.rps < capacity}
            return True

    def reset(self) -> None:
        with self._lock:
            self._buckets.clear()


def bundle_id(signatures: list[Signature]) -> str:
    """SHA-256 of the transactions' first signatures, in order (Jito's bundle id)."""
    return hashlib.sha256(",".join(str(s) for s in signatures).encode()).hexdigest()


def tip_of(txs: list[VersionedTransaction]) -> tuple[bool, int, bool]:
    """(whether any transaction write-locks a tip account, the lamports its top-level System
    transfers pay tip accounts, whether a tip account is write-locked by anything else)."""
    locked = other = False
    paid = 0
    for tx in txs:
        msg = tx.message
        keys = list(msg.account_keys)
        n = len(keys)
        tip_indexes = {i for i, k in enumerate(keys) if k in _TIPS and is_writable(i, msg, n)}
        if not tip_indexes:
            continue
        locked = True
        transferred: set[int] = set()
        for ix in msg.instructions:
            if keys[ix.program_id_index] != C.SYSTEM_PROGRAM_ID:
                continue
            data, accounts = bytes(ix.data), bytes(ix.accounts)
            if len(data) < 12:
                continue
            kind = struct.unpack_from("<I", data)[0]
            to = {_TRANSFER: 1, _TRANSFER_WITH_SEED: 2}.get(kind)
            if to is None or len(accounts) <= to or accounts[to] not in tip_indexes:
                continue
            paid += struct.unpack_from("<Q", data, 4)[0]
            transferred.add(accounts[to])
        if tip_indexes - transferred:
            other = True
    return locked, paid, other


@dataclass
class Entry:
    bundle_id: str
    txs: list[VersionedTransaction]
    signatures: list[Signature]
    received: float  # ledger unix time (warp included): the 5-minute look-back
    due: float  # time.monotonic() at which it lands
    status: str = "Pending"  # Pending | Landed | Failed
    slot: int | None = None
    err: Any = None


def _strings(params: Any, what: str) -> list[str]:
    """The JSON-RPC params' first, a list of strings, or the refusal naming `what` it should list."""
    if (
        not isinstance(params, list)
        or not params
        or not isinstance(params[0], list)
        or not all(isinstance(s, str) for s in params[0])
    ):
        raise BundleRefused(f"Invalid params: expected a list of {what}")
    return params[0]


@dataclass(frozen=True)
class EngineSettings:
    """The block engine's rate limit (requests per second per caller; 0: no limit) and landing delay
    (seconds from a bundle's arrival to its landing); None keeps the engine's own."""

    rps: float | None = None
    land_delay: float | None = None


@dataclass
class BlockEngine:
    """Bundles of one chain: accepted at once, landed by a background thread. ``bank`` is the
    chain's ledger (``process_bundle`` executes a bundle all or nothing; hold ``bank.lock``).

    Controls: ``$DEVSTACK_BLOCK_ENGINE_RPS`` or ``start_chain(engine=EngineSettings(rps=...))`` sets the rate limit
    (0: no limit), ``$DEVSTACK_BUNDLE_LAND_MS`` or ``EngineSettings(land_delay=...)`` the landing delay
    (one slot by default); ``devstack_setBlockEngine`` changes both on a running chain,
    ``devstack_landBundles`` lands every pending bundle now, and ``devstack_getEngineTransactions
    [[signature, ...]]`` tells which signatures ``/api/v1/transactions`` accepted. A bundle counts the
    top-level System transfers (Transfer, TransferWithSeed) to tip accounts; one that write-locks a tip
    account some other way (a tip by CPI) has its amount left unchecked. Re-sending a pending or landed
    bundle changes nothing (same id, same status); a failed one is tried again. A ``sendTransaction``
    without ``bundleOnly`` executes at once, without preflight (a failing one lands with its error and
    pays its fee), and its bundle is recorded already settled. A ``sendTransaction`` of a transaction
    the chain already processed (landed by the engine or the RPC) is refused with Jito's
    ``ALREADY_PROCESSED`` (-32602, no ``x-bundle-id``) and not recorded as taken.
    """

    bank: Any
    rps: float = field(default_factory=env_rps)
    land_delay: float = field(default_factory=env_land_delay)

    def __post_init__(self) -> None:
        self.limiter = RateLimiter(self.rps)
        self.entries: dict[str, Entry] = {}
        self.dropped: dict[str, float] = {}  # sendBundle under a "drop" fault: answered, never landed
        self.sent: dict[str, dict[str, Any]] = {}  # signature -> what sendTransaction accepted (oldest first)
        self._cond = threading.Condition()
        self._stopped = False
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------ settings
    def configure(self, rps: float | None = None, land_delay: float | None = None) -> dict[str, float]:
        """Change the rate limit and the landing delay; returns the previous settings."""
        before = self.settings()
        if rps is not None:
            self.rps = self.limiter.rps = float(rps)
            self.limiter.reset()
        if land_delay is not None:
            self.land_delay = float(land_delay)
        return before

    def settings(self) -> dict[str, float]:
        return {"rateLimitPerSecond": self.rps, "landDelayMs": self.land_delay * 1000.0}

    def allow(self, caller: str) -> bool:
        return self.limiter.allow(caller)

    # ------------------------------------------------------------ methods
    @staticmethod
    def tip_accounts() -> list[str]:
        return [str(k) for k in C.TIP_ACCOUNTS]

    def send_bundle(self, encoded: Any, decode: Callable[[Any], VersionedTransaction], *, drop: bool = False) -> str:
        """Check a bundle as Jito's ingress does and queue it; returns its id. ``decode`` turns one
        encoded transaction into a VersionedTransaction (raising the RPC's -32602 if it cannot)."""
        if not isinstance(encoded, list) or not encoded:
            raise BundleRefused("bundle must contain at least one transaction")
        if len(encoded) > MAX_BUNDLE_TXS:
            raise BundleRefused(
                f"bundle contains {len(encoded)} transactions, "
                f"exceeded maximum number of transactions: {MAX_BUNDLE_TXS}"
            )
        txs = [decode(s) for s in encoded]
        if not all(t.signatures for t in txs):
            raise BundleRefused("bundle transaction has no signature")
        sigs = [t.signatures[0] for t in txs]
        if len(set(sigs)) != len(sigs):
            raise BundleRefused("bundle contains duplicate transactions")
        locked, paid, other = tip_of(txs)
        if not locked:
            raise BundleRefused(NO_TIP_LOCK)
        if paid < MIN_TIP_LAMPORTS and not other:
            raise BundleRefused(f"bundle tips {paid} lamports, below the minimum tip of {MIN_TIP_LAMPORTS} lamports")
        return self._queue(txs, sigs, drop=drop)

    def _queue(self, txs: list[VersionedTransaction], sigs: list[Signature], *, drop: bool) -> str:
        bid = bundle_id(sigs)
        with self._cond:
            if drop:
                self.dropped[bid] = time.time()
                return bid
            found = self.entries.get(bid)
            if found is not None and found.status != "Failed":
                return bid  # pending or landed: nothing changes
            self.dropped.pop(bid, None)
            self._forget_old()
            self.entries[bid] = Entry(bid, txs, sigs, self.bank.unix_timestamp, time.monotonic() + self.land_delay)
            self._cond.notify_all()
        return bid

    def _forget_old(self) -> None:
        """A long-running devstack: forget settled bundles past the look-back once it holds many (hold _cond)."""
        if len(self.entries) > MAX_ENTRIES:
            now = self.bank.unix_timestamp
            self.entries = {
                k: e for k, e in self.entries.items() if e.status == "Pending" or now - e.received <= LOOKBACK_SECONDS
            }

    def send_transaction(
        self,
        tx: VersionedTransaction,
        *,
        bundle_only: bool,
        drop: bool = False,
        execute: Callable[[VersionedTransaction], Any] | None = None,
    ) -> tuple[str, str]:
        """``sendTransaction`` on ``/api/v1/transactions`` (module docstring): the tip rule, then
        either a single-transaction bundle (``bundle_only``) or a send without preflight now
        (``execute(tx)``: the ledger's result, or None when the transaction could not land), recorded
        as that bundle, settled. Returns (the signature, the bundle id for ``x-bundle-id``)."""
        if not tx.signatures:
            raise BundleRefused("transaction has no signature")
        locked, paid, other = tip_of([tx])
        if not locked:
            raise BundleRefused(TX_NO_TIP_LOCK)
        if paid < MIN_TIP_LAMPORTS and not other:
            raise BundleRefused(
                f"transaction tips {paid} lamports, below the minimum tip of {MIN_TIP_LAMPORTS} lamports"
            )
        sig = tx.signatures[0]
        with self.bank.lock:
            if sig in self.bank.transactions:  # landed already (this engine or the RPC): not taken again
                raise BundleRefused(ALREADY_PROCESSED)
        if bundle_only or drop or execute is None:
            bid = self._queue([tx], [sig], drop=drop)
        else:
            bid = bundle_id([sig])
            landed = execute(tx)
            with self._cond:
                found = self.entries.get(bid)
                if found is None or found.status == "Failed":
                    self._forget_old()
                    entry = Entry(bid, [tx], [sig], self.bank.unix_timestamp, time.monotonic())
                    ok = landed is not None and getattr(landed, "err", None) is None
                    entry.status = "Landed" if ok else "Failed"
                    entry.slot = getattr(landed, "slot", None) if ok else None
                    entry.err = None if ok else getattr(landed, "err", "dropped")
                    self.entries[bid] = entry
        with self._cond:
            if len(self.sent) >= MAX_ENTRIES:
                self.sent.pop(next(iter(self.sent)))
            self.sent[str(sig)] = {"signature": str(sig), "bundleId": bid, "bundleOnly": bundle_only}
        return str(sig), bid

    def sent_transactions(self, params: Any) -> list[dict[str, Any] | None]:
        """``devstack_getEngineTransactions``: per signature, what ``sendTransaction`` accepted, or null."""
        signatures = _strings(params, "signatures")
        with self._cond:
            return [self.sent.get(s) for s in signatures]

    @staticmethod
    def _ids(params: Any) -> list[str]:
        ids = _strings(params, "bundle ids")
        if len(ids) > MAX_STATUS_IDS:
            raise BundleRefused(f"too many bundle ids: {len(ids)}, exceeded maximum of {MAX_STATUS_IDS}")
        return ids

    def _current(self, bid: str) -> Entry | None:
        entry = self.entries.get(bid)
        if entry is None or self.bank.unix_timestamp - entry.received > LOOKBACK_SECONDS:
            return None
        return entry

    def bundle_statuses(self, params: Any) -> list[dict[str, Any] | None]:
        """getBundleStatuses' value: a landed bundle's transactions, slot and commitment; else null."""
        out: list[dict[str, Any] | None] = []
        for bid in self._ids(params):
            entry = self.entries.get(bid)
            if entry is None or entry.status != "Landed":
                out.append(None)
                continue
            conf, _ = self.bank.confirmation_status(entry.slot)
            out.append(
                {
                    "bundle_id": bid,
                    "transactions": [str(s) for s in entry.signatures],
                    "slot": entry.slot,
                    "confirmation_status": conf,
                    "err": {"Ok": None},
                }
            )
        return out

    def inflight_statuses(self, params: Any) -> list[dict[str, Any]]:
        """getInflightBundleStatuses' value: Pending, Landed (with its slot), Failed or Invalid."""
        out: list[dict[str, Any]] = []
        for bid in self._ids(params):
            entry = self._current(bid)
            if entry is None:
                status = "Pending" if bid in self.dropped else "Invalid"
                out.append({"bundle_id": bid, "status": status, "landed_slot": None})
            else:
                out.append(
                    {
                        "bundle_id": bid,
                        "status": entry.status,
                        "landed_slot": entry.slot if entry.status == "Landed" else None,
                    }
                )
        return out

    # ------------------------------------------------------------ landing
    def land_due(self, *, everything: bool = False) -> int:
        """Land the pending bundles that are due (all of them with ``everything``), in arrival
        order; returns how many. Each lands all or nothing (``bank.process_bundle``)."""
        now = time.monotonic()
        with self._cond:
            due = [e for e in self.entries.values() if e.status == "Pending" and (everything or e.due <= now)]
        due.sort(key=lambda e: e.due)
        for entry in due:
            with self.bank.lock:
                if entry.status != "Pending":
                    continue
                try:
                    result = self.bank.process_bundle(entry.txs, entry.bundle_id)
                except Exception as exc:  # an engine bug fails the bundle, not the engine
                    with self._cond:
                        entry.status, entry.err = "Failed", repr(exc)
                    raise
                with self._cond:
                    entry.slot = result.slot
                    entry.status = "Landed" if result.landed else "Failed"
                    entry.err = result.err
        return len(due)

    def _next_due(self) -> float | None:
        pending = [e.due for e in self.entries.values() if e.status == "Pending"]
        return min(pending) if pending else None

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._stopped:
                    nxt = self._next_due()
                    wait = None if nxt is None else nxt - time.monotonic()
                    if wait is not None and wait <= 0:
                        break
                    self._cond.wait(wait)
                if self._stopped:
                    return
            try:
                self.land_due()
            except Exception:  # a bug in one landing must not stop the engine
                import logging

                logging.getLogger(__name__).exception("devstack block engine: landing failed")
                time.sleep(0.05)

    def start(self) -> BlockEngine:
        self._thread = threading.Thread(target=self._run, name="devstack-block-engine", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=5)
