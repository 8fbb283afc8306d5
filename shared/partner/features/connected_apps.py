"""GET and POST {auth_url}/account/apps: the user's connected apps.

Behind the same platform session cookie as the consent page. The page lists every app the
user has a live grant with (name, website, scopes in the consent page's words, connected and
last used, today's spend against the effective daily limit). Per app the user can lower or
raise their limits up to the app's caps (the next request of the app uses them) and
disconnect it (the grant's generation is bumped: every access token answers 401 on its next
call and every refresh token `invalid_grant`). Both are POST forms with a CSRF token bound
to the session; the partner hears about either by webhook (`grant.updated`, `grant.revoked`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from partner.core import observability, scopes
from partner.core.errors import ApiError
from partner.core.settings import get_settings
from partner.features import grantlimits
from partner.features.oauth import authorize
from partner.jobs import webhooks
from partner.store import apps as apps_store
from partner.store import crypto, ddb, tokens
from partner.store.clients import Client
from partner.store.users import User

PATH = "/account/apps"


def csrf_token(session_digest: str) -> str:
    return crypto.digest(session_digest + "|account-apps", "csrf")


def _when(seconds: Any) -> str:
    if seconds is None:
        return "never"
    return datetime.fromtimestamp(int(seconds), UTC).strftime("%Y-%m-%d %H:%M UTC")


def website(client: Client) -> str:
    """The client's website, else the origin of its redirect URI."""
    if client.website:
        return client.website
    parts = urlsplit(client.redirect_uri)
    return f"{parts.scheme}://{parts.netloc}"


def list_apps(user: User) -> list[dict[str, Any]]:
    """One view model per live grant, oldest connection first."""
    out = []
    for row in apps_store.connected(user.user_id, lambda c: grantlimits.grant_volume_key(c, user.user_id)):
        client, grant = Client.from_item(row["client"]), row["grant"]
        effective = grantlimits.effective(client, grant)
        granted = [s for s in scopes.ALL if s in (grant.get("scopes") or ())]
        out.append(
            {
                "client_id": client.client_id,
                "name": client.name,
                "website": website(client),
                "scopes": [(s, scopes.DESCRIPTIONS[s]) for s in granted],
                "connected": _when(grant.get("connected_at")),
                "last_used": _when(grant.get("last_used")),
                "spent": grantlimits.sol(row["spent"]),
                "daily": grantlimits.sol(effective.daily_volume_cap_lamports),
                "trade": grantlimits.sol(effective.max_trade_lamports),
                "trade_cap": grantlimits.sol(client.max_trade_lamports),
                "daily_cap": grantlimits.sol(client.daily_volume_cap_lamports),
                "suspended": client.suspended,
            }
        )
    return out


def _check(form: dict[str, str], session_digest: str) -> str:
    if not crypto.equal(form.get("csrf", ""), csrf_token(session_digest)):
        raise ApiError("invalid_request", "The form expired or was not issued to this session; reload the page.")
    client_id = form.get("client_id", "")
    if not tokens.is_hex_id(client_id):
        raise ApiError("invalid_request", "client_id is missing or malformed.", field="client_id")
    return client_id


def _client(client_id: str) -> tuple[Client, dict[str, Any]]:
    item = ddb.get(get_settings().clients_table, client_id)
    if item is None:
        raise ApiError("invalid_request", "This app is not connected to your account.")
    return Client.from_item(item), item


def change_limits(form: dict[str, str], session_digest: str, user: User) -> str:
    """Set the user's limits for one app (each up to the app's cap); returns the app's name."""
    client, item = _client(_check(form, session_digest))
    trade, daily = grantlimits.parse_form(form, client)
    if trade is None and daily is None:
        raise ApiError("invalid_request", "Send max_trade_sol and/or daily_cap_sol.")
    grant = apps_store.set_limits(user.user_id, client, trade, daily)
    if grant is None or "connected_at" not in grant:
        raise ApiError("invalid_request", "This app is not connected to your account.")
    effective = grantlimits.effective(client, grant)
    _notify(
        item,
        "grant.updated",
        user,
        {
            "limits": {
                "maxTradeLamports": str(effective.max_trade_lamports),
                "dailyVolumeCapLamports": str(effective.daily_volume_cap_lamports),
            }
        },
    )
    return client.name


def disconnect(form: dict[str, str], session_digest: str, user: User) -> str:
    """Revoke the grant and every token issued from it; returns the app's name."""
    client, item = _client(_check(form, session_digest))
    if not apps_store.disconnect(user.user_id, client.client_id):
        raise ApiError("invalid_request", "This app is not connected to your account.")
    _notify(item, "grant.revoked", user, {"reason": "user_disconnected"})
    return client.name


def change(form: dict[str, str], session_digest: str, user: User) -> str:
    """The page's form: `action` limits, disconnect or signout; returns the notice to show (`limits`,
    `disconnected`, `signedout`: the session has ended)."""
    action = form.get("action")
    if action == "signout":
        if not crypto.equal(form.get("csrf", ""), csrf_token(session_digest)):
            raise ApiError("invalid_request", "The form expired or was not issued to this session; reload the page.")
        authorize.end_session(session_digest)
        return "signedout"
    if action == "limits":
        change_limits(form, session_digest, user)
        return "limits"
    if action == "disconnect":
        disconnect(form, session_digest, user)
        return "disconnected"
    raise ApiError("invalid_request", "action must be limits, disconnect or signout.")


def _notify(client_item: dict[str, Any], kind: str, user: User, data: dict[str, Any]) -> None:
    """Queue the webhook event for a client with a webhook. The change has happened whatever
    the queue says: a failure to queue is logged for the operator, not shown as a failed change."""
    if not webhooks.wants_events(client_item):
        return
    try:
        webhooks.enqueue([(client_item["pk"], webhooks.grant_event(kind, user.wallet, data))])
    except Exception as exc:
        observability.logger.error(
            "grant webhook not queued",
            extra={"client_id": client_item["pk"], "event_type": kind, "error_type": type(exc).__name__},
        )
