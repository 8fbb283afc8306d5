"""POST /oauth/token: the authorization_code and refresh_token grants."""

from __future__ import annotations

from typing import Any

from partner.core import clock, scopes
from partner.core.errors import ApiError
from partner.features.oauth import pkce
from partner.features.oauth.client_auth import AuthenticatedClient
from partner.store import apps as apps_store
from partner.store import auth as store
from partner.store import crypto, tokens

ACCESS_TTL = 1800
REFRESH_TTL = 60 * 86_400
CODE_TTL = 300


def invalid_grant(message: str) -> ApiError:
    return ApiError("invalid_grant", message, error_description=message)


def _required(params: dict[str, str], *names: str) -> list[str]:
    missing = [n for n in names if not params.get(n)]
    if missing:
        message = f"{missing[0]} is required for this grant type."
        raise ApiError("invalid_request", message, error_description=message)
    return [params[n] for n in names]


def new_pair(
    family: store.TokenFamily, *, key_id: str, grant: dict[str, Any], granted: tuple[str, ...]
) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """A fresh access and refresh token bound to `key_id`: (their auth-table items, the token response).
    The access token records the grant's access generation (revoking a refresh token bumps it)."""
    now = clock.now_int()
    user_id, client_id = family.user_id, family.client_id
    access = tokens.new_bound_token(tokens.ACCESS, user_id, client_id)
    refresh = tokens.new_bound_token(tokens.REFRESH, user_id, client_id)
    common = {
        "uid": user_id,
        "cid": client_id,
        "key_id": key_id,
        "fam": family.family,
        "gen": family.gen,
        "scopes": list(granted),
    }
    items = {
        f"AT#{crypto.digest(access, 'access')}": dict(
            common, kind="access", exp=now + ACCESS_TTL, revoked=False, agen=int(grant.get("agen", 0))
        ),
        f"RT#{crypto.digest(refresh, 'refresh')}": dict(common, kind="refresh", exp=now + REFRESH_TTL, used=False),
    }
    answer = {
        "access_token": access,
        "token_type": "Bearer",
        "expires_in": ACCESS_TTL,
        "refresh_token": refresh,
        "scope": " ".join(granted),
    }
    return items, answer


def _check_scope_param(params: dict[str, str], granted: tuple[str, ...]) -> None:
    if "scope" in params:
        requested = scopes.parse(params["scope"])
        if set(requested) != set(granted):
            raise ApiError("invalid_scope", "The scopes of a token are fixed by the authorization that issued it.")


def authorization_code(caller: AuthenticatedClient, params: dict[str, str]) -> dict[str, Any]:
    code, redirect_uri, verifier = _required(params, "code", "redirect_uri", "code_verifier")
    if not code.startswith(tokens.CODE):
        raise invalid_grant("The authorization code is invalid.")
    pk = f"AC#{crypto.digest(code, 'code')}"
    item = store.get(pk)
    client_id = caller.client.client_id
    if item is None or item["cid"] != client_id:
        raise invalid_grant("The authorization code is invalid.")
    now = clock.now_int()
    if item.get("used"):
        store.revoke_family(item["uid"], client_id, item["fam"])
        raise invalid_grant("The authorization code was already used; every token issued from it is revoked.")
    if int(item["exp"]) <= now:
        raise invalid_grant("The authorization code has expired.")
    if not crypto.equal(redirect_uri, item["redirect_uri"]):
        raise invalid_grant("redirect_uri does not match the authorization request.")
    if not pkce.verify(verifier, item["challenge"]):
        raise invalid_grant("code_verifier does not match the code_challenge.")
    granted = tuple(item["scopes"])
    _check_scope_param(params, granted)
    # Consuming the code and writing the pair are one transaction (a failed write consumes
    # nothing). Codes outlive a grant revocation, so a generation moved meanwhile is retried.
    for _ in range(3):
        grant = store.open_grant(item["uid"], client_id)
        family = store.TokenFamily(item["uid"], client_id, item["fam"], int(grant["gen"]))
        items, answer = new_pair(family, key_id=caller.key_id, grant=grant, granted=granted)
        outcome = store.consume_and_put(pk, now, family, items)
        if outcome is None:
            return answer
        if outcome == store.USED:
            store.revoke_family(item["uid"], client_id, item["fam"])
            raise invalid_grant("The authorization code was already used; every token issued from it is revoked.")
    raise ApiError("internal", "The grant changed while the code was exchanged.", retryable=True)


def refresh_token(caller: AuthenticatedClient, params: dict[str, str]) -> dict[str, Any]:
    (token,) = _required(params, "refresh_token")
    client = caller.client
    ids = tokens.parse_bound_token(tokens.REFRESH, token)
    if ids is None or ids.client_id != client.client_id:
        raise invalid_grant("The refresh token is invalid.")
    pk = f"RT#{crypto.digest(token, 'refresh')}"
    item = store.get(pk)
    if item is None or item["cid"] != client.client_id or item["uid"] != ids.user_id:
        raise invalid_grant("The refresh token is invalid.")
    now = clock.now_int()
    grant = store.get(store.grant_pk(ids.user_id, client.client_id))
    if not store.grant_allows(grant, item) or not client.active_key(item["key_id"]):
        raise invalid_grant("The refresh token has been revoked.")
    if item.get("used"):
        store.revoke_grant(ids.user_id, client.client_id)
        raise invalid_grant("The refresh token was already rotated out; the user's grant is revoked.")
    if int(item["exp"]) <= now:
        raise invalid_grant("The refresh token has expired.")
    granted = tuple(item["scopes"])
    _check_scope_param(params, granted)
    # The new pair is bound to the key that authenticated this call (rebinding). Consuming the
    # token and writing the pair are one transaction: a failed write consumes nothing.
    family = store.TokenFamily(ids.user_id, client.client_id, item["fam"], int(item["gen"]))
    items, answer = new_pair(family, key_id=caller.key_id, grant=grant, granted=granted)
    outcome = store.consume_and_put(pk, now, family, items)
    if outcome == store.USED:
        store.revoke_grant(ids.user_id, client.client_id)
        raise invalid_grant("The refresh token was already rotated out; the user's grant is revoked.")
    if outcome == store.REVOKED:
        raise invalid_grant("The refresh token has been revoked.")
    apps_store.note_use(grant, now)  # "last used" on /account/apps
    return answer


def exchange(caller: AuthenticatedClient, params: dict[str, str]) -> dict[str, Any]:
    grant_type = params.get("grant_type")
    if not grant_type:
        raise ApiError("invalid_request", "grant_type is required.", error_description="grant_type is required.")
    if grant_type == "authorization_code":
        return authorization_code(caller, params)
    if grant_type == "refresh_token":
        return refresh_token(caller, params)
    raise ApiError(
        "unsupported_grant_type", error_description="grant_type must be authorization_code or refresh_token."
    )


def revoke(caller: AuthenticatedClient, params: dict[str, str]) -> None:
    """RFC 7009: revoke the token if this client owns it; silently ignore anything else."""
    token = params.get("token")
    if not token:
        raise ApiError("invalid_request", "token is required.", error_description="token is required.")
    client_id = caller.client.client_id
    if token.startswith(tokens.ACCESS):
        ids = tokens.parse_bound_token(tokens.ACCESS, token)
        if ids is None or ids.client_id != client_id:
            return
        pk = f"AT#{crypto.digest(token, 'access')}"
        item = store.get(pk)
        if item is not None and item["cid"] == client_id:
            store.revoke_access_token(pk)
    elif token.startswith(tokens.REFRESH):
        ids = tokens.parse_bound_token(tokens.REFRESH, token)
        if ids is None or ids.client_id != client_id:
            return
        item = store.get(f"RT#{crypto.digest(token, 'refresh')}")
        if item is not None and item["cid"] == client_id:
            # the refresh token with its family, and every access token of its grant (design
            # section 3, RFC 7009 2.1); other consents' refresh tokens live on
            store.revoke_family_and_access(item["uid"], client_id, item["fam"])
