"""DynamoDB's transaction conflicts, which moto lacks: a WSGI middleware in front of moto takes the items
of every transaction for a while (docs/devstack.md, "What the devstack enforces").
"""

from __future__ import annotations

import io
import json
import os
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

PREFIX = "DynamoDB_20120810."
SINGLE_WRITES = {"PutItem", "UpdateItem", "DeleteItem"}
DEFAULT_HOLD_SECONDS = float(os.environ.get("DEVSTACK_DDB_TRANSACTION_MS", "15")) / 1000
KEY_NAMES = ("pk", "sk")  # every table of template.yaml is keyed on these (sk: a range key where there is one)


def _item_id(table: str, key: dict[str, Any]) -> str:
    return json.dumps([table, {k: key[k] for k in KEY_NAMES if k in key}], sort_keys=True)


def _transaction_items(body: dict[str, Any]) -> list[str]:
    out = []
    for action in body.get("TransactItems") or []:
        ((kind, spec),) = action.items()
        key = spec["Item"] if kind == "Put" else spec["Key"]
        out.append(_item_id(spec["TableName"], key))
    return out


class TransactionConflicts:
    """DynamoDB runs a TransactWriteItems over some time, and while it runs its items are taken:
    another transaction touching one of them is cancelled (`TransactionCanceledException`, the
    reason `TransactionConflict` at that item), and a single PutItem / UpdateItem / DeleteItem on
    one of them is refused (`TransactionConflictException`). moto applies one request at a time
    (`devstack.aws` holds one lock around it), so two transactions never overlap there and a hot
    item never conflicts: a design that makes every request of a busy client win one transaction
    passed on the devstack and failed on AWS.

    Takes the items of every transaction for `hold`
    seconds from its arrival (DynamoDB's transactions take a few times a single write: 15 ms by
    default, DEVSTACK_DDB_TRANSACTION_MS), and answers no transaction sooner. A transaction or a
    single write that arrives meanwhile and touches one of those items gets DynamoDB's answer for
    it, without reaching moto. The window is the emulated duration, not moto's own time: moto
    applies requests one at a time, in arrival order, so a transaction that arrives after the
    window is applied after the one before it, as DynamoDB would serialize them. Items are named
    by table and key (every key attribute).
    """

    def __init__(
        self,
        app: Callable[..., Iterable[bytes]],
        hold: float = DEFAULT_HOLD_SECONDS,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.app, self.hold, self.now = app, hold, now
        self._lock = threading.Lock()
        self._taken: dict[str, float] = {}  # item -> until when a transaction holds it
        self._tokens: set[str] = set()  # ClientRequestTokens of the transactions in progress
        self.conflicts = 0

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        target = environ.get("HTTP_X_AMZ_TARGET") or ""
        if not target.startswith(PREFIX) or self.hold <= 0:
            return self.app(environ, start_response)
        operation = target[len(PREFIX) :]
        if operation != "TransactWriteItems" and operation not in SINGLE_WRITES:
            return self.app(environ, start_response)
        raw = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        environ["wsgi.input"] = io.BytesIO(raw)
        try:
            body = json.loads(raw)
            items = (
                _transaction_items(body)
                if operation == "TransactWriteItems"
                else [_item_id(body["TableName"], body["Item"] if operation == "PutItem" else body["Key"])]
            )
        except (ValueError, KeyError, TypeError, AttributeError):
            return self.app(environ, start_response)  # moto answers a malformed request itself
        if operation in SINGLE_WRITES:
            return self._single_write(environ, start_response, items)
        return self._transaction(environ, start_response, items, body.get("ClientRequestToken"))

    def _single_write(
        self, environ: dict[str, Any], start_response: Callable[..., Any], items: list[str]
    ) -> Iterable[bytes]:
        """A PutItem / UpdateItem / DeleteItem: refused while a transaction holds its item."""
        with self._lock:
            now = self.now()
            busy = any(self._taken.get(item, 0) > now for item in items)
            if busy:
                self.conflicts += 1
        if busy:
            return _error(
                start_response,
                "TransactionConflictException",
                "Operation was rejected because there is an ongoing transaction for the item.",
            )
        return self.app(environ, start_response)

    def _transaction(
        self, environ: dict[str, Any], start_response: Callable[..., Any], items: list[str], token: str | None
    ) -> Iterable[bytes]:
        """A TransactWriteItems: cancelled if another holds one of its items, else it takes them for
        `hold` seconds and answers no sooner."""
        with self._lock:
            started = self.now()
            self._taken = {item: until for item, until in self._taken.items() if until > started}
            repeat = token in self._tokens
            clashes = [item in self._taken for item in items]
            if any(clashes) and not repeat:
                self.conflicts += 1
            elif not repeat:
                for item in items:
                    self._taken[item] = started + self.hold
                if token:
                    self._tokens.add(token)
        if repeat:  # an SDK retry of this very transaction while it still runs
            return _error(
                start_response,
                "TransactionInProgressException",
                "The transaction with the given request token is already in progress.",
            )
        if any(clashes):
            return _cancelled(start_response, clashes)
        try:
            answer = b"".join(self.app(environ, start_response))
            rest = started + self.hold - self.now()
            if rest > 0:
                time.sleep(rest)
            return [answer]
        finally:
            if token:
                with self._lock:
                    self._tokens.discard(token)


def _error(
    start_response: Callable[..., Any], code: str, message: str, extra: dict[str, Any] | None = None
) -> list[bytes]:
    body = json.dumps(
        {"__type": f"com.amazonaws.dynamodb.v20120810#{code}", "message": message, **(extra or {})}
    ).encode()
    start_response(
        "400 Bad Request", [("Content-Type", "application/x-amz-json-1.0"), ("Content-Length", str(len(body)))]
    )
    return [body]


def _cancelled(start_response: Callable[..., Any], clashes: list[bool]) -> list[bytes]:
    reasons = [
        {"Code": "TransactionConflict", "Message": "Transaction is ongoing for the item"} if clash else {"Code": "None"}
        for clash in clashes
    ]
    codes = ", ".join(r["Code"] for r in reasons)
    return _error(
        start_response,
        "TransactionCanceledException",
        f"Transaction cancelled, please refer cancellation reasons for specific reasons [{codes}]",
        {"CancellationReasons": reasons},
    )
