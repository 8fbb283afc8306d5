"""Authorization codes, access and refresh tokens, grants and browser sessions, in the auth table under
digests of the secrets (`AC#`, `AT#`, `RT#`, `GRANT#<user>#<client>`, `SES#`; docs/architecture.md,
"OAuth" and "Tables").
"""

from __future__ import annotations

from typing import Any, NamedTuple, TypeGuard

from partner.core.errors import ApiError
from partner.core.settings import get_settings
from partner.store import ddb

GRACE_SECONDS = 86_400  # items outlive their expiry a day, so replays are still recognised


def table() -> str:
    return get_settings().auth_table


def grant_pk(user_id: str, client_id: str) -> str:
    return f"GRANT#{user_id}#{client_id}"


def get(pk: str) -> dict[str, Any] | None:
    return ddb.get(table(), pk)


def put(pk: str, data: dict[str, Any]) -> None:
    item = dict(data, pk=pk)
    item.setdefault("expires_at", int(data["exp"]) + GRACE_SECONDS)
    ddb.put(table(), item)


def expire(pk: str, now: int) -> None:
    """End an item's life now (a session's sign-out): `exp` set to `now`; its TTL removes it later."""
    ddb.update(ddb.Update(table(), pk, "SET #exp = :now", "attribute_exists(pk)", {"#exp": "exp"}, {":now": now}))


USED = "used"
REVOKED = "revoked"


class TokenFamily(NamedTuple):
    """Where a new token pair belongs: the user's grant to the client, at generation `gen`, and the
    refresh-token family `family` (an authorization code's, kept through every rotation)."""

    user_id: str
    client_id: str
    family: str
    gen: int


def consume_and_put(pk: str, now: int, family: TokenFamily, items: dict[str, dict[str, Any]]) -> str | None:
    """Consume a code or refresh token and write the new tokens in one TransactWriteItems,
    so both happen or neither does: a failed write consumes nothing and can be retried.

    The transaction also checks that the grant is still in generation `family.gen` with the family
    unrevoked, so no pair is issued into a grant revoked meanwhile. None when it committed;
    USED when the code or token was consumed already (a replay, or the loser of concurrent
    uses); REVOKED when only the grant check failed. A committed transaction whose answer was
    lost and that botocore sent again is answered by DynamoDB from its ClientRequestToken, as
    committed (the devstack's moto likewise: devstack.ddb_tokens), never as a replay."""
    t = table()
    actions: list[dict[str, Any]] = [
        ddb.update_action(
            ddb.Update(
                t,
                pk,
                "SET used = :t, used_at = :now",
                condition="attribute_exists(pk) AND used = :f",
                vals={":t": True, ":f": False, ":now": now},
            )
        ),
        {
            "ConditionCheck": {
                "TableName": t,
                "Key": {"pk": {"S": grant_pk(family.user_id, family.client_id)}},
                "ConditionExpression": "gen = :gen AND NOT contains(revoked_fams, :fam)",
                "ExpressionAttributeValues": ddb.values({":gen": family.gen, ":fam": family.family}),
            }
        },
    ]
    for new_pk, data in items.items():
        item = dict(data, pk=new_pk)
        item.setdefault("expires_at", int(data["exp"]) + GRACE_SECONDS)
        actions.append(ddb.put_action(t, item, condition="attribute_not_exists(pk)"))
    cancelled = ddb.transact(actions)
    if cancelled is None:
        return None
    if cancelled[0].failed:
        return USED
    if [i for i, reason in enumerate(cancelled) if reason.failed] == [1]:
        return REVOKED
    # a new token's digest already taken: 256 random bits make this unreachable in practice
    raise ApiError("internal", "A storage operation failed.", retryable=True)


def open_grant(user_id: str, client_id: str) -> dict[str, Any]:
    """Create the grant item if absent; return it (generation and revoked families)."""
    out = ddb.update(
        ddb.Update(
            table(),
            grant_pk(user_id, client_id),
            "SET gen = if_not_exists(gen, :zero), user_id = :u, client_id = :c",
            vals={":zero": 0, ":u": user_id, ":c": client_id},
        ),
        return_values="ALL_NEW",
    )
    assert out is not None
    return out


def revoke_family(user_id: str, client_id: str, family: str) -> None:
    ddb.update(ddb.Update(table(), grant_pk(user_id, client_id), "ADD revoked_fams :fam", vals={":fam": {family}}))


def revoke_family_and_access(user_id: str, client_id: str, family: str) -> None:
    """Revoking a refresh token: its family, and every access token of the grant (one UpdateItem)."""
    ddb.update(
        ddb.Update(
            table(),
            grant_pk(user_id, client_id),
            "ADD revoked_fams :fam, agen :one",
            vals={":fam": {family}, ":one": 1},
        )
    )


def revoke_grant(user_id: str, client_id: str) -> None:
    ddb.update(ddb.Update(table(), grant_pk(user_id, client_id), "ADD gen :one", vals={":one": 1}))


def revoke_access_token(pk: str) -> None:
    ddb.update(ddb.Update(table(), pk, "SET revoked = :t", condition="attribute_exists(pk)", vals={":t": True}))


def grant_allows(grant: dict[str, Any] | None, token: dict[str, Any]) -> TypeGuard[dict[str, Any]]:
    """A token is live only in its grant's current generation and unrevoked family; an
    access token also only in the grant's current access generation."""
    if grant is None:
        return False
    if int(grant.get("gen", 0)) != int(token["gen"]):
        return False
    if token.get("kind") == "access" and int(token.get("agen", 0)) < int(grant.get("agen", 0)):
        return False
    return token["fam"] not in (grant.get("revoked_fams") or set())


# ---------------------------------------------------------------- consent forms


def put_once(pk: str, data: dict[str, Any]) -> bool:
    """Put a new item; False when one with this key exists (a consent form's first decision)."""
    item = dict(data, pk=pk)
    item.setdefault("expires_at", int(data["exp"]) + GRACE_SECONDS)
    return ddb.put(table(), item, condition="attribute_not_exists(pk)")


def put_action(pk: str, data: dict[str, Any], *, once: bool = False) -> dict[str, Any]:
    """A put for `write_together`; `once`: only if no item has this key (else the whole write fails)."""
    item = dict(data, pk=pk)
    item.setdefault("expires_at", int(data["exp"]) + GRACE_SECONDS)
    return ddb.put_action(table(), item, "attribute_not_exists(pk)" if once else None)


def consume_once(pk: str, now: int) -> dict[str, Any] | None:
    """Mark an unexpired, unused single-use item used; its previous state, or None when it is
    missing, expired or already used."""
    return ddb.update(
        ddb.Update(
            table(),
            pk,
            "SET used = :t",
            condition="attribute_exists(pk) AND used = :f AND exp > :now",
            vals={":t": True, ":f": False, ":now": now},
        ),
        return_values="ALL_OLD",
    )


def write_together(actions: list[dict[str, Any]]) -> bool:
    """One transaction; False when a condition failed (nothing written)."""
    return ddb.transact(actions) is None
