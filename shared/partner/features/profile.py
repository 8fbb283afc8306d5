"""GET /partner/v1/me.

The body is built as a plain dict (same keys, order and types as the spec's Profile:
`user.walletSolana`, `user.twitterHandle`, `user.tradingEnabled`, `client`, `scopes`).
Its fields come typed from the stores (str | None, bool, str, tuple of str), so the
pydantic models added no validation, and importing pydantic was ~60-70 ms of /me's cold
start (nothing else /me imports uses it). The OpenAPI document's model of this body is
`tools.schemas.Profile`.
"""

from __future__ import annotations

from typing import Any

from partner.core.principal import Principal
from partner.core.settings import get_settings
from partner.features import grantlimits


def also_read(user_id: str, client_id: str) -> dict[str, list[str]]:
    """Today's grant counter, read with the token (so /me stays at one BatchGetItem)."""
    return {get_settings().counters_table: [grantlimits.grant_volume_key(client_id, user_id)]}


def limits(principal: Principal) -> dict[str, str]:
    """The effective caps of this grant (the lower of the client's and the user's own) and
    what this grant spent today (UTC) against them (additive)."""
    effective = grantlimits.effective(principal.client, principal.grant)
    counter = principal.also.get(grantlimits.grant_volume_key(principal.client.client_id, principal.user.user_id))
    return {
        "maxTradeLamports": str(effective.max_trade_lamports),
        "dailyVolumeCapLamports": str(effective.daily_volume_cap_lamports),
        "spentTodayLamports": str(int((counter or {}).get("count", 0))),
    }


def profile(principal: Principal) -> dict[str, Any]:
    user = principal.user
    return {
        "user": {
            "walletSolana": user.wallet,
            "twitterHandle": user.twitter_handle,
            "tradingEnabled": user.trading_enabled,
        },
        "client": principal.client.client_id,
        "scopes": list(principal.scopes),
        "limits": limits(principal),
    }
