"""The spec's retry rules, and what an `Idempotency-Key` adds to them, in one place (`RetryPolicy`)."""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Self

import httpx

from .errors import AmbiguousWriteError, PartnerError, RateLimitError, TransportError, error_from_response

RETRY_CONFLICTS = ("migration_pending", "pool_not_open")


@dataclass
class RetryPolicy:
    """1. 429: wait `retry-after` and retry (bounded; a wait longer than `max_retry_after` is raised).
    2. 409 `migration_pending` / `pool_not_open`: back off a few seconds and retry (bounded).
    3. 5xx (and lost connections) on reads: exponential backoff with a hard attempt ceiling.
    4. 400/401/403/404/most 422: never retried unchanged (401 `invalid_token` refreshes once, then retries once).
    5. Writes: no automatic retry on a timeout or 5xx -> `AmbiguousWriteError` (carrying `signature`
       when the answer had one); reconcile before resending.

    With an `Idempotency-Key` (the client sends one on every write by default) a write is safe to
    send again under the same key: the server replays the first answer or runs it once. So:
    - a timeout or broken answer on a keyed write is retried with the same key (`keyed_write_retries`);
    - 409 `idempotency_key_in_use` (the first attempt still runs) waits `retry-after` and retries;
    - a 5xx answer is the key's stored answer (a retry would replay it): `AmbiguousWriteError`, as without a key;
    - 409 `migration_pending` / `pool_not_open` are stored under the key too, and nothing was built: the
      retry after the back-off is a new attempt under a new key.
    `AmbiguousWriteError.idempotency_key` is the key to send the write again with, safely.
    """

    rate_limit_retries: int = 3  # rule 1
    max_retry_after: float = 60.0  # longer waits are raised, not slept
    default_retry_after: float = 1.0  # 429 without a usable retry-after
    conflict_retries: int = 5  # rule 2
    conflict_backoff: float = 2.0  # seconds, grows by `conflict_factor`, capped
    conflict_factor: float = 1.5
    conflict_backoff_max: float = 8.0
    read_attempts: int = 4  # rule 3: hard ceiling on attempts (first try included)
    read_backoff: float = 0.5
    read_backoff_max: float = 8.0
    keyed_write_retries: int = 2  # a keyed write after a timeout: same key, backoff as reads
    in_use_retries: int = 30  # 409 idempotency_key_in_use: wait retry-after (1 s) each time
    jitter: float = 0.1  # +/- fraction of each backoff
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)

    def _jittered(self, seconds: float) -> float:
        if self.jitter <= 0:
            return seconds
        return max(0.0, seconds * (1 + random.uniform(-self.jitter, self.jitter)))

    def conflict_delay(self, retry: int) -> float:
        return self._jittered(min(self.conflict_backoff * self.conflict_factor**retry, self.conflict_backoff_max))

    def read_delay(self, retry: int) -> float:
        return self._jittered(min(self.read_backoff * 2**retry, self.read_backoff_max))


NO_RETRY = RetryPolicy(
    rate_limit_retries=0, conflict_retries=0, read_attempts=1, keyed_write_retries=0, in_use_retries=0
)


class IdempotencyKey:
    """The key of one logical write: the same on every retry, a new one only when the server stored
    an answer that says nothing was built (409 migration_pending / pool_not_open)."""

    def __init__(self, value: str | None = None) -> None:
        self.value = value or str(uuid.uuid4())

    def renew(self) -> None:
        self.value = str(uuid.uuid4())


def decode(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def send(
    http: httpx.Client,
    policy: RetryPolicy,
    method: str,
    url: str,
    *,
    write: bool,
    build: Callable[[], dict[str, Any]],
    on_invalid_token: Callable[[], bool] | None = None,
    key: IdempotencyKey | None = None,
) -> Any:
    """Send one logical request under the retry rules; returns the decoded 2xx body.

    `build()` gives fresh keyword arguments for `http.request` on every attempt (the bearer
    header may change after a refresh). `on_invalid_token()` refreshes and returns True when a
    retry is worth it; it is called at most once.
    """
    rate_limited = conflicts = read_failures = keyed_retries = in_use = 0
    refreshed = False
    while True:
        kwargs = build()
        if key is not None:
            kwargs["headers"] = {**kwargs.get("headers", {}), "Idempotency-Key": key.value}
        try:
            response = http.request(method, url, **kwargs)
        except httpx.ConnectError as exc:  # nothing reached the server: safe for writes too
            read_failures += 1
            if read_failures >= policy.read_attempts:
                raise TransportError("connection_failed", None, str(exc)) from exc
            policy.sleep(policy.read_delay(read_failures - 1))
            continue
        except httpx.TransportError as exc:  # timeout or broken answer: a write may be in flight
            if write and key is not None and keyed_retries < policy.keyed_write_retries:
                policy.sleep(policy.read_delay(keyed_retries))  # the same key: replayed or run once
                keyed_retries += 1
                continue
            if write:
                ambiguous = AmbiguousWriteError(
                    "timeout" if isinstance(exc, httpx.TimeoutException) else "transport_error",
                    None,
                    f"{type(exc).__name__}: {exc}; not retried, reconcile first"
                    + (" or send it again with the same idempotency_key" if key is not None else ""),
                    cause=exc,
                )
                ambiguous.idempotency_key = key.value if key is not None else None
                raise ambiguous from exc
            read_failures += 1
            if read_failures >= policy.read_attempts:
                raise TransportError("transport_error", None, str(exc)) from exc
            policy.sleep(policy.read_delay(read_failures - 1))
            continue

        status = response.status_code
        body = decode(response)
        if 200 <= status < 300:
            return body
        error = error_from_response(status, body, dict(response.headers))

        if status == 401 and error.code == "invalid_token" and on_invalid_token is not None and not refreshed:
            refreshed = True
            if on_invalid_token():
                continue
            raise error
        if status == 429:
            wait = error.retry_after if isinstance(error, RateLimitError) else None
            wait = policy.default_retry_after if wait is None else wait
            if rate_limited >= policy.rate_limit_retries or wait > policy.max_retry_after:
                raise error
            rate_limited += 1
            policy.sleep(wait)
            continue
        if status == 409 and error.code == "idempotency_key_in_use" and key is not None:
            if in_use >= policy.in_use_retries:
                raise error
            wait = getattr(error, "retry_after", None)
            policy.sleep(policy.default_retry_after if wait is None else wait)
            in_use += 1
            continue
        if status == 409 and error.code in RETRY_CONFLICTS:
            if conflicts >= policy.conflict_retries:
                raise error
            policy.sleep(policy.conflict_delay(conflicts))
            conflicts += 1
            if key is not None:
                key.renew()  # the 409 is the old key's stored answer; nothing was built
            continue
        if status >= 500:
            if write:
                ambiguous = AmbiguousWriteError(
                    error.code,
                    status,
                    error.message or "server error on a write; not retried",
                    extra=error.extra,
                    action=error.action,
                    headers=error.headers,
                    cause=error,
                )
                ambiguous.idempotency_key = key.value if key is not None else None
                raise ambiguous
            read_failures += 1
            if read_failures >= policy.read_attempts:
                raise error
            policy.sleep(policy.read_delay(read_failures - 1))
            continue
        raise error


__all__ = ["NO_RETRY", "IdempotencyKey", "PartnerError", "RetryPolicy", "send"]


class Session:
    """An `httpx.Client` (`http`, else one of its own, closed by `close()` or a `with` block) and
    the retry rules its calls follow."""

    def __init__(self, http: httpx.Client | None, retry: RetryPolicy | None, timeout: float) -> None:
        self._own_http = http is None
        self.http = http or httpx.Client(timeout=timeout)
        self.retry = retry or RetryPolicy()

    def close(self) -> None:
        if self._own_http:
            self.http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
