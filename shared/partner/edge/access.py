"""The request path every /partner/v1 route shares (the check order's steps 1 to 4 and 6, docs/architecture.md).

1. bearer token (prefix first, then one consistent read of token, grant, client, user)
2. per-endpoint bucket, keyed on the token     -> 429 without `error`
3. tier budget, keyed on the client            -> 429 rate_limit_exceeded
4. scope                                       -> 403 insufficient_scope
(5. input validation is the handler's)
6. delegation, for writes                      -> 403 delegation_missing (partner.core.principal)
"""

from __future__ import annotations

from collections.abc import Callable

from partner.core import clock
from partner.core.errors import ApiError
from partner.core.principal import Principal
from partner.core.principal import Route as Route
from partner.core.request import repeated
from partner.core.settings import get_settings
from partner.store import auth as auth_store
from partner.store import crypto, ddb, ratelimit, tokens
from partner.store.clients import Client
from partner.store.users import User


def invalid_token(message: str = "The access token is missing, malformed, expired or revoked.") -> ApiError:
    return ApiError(
        "invalid_token",
        message,
        headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
        action="Refresh the access token once; if that fails, send the user through authorization again.",
    )


def bearer_token(headers: dict[str, str] | None) -> str:
    if repeated("authorization"):  # API Gateway's `headers` holds only the last one
        raise invalid_token("Send one Authorization header.")
    value = None
    for name, v in (headers or {}).items():
        if name.lower() == "authorization":
            value = v
            break
    if not value:
        raise invalid_token("The Authorization header is missing.")
    scheme, _, token = value.partition(" ")
    if scheme.lower() != "bearer" or not token.startswith(tokens.ACCESS):
        raise invalid_token("The Authorization header must be 'Bearer app_at_...'.")
    return token.strip()


Also = dict[str, list[str]] | Callable[[str, str], dict[str, list[str]]]


def authenticate(token: str, also: Also | None = None) -> Principal:
    """Resolve a bearer token. `also` names extra items ({table: [pk]}, or a function of the
    token's user and client ids giving them) a route needs; they are read in the same
    BatchGetItem and returned in `Principal.also` ({pk: item})."""
    ids = tokens.parse_bound_token(tokens.ACCESS, token)
    if ids is None:
        raise invalid_token()
    if callable(also):
        also = also(ids.user_id, ids.client_id)
    s = get_settings()
    digest = crypto.digest(token, "access")
    at_pk = f"AT#{digest}"
    keys = {
        s.auth_table: [at_pk, auth_store.grant_pk(ids.user_id, ids.client_id)],
        s.clients_table: [ids.client_id],
        s.users_table: [ids.user_id],
    }
    for table, pks in (also or {}).items():
        keys[table] = keys.get(table, []) + pks
    found = ddb.batch_get(keys)
    item = found[s.auth_table].get(at_pk)
    grant = found[s.auth_table].get(auth_store.grant_pk(ids.user_id, ids.client_id))
    client_item = found[s.clients_table].get(ids.client_id)
    user_item = found[s.users_table].get(ids.user_id)
    if (
        item is None
        or item.get("revoked")
        or int(item["exp"]) <= clock.now()
        or item["uid"] != ids.user_id
        or item["cid"] != ids.client_id
        or not auth_store.grant_allows(grant, item)
        or client_item is None
        or user_item is None
    ):
        raise invalid_token()
    client = Client.from_item(client_item)
    if client.suspended or not client.active_key(item["key_id"]):
        raise invalid_token()
    extra = {pk: found[table][pk] for table, pks in (also or {}).items() for pk in pks if pk in found[table]}
    return Principal(digest, User.from_item(user_item), client, tuple(item["scopes"]), item["key_id"], extra, grant)


def admit(headers: dict[str, str] | None, route: Route, on_bucket, also: Also | None = None) -> Principal:
    """Steps 1-4. `on_bucket(state)` receives the bucket state for the response headers;
    `also` reads extra items with the token (see `authenticate`)."""
    principal = authenticate(bearer_token(headers), also)
    ratelimit.take_bucket_and_tier(
        route.bucket, principal.token_digest, principal.client.client_id, principal.client.tier, on_bucket
    )  # steps 2 and 3, both updates at once
    needed = route.scopes
    if needed and not set(needed) & set(principal.scopes):
        wanted = " ".join(needed)
        raise ApiError(
            "insufficient_scope",
            f"This endpoint requires the {needed[0]} scope."
            if len(needed) == 1
            else f"This endpoint requires one of the scopes {' or '.join(needed)}.",
            headers={"WWW-Authenticate": f'Bearer error="insufficient_scope", scope="{wanted}"'},
            requiredScope=wanted,
        )
    return principal
