"""The tracker: follows every open transaction record to the end (confirmed, finalized, failed or
expired), enqueuing a webhook event per new status before the record moves, so that a crash in
between re-sends the same event id. A pass, its moves and its limits: docs/architecture.md,
"Transaction lifecycle".
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from solders.signature import Signature

from partner.chain import ports
from partner.chain.errors import spec_code_for_transaction_error
from partner.chain.rpc import BlockEngine, Rpc
from partner.core import observability
from partner.core.settings import get_settings
from partner.features import webhooks
from partner.features.txstatus import INFLIGHT, NOT_LANDED, invalid_is_final, program_ids
from partner.store import ddb, txrecords
from partner.store.bundles import bundle_pk

STATUS_BATCH = 256  # getSignatureStatuses' limit
RANK = {"processed": 0, "confirmed": 1, "finalized": 2}


def _statuses(rpc: Rpc, signatures: list[str]) -> dict[str, dict[str, Any] | None]:
    chunks = [signatures[start : start + STATUS_BATCH] for start in range(0, len(signatures), STATUS_BATCH)]

    def lookup(chunk: list[str]) -> list[dict[str, Any] | None]:
        return rpc.signature_statuses([Signature.from_string(s) for s in chunk])

    with ThreadPoolExecutor(max_workers=max(1, min(8, len(chunks)))) as pool:
        answers = list(pool.map(lookup, chunks))
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


MOVE_WORKERS = 16  # records moved at once (each one conditional UpdateItem)
MOVE_GROUP = 100  # records whose events are queued before they move (all at once)
QUEUE_WORKERS = 4  # a group's SendMessageBatch calls at once (each waits in line behind the others)


def run(
    rpc: Rpc | None = None, engine: BlockEngine | None = None, limit: int = 2000, shards: Iterable[int] | None = None
) -> dict[str, Any]:
    """One pass over the open records (of `shards`, default all); a summary of what moved.
    A failure on one record (its failure lookup, its events, its move) is counted in
    `errors` and logged; the pass goes on with the others, and the record is retried next pass."""
    settings = get_settings()
    rpc = rpc or ports.current().rpc()
    engine = engine or BlockEngine(settings.block_engine_url)
    records = txrecords.open_records(limit, shards)
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
    # launch bundles (several signatures) that the chain does not know yet: their bundle records
    unknown_bundled = [r for r in records if len(r.get("signatures") or ()) > 1 and found.get(r["pk"]) is None]
    clients = sorted({r["client_id"] for r in records})
    keys: dict[str, list[str]] = {settings.clients_table: clients}
    if unknown_bundled:
        keys[settings.counters_table] = [bundle_pk(r["pk"]) for r in unknown_bundled]
    read = ddb.batch_get(keys)
    bundle_records = {
        r["pk"]: read.get(settings.counters_table, {}).get(bundle_pk(r["pk"])) or {} for r in unknown_bundled
    }
    bundle_of = {pk: item.get("bundle_id") for pk, item in bundle_records.items()}
    failed_bundles = _failed_bundles(engine, {b for b in bundle_of.values() if b})
    hooks = {cid for cid, item in read[settings.clients_table].items() if webhooks.wants_events(item)}

    moves = []
    for record in records:
        try:
            change = transitions(
                record,
                found.get(record["pk"]),
                height,
                _bundle_failed(
                    failed_bundles.get(bundle_of.get(record["pk"]) or ""),
                    record,
                    bundle_records.get(record["pk"]) or {},
                    height,
                ),
            )
            if change is None:
                continue
            new, emit, slot, error = change
            if new == "failed" and error is None:
                error = _failure_code(rpc, record["pk"], found[record["pk"]])
                if error is None:
                    continue  # not confirmed yet: the next pass maps it (the record stays open)
        except Exception:  # one record's failure must not stop the pass
            _skip(summary, record, "reading its outcome")
            continue
        moves.append((record, new, emit, slot, error))

    with ThreadPoolExecutor(max_workers=MOVE_WORKERS) as pool, ThreadPoolExecutor(QUEUE_WORKERS) as queue:
        for start in range(0, len(moves), MOVE_GROUP):
            group = moves[start : start + MOVE_GROUP]
            events = [
                (record["client_id"], webhooks.event(record, status, slot, error))
                for record, _new, emit, slot, error in group
                if record["client_id"] in hooks
                for status in emit
            ]
            # before the moves, SendMessageBatch calls at once: a crash in between re-sends the same ids
            batches = [events[at : at + webhooks.SEND_BATCH] for at in range(0, len(events), webhooks.SEND_BATCH)]
            if not all(queue.map(_enqueue, batches)):  # these records stay open and are retried next pass
                for record, *_ in group:
                    _skip(summary, record, "queueing its events")
                continue
            summary["events"] += len(events)
            for (record, new, *_), moved in zip(group, pool.map(_move, group), strict=True):
                if moved is None:
                    _skip(summary, record, "moving it")
                elif moved:
                    summary["moved"] += 1
                    summary["statuses"][new] += 1
    return summary


def _enqueue(events: list[tuple[str, dict[str, Any]]]) -> bool:
    """Queue one batch of events: True, or False (failed, logged; the caller skips their records)."""
    try:
        webhooks.enqueue(events)
    except Exception:  # the records of these events are retried next pass
        observability.logger.warning("tracker could not queue webhook events", exc_info=True)
        return False
    return True


def _move(move: tuple[dict[str, Any], str, list[str], int | None, str | None]) -> bool | None:
    """Move one record: True, False (another pass moved it first) or None (failed)."""
    record, new, _emit, slot, error = move
    try:
        return txrecords.move(record["pk"], record["status"], new, slot=slot, error=error)
    except Exception:  # counted by the caller; the record is retried next pass
        return None


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


def run_for(seconds: float, every: float = 2.0, **kwargs: Any) -> list[dict[str, Any]]:
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
