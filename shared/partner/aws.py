"""The only module that creates boto3 clients. Clients are created lazily and reused.

boto3 honours AWS_ENDPOINT_URL, which is how the devstack points every client at moto.
"""

from __future__ import annotations

import threading
from typing import Any

_lock = threading.Lock()
_clients: dict[str, Any] = {}


def client(name: str) -> Any:
    found = _clients.get(name)
    if found is not None:
        return found
    with _lock:
        if name not in _clients:
            import boto3
            from botocore.config import Config

            config = Config(
                retries={"max_attempts": 3, "mode": "standard"},
                connect_timeout=2,
                read_timeout=5,
                max_pool_connections=50,
            )
            _clients[name] = boto3.session.Session().client(name, config=config)
        return _clients[name]


def dynamodb() -> Any:
    return client("dynamodb")


def kms() -> Any:
    return client("kms")


def s3() -> Any:
    return client("s3")


def reset() -> None:
    with _lock:
        _clients.clear()
