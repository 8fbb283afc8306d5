"""The tracker: follows every open transaction record to the end (confirmed, finalized, failed or
expired), enqueuing a webhook event per new status before the record moves, so that a crash in
between re-sends the same event id. A pass, its moves and its limits: docs/architecture.md,
"Transaction lifecycle".
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Iterable
from typing import Any

from solders.signature import Signature

from partner.chain import ports
from partner.chain.errors import spec_code_for_transaction_error
from partner.chain.rpc import BlockEngine, Rpc
from partner.core import clock, observability, parallel, snapshot
from partner.core.settings import get_settings
from partner.jobs import webhooks
from partner.send.txstatus import INFLIGHT, NOT_LANDED, invalid_is_final, program_ids
from partner.store import aws, ddb, txrecords
from partner.store.bundles import bundle_pk

STATUS_BATCH = 256  # getSignatureStatuses' limit
RANK = {"processed": 0, "confirmed": 1, "finalized": 2}


def _statuses(rpc: Rpc, signatures: list[str]) -> dict[str, dict[str, Any] | None]:
    chunks = [signatures[start : start + STATUS_BATCH] for start in range(0, len(signatures), STATUS_BATCH)]

    def lookup(chunk: list[str]) -> list[dict[str, Any] | None]:
        return rpc.signature_statuses([Signature.from_string(s) for s in chunk])

    answers = parallel.map_at_most(lookup, chunks, 8)
    return {
        text: found
        for chunk, answer in zip(chunks, answers, strict=True)
        for text, found in zip(chunk, answer, strict=True)
    }


def _failed_bundles(engine: BlockEngine, bundle_ids: set[str]) -> dict[str, str]:
    """The bundles the engine says did not land: id -> `failed` (Jito's Failed) or `invalid`
    (Invalid: dropped, or past its 5-minute look-back), asked 5 ids at a time (Jito's limit); a
    query that fails (unreachable, rate limited past its retries) leaves its bundles for the next pass."""
    ordered = sorted(bundle_ids)
    failed: dict[str, str] = {}
    for start in range(0, len(ordered), engine.MAX_STATUS_IDS):
        chunk = ordered[start : start + engine.MAX_STATUS_IDS]
        try:
            found = engine.inflight_statuses(chunk)
        except Exception:  # these bundles are asked again next pass
            observability.logger.warning("tracker could not read bundle statuses", exc_info=True)
            continue
        for bid, entry in zip(chunk, found, strict=False):
            state = INFLIGHT.get(str((entry or {}).get("status")))
            if state in NOT_LANDED:
                failed[bid] = state
    return failed


def _bundle_failed(state: str | None, record: dict[str, Any], bundle: dict[str, Any], height: int) -> bool:
    """A launch bundle that did not land: Failed; or Invalid, settled (`txstatus.invalid_is_final`),
    while its blockhash is still valid (once it expired, the record expires as a send that never landed)."""
    if state == "failed":
        return True
    return state == "invalid" and invalid_is_final(bundle) and height <= int(record["last_valid_block_height"])


def transitions(
    record: dict[str, Any], found: dict[str, Any] | None, height: int, bundle_failed: bool
) -> tuple[str, list[str], int | None, str | None] | None:
    """(new status, the event statuses to emit in order, slot, error), or None for no change.
    Pure: `found` is the signature's getSignatureStatuses entry, `height` the block height
    read before it."""
    old = record["status"]
    if found is not None:
        slot = found.get("slot")
        if found.get("err") is not None:
            return "failed", ["failed"], slot, None  # the error code is mapped by the caller
        level = RANK.get(str(found.get("confirmationStatus") or "processed"), 0)
        if level >= RANK["finalized"]:
            return "finalized", (["confirmed"] if old == "sent" else []) + ["finalized"], slot, None
        if level >= RANK["confirmed"] and old == "sent":
            return "confirmed", ["confirmed"], slot, None
        return None
    if old != "sent":
        return None  # confirmed records do not vanish; wait for finalized
    if bundle_failed:
        return "failed", ["failed"], None, "tx_failed"
    if height > int(record["last_valid_block_height"]):
        return "expired", ["expired"], None, "tx_expired"
    return None


MOVE_WORKERS = 16  # conditional moves at once (one record each)
PUT_WORKERS = 8  # batches of moved records written at once (25 records each)
MOVE_GROUP = 250  # records whose events are queued before they move (all at once)
QUEUE_WORKERS = 4  # a group's SendMessageBatch calls at once (8 waited in line past the 5 s read timeout
# on the devstack's moto, whose send slows with the queue's length)
LEASE_SECONDS = 90.0  # an index partition's lease (`Owner`), renewed once less than a minute is left
LEASE_MARGIN = 30.0  # a batch write starts only with this much of its lease left: more than one write's
# longest time with its retries (3 attempts of 2 s to connect and 5 s to read, and the pauses between)
FINAL_RANK = 2


def _rank(record: dict[str, Any]) -> int:
    status = str(record.get("status"))
    return FINAL_RANK if status in txrecords.FINAL else RANK.get(status, 0)


class Owner:
    """The index partitions this process holds a lease on (`txrecords.claim`), and what it wrote.

    The moves of a partition it holds are written whole in batches without a condition
    (`txrecords.put_moved`): no other pass moves those records while the lease runs, and a batch
    starts only with `LEASE_MARGIN` of it left. The index is read eventually consistent, so a record
    moved a moment ago may still show its old status there: `freshest` puts back what this process
    wrote (a record never moves back, nor is an event queued twice). Another process gets the partition
    only after the lease ran out, long after the index caught up. The records of a partition not held
    (another's lease runs, or the claim failed) move one at a time on the condition (`txrecords.move`)."""

    def __init__(self) -> None:
        self.id = secrets.token_hex(8)
        self.until: dict[str, float] = {}
        self.written: dict[str, tuple[float, dict[str, Any]]] = {}
        self._lock = threading.Lock()

    def held(self, parts: set[str]) -> set[str]:
        """The partitions of `parts` held with at least `LEASE_MARGIN` left (claimed or renewed here)."""
        now = clock.now()
        due = sorted(p for p in parts if self.until.get(p, 0.0) - now < LEASE_SECONDS - LEASE_MARGIN)
        for part, until in zip(due, parallel.map_at_most(self._claim, due, len(due)), strict=True):
            self.until[part] = until or 0.0
        now = clock.now()
        return {p for p in parts if self.until.get(p, 0.0) - now >= LEASE_MARGIN}

    def _claim(self, part: str) -> float | None:
        try:
            return txrecords.claim(part, self.id, LEASE_SECONDS)
        except Exception:  # its records move one by one on the condition
            observability.logger.warning("tracker could not claim an index partition", exc_info=True)
            return None

    def freshest(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """`records` as read from the index, each replaced by what this process wrote of it lately if
        that is further on; a record it wrote final is left out."""
        now = clock.now()
        with self._lock:
            self.written = {pk: w for pk, w in self.written.items() if now - w[0] < LEASE_SECONDS}
            mine = {r["pk"]: self.written[r["pk"]][1] for r in records if r["pk"] in self.written}
        out = []
        for record in records:
            last = mine.get(record["pk"])
            if last is None or _rank(last) <= _rank(record):
                out.append(record)
            elif _rank(last) < FINAL_RANK:
                out.append(last)
        return out

    def wrote(self, items: list[dict[str, Any]]) -> None:
        """Remember `items` as written (of a final record only its status: it is never written again)."""
        now = clock.now()
        kept = [item if _rank(item) < FINAL_RANK else {"pk": item["pk"], "status": item["status"]} for item in items]
        with self._lock:
            self.written.update((item["pk"], (now, item)) for item in kept)


_owner = Owner()

Move = tuple[dict[str, Any], str, list[str], int | None, str | None]  # record, new, events, slot, error


def run(
    rpc: Rpc | None = None, engine: BlockEngine | None = None, limit: int = 2000, shards: Iterable[int] | None = None
) -> dict[str, Any]:
    """One pass over the open records (of `shards`, default all); a summary of what moved.
    A failure on one record (its failure lookup, its events, its move) is counted in
    `errors` and logged; the pass goes on with the others, and the record is retried next pass."""
    settings = get_settings()
    rpc = rpc or ports.current().rpc()
    engine = engine or BlockEngine(settings.block_engine_url)
    records = _owner.freshest(txrecords.open_records(limit, shards))
    summary: dict[str, Any] = {
        "open": len(records),
        "moved": 0,
        "events": 0,
        "errors": 0,
        "statuses": {s: 0 for s in (*txrecords.OPEN[1:], *txrecords.FINAL)},
    }
    if not records:
        return summary
    height = rpc.block_height()
    found = _statuses(rpc, [r["pk"] for r in records])
    hooks, bundle_failed = _reads(engine, records, found, height)
    moves = []
    for record in records:
        move = _decide(rpc, record, found.get(record["pk"]), height, record["pk"] in bundle_failed, summary)
        if move is not None:
            moves.append(move)
    for start in range(0, len(moves), MOVE_GROUP):
        _apply(moves[start : start + MOVE_GROUP], hooks, summary)
    return summary


def _reads(
    engine: BlockEngine, records: list[dict[str, Any]], found: dict[str, Any], height: int
) -> tuple[set[str], set[str]]:
    """(the clients that want events, the records whose launch bundle did not land), from one
    chunked BatchGetItem of the clients and the bundle records of the launch bundles (several
    signatures) that the chain does not know yet, then the engine's bundle statuses."""
    settings = get_settings()
    unknown_bundled = [r for r in records if len(r.get("signatures") or ()) > 1 and found.get(r["pk"]) is None]
    keys: dict[str, list[str]] = {settings.clients_table: sorted({r["client_id"] for r in records})}
    if unknown_bundled:
        keys[settings.counters_table] = [bundle_pk(r["pk"]) for r in unknown_bundled]
    read = ddb.batch_get(keys)
    bundles = {r["pk"]: read.get(settings.counters_table, {}).get(bundle_pk(r["pk"])) or {} for r in unknown_bundled}
    failed_bundles = _failed_bundles(engine, {b["bundle_id"] for b in bundles.values() if b.get("bundle_id")})
    failed = {
        r["pk"]
        for r in unknown_bundled
        if _bundle_failed(failed_bundles.get(bundles[r["pk"]].get("bundle_id") or ""), r, bundles[r["pk"]], height)
    }
    hooks = {cid for cid, item in read[settings.clients_table].items() if webhooks.wants_events(item)}
    return hooks, failed


def _decide(
    rpc: Rpc, record: dict[str, Any], found: dict[str, Any] | None, height: int, bundle_failed: bool, summary: dict
) -> Move | None:
    """The record's move, or None (no change; or its outcome could not be read: counted, logged)."""
    try:
        change = transitions(record, found, height, bundle_failed)
        if change is None:
            return None
        new, emit, slot, error = change
        if new == "failed" and error is None:
            error = _failure_code(rpc, record["pk"], found)
            if error is None:
                return None  # not confirmed yet: the next pass maps it (the record stays open)
    except Exception:  # one record's failure must not stop the pass
        _skip(summary, record, "reading its outcome")
        return None
    return record, new, emit, slot, error


def _apply(group: list[Move], hooks: set[str], summary: dict[str, Any]) -> None:
    """Queue the group's events (SendMessageBatch calls at once), then move its records: a crash in
    between re-sends the same event ids. A batch that fails to queue keeps the group open (retried
    next pass). Records of a partition this process holds are written in batches (`Owner`); a batch
    that fails, and the other records, move one at a time on the condition."""
    events = [
        (record["client_id"], webhooks.event(record, status, slot, error))
        for record, _new, emit, slot, error in group
        if record["client_id"] in hooks
        for status in emit
    ]
    batches = [events[at : at + webhooks.SEND_BATCH] for at in range(0, len(events), webhooks.SEND_BATCH)]
    if not all(parallel.map_at_most(_enqueue, batches, QUEUE_WORKERS)):
        for record, *_ in group:
            _skip(summary, record, "queueing its events")
        return
    summary["events"] += len(events)
    held = _owner.held({str(move[0].get("track")) for move in group})
    batched = [move for move in group if str(move[0].get("track")) in held]
    single = [move for move in group if str(move[0].get("track")) not in held]
    chunks = [batched[at : at + txrecords.PUT_BATCH] for at in range(0, len(batched), txrecords.PUT_BATCH)]
    outcomes: list[tuple[Move, bool | None]] = []
    for chunk, written in zip(chunks, parallel.map_at_most(_put, chunks, PUT_WORKERS), strict=True):
        if written:
            outcomes += [(move, True) for move in chunk]
        else:
            single += chunk
    outcomes += zip(single, parallel.map_at_most(_move, single, MOVE_WORKERS), strict=True)
    for (record, new, *_), moved in outcomes:
        if moved is None:
            _skip(summary, record, "moving it")
        elif moved:
            summary["moved"] += 1
            summary["statuses"][new] += 1


def _enqueue(events: list[tuple[str, dict[str, Any]]]) -> bool:
    """Queue one batch of events: True, or False (failed, logged; the caller skips their records)."""
    try:
        webhooks.enqueue(events)
    except Exception:  # the records of these events are retried next pass
        observability.logger.warning("tracker could not queue webhook events", exc_info=True)
        return False
    return True


def _moved(move: Move) -> dict[str, Any]:
    record, new, _emit, slot, error = move
    return txrecords.moved(record, new, slot=slot, error=error)


def _put(chunk: list[Move]) -> bool:
    """Write one batch of moved records whole: True, or False (failed, logged: moved one by one)."""
    items = [_moved(move) for move in chunk]
    try:
        txrecords.put_moved(items)
    except Exception:  # the caller moves them one at a time on the condition
        observability.logger.warning("tracker could not write a batch of moves", exc_info=True)
        return False
    _owner.wrote(items)
    return True


def _move(move: Move) -> bool | None:
    """Move one record on the condition: True, False (another pass moved it first) or None (failed)."""
    record, new, _emit, slot, error = move
    try:
        done = txrecords.move(record["pk"], record["status"], new, slot=slot, error=error)
    except Exception:  # counted by the caller; the record is retried next pass
        return None
    if done:
        _owner.wrote([_moved(move)])
    return done


def _skip(summary: dict[str, Any], record: dict[str, Any], doing: str) -> None:
    summary["errors"] += 1
    observability.logger.warning(
        "tracker skipped a record", extra={"signature": record["pk"], "failed_at": doing}, exc_info=True
    )


def _failure_code(rpc: Rpc, signature: str, found: dict[str, Any] | None) -> str | None:
    """The spec code of a landed failure, read off the transaction at `confirmed` (which of its
    programs failed tells a System error from a Token one); None while it is not confirmed."""
    err = (found or {}).get("err")
    ids = program_ids(rpc, Signature.from_string(signature))
    if ids is None:
        return None
    return spec_code_for_transaction_error(err, ids) or "tx_failed"


def run_for(seconds: float, every: float = 1.0, **kwargs: Any) -> list[dict[str, Any]]:
    """Passes for about `seconds` (at least one): the next pass starts at once while the last
    one was full (a backlog), else after `every` seconds, so a scheduled run once a minute
    still moves records within seconds of the chain."""
    started = time.monotonic()
    limit = int(kwargs.get("limit", 2000))
    out = [run(**kwargs)]
    while True:
        pause = 0.0 if out[-1]["open"] >= limit else every
        if time.monotonic() - started + pause >= seconds:
            return out
        time.sleep(pause)
        out.append(run(**kwargs))


def groups(count: int | None = None) -> list[list[int]]:
    """The index partitions split into `count` (default TRACKER_GROUPS) groups, clamped to 1..the
    partition count, round robin: each group is one invocation's share of a scheduled run."""
    shards = txrecords.shard_count()
    count = max(1, min(shards, int(get_settings().tracker_groups if count is None else count)))
    return [list(range(first, shards, count)) for first in range(count)]


@snapshot.before_snapshot
def _warm_invoke() -> None:
    """The Lambda client `fan_out` uses, made before the snapshot (not on a restored run's first pass)."""
    aws.dry_run("lambda", [("invoke", {"FunctionName": "snapshot", "InvocationType": "Event", "Payload": b"{}"})])


def fan_out(function: str, others: list[list[int]]) -> list[int]:
    """Invoke `function` (this function's ARN) asynchronously once per group of `others`, with the
    event {"shards": group}; the partitions of the groups whose invoke failed (logged), for the
    caller to run itself, so that no partition is left out of the run."""
    left: list[int] = []
    for group in others:
        try:
            answer = aws.client("lambda").invoke(
                FunctionName=function, InvocationType="Event", Payload=json.dumps({"shards": group}).encode()
            )
            if int(answer.get("StatusCode", 0)) != 202:
                raise RuntimeError(f"invoke answered {answer.get('StatusCode')}")
        except Exception:  # this invocation runs the group's partitions too
            observability.logger.warning(
                "tracker could not hand out partitions", extra={"shards": group}, exc_info=True
            )
            left += group
    return left
