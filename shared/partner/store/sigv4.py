"""Signature Version 4 for the hot path's JSON services (DynamoDB, KMS), through botocore's public
events, at a fraction of botocore's own signer's cost.

botocore signs every request with a new `SigV4Auth`: it copies the headers into an
`email.message`-based map twice, parses the URL three times, and derives the signing key with four
HMACs each time. That was 220 of a DynamoDB call's 690 µs of CPU here, and a trade makes seven
calls (docs/architecture.md, "Dependencies"). This signer computes the same canonical request and
signature (`tests/unit/test_sigv4.py` checks it against botocore's `SigV4Auth`, header for header),
keeping the signing key for its day, region and service, and the URL's canonical parts per URL.

It is wired with two events botocore documents for this: `choose-signer` answers `UNSIGNED` for a
standard SigV4 request (botocore's own signer then does nothing) and notes the signing name and
region in the request's context; `request-created`, registered last, then signs the request with
those, after every other handler of that event has set its headers. botocore re-creates the
request for each retry, so a retry is signed anew. Anything else (a presigned URL, SigV4a, a
streamed body, query parameters) is left to botocore, unchanged.
"""

from __future__ import annotations

import hashlib
import hmac
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, urlsplit

import botocore
from botocore.auth import SIGNED_HEADERS_BLACKLIST, SigV4Auth
from botocore.utils import normalize_url_path

Credentials = Callable[[], Any]  # () -> botocore ReadOnlyCredentials (access_key, secret_key, token)

CONTEXT_KEY = "partner_sigv4"  # (signing name, region), set by `choose` for `sign`
_SKIP = frozenset(SIGNED_HEADERS_BLACKLIST)
_REPLACED = frozenset({"authorization", "x-amz-date", "x-amz-security-token"})  # set anew at each signing
_APART = frozenset({"date", "x-amz-content-sha256"})  # botocore's signer handles these its own way
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _mac(key: bytes, message: str) -> bytes:
    return hmac.new(key, message.encode(), hashlib.sha256).digest()


class Signer:
    """One per process: `choose` for `choose-signer`, `sign` for `request-created` (module docstring)."""

    def __init__(self, credentials: Credentials) -> None:
        self._credentials = credentials
        self._lock = threading.Lock()
        self._keys: dict[tuple[str, str, str, str], bytes] = {}  # (secret, day, region, service) -> key
        self._urls: dict[str, tuple[str, str, str]] = {}  # url -> (host, canonical path, canonical query)

    def forget(self) -> None:
        """Drop the derived signing keys (after a SnapStart restore, or when the session is replaced)."""
        with self._lock:
            self._keys.clear()

    def register(self, events: Any, service_id: str) -> None:
        """Sign the requests of the client whose event system is `events` (its service's hyphenized id)."""
        events.register_first(f"choose-signer.{service_id}", self.choose)
        events.register_last(f"request-created.{service_id}", self.sign)

    def choose(
        self,
        signing_name: str = "",
        region_name: str = "",
        signature_version: Any = None,
        context: Any = None,
        **_: Any,
    ) -> Any:
        if signature_version != "v4" or context is None or not signing_name or not region_name:
            return None  # botocore's choice stands
        context[CONTEXT_KEY] = (signing_name, region_name)
        return botocore.UNSIGNED

    def sign(self, request: Any = None, **_: Any) -> None:
        scope: tuple[str, str] | None = request.context.pop(CONTEXT_KEY, None) if request is not None else None
        if scope is None:
            return
        service, region = scope
        body = request.data  # what `request.body` gives without preparing a copy of the request
        if isinstance(body, str):
            body = body.encode()
        if (
            request.params
            or not isinstance(body, bytes | bytearray | None)
            or not request.context.get("payload_signing_enabled", True)
            or request.context.get("checksum", {}).get("request_algorithm")
            or not self.add_auth(request, bytes(body or b""), service, region, time.gmtime())
        ):
            # not the JSON services' shape: botocore's own signer, as it would have signed it
            SigV4Auth(self._credentials(), service, region).add_auth(request)

    def _url(self, url: str) -> tuple[str, str, str]:
        found = self._urls.get(url)
        if found is None:
            parts = urlsplit(url)
            host = parts.hostname or ""
            if ":" in host:  # an IPv6 literal
                host = f"[{host}]"
            if parts.port is not None and parts.port != _DEFAULT_PORTS.get(parts.scheme):
                host = f"{host}:{parts.port}"
            pairs = sorted(pair.partition("=")[::2] for pair in parts.query.split("&")) if parts.query else []
            query = "&".join(f"{k}={v}" for k, v in pairs)
            found = (host, quote(normalize_url_path(parts.path), safe="/~"), query)
            with self._lock:
                if len(self._urls) < 64:
                    self._urls[url] = found
        return found

    def _key(self, secret: str, day: str, region: str, service: str) -> bytes:
        cache = (secret, day, region, service)
        key = self._keys.get(cache)
        if key is None:
            key = f"AWS4{secret}".encode()
            for part in (day, region, service, "aws4_request"):
                key = _mac(key, part)
            with self._lock:
                if len(self._keys) >= 8:  # old days and rotated secrets
                    self._keys.clear()
                self._keys[cache] = key
        return key

    def add_auth(self, request: Any, body: bytes, service: str, region: str, now: time.struct_time) -> bool:
        """Sign `request` (an AWSRequest) at `now`, as botocore's SigV4Auth.add_auth does; False (and
        the request untouched) when it carries a header that botocore's signer treats apart (`Date`,
        `X-Amz-Content-SHA256`). One pass over the headers: botocore's header map is costly to query."""
        headers = request.headers
        signed: dict[str, list[str]] = {}
        stale = []
        for name, value in headers.items():
            lower = name.lower()
            if lower in _REPLACED:
                stale.append(name)
            elif lower in _APART:
                return False
            elif lower not in _SKIP:
                signed.setdefault(lower, []).append(" ".join(value.split()))
        creds = self._credentials()
        for name in stale:
            del headers[name]
        stamp = time.strftime("%Y%m%dT%H%M%SZ", now)
        headers["X-Amz-Date"] = stamp
        signed["x-amz-date"] = [stamp]
        if creds.token:
            headers["X-Amz-Security-Token"] = creds.token
            signed["x-amz-security-token"] = [" ".join(creds.token.split())]
        host, path, query = self._url(request.url)
        signed.setdefault("host", [host])
        names = sorted(signed)
        signed_names = ";".join(names)
        canonical = "\n".join(
            (
                request.method.upper(),
                path,
                query,
                "".join(f"{n}:{','.join(signed[n])}\n" for n in names),
                signed_names,
                hashlib.sha256(body).hexdigest(),
            )
        )
        day = stamp[:8]
        scope = f"{day}/{region}/{service}/aws4_request"
        to_sign = f"AWS4-HMAC-SHA256\n{stamp}\n{scope}\n{hashlib.sha256(canonical.encode()).hexdigest()}"
        signature = _mac(self._key(creds.secret_key, day, region, service), to_sign)
        headers["Authorization"] = (
            f"AWS4-HMAC-SHA256 Credential={creds.access_key}/{scope}, "
            f"SignedHeaders={signed_names}, Signature={signature.hex()}"
        )
        return True
