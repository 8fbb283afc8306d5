"""The user's own limits for one app: chosen at consent, changed on /account/apps. Stored on the grant
only when below the client's cap; the effective caps are the lower of the two (docs/architecture.md,
"The user's limits and connected apps").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from partner.core import clock
from partner.core.errors import ApiError

LAMPORTS_PER_SOL = 10**9
# the form fields of the consent page and the apps page, in SOL
TRADE_FIELD = "max_trade_sol"
DAILY_FIELD = "daily_cap_sol"
# ASCII digits with at most one "." and at most 9 decimals (fullmatch: `$` would pass a trailing "\n")
_PLAIN_SOL = re.compile(r"[0-9]*(?:\.[0-9]{0,9})?")


@dataclass(frozen=True)
class Limits:
    max_trade_lamports: int
    daily_volume_cap_lamports: int


def own(grant: dict[str, Any] | None) -> tuple[int | None, int | None]:
    """The user's own limits stored on the grant (None: the client's cap)."""
    grant = grant or {}
    trade, daily = grant.get("max_trade_lamports"), grant.get("daily_volume_cap_lamports")
    return (int(trade) if trade is not None else None, int(daily) if daily is not None else None)


def effective(client: Any, grant: dict[str, Any] | None) -> Limits:
    trade, daily = own(grant)
    return Limits(
        min(client.max_trade_lamports, trade) if trade is not None else client.max_trade_lamports,
        min(client.daily_volume_cap_lamports, daily) if daily is not None else client.daily_volume_cap_lamports,
    )


def day() -> str:
    return datetime.fromtimestamp(clock.now(), UTC).strftime("%Y-%m-%d")


def grant_volume_key(client_id: str, user_id: str, on: str | None = None) -> str:
    return f"GVOL#{client_id}#{user_id}#{on or day()}"


# ---------------------------------------------------------------- SOL in plain words


def sol(lamports: int) -> str:
    """Lamports as a plain SOL amount: 1000000000 -> "1", 100000000 -> "0.1"."""
    whole, frac = divmod(int(lamports), LAMPORTS_PER_SOL)
    return f"{whole}.{frac:09d}".rstrip("0").rstrip(".") if frac else str(whole)


def parse_sol(form: dict[str, str], name: str, cap: int, what: str) -> int | None:
    """A limit posted in SOL, in lamports; None when the form does not carry it. The value is
    ASCII digits with at most one `.` and at most 9 decimals, nothing else (no sign, space, `_`,
    exponent or other script's digits); one that is not, is 0, or is above the app's cap is
    refused (400 invalid_request naming the field). Whole integers, no Decimal: any length."""
    raw = form.get(name)
    if raw is None:
        return None
    if not _PLAIN_SOL.fullmatch(raw) or not raw.strip(".0"):
        raise ApiError(
            "invalid_request",
            f"The {what} must be a positive amount of SOL with at most 9 decimals "
            "(digits 0-9 and one '.', nothing else).",
            field=name,
        )
    whole, _, frac = raw.partition(".")
    whole = whole.lstrip("0")
    if len(whole) > len(str(cap // LAMPORTS_PER_SOL)):  # more SOL than any cap: not converted at all
        raise ApiError(
            "invalid_request", f"The {what} is above what this app may spend: at most {sol(cap)} SOL.", field=name
        )
    lamports = int(whole or "0") * LAMPORTS_PER_SOL + int(frac.ljust(9, "0"))
    if lamports > cap:
        raise ApiError(
            "invalid_request",
            f"The {what} of {sol(lamports)} SOL is above what this app may spend: at most {sol(cap)} SOL.",
            field=name,
        )
    return lamports


def parse_form(form: dict[str, str], client: Any) -> tuple[int | None, int | None]:
    """(per-trade, daily) limits in lamports from a posted form; None where not posted."""
    return (
        parse_sol(form, TRADE_FIELD, client.max_trade_lamports, "per-trade limit"),
        parse_sol(form, DAILY_FIELD, client.daily_volume_cap_lamports, "daily limit"),
    )
