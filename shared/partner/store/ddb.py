"""Thin DynamoDB helpers over the low-level client (cheaper to import than the resource API)."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from boto3.dynamodb.types import TypeDeserializer, TypeSerializer
from botocore.exceptions import BotoCoreError, ClientError

from partner.core.errors import ApiError
from partner.store import aws

_ser = TypeSerializer()
_de = TypeDeserializer()

THROTTLE_CODES = {
    "ProvisionedThroughputExceededException",
    "ThrottlingException",
    "RequestLimitExceeded",
    "InternalServerError",
    "ServiceUnavailable",
    "TransactionConflictException",
    "TransactionInProgressException",  # a resent transaction still running: its outcome is unknown
}
# CancellationReasons codes of a cancelled transaction that a retry can get past
RETRYABLE_CANCELLATIONS = {"TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded"}


def _jitter(most: float) -> float:
    """A pause in [0, most) seconds. `secrets`, not `random`: after a SnapStart restore every
    environment would draw the same `random` sequence, and their retries would collide again."""
    return most * secrets.randbelow(1000) / 1000


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, set):
        return {_plain(v) for v in value}
    if isinstance(value, bytes | bytearray):
        return bytes(value)
    return value


def to_item(data: dict[str, Any]) -> dict[str, Any]:
    return {k: _ser.serialize(v) for k, v in data.items() if v is not None}


def from_item(item: dict[str, Any] | None) -> dict[str, Any] | None:
    if item is None:
        return None
    out = {}
    for k, v in item.items():
        if len(v) == 1:  # the common attributes directly, as the general path below gives them
            ((kind, raw),) = v.items()
            if kind == "S" or kind == "BOOL":
                out[k] = raw
                continue
            if kind == "N" and raw.isascii() and raw.lstrip("-").isdigit():
                out[k] = int(raw)
                continue
        value = _de.deserialize(v)
        if hasattr(value, "value") and type(value).__name__ == "Binary":
            value = bytes(value.value)
        out[k] = _plain(value)
    return out


def values(data: dict[str, Any]) -> dict[str, Any]:
    return {k: _ser.serialize(v) for k, v in data.items()}


def is_conditional_failure(exc: ClientError) -> bool:
    return exc.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException"


def wrap(exc: Exception) -> ApiError:
    """A storage failure the caller cannot fix: 500 `internal`, retryable when throttled,
    unreachable or failing server-side (any 5xx, e.g. the generic InternalFailure)."""
    code, status = "", 0
    if isinstance(exc, ClientError):
        code = exc.response.get("Error", {}).get("Code", "")
        status = int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0)
    retryable = code in THROTTLE_CODES or status >= 500 or isinstance(exc, BotoCoreError)
    if (
        isinstance(exc, ClientError) and code == "TransactionCanceledException"
    ):  # conflicts or throttling: nothing written
        reasons = {r.get("Code") for r in exc.response.get("CancellationReasons") or []}
        retryable = retryable or bool(reasons) and reasons <= RETRYABLE_CANCELLATIONS | {"None"}
    return ApiError("internal", "A storage operation failed.", retryable=retryable)


def get(table: str, pk: str, consistent: bool = True) -> dict[str, Any] | None:
    try:
        out = aws.dynamodb().get_item(TableName=table, Key={"pk": {"S": pk}}, ConsistentRead=consistent)
    except (ClientError, BotoCoreError) as exc:
        raise wrap(exc) from exc
    return from_item(out.get("Item"))


def scan(table: str) -> list[dict[str, Any]]:
    """Every item of `table`, all pages (boto3's paginator), consistent."""
    try:
        pages = aws.dynamodb().get_paginator("scan").paginate(TableName=table, ConsistentRead=True)
        return [item for page in pages for item in (from_item(i) or {} for i in page.get("Items", []))]
    except (ClientError, BotoCoreError) as exc:
        raise wrap(exc) from exc


def _expressions(request: dict[str, Any], condition: str | None, names: dict | None, vals: dict | None) -> None:
    """Add the condition and the expression names and values (serialized) that are given."""
    if condition:
        request["ConditionExpression"] = condition
    if names:
        request["ExpressionAttributeNames"] = names
    if vals:
        request["ExpressionAttributeValues"] = values(vals)


CONFLICT_ATTEMPTS = 8  # a single write refused because a transaction held its item is retried


def _single_write(operation: str, kwargs: dict[str, Any]) -> Any:
    """PutItem / UpdateItem / DeleteItem. DynamoDB refuses one whose item an ongoing
    transaction holds (TransactionConflictException, nothing written) and botocore does not
    retry it: it is retried here shortly, as `transact` retries a transaction's conflicts."""
    for attempt in range(CONFLICT_ATTEMPTS):
        try:
            return getattr(aws.dynamodb(), operation)(**kwargs)
        except ClientError as exc:
            if (
                exc.response.get("Error", {}).get("Code") != "TransactionConflictException"
                or attempt == CONFLICT_ATTEMPTS - 1
            ):
                raise
        time.sleep(0.005 + _jitter(min(1.0, 0.020 * 2**attempt)))  # as `transact` pauses
    raise AssertionError("unreachable")


def _conditional(
    operation: str, kwargs: dict[str, Any], condition: str | None, names: dict | None, vals: dict | None
) -> dict[str, Any] | None:
    """Call a conditional write; None when its condition failed, storage errors wrapped."""
    _expressions(kwargs, condition, names, vals)
    try:
        return _single_write(operation, kwargs)
    except ClientError as exc:
        if is_conditional_failure(exc):
            return None
        raise wrap(exc) from exc
    except BotoCoreError as exc:
        raise wrap(exc) from exc


def put(
    table: str, data: dict[str, Any], condition: str | None = None, names: dict | None = None, vals: dict | None = None
) -> bool:
    """Put an item; False when the condition failed."""
    return _conditional("put_item", {"TableName": table, "Item": to_item(data)}, condition, names, vals) is not None


@dataclass(frozen=True)
class Update:
    """One UpdateItem on the item `pk` of `table`: its update expression, the condition it needs,
    and the attribute names and values both use."""

    table: str
    pk: str
    expression: str
    condition: str | None = None
    names: dict[str, str] | None = None
    vals: dict[str, Any] | None = None

    def request(self) -> dict[str, Any]:
        """The low-level fields, as UpdateItem and a transaction's Update both take them."""
        out: dict[str, Any] = {
            "TableName": self.table,
            "Key": {"pk": {"S": self.pk}},
            "UpdateExpression": self.expression,
        }
        _expressions(out, self.condition, self.names, self.vals)
        return out


def update(change: Update, return_values: str = "NONE") -> dict[str, Any] | None:
    """UpdateItem; returns the attributes asked for, or None when the condition failed."""
    out = _conditional("update_item", {**change.request(), "ReturnValues": return_values}, None, None, None)
    if out is None:
        return None
    return from_item(out.get("Attributes")) or {}


def applied(change: Update) -> bool:
    """UpdateItem; whether it was written (False: its condition failed)."""
    return update(change) is not None


def batch_write(table: str, items: list[dict[str, Any]]) -> None:
    """Put `items` (at most 25) in one BatchWriteItem, retrying what comes back unprocessed."""
    pending = {table: [{"PutRequest": {"Item": to_item(item)}} for item in items]}
    for _ in range(5):
        try:
            out = aws.dynamodb().batch_write_item(RequestItems=pending)
        except (ClientError, BotoCoreError) as exc:
            raise wrap(exc) from exc
        pending = out.get("UnprocessedItems") or {}
        if not pending:
            return
    raise wrap(RuntimeError("unprocessed items"))


def update_or_current(change: Update, return_values: str = "NONE") -> tuple[bool, dict[str, Any] | None]:
    """A conditional UpdateItem that also tells why it failed, in the same call:
    (True, the attributes asked for) or (False, the item as it is, None if there is none)
    (ReturnValuesOnConditionCheckFailure=ALL_OLD)."""
    assert change.condition, "update_or_current is for a conditional update"
    kwargs = {**change.request(), "ReturnValues": return_values, "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}
    try:
        out = _single_write("update_item", kwargs)
    except ClientError as exc:
        if is_conditional_failure(exc):
            return False, from_item(exc.response.get("Item"))
        raise wrap(exc) from exc
    except BotoCoreError as exc:
        raise wrap(exc) from exc
    return True, from_item(out.get("Attributes")) or {}


BATCH_GET_KEYS = 100  # BatchGetItem's limit per request, across its tables
BATCH_GET_ATTEMPTS = 6  # per chunk; unprocessed keys are retried after a growing pause


def batch_get(requests: dict[str, list[str]]) -> dict[str, dict[str, dict[str, Any]]]:
    """Strongly consistent BatchGetItem over several tables: {table: {pk: item}}. Any number of
    keys: requests of at most 100 keys, unprocessed keys retried with jittered backoff."""
    keys = [(table, pk) for table, pks in requests.items() for pk in dict.fromkeys(pks)]
    found: dict[str, dict[str, dict[str, Any]]] = {table: {} for table in requests}
    for start in range(0, len(keys), BATCH_GET_KEYS):
        pending: dict[str, Any] = {}
        for table, pk in keys[start : start + BATCH_GET_KEYS]:
            pending.setdefault(table, {"Keys": [], "ConsistentRead": True})["Keys"].append({"pk": {"S": pk}})
        for attempt in range(BATCH_GET_ATTEMPTS):
            if attempt:
                time.sleep(_jitter(0.025 * 2**attempt))
            try:
                out = aws.dynamodb().batch_get_item(RequestItems=pending)
            except (ClientError, BotoCoreError) as exc:
                raise wrap(exc) from exc
            for table, items in out.get("Responses", {}).items():
                for raw in items:
                    item = from_item(raw)
                    assert item is not None
                    found[table][item["pk"]] = item
            pending = out.get("UnprocessedKeys") or {}
            if not pending:
                break
        else:
            raise ApiError("internal", "A storage operation was throttled.", retryable=True)
    return found


TRANSACT_ATTEMPTS = 8  # a transaction cancelled only by conflicts with others (or throttling) is retried


@dataclass(frozen=True)
class Cancelled:
    """Why one action of a cancelled transaction failed: its condition (`failed`) and the item
    as it was (when the action asked for ReturnValuesOnConditionCheckFailure=ALL_OLD)."""

    failed: bool
    item: dict[str, Any] | None


IN_PROGRESS_WAITS = 20  # asks of one transaction whose earlier send still runs (lost answer)


def transact(actions: list[dict[str, Any]]) -> list[Cancelled] | None:
    """One TransactWriteItems of low-level actions ({"Put": {...}} / {"Update": {...}}, with
    TableName, Key/Item and expressions serialized, e.g. by `put_action`/`update_action`).
    None when it committed; one `Cancelled` per action when a condition failed (nothing was
    written). Conflicts and throttles are storage errors (retryable 500), nothing written.

    Each try has a ClientRequestToken of its own. When botocore resent a try whose answer it lost
    and DynamoDB still runs it (TransactionInProgressException), its outcome is unknown: the same
    try, same token, is asked again until DynamoDB answers what it did."""
    attempt = waits = 0
    token = secrets.token_hex(16)
    while True:
        try:
            aws.dynamodb().transact_write_items(TransactItems=actions, ClientRequestToken=token)
        except ClientError as exc:
            if (
                exc.response.get("Error", {}).get("Code") == "TransactionInProgressException"
                and waits < IN_PROGRESS_WAITS
            ):
                waits += 1
                time.sleep(0.05 + _jitter(min(1.0, 0.05 * 2**waits)))
                continue
            reasons = exc.response.get("CancellationReasons") or []
            if any(r.get("Code") == "ConditionalCheckFailed" for r in reasons):
                return [Cancelled(r.get("Code") == "ConditionalCheckFailed", from_item(r.get("Item"))) for r in reasons]
            passing = any(r.get("Code") in RETRYABLE_CANCELLATIONS for r in reasons)
            attempt += 1
            if not passing or attempt == TRANSACT_ATTEMPTS:
                raise wrap(exc) from exc
            # another transaction held one of the items: nothing was written; try again after a
            # jittered pause whose bound doubles (20 ms .. 1 s), so contenders spread out (16 at
            # once on one refresh token: 6 tries within 0.3 s still left some cancelled)
            time.sleep(0.005 + _jitter(min(1.0, 0.020 * 2 ** (attempt - 1))))
            token, waits = secrets.token_hex(16), 0
        except BotoCoreError as exc:
            raise wrap(exc) from exc
        else:
            return None


def put_action(table: str, data: dict[str, Any], condition: str | None = None) -> dict[str, Any]:
    action: dict[str, Any] = {"TableName": table, "Item": to_item(data)}
    if condition:
        action["ConditionExpression"] = condition
    return {"Put": action}


def update_action(change: Update, old_on_failure: bool = False) -> dict[str, Any]:
    action = change.request()
    if old_on_failure:
        action["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
    return {"Update": action}
