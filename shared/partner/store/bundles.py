"""Launch bundles: one item per signature in the counters table (`BUNDLE#<signature>`), so any
transaction of a bundle finds it."""

from __future__ import annotations

from typing import Any

from partner.core.settings import get_settings
from partner.store import ddb


def bundle_pk(signature: str) -> str:
    """The counters-table key of the launch bundle a signature was sent in."""
    return f"BUNDLE#{signature}"


def record(
    bundle_id: str, signatures: list[str], *, now: int, expires_at: int, last_valid_block_height: int | None = None
) -> None:
    """Remember that `signatures` were sent together as bundle `bundle_id`."""
    table = get_settings().counters_table
    for signature in signatures:
        values: dict[str, Any] = {":b": bundle_id, ":s": list(signatures), ":e": expires_at, ":t": now}
        expression = "SET bundle_id = :b, signatures = :s, expires_at = :e, sent_at = :t"
        if last_valid_block_height is not None:
            values[":h"] = last_valid_block_height
            expression += ", last_valid_block_height = :h"
        ddb.update(ddb.Update(table, bundle_pk(signature), expression, vals=values))
