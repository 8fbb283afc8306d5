"""The HTTP transport of the RPC node, the block engine and the pin server: pooled urllib3 (botocore
loads it anyway), one `PoolManager` per timeout pair and scheme, kept for the process. No retries and
no redirects: a failed request is reported, not repeated (a repeated send could double a transaction).
"""

from __future__ import annotations

import threading
from typing import Any
from urllib.parse import urlencode

from partner.core import lazy, snapshot, tls

urllib3 = lazy.module("urllib3")

_lock = threading.Lock()
_pools: dict[tuple[float, float, bool], Any] = {}


class Failed(Exception):
    """`maybe_sent` says whether the request may have reached the server (a read timeout or
    a connection dropped after sending: the caller treats a send as ambiguous), as opposed to
    never leaving (connection refused, connect timeout, TLS failure).
    """

    def __init__(self, message: str, *, maybe_sent: bool) -> None:
        super().__init__(message)
        self.maybe_sent = maybe_sent


class Answer:
    """An HTTP answer: `status`, `data` (bytes), `text`, `headers` (lower-cased names)."""

    def __init__(self, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
        self.status, self.data = status, data
        self.headers = headers or {}

    @property
    def text(self) -> str:
        return self.data.decode("utf-8", "replace")


def _pool(connect: float, read: float, https: bool) -> Any:
    key = (connect, read, https)
    found = _pools.get(key)
    if found is None:
        with _lock:
            found = _pools.get(key)
            if found is None:
                extra = {"ssl_context": tls.context()} if https else {}
                found = _pools[key] = urllib3.PoolManager(
                    num_pools=4, maxsize=10, retries=False, timeout=urllib3.Timeout(connect=connect, read=read), **extra
                )
    return found


def post(
    url: str,
    *,
    timeout: float,
    connect: float | None = None,
    body: bytes | str | dict[str, Any] | None = None,
    params: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
) -> Answer:
    """POST `body` to `url` (+ `params`); a dict `body` is sent as multipart form fields. Raises `Failed`."""
    if params:
        url = f"{url}{'&' if '?' in url else '?'}{urlencode(params)}"
    pool = _pool(timeout if connect is None else connect, timeout, url.lower().startswith("https:"))
    errors = urllib3.exceptions
    try:
        if isinstance(body, dict):
            response = pool.request("POST", url, fields=body, headers=headers, redirect=False)
        else:
            response = pool.request("POST", url, body=body, headers=headers, redirect=False)
    except (errors.ConnectTimeoutError, errors.SSLError, errors.LocationParseError) as exc:
        raise Failed(str(exc), maybe_sent=False) from exc  # NewConnectionError is a ConnectTimeoutError
    except (errors.ReadTimeoutError, errors.ProtocolError) as exc:
        raise Failed(str(exc), maybe_sent=True) from exc
    except errors.HTTPError as exc:
        raise Failed(str(exc), maybe_sent=False) from exc
    return Answer(response.status, response.data, {k.lower(): v for k, v in response.headers.items()})


def get(url: str, *, timeout: float, headers: dict[str, str] | None = None) -> Answer:
    """GET `url` (no redirects followed); raises `Failed`."""
    pool = _pool(timeout, timeout, url.lower().startswith("https:"))
    errors = urllib3.exceptions
    try:
        response = pool.request("GET", url, headers=headers, redirect=False)
    except errors.HTTPError as exc:
        raise Failed(str(exc), maybe_sent=False) from exc
    return Answer(response.status, response.data)


@snapshot.after_restore
def reset() -> None:
    """Close every pooled connection (tests switch servers; a restored environment opens its own)."""
    with _lock:
        for pool in _pools.values():
            pool.clear()
        _pools.clear()
