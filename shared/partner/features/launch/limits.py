"""The creator's launch restrictions: the cooldown, the identity allowance and its bypass fee."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from partner.core import clock
from partner.core.errors import ApiError
from partner.core.settings import get_settings
from partner.features.launch.rules import RULES
from partner.store import launches as launch_store


@dataclass(frozen=True)
class Restrictions:
    bypass_fee_lamports: int  # 0 when no bypass is needed


CLAIM_SECONDS = 120  # a launch in flight holds the creator's slot this long at most


def _cooldown_error(remaining: int) -> ApiError:
    return ApiError(
        "deploy_cooldown_active",
        f"This user launched a coin less than {RULES.cooldown_seconds} s ago, or is launching one now.",
        headers={"retry-after": str(remaining)},
        cooldownRemainingSeconds=remaining,
        action="Wait cooldownRemainingSeconds, then retry.",
    )


def claim_launch(
    user_id: str, name: str, symbol: str, max_bypass_fee: int | None, now: float | None = None
) -> Restrictions:
    """Take the creator's launch slot atomically, then check the identity allowance.

    One conditional UpdateItem enforces the cooldown AND that no other launch of this
    user is in flight, so concurrent launches cannot both pass (429). The identity
    allowance (422, or the bypass when the caller accepts the quote) is checked on the
    record the claim returns; a refusal gives the slot back.
    """
    now = clock.now() if now is None else now
    record = launch_store.claim(
        user_id, now=int(now), until=int(now) + CLAIM_SECONDS, cooled_at=math.floor(now - RULES.cooldown_seconds)
    )
    if record is None:
        current = launch_store.current(user_id)
        waits = [math.ceil(float(current["last_at"]) + RULES.cooldown_seconds - now)] if "last_at" in current else []
        if "claim_until" in current:
            waits.append(math.ceil(float(current["claim_until"]) - now))
        raise _cooldown_error(max(1, *waits) if waits else 1)
    try:
        return _identity(record, name, symbol, max_bypass_fee)
    except ApiError:
        release_launch(user_id)
        raise


def _identity(record: dict[str, Any], name: str, symbol: str, max_bypass_fee: int | None) -> Restrictions:
    launches = record.get("launches") or []
    with_name = sum(1 for item in launches if item.get("n") == name)
    with_symbol = sum(1 for item in launches if item.get("s") == symbol)
    if with_name < RULES.identity_allowance and with_symbol < RULES.identity_allowance:
        return Restrictions(0)
    shared = sum(1 for item in launches if item.get("n") == name or item.get("s") == symbol)
    fee = RULES.bypass_fee_lamports * shared
    if not get_settings().platform_treasury:  # no treasury configured: no bypass to offer
        raise ApiError(
            "launch_identity_limit_reached",
            "This user already launched a coin with this name or symbol.",
            launchesWithName=with_name,
            launchesWithSymbol=with_symbol,
        )
    if max_bypass_fee is not None and max_bypass_fee >= fee:
        return Restrictions(fee)
    raise ApiError(
        "launch_identity_limit_reached",
        "This user already launched a coin with this name or symbol.",
        totalBypassFeeLamports=str(fee),
        launchesWithName=with_name,
        launchesWithSymbol=with_symbol,
        action="Resend with maxBypassFeeLamports at least totalBypassFeeLamports to pay the bypass fee.",
    )


def release_launch(user_id: str) -> None:
    """Give the slot back: nothing of this launch reached the network."""
    launch_store.release(user_id)


def record_launch(user_id: str, name: str, symbol: str, mint: str, now: float | None = None) -> None:
    """One UpdateItem: the cooldown's start and the launch's identity."""
    now = clock.now() if now is None else now
    entry = {"n": name, "s": symbol, "m": mint, "t": int(now)}
    launch_store.record(user_id, entry, int(math.ceil(now)))
