"""GET /partner/v1/me."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from partner.access import Principal


class ProfileUser(BaseModel):
    walletSolana: str | None
    twitterHandle: str | None
    tradingEnabled: bool


class Profile(BaseModel):
    user: ProfileUser
    client: str | None
    scopes: list[str] = Field(default_factory=list)


def profile(principal: Principal) -> dict[str, Any]:
    user = principal.user
    return Profile(
        user=ProfileUser(
            walletSolana=user.wallet,
            twitterHandle=user.twitter_handle,
            tradingEnabled=user.trading_enabled,
        ),
        client=principal.client.client_id,
        scopes=list(principal.scopes),
    ).model_dump()
