"""A user's connected apps: their grants' own limits, scopes and times (on `GRANT#<user>#<client>`), and
the index `APPS#<user>` (docs/auth.md, "The user's limits and connected apps").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from partner.core.errors import ApiError
from partner.core.settings import get_settings
from partner.store import auth, ddb

TOUCH_EVERY = 3600  # last_used is recorded at most once an hour per grant


def apps_pk(user_id: str) -> str:
    return f"APPS#{user_id}"


def _limit_clauses(client: Any, trade: int | None, daily: int | None) -> tuple[list[str], list[str], dict[str, Any]]:
    """SET and REMOVE clauses for the user's limits: None leaves one unchanged; a value at the
    client's cap removes it (the app's cap applies, and follows later changes of it)."""
    sets: list[str] = []
    removes: list[str] = []
    vals: dict[str, Any] = {}
    for name, value, cap in (
        ("max_trade_lamports", trade, client.max_trade_lamports),
        ("daily_volume_cap_lamports", daily, client.daily_volume_cap_lamports),
    ):
        if value is None:
            continue
        if value >= cap:
            removes.append(name)
        else:
            sets.append(f"{name} = :{name}")
            vals[f":{name}"] = value
    return sets, removes, vals


def _expression(sets: list[str], removes: list[str], adds: list[str] | None = None) -> str:
    parts = []
    if sets:
        parts.append("SET " + ", ".join(sets))
    if removes:
        parts.append("REMOVE " + ", ".join(removes))
    if adds:
        parts.append("ADD " + ", ".join(adds))
    return " ".join(parts)


def approve_actions(
    user_id: str, client: Any, granted: tuple[str, ...], trade: int | None, daily: int | None, now: int
) -> list[dict[str, Any]]:
    """The consent's writes to the grant and the index (for the approve transaction)."""
    sets, removes, vals = _limit_clauses(client, trade, daily)
    sets += [
        "user_id = :u",
        "client_id = :c",
        "gen = if_not_exists(gen, :zero)",
        "connected_at = if_not_exists(connected_at, :now)",
        "last_used = :now",
    ]
    vals.update({":u": user_id, ":c": client.client_id, ":zero": 0, ":now": now, ":sc": set(granted)})
    table = auth.table()
    return [
        ddb.update_action(
            ddb.Update(
                table, auth.grant_pk(user_id, client.client_id), _expression(sets, removes, ["scopes :sc"]), vals=vals
            )
        ),
        ddb.update_action(ddb.Update(table, apps_pk(user_id), "ADD clients :c", vals={":c": {client.client_id}})),
    ]


def set_limits(user_id: str, client: Any, trade: int | None, daily: int | None) -> dict[str, Any] | None:
    """Change a connected grant's limits; the grant as it is now, None when not connected."""
    sets, removes, vals = _limit_clauses(client, trade, daily)
    if not sets and not removes:
        return auth.get(auth.grant_pk(user_id, client.client_id))
    return ddb.update(
        ddb.Update(
            auth.table(),
            auth.grant_pk(user_id, client.client_id),
            _expression(sets, removes),
            condition="attribute_exists(connected_at)",
            vals=vals or None,
        ),
        return_values="ALL_NEW",
    )


def disconnect(user_id: str, client_id: str) -> bool:
    """Revoke the grant and every token issued from it; False when it was not connected."""
    actions = [
        ddb.update_action(
            ddb.Update(
                auth.table(),
                auth.grant_pk(user_id, client_id),
                "ADD gen :one REMOVE connected_at, scopes",
                condition="attribute_exists(connected_at)",
                vals={":one": 1},
            )
        ),
        ddb.update_action(ddb.Update(auth.table(), apps_pk(user_id), "DELETE clients :c", vals={":c": {client_id}})),
    ]
    return ddb.transact(actions) is None


def note_use(grant: dict[str, Any] | None, now: int) -> None:
    """Record the grant's last use, on token refresh: an app that keeps working refreshes its
    30-minute access tokens, so this is accurate to about an hour, and costs at most one
    conditional UpdateItem per grant per hour (none at all on the /partner/v1 hot path, whose
    functions need no write access to the auth table). Never fails the caller."""
    if not grant or "connected_at" not in grant or now - int(grant.get("last_used", 0)) < TOUCH_EVERY:
        return
    try:
        ddb.update(
            ddb.Update(
                auth.table(),
                auth.grant_pk(grant["user_id"], grant["client_id"]),
                "SET last_used = :now",
                condition="attribute_exists(connected_at) AND last_used <= :old",
                vals={":now": now, ":old": now - TOUCH_EVERY},
            )
        )
    except ApiError:
        pass  # a lost "last used" is not worth a failed refresh


def connected(user_id: str, volume_key: Callable[[str], str]) -> list[dict[str, Any]]:
    """Every live grant of the user with its client item and (by client id) today's grant
    counter: [{"grant", "client", "spent"}], oldest connection first. Two calls: the index
    item, then one BatchGetItem of grants, clients and counters."""
    index = auth.get(apps_pk(user_id))
    client_ids = sorted((index or {}).get("clients") or ())
    if not client_ids:
        return []
    s = get_settings()
    volume_keys = {c: volume_key(c) for c in client_ids}
    found = ddb.batch_get(
        {
            s.auth_table: [auth.grant_pk(user_id, c) for c in client_ids],
            s.clients_table: client_ids,
            s.counters_table: list(volume_keys.values()),
        }
    )
    out: list[dict[str, Any]] = []
    for c in client_ids:
        grant = found[s.auth_table].get(auth.grant_pk(user_id, c))
        client = found[s.clients_table].get(c)
        if grant is None or client is None or "connected_at" not in grant:
            continue
        counter = found[s.counters_table].get(volume_keys[c])
        out.append({"grant": grant, "client": client, "spent": int((counter or {}).get("count", 0))})
    out.sort(key=lambda a: (int(a["grant"]["connected_at"]), a["client"]["pk"]))
    return out
