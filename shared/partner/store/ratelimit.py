"""Fixed 60-second windows for the per-endpoint buckets and the tier budget; a sliding
five-minute window for the failed-authentication lockout."""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass

from partner.core import clock, observability, parallel
from partner.core.errors import ApiError, RateLimited
from partner.store import counters

WINDOW = 60
# bucket -> requests per window. Token buckets are keyed on the access token digest,
# the OAuth buckets on the caller's IP. Routes that share a row of the spec's limits
# table share a bucket.
BUCKETS: dict[str, int] = {
    "read": 300,
    "trade": 60,
    "governance": 60,
    "coin": 20,
    "upload": 30,  # POST /partner/v1/uploads (added; not in the spec's table)
    "authorize": 30,
    "oauth": 30,
}
TIER_LIMITS: dict[str, int] = {"Basic": 120, "Partner": 1200}
LOCKOUT_WINDOW = 300
LOCKOUT_FAILURES = 20


@dataclass(frozen=True)
class BucketState:
    limit: int
    remaining: int
    reset: int  # seconds until the window ends

    def headers(self) -> dict[str, str]:
        return {
            "x-ratelimit-limit": str(self.limit),
            "x-ratelimit-remaining": str(self.remaining),
            "x-ratelimit-reset": str(self.reset),
        }


def _window(now: float, length: int) -> tuple[int, int]:
    start = int(now // length) * length
    reset = max(1, math.ceil(start + length - now))
    return start, reset


def untouched(bucket: str) -> BucketState:
    """The state of a bucket nothing has drawn on (for responses refused before it)."""
    _, reset = _window(clock.now(), WINDOW)
    return BucketState(BUCKETS[bucket], BUCKETS[bucket], reset)


def take(bucket: str, key: str) -> BucketState:
    """Draw one request from `bucket` for `key`; RateLimited when it is empty."""
    limit = BUCKETS[bucket]
    start, reset = _window(clock.now(), WINDOW)
    result = counters.hit(f"RL#{bucket}#{key}#{start}", limit, start + WINDOW + 60)
    if not result.allowed:
        observability.count("RateLimited", layer="bucket")
        raise RateLimited(reset, limit)
    return BucketState(limit, max(0, limit - result.count), reset)


def _tier_counter(client_id: str, tier: str) -> tuple[str, int, int, int]:
    """(counter key, limit, expiry, seconds to reset) of the client's tier budget now."""
    limit = TIER_LIMITS.get(tier, TIER_LIMITS["Basic"])
    start, reset = _window(clock.now(), WINDOW)
    return f"RL#tier#{client_id}#{start}", limit, start + WINDOW + 60, reset


def _tier_answer(result: counters.Hit, tier: str, limit: int, reset: int) -> None:
    if not result.allowed:
        observability.count("RateLimited", layer="tier")
        raise ApiError(
            "rate_limit_exceeded",
            f"The {tier} tier allows {limit} requests per minute across /partner/v1.",
            headers={"retry-after": str(reset)},
            retryAfterSeconds=reset,
        )


def take_tier(client_id: str, tier: str) -> None:
    pk, limit, expires, reset = _tier_counter(client_id, tier)
    _tier_answer(counters.hit(pk, limit, expires), tier, limit, reset)


def take_bucket_and_tier(
    bucket: str, key: str, client_id: str, tier: str, on_bucket: Callable[[BucketState], None]
) -> None:
    """`take(bucket, key)`, `on_bucket(state)`, then `take_tier(client_id, tier)`, with both updates
    in flight at once (admission's steps 2 and 3). The answer is the sequence's: the bucket's
    refusal (or failure) comes first, and then the tier's unit, drawn at the same time, is given back,
    as in sequence it would never have been drawn."""
    pk, limit, expires, reset = _tier_counter(client_id, tier)
    drawn = parallel.submit(counters.hit, pk, limit, expires)
    try:
        state = take(bucket, key)
    except BaseException:
        _give_back(drawn, pk)
        raise
    on_bucket(state)
    _tier_answer(drawn.result(), tier, limit, reset)


def _give_back(drawn: Future[counters.Hit], pk: str) -> None:
    try:
        if not drawn.result().allowed:
            return
        counters.unhit(pk)
    except Exception:  # the bucket's answer stands; the tier then counts one more
        observability.logger.warning("tier budget unit not given back", exc_info=True)


def _lockout_pk(client_id: str) -> str:
    return f"FAIL#{client_id}"


def lockout_retry_after(stamps_ms: list[int], now: float) -> int | None:
    """Seconds until fewer than LOCKOUT_FAILURES failures lie within the last LOCKOUT_WINDOW
    seconds (a sliding window: any five minutes), or None when there are fewer already.
    A failure at t counts while now - t < LOCKOUT_WINDOW."""
    now_ms, window_ms = now * 1000, LOCKOUT_WINDOW * 1000
    recent = sorted(t for t in stamps_ms if t > now_ms - window_ms)
    if len(recent) < LOCKOUT_FAILURES:
        return None
    # the client is back under the limit once this one, the 20th newest, is out of the window
    pivot = recent[len(recent) - LOCKOUT_FAILURES]
    return max(1, math.ceil((pivot + window_ms - now_ms) / 1000))


def check_lockout(client_id: str) -> None:
    retry_after = lockout_retry_after(counters.events(_lockout_pk(client_id)), clock.now())
    if retry_after is not None:
        observability.count("RateLimited", layer="lockout")
        raise ApiError(
            "too_many_failed_attempts",
            "Too many failed client authentications for this client in the last five minutes; "
            "retry after retry-after seconds.",
            headers={"retry-after": str(retry_after)},
            retryAfterSeconds=retry_after,
        )


def record_failure(client_id: str) -> None:
    """Append the failure to the client's list (one UpdateItem, never lost under concurrency);
    once LOCKOUT_FAILURES entries have expired, drop them (one conditional UpdateItem), so the
    list stays small: about twice the limit at most, plus what a burst adds at once."""
    now = clock.now()
    pk = _lockout_pk(client_id)
    stamps, trims = counters.append_event(pk, int(now * 1000), int(now) + LOCKOUT_WINDOW + 60)
    cutoff = now * 1000 - LOCKOUT_WINDOW * 1000
    expired = [i for i, t in enumerate(stamps) if t <= cutoff]
    if len(expired) >= LOCKOUT_FAILURES:
        counters.drop_events(pk, expired, trims)  # a concurrent trim that won did the same work
