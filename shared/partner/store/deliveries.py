"""The webhook delivery log: one item per attempt, keyed by client, newest last (sk: ms#event#attempt)."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from partner.core.settings import get_settings
from partner.store import aws, ddb


def log(item: dict[str, Any]) -> bool:
    """Write one attempt; False when the write failed (the log is for operators: never re-send for it)."""
    try:
        aws.dynamodb().put_item(TableName=get_settings().deliveries_table, Item=ddb.to_item(item))
    except (ClientError, BotoCoreError):
        return False
    return True


def recent(client_id: str, limit: int) -> list[dict[str, Any]]:
    """The client's most recent attempts, newest first."""
    try:
        out = aws.dynamodb().query(
            TableName=get_settings().deliveries_table,
            KeyConditionExpression="pk = :c",
            ExpressionAttributeValues={":c": {"S": client_id}},
            ScanIndexForward=False,
            Limit=limit,
        )
    except (ClientError, BotoCoreError) as exc:
        raise ddb.wrap(exc) from exc
    return [ddb.from_item(raw) or {} for raw in out.get("Items", [])]
