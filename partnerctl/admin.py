"""Operator actions behind partnerctl: clients, keys, users, delegation, sessions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from partner.core import clock, scopes
from partner.features.oauth import authorize
from partner.store import clients as client_store
from partner.store import crypto, tokens
from partner.store import users as user_store
from partner.store.clients import TIERS, ApiKey, Client
from partner.store.users import User
from partner.store.wallets import new_wallet

DEFAULT_MAX_TRADE = 10 * 10**9
DEFAULT_DAILY_CAP = 100 * 10**9


def _new_key() -> tuple[str, ApiKey]:
    api_key = tokens.new_secret(tokens.API_KEY)
    key = ApiKey(crypto.random_id(8), crypto.digest(api_key, "api_key"), "active", clock.now_int())
    return api_key, key


@dataclass(frozen=True)
class NewClient:
    """A client app as the operator registers it. `max_fee_lamports`: the ceiling on
    priorityFeeLamports + tipLamports per transaction (None: the `default_max_fee_lamports`
    setting, 0.1 SOL)."""

    name: str
    redirect_uri: str
    tier: str = "Basic"
    status: str = "development"
    scope: str | None = None
    fee_wallet: str | None = None
    max_trade_lamports: int = DEFAULT_MAX_TRADE
    daily_volume_cap_lamports: int = DEFAULT_DAILY_CAP
    max_fee_lamports: int | None = None
    website: str | None = None


def create_client(new: NewClient) -> dict[str, Any]:
    """Register `new` with a first API key: its client_id, the key (shown once) and the key's id."""
    if new.tier not in TIERS:
        raise ValueError(f"tier must be one of {TIERS}")
    if new.status not in client_store.STATUSES:
        raise ValueError(f"status must be one of {client_store.STATUSES}")
    limits = _limits(
        max_trade_lamports=new.max_trade_lamports,
        daily_volume_cap_lamports=new.daily_volume_cap_lamports,
        max_fee_lamports=client_store.default_max_fee_lamports()
        if new.max_fee_lamports is None
        else new.max_fee_lamports,
    )
    if new.website is not None:
        parts = urlsplit(new.website)
        if parts.scheme not in ("https", "http") or not parts.netloc or len(new.website) > 200:
            raise ValueError("website must be an http(s) URL of at most 200 characters")
    approved = scopes.parse(new.scope) if new.scope else scopes.ALL
    api_key, key = _new_key()
    client = Client(
        client_id=crypto.random_id(),
        name=new.name,
        redirect_uri=new.redirect_uri,
        tier=new.tier,
        status=new.status,
        scopes=approved,
        fee_wallet=new.fee_wallet,
        keys={key.key_id: key},
        **limits,
        website=new.website,
    )
    client_store.create_client(client)
    return {"client_id": client.client_id, "api_key": api_key, "key_id": key.key_id}


LIMITS = ("max_trade_lamports", "daily_volume_cap_lamports", "max_fee_lamports")


def _limits(**values: int | None) -> dict[str, int]:
    """The given client limits (None: not given), each a non-negative integer lamport amount."""
    out: dict[str, int] = {}
    for name, value in values.items():
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer (lamports)")
        out[name] = value
    return out


def set_limits(
    client_id: str,
    *,
    max_trade_lamports: int | None = None,
    daily_volume_cap_lamports: int | None = None,
    max_fee_lamports: int | None = None,
) -> dict[str, Any]:
    """Change any of a client's limits (per-trade cap, daily volume cap, fee ceiling); answer all three."""
    changes = _limits(
        max_trade_lamports=max_trade_lamports,
        daily_volume_cap_lamports=daily_volume_cap_lamports,
        max_fee_lamports=max_fee_lamports,
    )
    if changes and not client_store.set_fields(client_id, **changes):
        raise LookupError(f"no client {client_id}")
    client = client_store.get_client(client_id)
    if client is None:
        raise LookupError(f"no client {client_id}")
    return {"client_id": client_id, **{name: getattr(client, name) for name in LIMITS}}


def rotate_key(client_id: str) -> dict[str, Any]:
    api_key, key = _new_key()
    if not client_store.add_key(client_id, key):
        raise LookupError(f"no client {client_id}")
    return {"api_key": api_key, "key_id": key.key_id}


def revoke_key(client_id: str, key_id: str) -> dict[str, Any]:
    if not client_store.revoke_key(client_id, key_id):
        raise LookupError(f"no key {key_id} on client {client_id}")
    return {"client_id": client_id, "key_id": key_id, "status": "revoked"}


def set_client_status(client_id: str, status: str) -> dict[str, Any]:
    if status not in client_store.STATUSES:
        raise ValueError(f"status must be one of {client_store.STATUSES}")
    if not client_store.set_status(client_id, status):
        raise LookupError(f"no client {client_id}")
    return {"client_id": client_id, "status": status}


def _client_view(item: dict[str, Any]) -> dict[str, Any]:
    """A client as the operator sees it: its settings and its keys' ids and states, never a secret
    (no API key, no key digest, no webhook secret)."""
    client = Client.from_item(item)
    keys = sorted(client.keys.values(), key=lambda k: (k.created_at, k.key_id))
    return {
        "client_id": client.client_id,
        **client_store.settings_of(client),
        "website": client.website,
        "webhook_url": item.get("webhook_url"),
        "keys": [{"key_id": k.key_id, "status": k.status, "created_at": k.created_at} for k in keys],
    }


def show_client(client_id: str) -> dict[str, Any]:
    item = client_store.get_item(client_id)
    if item is None:
        raise LookupError(f"no client {client_id}")
    return _client_view(item)


def list_clients() -> dict[str, Any]:
    """Every client, by name: its id, name, tier, status, active keys and whether it has a webhook."""
    rows = []
    for item in client_store.all_items():
        view = _client_view(item)
        rows.append(
            {
                **{k: view[k] for k in ("client_id", "name", "tier", "status")},
                "active_keys": sum(k["status"] == "active" for k in view["keys"]),
                "webhook": view["webhook_url"] is not None,
            }
        )
    return {"clients": sorted(rows, key=lambda r: (r["name"].lower(), r["client_id"]))}


def _platform(call, *args: Any) -> dict[str, Any]:
    """A platform-API domain call with its refusals as the CLI's ValueError / LookupError."""
    from partner.core.errors import ApiError

    try:
        return call(*args)
    except ApiError as exc:
        raise (LookupError if exc.code == "not_found" else ValueError)(exc.message) from exc


def create_user(*, twitter: str | None = None, trading: bool = True, sub: str | None = None) -> dict[str, Any]:
    """The platform API's steps (features.platform): upsert by `sub` (default: a new `local-...`
    subject), provision the wallet, set delegation. With an existing `sub`, idempotent."""
    from partner.features import platform

    sub = sub or f"local-{crypto.random_id(8)}"
    _platform(platform.upsert_user, sub, twitter)
    _platform(platform.provision_wallet, sub)
    user = _platform(platform.set_delegation, sub, trading)
    return {"user_id": user["userId"], "wallet": user["wallet"], "sub": sub}


def show_user(sub: str) -> dict[str, Any]:
    from partner.features import platform

    return _platform(platform.read_user, sub)


def set_delegation(user_id: str, enabled: bool) -> dict[str, Any]:
    """By user id or by `sub` (the platform API's key), through the platform API's domain function."""
    from partner.features import platform

    user = user_store.get_user(user_id) or user_store.get_user_by_sub(user_id)
    if user is None:
        raise LookupError(f"no user {user_id}")
    if user.sub is not None:
        _platform(platform.set_delegation, user.sub, enabled)
    elif not user_store.set_trading_enabled(user.user_id, enabled):  # a user without a linked sub
        raise LookupError(f"no user {user_id}")
    return {"user_id": user.user_id, "tradingEnabled": enabled}


def create_session(user_id: str) -> dict[str, Any]:
    if user_store.get_user(user_id) is None:
        raise LookupError(f"no user {user_id}")
    return {"cookie": f"{authorize.SESSION_COOKIE}={authorize.create_session(user_id)}"}


def create_crank_wallet() -> dict[str, Any]:
    """The migration crank's service wallet, stored like a user (`service-crank`), sealed under
    the same KMS envelope with that user id in the encryption context. Idempotent."""
    from partner.jobs.migration import CRANK_USER_ID

    existing = user_store.get_user(CRANK_USER_ID)
    if existing is None:
        wallet, sealed = new_wallet(CRANK_USER_ID)
        try:
            user_store.create_user(User(CRANK_USER_ID, wallet, None, False, sealed))
        except ValueError:  # created concurrently: keep the first
            pass
        existing = user_store.get_user(CRANK_USER_ID)
    assert existing is not None
    return {"user_id": CRANK_USER_ID, "wallet": existing.wallet}
