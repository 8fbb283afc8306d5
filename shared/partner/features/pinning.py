"""Pins a coin's image and metadata JSON through a Kubo-RPC-compatible node.

    pinned = pin_bytes(png, "image.png", "image/png")   # Pinned(cid, uri="ipfs://<cid>", size)
    meta = pin_json({"name": ..., "image": pinned.uri})

Any failure, a CID that differs from the one computed here included, is 502 `pinning_unavailable`.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from partner.core import cid as cids
from partner.core import transport
from partner.core.errors import ApiError

if TYPE_CHECKING:
    from partner.features.coin_fields import Image

__all__ = [
    "Pinned",
    "pin_bytes",
    "pin_json",
    "json_bytes",
    "staging_key",
    "add_hook",
    "remove_hook",
    "TIMEOUT",
    "reset",
]

TIMEOUT = 15.0  # seconds per upload (read); the function's own timeout is 29 s
CONNECT_TIMEOUT = 2.0
STAGING_PREFIX = "staging/"

_lock = threading.Lock()
Hook = Callable[[str], "BaseException | None"]
_hooks: list[Hook] = []


@dataclass(frozen=True)
class Pinned:
    cid: str
    uri: str  # "ipfs://<cid>"
    size: int  # bytes of content pinned
    sha256: str  # hex, also the staging key's suffix

    @classmethod
    def of(cls, cid: str, data: bytes) -> Pinned:
        return cls(cid=cid, uri=f"ipfs://{cid}", size=len(data), sha256=hashlib.sha256(data).hexdigest())


def unavailable(message: str | None = None, **extra: Any) -> ApiError:
    return ApiError("pinning_unavailable", message, **extra)


def staging_key(data: bytes) -> str:
    return STAGING_PREFIX + hashlib.sha256(data).hexdigest()


def post(path: str, timeout: float, **kw: Any) -> transport.Answer:
    """POST to the pinning node's `path` (`/api/v0/...`); transport failures -> pinning_unavailable."""
    from partner.core.settings import get_settings

    url = get_settings().pinning_url.rstrip("/") + path
    try:
        return transport.post(url, timeout=timeout, connect=min(CONNECT_TIMEOUT, timeout), **kw)
    except transport.Failed as exc:  # transport errors and timeouts
        raise unavailable() from exc


def reset() -> None:
    """Close pooled connections (tests switch pin servers)."""
    transport.reset()


def add_hook(handler: Hook) -> None:
    """Hook seam (devstack fault injection only; production adds none): `add_hook(fn)`,
    where `fn(operation)` returns an exception to fail that call with, or None; the
    operation is the Kubo command (`add`). The devstack registers
    `functools.partial(devstack.faults.take, "pinning")`.
    """
    with _lock:
        if handler not in _hooks:
            _hooks.append(handler)


def remove_hook(handler: Hook) -> None:
    with _lock:
        if handler in _hooks:
            _hooks.remove(handler)


def _run_hooks(operation: str) -> None:
    for handler in list(_hooks):
        error = handler(operation)
        if error is not None:
            raise unavailable() from error


# --------------------------------------------------------------------------- staging


def _stage(data: bytes, filename: str, content_type: str, expected_cid: str) -> str:
    from partner.core.settings import get_settings
    from partner.store import aws

    bucket = get_settings().staging_bucket
    key = staging_key(data)
    if not bucket:
        raise unavailable("No staging bucket is configured for uploads.")
    try:
        aws.s3().put_object(
            Bucket=bucket,
            Key=key,
            Body=data,
            ContentType=content_type,
            Metadata={"filename": _ascii(filename), "cid": expected_cid},
        )
    except Exception as exc:  # botocore ClientError / EndpointConnectionError / ...
        raise unavailable("The upload could not be staged.") from exc
    return key


def _ascii(text: str) -> str:
    # S3 user metadata travels in HTTP headers: keep it printable ASCII
    return "".join(c if 32 <= ord(c) < 127 else "_" for c in text)[:200]


# --------------------------------------------------------------------------- pinning


def _add(data: bytes, filename: str, content_type: str, timeout: float) -> dict[str, Any]:
    _run_hooks("add")
    response = post(
        "/api/v0/add",
        timeout,
        params={"pin": "true", "cid-version": "0"},
        body={"file": (filename, data, content_type)},
    )
    if not 200 <= response.status < 300:
        raise unavailable(f"The pinning node answered HTTP {response.status}.")
    return _last_added(response.text)


def _last_added(text: str) -> dict[str, Any]:
    """The last `{"Name", "Hash", ...}` line of an `add` answer (progress lines have no Hash)."""
    found: dict[str, Any] | None = None
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            item = json.loads(line)
        except ValueError as exc:
            raise unavailable("The pinning node answered with something that is not JSON.") from exc
        if isinstance(item, dict) and item.get("Type") == "error":
            raise unavailable(f"The pinning node failed: {str(item.get('Message', ''))[:200]}")
        if isinstance(item, dict) and isinstance(item.get("Hash"), str):
            found = item
    if found is None:
        raise unavailable("The pinning node's answer has no CID.")
    return found


def pin_bytes(
    data: bytes,
    filename: str = "file",
    content_type: str = "application/octet-stream",
    *,
    timeout: float | None = None,
) -> Pinned:
    """Stage `data` in S3, pin it, check the node's CID; -> Pinned(cid, uri, size).

    Steps for each upload:
    1. the bytes are staged in S3 (`staging/<sha256>` in the staging bucket, which
       expires them), so nothing is lost when the node fails mid-way;
    2. `POST {PINNING_URL}/api/v0/add?pin=true&cid-version=0`, multipart field `file`;
       the node answers one JSON line per added object, `{"Name", "Hash", "Size"}`;
    3. the node's `Hash` must equal the CID computed here (`partner.core.cid`), else the
       node stored something other than what we sent.

    Any transport error, timeout, non-2xx, unreadable answer or CID mismatch is
    `ApiError("pinning_unavailable")` (502, retryable). HTTP goes through partner.core.transport
    (pooled urllib3, made on first use).
    """
    data = bytes(data)
    expected = cids.cid_v0(data)
    _stage(data, filename, content_type, expected)
    added = _add(data, filename, content_type, TIMEOUT if timeout is None else timeout)
    if added["Hash"] != expected:
        raise unavailable("The pinning node returned a CID that does not match the content.")
    return Pinned.of(expected, data)


def json_bytes(obj: Any) -> bytes:
    """The exact bytes pin_json uploads: compact UTF-8 JSON, keys in the caller's order."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def pin_image(image: Image) -> Pinned:
    return pin_bytes(image.data, f"image.{image.extension}", image.content_type)


def pin_json(obj: Any, filename: str = "metadata.json", *, timeout: float | None = None) -> Pinned:
    return pin_bytes(json_bytes(obj), filename, "application/json", timeout=timeout)
