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

from partner.access import Principal


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
    }

