"""Fixed 60-second windows: per-endpoint buckets, the tier budget and the auth lockout."""

from __future__ import annotations

import math
from dataclasses import dataclass

from partner import clock, observability
from partner.errors import ApiError, RateLimited
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


def take_tier(client_id: str, tier: str) -> None:
    limit = TIER_LIMITS.get(tier, TIER_LIMITS["Basic"])
    start, reset = _window(clock.now(), WINDOW)
    result = counters.hit(f"RL#tier#{client_id}#{start}", limit, start + WINDOW + 60)
    if not result.allowed:
        observability.count("RateLimited", layer="tier")
        raise ApiError(
            "rate_limit_exceeded",
            f"The {tier} tier allows {limit} requests per minute across /partner/v1.",
            headers={"retry-after": str(reset)},
            retryAfterSeconds=reset,
        )


def _lockout_key(client_id: str, now: float) -> tuple[str, int]:
    start, reset = _window(now, LOCKOUT_WINDOW)
    return f"FAIL#{client_id}#{start}", reset


def check_lockout(client_id: str) -> None:
    pk, reset = _lockout_key(client_id, clock.now())
    if counters.read(pk) >= LOCKOUT_FAILURES:
        observability.count("RateLimited", layer="lockout")
        raise ApiError(
            "too_many_failed_attempts",
            "Too many failed client authentications for this client; wait for the window to end.",
            headers={"retry-after": str(reset)},
            retryAfterSeconds=reset,
        )


def record_failure(client_id: str) -> None:
    now = clock.now()
    pk, _ = _lockout_key(client_id, now)
    start = int(now // LOCKOUT_WINDOW) * LOCKOUT_WINDOW
    counters.add(pk, 1, start + LOCKOUT_WINDOW + 60)
