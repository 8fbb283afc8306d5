"""A creator's launches: one item per user in the counters table (`LAUNCH#<user>`): the slot a
launch in flight holds (`claim_until`), the last launch's time (`last_at`) and every launch's
name, symbol and mint (`launches`)."""

from __future__ import annotations

from typing import Any

from partner.core.settings import get_settings
from partner.store import ddb


def _key(user_id: str) -> tuple[str, str]:
    return get_settings().counters_table, f"LAUNCH#{user_id}"


def claim(user_id: str, *, now: int, until: int, cooled_at: int) -> dict[str, Any] | None:
    """Take the launch slot until `until` if no launch holds it and the last one was at or before
    `cooled_at`: the record as it is now, or None when refused."""
    table, pk = _key(user_id)
    return ddb.update(
        ddb.Update(
            table,
            pk,
            "SET claim_until = :until",
            condition="(attribute_not_exists(last_at) OR last_at <= :cool) AND "
            "(attribute_not_exists(claim_until) OR claim_until <= :now)",
            vals={":until": until, ":cool": cooled_at, ":now": now},
        ),
        return_values="ALL_NEW",
    )


def current(user_id: str) -> dict[str, Any]:
    return ddb.get(*_key(user_id)) or {}


def release(user_id: str) -> None:
    ddb.update(ddb.Update(*_key(user_id), "REMOVE claim_until"))


def record(user_id: str, entry: dict[str, Any], at: int) -> None:
    """The launch `entry` done at `at`: the cooldown starts, the slot is free."""
    ddb.update(
        ddb.Update(
            *_key(user_id),
            "SET last_at = :now, launches = list_append(if_not_exists(launches, :empty), :one) REMOVE claim_until",
            vals={":now": at, ":empty": [], ":one": [entry]},
        )
    )
