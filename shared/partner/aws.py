"""The only module that creates boto3 clients. Clients are created lazily and reused.

boto3 honours AWS_ENDPOINT_URL, which is how the devstack points every client at moto.

Hook seam: `HOOKS` is a list of `(event_name, handler)` pairs (botocore event names such
as `before-call.kms.Decrypt` or `before-call.dynamodb`) registered on every client when
it is created; `add_hook` also registers on clients that already exist. Production
never adds hooks; the devstack (fault injection) and tests (counting calls) do.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import boto3  # every function's first request creates a client
import botocore.session
from botocore.config import Config

from partner import snapshot

_lock = threading.Lock()
_clients: dict[str, Any] = {}
_session: Any = None  # one boto3 Session for every client: each new Session reloads botocore's data

Hook = Callable[..., Any]
HOOKS: list[tuple[str, Hook]] = []


def client(name: str) -> Any:
    global _session
    found = _clients.get(name)
    if found is not None:
        return found
    with _lock:
        if name not in _clients:
            if _session is None:
                _session = boto3.session.Session()
            created = _session.client(name, config=_config())
            for event_name, handler in HOOKS:
                created.meta.events.register(event_name, handler)
            _clients[name] = created
        return _clients[name]


def _config() -> Config:
    return Config(retries={"max_attempts": 3, "mode": "standard"}, connect_timeout=2, read_timeout=5,
                  max_pool_connections=50)


def dynamodb() -> Any:
    return client("dynamodb")


def kms() -> Any:
    return client("kms")


def s3() -> Any:
    return client("s3")


def add_hook(event_name: str, handler: Hook) -> None:
    """Register `handler` for `event_name` on every client, existing and future (once)."""
    with _lock:
        if (event_name, handler) in HOOKS:
            return
        HOOKS.append((event_name, handler))
        for existing in _clients.values():
            existing.meta.events.register(event_name, handler)


def remove_hook(event_name: str, handler: Hook) -> None:
    """Undo `add_hook` (on every client it was registered on)."""
    with _lock:
        if (event_name, handler) not in HOOKS:
            return
        HOOKS.remove((event_name, handler))
        for existing in _clients.values():
            existing.meta.events.unregister(event_name, handler)


def reset() -> None:
    """Forget the clients and their session (hooks stay: new clients get them)."""
    global _session
    with _lock:
        _clients.clear()
        _session = None


# ---------------------------------------------------------------- SnapStart

WARM_SERVICES = ("dynamodb", "kms", "s3")


@snapshot.before_snapshot
def warm() -> None:
    """Load botocore's data for the services the layer calls (service models, endpoint
    rules, partitions) into the shared session's loader, without resolving credentials or
    keeping a client: the throwaway clients carry placeholder keys and never send."""
    global _session
    with _lock:
        if _session is None:
            _session = boto3.session.Session()
        for name in WARM_SERVICES:
            _session.client(name, config=_config(), aws_access_key_id="snapshot", aws_secret_access_key="snapshot")


@snapshot.after_restore
def restored() -> None:
    """Drop every client (pooled connections, credentials resolved before the snapshot)
    and the session's cached credentials; keep the loaded botocore data."""
    global _session
    with _lock:
        _clients.clear()
        if _session is not None:
            fresh = botocore.session.get_session()
            fresh.register_component("data_loader", _session._session.get_component("data_loader"))
            _session = boto3.session.Session(botocore_session=fresh)
