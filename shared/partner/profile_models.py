"""The /me body's pydantic models, for the OpenAPI document (tools/openapi.py).

The handler builds the same shape as a plain dict (partner.profile), so a cold start
of /me does not import pydantic; `partner.profile.Profile` still names these.
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class ProfileUser(BaseModel):
    walletSolana: str | None
    twitterHandle: str | None
    tradingEnabled: bool


class Profile(BaseModel):
    user: ProfileUser
    client: str | None
    scopes: list[str] = Field(default_factory=list)
