"""DynamoDB's idempotent TransactWriteItems, which moto lacks: a WSGI middleware in front of moto's
server keeps each committed ClientRequestToken's answer for 10 minutes and replays it.
"""

from __future__ import annotations

import hashlib
import io
import json
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

TARGET = "DynamoDB_20120810.TransactWriteItems"
WINDOW_SECONDS = 600  # DynamoDB's idempotency window for a ClientRequestToken


class TransactionTokens:
    """botocore resends a TransactWriteItems with the same ClientRequestToken when an answer is lost
    (a read timeout under load). DynamoDB answers a repeat of a committed transaction (same token,
    same parameters, within 10 minutes) with success and applies nothing again; the same token with
    other parameters is `IdempotentParameterMismatchException`. moto re-executes the repeat, so a
    transaction whose first answer was lost came back cancelled on its own conditions (a consumed
    refresh token, a consent form's marker) and the service took its own commit for a replay."""

    def __init__(self, app: Callable[..., Iterable[bytes]], now: Callable[[], float] = time.monotonic) -> None:
        self.app = app
        self.now = now
        self._lock = threading.Lock()
        self._done: dict[str, tuple[float, str, str, list[tuple[str, str]], bytes]] = {}

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("HTTP_X_AMZ_TARGET") != TARGET:
            return self.app(environ, start_response)
        body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        environ["wsgi.input"] = io.BytesIO(body)
        try:
            token = json.loads(body).get("ClientRequestToken")
        except (ValueError, AttributeError):
            token = None
        if not token:
            return self.app(environ, start_response)
        digest = hashlib.sha256(body).hexdigest()
        with self._lock:
            now = self.now()
            self._done = {k: v for k, v in self._done.items() if v[0] > now}
            seen = self._done.get(token)
            if seen is not None:
                _, seen_digest, status, headers, answer = seen
                if seen_digest != digest:
                    return _error(
                        start_response,
                        "IdempotentParameterMismatchException",
                        "Specified idempotent token was used with different request parameters "
                        "within the idempotency window.",
                    )
                start_response(status, headers)
                return [answer]
            captured: dict[str, Any] = {}

            def capture(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
                captured["status"], captured["headers"] = status, headers
                return start_response(status, headers, exc_info) if exc_info else start_response(status, headers)

            answer = b"".join(self.app(environ, capture))
            if captured.get("status", "").startswith("200"):
                self._done[token] = (now + WINDOW_SECONDS, digest, captured["status"], captured["headers"], answer)
            return [answer]


def _error(start_response: Callable[..., Any], code: str, message: str) -> list[bytes]:
    body = json.dumps({"__type": f"com.amazonaws.dynamodb.v20120810#{code}", "message": message}).encode()
    start_response(
        "400 Bad Request", [("Content-Type", "application/x-amz-json-1.0"), ("Content-Length", str(len(body)))]
    )
    return [body]
