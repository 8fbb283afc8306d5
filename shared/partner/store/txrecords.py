"""The transaction record: one item per transaction the service sends, keyed on its signature.

Written by `presend.before_send` before the first byte goes out, followed to the end by the tracker,
read by the status endpoint (docs/writes.md, "Transaction lifecycle").
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, get_args

from botocore.exceptions import BotoCoreError, ClientError

from partner.core import clock, parallel
from partner.core.settings import get_settings
from partner.store import aws, ddb

if TYPE_CHECKING:
    from partner.core.principal import Principal

RECORD_DAYS = 30
OPEN_INDEX = "open"
OPEN = ("sent", "confirmed")
FINAL = ("finalized", "failed", "expired")
MAX_PK_CHARS = 100
# What the service sends, by kind (the transaction record's `kind`).
Kind = Literal[
    "buy",
    "buy_exact_out",
    "sell",
    "vote",
    "vote_cancel",
    "vote_withdraw",
    "settle",
    "propose_update_content",
    "propose_extend_mutability",
    "propose_finalize_metadata",
    "finalize_expired",
    "bond_withdraw",
    "coin_create",
]
KINDS = frozenset(get_args(Kind))


@dataclass(frozen=True)
class Outgoing:
    """One transaction about to be sent, or the transactions of one bundle (in bundle order)."""

    kind: str
    signatures: tuple[str, ...]
    mint: str | None
    wallet: str
    last_valid_block_height: int

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown transaction kind {self.kind!r}")
        if not self.signatures:
            raise ValueError("an outgoing send has at least one signature")


def table() -> str:
    name = get_settings().transactions_table
    if not name:
        raise RuntimeError("TRANSACTIONS_TABLE is not configured")
    return name


def shard_count() -> int:
    """The open index's partitions (TRACKER_SHARDS): they spread the index's write load, and
    tracker passes work on them in parallel."""
    return max(1, min(256, int(get_settings().tracker_shards)))


def shard(signature: str) -> str:
    return str(int.from_bytes(hashlib.sha256(signature.encode()).digest()[:4], "big") % shard_count())


def items_for(principal: Principal, outgoing: Outgoing, now: float | None = None) -> list[dict[str, Any]]:
    sent_at = clock.now() if now is None else now
    base = {
        "signatures": list(outgoing.signatures),
        "kind": outgoing.kind,
        "client_id": principal.client.client_id,
        "user_id": principal.user.user_id,
        "mint": outgoing.mint,
        "wallet": outgoing.wallet,
        "last_valid_block_height": int(outgoing.last_valid_block_height),
        "sent_at": int(sent_at * 1000),
        "status": "sent",
        "expires_at": int(sent_at) + RECORD_DAYS * 86_400,
    }
    return [dict(base, pk=signature, track=shard(signature)) for signature in outgoing.signatures]


def record(principal: Principal, outgoing: Outgoing) -> None:
    """Write the record(s) of one send: one PutItem, or one BatchWriteItem for a bundle.
    A failure raises (500 internal): the caller then sends nothing.

    The item:

    pk                        the signature
    signatures                every signature of the send (one, or the bundle's in order)
    kind, client_id, user_id, mint, wallet, last_valid_block_height, sent_at
    status                    sent -> confirmed -> finalized | failed (+ error) | expired
    slot, error, updated_at   once known
    track                     the open-record index's partition ("0".."TRACKER_SHARDS-1") while the record is
                              open; removed at a final status, so the index holds open records only
    expires_at                TTL (RECORD_DAYS after sending)
    """
    items = items_for(principal, outgoing)
    if len(items) == 1:
        ddb.put(table(), items[0])
    else:
        ddb.batch_write(table(), items)


def keys(signature: str) -> dict[str, list[str]]:
    """The record to read with the access token (nothing for an over-long path value)."""
    return {table(): [signature]} if len(signature) <= MAX_PK_CHARS else {}


def open_records(limit: int = 2000, shards: Iterable[int] | None = None) -> list[dict[str, Any]]:
    """Open records of the index partitions `shards` (default all), oldest first per partition
    (one Query per partition, in parallel; never a scan); at most `limit` in all, an equal
    share per partition so none starves the others. Whole items: the tracker writes a moved record
    back whole (`put_moved`)."""
    parts = sorted(set(range(shard_count()) if shards is None else shards))
    if not parts:
        return []
    share = max(1, limit // len(parts))
    pages = parallel.map_at_most(lambda part: _open_in(part, share), parts, len(parts))
    return [item for page in pages for item in page]


# records a Query page: DynamoDB returns up to 1 MB a page (some thousands of records); a smaller page keeps
# each call short where the store answers one call at a time (the devstack's moto took 2 s for 250 whole
# records under load, while the other partitions' Queries waited behind it, past the 5 s read timeout)
QUERY_PAGE = 100


def _open_in(part: int, share: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    start: dict[str, Any] | None = None
    while len(out) < share:
        kwargs: dict[str, Any] = {
            "TableName": table(),
            "IndexName": OPEN_INDEX,
            "KeyConditionExpression": "track = :t",
            "ExpressionAttributeValues": {":t": {"S": str(part)}},
            "Limit": min(QUERY_PAGE, share - len(out)),
        }
        if start:
            kwargs["ExclusiveStartKey"] = start
        try:
            page = aws.dynamodb().query(**kwargs)
        except (ClientError, BotoCoreError) as exc:
            raise ddb.wrap(exc) from exc
        out.extend(item for item in (ddb.from_item(raw) for raw in page.get("Items", [])) if item)
        start = page.get("LastEvaluatedKey")
        if not start:
            break
    return out


def move(signature: str, old: str, new: str, *, slot: int | None = None, error: str | None = None) -> bool:
    """Move a record from `old` to `new` status (conditional: a concurrent tracker run that
    already moved it wins). A final status leaves the open index."""
    expression = "SET #st = :new, updated_at = :now"
    vals: dict[str, Any] = {":new": new, ":old": old, ":now": clock.now_int()}
    if slot is not None:
        expression += ", slot = :slot"
        vals[":slot"] = slot
    if error is not None:
        expression += ", #err = :err"
        vals[":err"] = error
    if new in FINAL:
        expression += " REMOVE track"
    names = {"#st": "status"}
    if error is not None:
        names["#err"] = "error"
    return ddb.applied(ddb.Update(table(), signature, expression, condition="#st = :old", names=names, vals=vals))


def moved(record: dict[str, Any], new: str, *, slot: int | None = None, error: str | None = None) -> dict[str, Any]:
    """The whole record after `move`'s change (for `put_moved`): the new status, `updated_at`, the slot
    and the error if given, and no `track` at a final status."""
    item = {**record, "status": new, "updated_at": clock.now_int()}
    if slot is not None:
        item["slot"] = slot
    if error is not None:
        item["error"] = error
    if new in FINAL:
        item.pop("track", None)
    return item


PUT_BATCH = 25  # BatchWriteItem's limit


def put_moved(items: list[dict[str, Any]]) -> None:
    """Write moved records whole, without a condition, in one BatchWriteItem (at most `PUT_BATCH`):
    only for the records of an index partition whose lease (`claim`) the writer holds, so that no
    other pass moves them meanwhile. A failure raises; the records may then be moved one by one."""
    ddb.batch_write(table(), items)


def lease_pk(part: str) -> str:
    return f"TRACKER_LEASE#{part}"


def claim(part: str, owner: str, seconds: float) -> float | None:
    """Take or renew the lease on open-index partition `part` for `owner` (the counters table's
    `TRACKER_LEASE#<part>`, one conditional UpdateItem): its end (epoch seconds), or None while
    another owner's lease runs."""
    now = int(clock.now() * 1000)
    until = now + int(seconds * 1000)
    lease = ddb.Update(
        get_settings().counters_table,
        lease_pk(part),
        "SET #owner = :me, #until = :until",
        condition="attribute_not_exists(pk) OR #owner = :me OR #until < :now",
        names={"#owner": "owner", "#until": "until"},
        vals={":me": owner, ":until": until, ":now": now},
    )
    return until / 1000 if ddb.applied(lease) else None
