"""End users of the platform and their delegated wallets."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from partner.core import clock
from partner.core.settings import get_settings
from partner.store import ddb


@dataclass(frozen=True)
class EncryptedSecret:
    """A wallet seed encrypted by KMS under an encryption context naming user and wallet."""

    ciphertext: bytes
    key_id: str


@dataclass(frozen=True)
class User:
    user_id: str
    wallet: str | None
    twitter_handle: str | None
    trading_enabled: bool
    secret: EncryptedSecret | None

    @classmethod
    def from_item(cls, item: dict[str, Any]) -> User:
        sealed = item.get("wallet_secret")
        secret = None
        if sealed:
            secret = EncryptedSecret(ciphertext=bytes(sealed["ct"]), key_id=sealed["key_id"])
        return cls(
            user_id=item["pk"],
            wallet=item.get("wallet"),
            twitter_handle=item.get("twitter_handle"),
            trading_enabled=bool(item.get("trading_enabled", False)),
            secret=secret,
        )


def _table() -> str:
    return get_settings().users_table


def get_user(user_id: str) -> User | None:
    item = ddb.get(_table(), user_id)
    return User.from_item(item) if item else None


def create_user(user: User) -> None:
    item: dict[str, Any] = {
        "pk": user.user_id,
        "wallet": user.wallet,
        "twitter_handle": user.twitter_handle,
        "trading_enabled": user.trading_enabled,
        "created_at": clock.now_int(),
    }
    if user.secret:
        item["wallet_secret"] = {
            "ct": user.secret.ciphertext,
            "key_id": user.secret.key_id,
        }
    if not ddb.put(_table(), item, condition="attribute_not_exists(pk)"):
        raise ValueError(f"user {user.user_id} exists")


def set_trading_enabled(user_id: str, enabled: bool) -> bool:
    return ddb.update(
        _table(), user_id, "SET trading_enabled = :e", condition="attribute_exists(pk)", vals={":e": enabled}
    ) is not None
