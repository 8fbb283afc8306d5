"""Typed service settings, read once from the environment (no os.environ in logic).

A frozen dataclass rather than a pydantic model: every function reads its settings on the
first request, and importing pydantic plus building a model class cost a cold start
about 50-70 ms in functions that use pydantic for nothing else (OAuth, the migrator).
`model_validate` and `model_copy` keep the calls the code and tests already make.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any


def _env(name: str, default: Any = dataclasses.MISSING) -> Any:
    return field(default=default, metadata={"alias": name})


@dataclass(frozen=True)
class Settings:
    clients_table: str = _env("CLIENTS_TABLE")
    auth_table: str = _env("AUTH_TABLE")
    users_table: str = _env("USERS_TABLE")
    counters_table: str = _env("COUNTERS_TABLE")
    hash_key_id: str = _env("HASH_KEY_ID")
    wallet_key_id: str = _env("WALLET_KEY_ID")
    staging_bucket: str = _env("STAGING_BUCKET", "")
    # Idempotency-Key claims and stored answers (partner.edge.idempotency); empty: keys are refused (500)
    idempotency_table: str = _env("IDEMPOTENCY_TABLE", "")
    # staged image uploads (partner.features.uploads): their records; empty: imageUploadId is refused (500)
    uploads_table: str = _env("UPLOADS_TABLE", "")
    # the Solana JSON-RPC endpoints, comma-separated, in preference order (partner.chain.rpc:
    # reads fail over, sends go to all); empty: the single RPC_URL of older deployments
    rpc_urls: str = _env("RPC_URLS", "")
    rpc_url: str = _env("RPC_URL", "http://127.0.0.1:8899")
    block_engine_url: str = _env("BLOCK_ENGINE_URL", "http://127.0.0.1:8899/api/v1/bundles")
    # the block engine's sendTransaction (Jito's .../api/v1/transactions, query parameters such as
    # ?bundleOnly=true kept): a write with a tip is sent there, and through the RPC when the engine
    # refuses (partner.chain.tx.submit; docs/chain.md, "Tipped sends"). Empty: every send goes
    # through the RPC. Its own setting, not derived from BLOCK_ENGINE_URL: a deployment
    # that sets only the bundle engine keeps sending through the RPC
    block_engine_tx_url: str = _env("BLOCK_ENGINE_TX_URL", "")
    pinning_url: str = _env("PINNING_URL", "http://127.0.0.1:5001")
    # where launch bypass fees go; no default: without one, no bypass is offered
    platform_treasury: str | None = _env("PLATFORM_TREASURY", None)
    # where the consent page sends a visitor without a platform session (optional; without OIDC)
    login_url: str | None = _env("LOGIN_URL", None)
    # sign-in through the platform's OpenID provider (partner.features.oauth.signin):
    # the issuer (discovery), this service's client id, the SSM SecureString parameter holding
    # its secret, and the redirect URI registered with the provider ({auth_url}/account/signin/callback)
    oidc_issuer: str | None = _env("OIDC_ISSUER", None)
    oidc_client_id: str | None = _env("OIDC_CLIENT_ID", None)
    oidc_client_secret_parameter: str | None = _env("OIDC_CLIENT_SECRET_PARAMETER", None)
    oidc_redirect_uri: str | None = _env("OIDC_REDIRECT_URI", None)
    # least seconds between two JWKS refetches forced by an unknown kid (PyJWKClient's cooldown)
    oidc_jwks_cooldown_seconds: str = _env("OIDC_JWKS_COOLDOWN_SECONDS", "30")
    # transaction lifecycle: the record per send, webhooks and their delivery
    transactions_table: str = _env("TRANSACTIONS_TABLE", "")
    deliveries_table: str = _env("WEBHOOK_DELIVERIES_TABLE", "")
    webhook_key_id: str = _env("WEBHOOK_KEY_ID", "")
    webhook_queue_url: str = _env("WEBHOOK_QUEUE_URL", "")
    webhook_dlq_url: str = _env("WEBHOOK_DLQ_URL", "")
    # retry a failing delivery with exponential backoff from this many seconds, for this long
    webhook_backoff_seconds: str = _env("WEBHOOK_BACKOFF_SECONDS", "5")
    webhook_retry_seconds: str = _env("WEBHOOK_RETRY_SECONDS", "86400")
    # how long one scheduled tracker run keeps passing (0: one pass; the devstack ticks itself)
    tracker_run_seconds: str = _env("TRACKER_RUN_SECONDS", "0")
    # partitions of the open-records index; passes work on them in parallel. Only ever raise it:
    # records written under a smaller count sit in partitions the larger count still reads
    tracker_shards: str = _env("TRACKER_SHARDS", "4")
    # invocations a scheduled tracker run splits the partitions among (itself and, asynchronously, its
    # own function once per other group: parallel across interpreters); 1..TRACKER_SHARDS
    tracker_groups: str = _env("TRACKER_GROUPS", "4")
    # the fee ceiling (priorityFeeLamports + tipLamports per transaction) of a client item that
    # sets none: new clients get it, older items read it
    default_max_fee_lamports: str = _env("DEFAULT_MAX_FEE_LAMPORTS", "100000000")

    @classmethod
    def model_validate(cls, values: Mapping[str, Any]) -> Settings:
        """Build from a mapping keyed by the environment names (or the field names);
        other keys are ignored. A missing required setting raises ValueError."""
        kwargs: dict[str, Any] = {}
        missing: list[str] = []
        for f in dataclasses.fields(cls):
            alias = f.metadata["alias"]
            if alias in values:
                kwargs[f.name] = values[alias]
            elif f.name in values:
                kwargs[f.name] = values[f.name]
            elif f.default is dataclasses.MISSING:
                missing.append(alias)
        if missing:
            raise ValueError(f"missing settings: {', '.join(missing)}")
        return cls(**kwargs)

    @property
    def rpc_endpoints(self) -> tuple[str, ...]:
        """RPC_URLS when set, else RPC_URL; ValueError on an entry that is not an http(s) URL."""
        return endpoints(self.rpc_urls if self.rpc_urls.strip() else self.rpc_url)

    def model_copy(self, update: Mapping[str, Any] | None = None) -> Settings:
        return dataclasses.replace(self, **(update or {}))


def endpoints(urls: str | Sequence[str]) -> tuple[str, ...]:
    """The endpoints of `urls` (one URL, a comma-separated list, or a sequence), in order.
    Strict: every entry an http(s) URL without spaces, none empty, none repeated."""
    items = urls.split(",") if isinstance(urls, str) else list(urls)
    out: list[str] = []
    for raw in items:
        url = str(raw).strip()
        scheme, sep, rest = url.partition("://")
        if not sep or scheme.lower() not in ("http", "https") or not rest or any(c.isspace() for c in url):
            raise ValueError(f"not an http(s) RPC endpoint: {url!r}")
        if url in out:
            raise ValueError(f"RPC endpoint listed twice: {url!r}")
        out.append(url)
    if not out:
        raise ValueError("no RPC endpoint")
    return tuple(out)


_RESETS: list[Callable[[], None]] = []


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings.model_validate(dict(os.environ))


def on_reset(hook: Callable[[], None]) -> Callable[[], None]:
    """Decorator: `hook` forgets what a module built from the settings (clients, a derived key)."""
    _RESETS.append(hook)
    return hook


def reset_settings() -> None:
    """Forget cached settings and what was built from them (tests and the devstack switch environments)."""
    get_settings.cache_clear()
    for hook in _RESETS:
        hook()
