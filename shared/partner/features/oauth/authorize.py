"""GET and POST {auth_url}/oauth/authorize: validation, session, consent, decision.

Validation failures never redirect: they answer 400 with the Error object (JSON or an
HTML page). The consent form carries the validated request signed by the service and a
CSRF token bound to the user's session, so the POST cannot be forged or altered.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from partner.core import clock, scopes
from partner.core.bodies import single_params
from partner.core.errors import ApiError
from partner.features import grantlimits
from partner.features.oauth import pkce
from partner.features.oauth.grants import CODE_TTL
from partner.store import apps as apps_store
from partner.store import auth as store
from partner.store import crypto, tokens
from partner.store.clients import Client, get_client
from partner.store.users import User, get_user

SESSION_COOKIE = "app_session"
SESSION_TTL = 12 * 3600
REQUEST_TTL = 600
MAX_STATE = 512
LOOPBACK_HOSTS = {"localhost", "127.0.0.1", "[::1]", "::1"}
TRADE_SCOPE = "trade:execute"  # the limits on the consent page bound trades only


@dataclass(frozen=True)
class AuthorizeRequest:
    client: Client
    redirect_uri: str
    scopes: tuple[str, ...]
    state: str | None
    code_challenge: str

    def signed(self, session_digest: str) -> str:
        return crypto.sign(
            {
                "cid": self.client.client_id,
                "ru": self.redirect_uri,
                "sc": list(self.scopes),
                "st": self.state,
                "cc": self.code_challenge,
                "sd": session_digest,
                "iat": clock.now_int(),
                "n": crypto.random_id(),  # the form's id: its first decision consumes it
            },
            "authorize-request",
        )


def redirect_allowed(client: Client, uri: str) -> bool:
    if not crypto.equal(uri, client.redirect_uri):
        return False
    parts = urlsplit(uri)
    if parts.fragment or parts.scheme not in ("https", "http"):
        return False
    if parts.scheme == "http":
        # plain HTTP only for a development client's loopback redirect
        return client.status == "development" and (parts.hostname or "") in LOOPBACK_HOSTS
    return True


def validate(query: list[tuple[str, str]]) -> AuthorizeRequest:
    params = single_params(query)
    client_id = params.get("client_id", "")
    client = get_client(client_id) if tokens.is_hex_id(client_id) else None
    if client is None or client.suspended:
        raise ApiError("unknown_client")
    redirect_uri = params.get("redirect_uri")
    if not redirect_uri:
        raise ApiError("invalid_request", "redirect_uri is required.")
    if not redirect_allowed(client, redirect_uri):
        raise ApiError("invalid_redirect_uri")
    if params.get("response_type") != "code":
        raise ApiError("invalid_request", "response_type must be code.")
    requested = scopes.parse(params.get("scope"))
    scopes.check_allowed(requested, client.scopes)
    method = params.get("code_challenge_method")
    if method != "S256":
        raise ApiError("invalid_request", "code_challenge_method must be S256.")
    challenge = params.get("code_challenge", "")
    if not pkce.valid_challenge(challenge):
        raise ApiError("invalid_request", "code_challenge must be the 43-character base64url SHA-256 of the verifier.")
    state = params.get("state")
    if state is not None and (len(state) > MAX_STATE or not state.isprintable()):
        raise ApiError("invalid_request", "state must be printable and at most 512 characters.")
    return AuthorizeRequest(client, redirect_uri, requested, state, challenge)


# ---------------------------------------------------------------- sessions


def create_session(user_id: str) -> str:
    """A platform session for the consent page (minted by the operator CLI on the devstack)."""
    session = tokens.new_secret(tokens.SESSION)
    store.put(f"SES#{crypto.digest(session, 'session')}", {"uid": user_id, "exp": clock.now_int() + SESSION_TTL})
    return session


def end_session(session_digest: str) -> None:
    """Sign out: the session ends now, server-side (its item expires; the TTL removes it later)."""
    store.expire(f"SES#{session_digest}", clock.now_int())


def session_from_cookie(cookie_header: str | None) -> tuple[str, User] | None:
    """(session digest, user) for a live session cookie, else None."""
    value = None
    for part in (cookie_header or "").split(";"):
        name, _, v = part.strip().partition("=")
        if name == SESSION_COOKIE:
            value = v
    if not value or not value.startswith(tokens.SESSION) or len(value) > 100:
        return None
    digest = crypto.digest(value, "session")
    item = store.get(f"SES#{digest}")
    if item is None or int(item["exp"]) <= clock.now_int():
        return None
    user = get_user(item["uid"])
    return (digest, user) if user else None


def csrf_token(session_digest: str, signed_request: str) -> str:
    return crypto.digest(session_digest + "|" + signed_request, "csrf")


# ---------------------------------------------------------------- decision


def _redirect(uri: str, params: dict[str, str]) -> str:
    parts = urlsplit(uri)
    query = parse_qsl(parts.query, keep_blank_values=True) + list(params.items())
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), ""))


def decide(form: dict[str, str], session_digest: str, user: User) -> str:
    """Check the posted consent form and return the redirect location."""
    signed = form.get("request", "")
    if not crypto.equal(form.get("csrf", ""), csrf_token(session_digest, signed)):
        raise ApiError("invalid_request", "The consent form expired or was not issued to this session.")
    data = crypto.verify(signed, "authorize-request")
    if (
        data is None
        or not crypto.equal(str(data.get("sd", "")), session_digest)
        or clock.now_int() - int(data.get("iat", 0)) > REQUEST_TTL
    ):
        raise ApiError("invalid_request", "The consent form expired or was not issued to this session.")
    decision = form.get("decision")
    if decision not in ("approve", "deny"):
        raise ApiError("invalid_request", "decision must be approve or deny.")
    client = get_client(data["cid"])
    if client is None or client.suspended:
        raise ApiError("unknown_client")
    if not redirect_allowed(client, data["ru"]):
        raise ApiError("invalid_redirect_uri")
    granted = tuple(data["sc"])
    scopes.check_allowed(granted, client.scopes)
    state = {"state": data["st"]} if data.get("st") is not None else {}
    used = _form_used_item(data)
    if decision == "deny":
        if not store.put_once(*used):
            raise _form_used()
        return _redirect(data["ru"], {"error": "access_denied", **state})
    trade, daily = grantlimits.parse_form(form, client) if TRADE_SCOPE in granted else (None, None)
    code = tokens.new_secret(tokens.CODE)
    writes = [
        store.put_action(*used, once=True),
        store.put_action(
            f"AC#{crypto.digest(code, 'code')}",
            {
                "uid": user.user_id,
                "cid": client.client_id,
                "redirect_uri": data["ru"],
                "scopes": list(granted),
                "challenge": data["cc"],
                "fam": crypto.random_id(),
                "exp": clock.now_int() + CODE_TTL,
                "used": False,
            },
        ),
        # the grant: its scopes, times and the limits the user chose, and the index
        # of the user's connected apps
        *apps_store.approve_actions(user.user_id, client, granted, trade, daily, clock.now_int()),
    ]
    if not store.write_together(writes):
        raise _form_used()
    return _redirect(data["ru"], {"code": code, **state})


def _form_used_item(data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The item whose conditional put consumes a consent form (`CONSENT#<form id>`), kept
    until the signed request could no longer be accepted anyway."""
    return f"CONSENT#{data.get('n', '')}", {"exp": int(data.get("iat", 0)) + REQUEST_TTL}


def _form_used() -> ApiError:
    return ApiError("invalid_request", "This consent form was already used; start the connection again from the app.")


def limits_model(client: Client, grant: dict[str, Any] | None) -> dict[str, Any]:
    """The app's caps and the user's current limits, in SOL, for a limits form."""
    current = grantlimits.effective(client, grant)
    fee = getattr(client, "max_fee_lamports", None)  # the per-transaction fee ceiling, where clients have one
    return {
        "trade_cap": grantlimits.sol(client.max_trade_lamports),
        "daily_cap": grantlimits.sol(client.daily_volume_cap_lamports),
        "trade": grantlimits.sol(current.max_trade_lamports),
        "daily": grantlimits.sol(current.daily_volume_cap_lamports),
        "fee_cap": grantlimits.sol(fee) if fee is not None else None,
    }


def view_model(request: AuthorizeRequest, session_digest: str, user: User) -> dict[str, Any]:
    signed = request.signed(session_digest)
    limits = None
    if TRADE_SCOPE in request.scopes:
        limits = limits_model(request.client, store.get(store.grant_pk(user.user_id, request.client.client_id)))
    return {
        "limits": limits,
        "client_name": request.client.name,
        "client_id": request.client.client_id,
        "redirect_host": urlsplit(request.redirect_uri).netloc,
        "wallet": user.wallet,
        "scopes": [(s, scopes.DESCRIPTIONS[s]) for s in request.scopes],
        "request": signed,
        "csrf": csrf_token(session_digest, signed),
    }
