"""Keyed hashing and signing for every secret the service issues or receives.

Codes, tokens, API keys and sessions are stored only as HMAC-SHA256 digests under a
secret derived once per process from the KMS HMAC key (`kms:GenerateMac`), so the
secret itself never sits in configuration. Digests are compared in constant time.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import threading
from typing import Any

from partner.core import settings, snapshot
from partner.store import aws

_DERIVATION_MESSAGE = b"partner-api/secret-hash/v1"
_lock = threading.Lock()
_secret: bytes | None = None


def _hash_secret() -> bytes:
    global _secret
    if _secret is None:
        with _lock:
            if _secret is None:
                response = aws.kms().generate_mac(
                    KeyId=settings.get_settings().hash_key_id,
                    Message=_DERIVATION_MESSAGE,
                    MacAlgorithm="HMAC_SHA_256",
                )
                _secret = bytes(response["Mac"])
    return _secret


@snapshot.after_restore
@settings.on_reset
def reset() -> None:
    """Forget the derived secret (re-derived on first use). Also after a SnapStart restore:
    it is never derived before the snapshot, and a restored copy derives its own."""
    global _secret
    with _lock:
        _secret = None


def digest(value: str, purpose: str = "secret") -> str:
    """HMAC-SHA256 of `value`, domain-separated by `purpose`; hex."""
    mac = hmac.new(_hash_secret(), purpose.encode() + b"\x00" + value.encode(), hashlib.sha256)
    return mac.hexdigest()


def equal(a: str | bytes, b: str | bytes) -> bool:
    """Constant-time comparison."""
    if isinstance(a, str):
        a = a.encode()
    if isinstance(b, str):
        b = b.encode()
    return hmac.compare_digest(a, b)


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def b64url_decode(text: str) -> bytes:
    if not text or any(c not in _B64URL for c in text):
        raise ValueError("not base64url")
    pad = "=" * (-len(text) % 4)
    return base64.urlsafe_b64decode(text + pad)


_B64URL = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def random_id(nbytes: int = 16) -> str:
    return secrets.token_hex(nbytes)


def sign(payload: dict[str, Any], purpose: str) -> str:
    """A compact signed (not encrypted) token: b64url(json).b64url(hmac)."""
    body = b64url(json.dumps(payload, separators=(",", ":"), sort_keys=True).encode())
    mac = hmac.new(_hash_secret(), purpose.encode() + b"\x00" + body.encode(), hashlib.sha256).digest()
    return f"{body}.{b64url(mac)}"


def verify(token: str, purpose: str) -> dict[str, Any] | None:
    try:
        body, mac = token.split(".", 1)
        expected = hmac.new(_hash_secret(), purpose.encode() + b"\x00" + body.encode(), hashlib.sha256).digest()
        if not hmac.compare_digest(expected, b64url_decode(mac)):
            return None
        data = json.loads(b64url_decode(body))
    except (ValueError, TypeError, UnicodeDecodeError):
        return None
    return data if isinstance(data, dict) else None
