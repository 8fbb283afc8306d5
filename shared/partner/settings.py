"""Typed service settings, read once from the environment (no os.environ in logic)."""

from __future__ import annotations

import os
from functools import lru_cache

from pydantic import BaseModel, Field


class Settings(BaseModel):
    clients_table: str = Field(alias="CLIENTS_TABLE")
    auth_table: str = Field(alias="AUTH_TABLE")
    users_table: str = Field(alias="USERS_TABLE")
    counters_table: str = Field(alias="COUNTERS_TABLE")
    hash_key_id: str = Field(alias="HASH_KEY_ID")
    wallet_key_id: str = Field(alias="WALLET_KEY_ID")
    staging_bucket: str = Field(default="", alias="STAGING_BUCKET")
    rpc_url: str = Field(default="http://127.0.0.1:8899", alias="RPC_URL")
    block_engine_url: str = Field(default="http://127.0.0.1:8899/api/v1/bundles", alias="BLOCK_ENGINE_URL")
    pinning_url: str = Field(default="http://127.0.0.1:5001", alias="PINNING_URL")
    # where launch bypass fees go; no default: without one, no bypass is offered
    platform_treasury: str | None = Field(default=None, alias="PLATFORM_TREASURY")
    # where the consent page sends a visitor without a platform session (optional)
    login_url: str | None = Field(default=None, alias="LOGIN_URL")

    model_config = {"populate_by_name": True, "extra": "ignore", "frozen": True}


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings.model_validate(dict(os.environ))


def reset_settings() -> None:
    """Forget cached settings and clients (tests and the devstack switch environments)."""
    get_settings.cache_clear()
    from partner import aws, crypto

    aws.reset()
    crypto.reset()
