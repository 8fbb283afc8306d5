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
    sub: str | None = None  # the platform OpenID provider's subject, when the platform linked one
    write_slot: int = 0  # the slot the user's last write was seen at, with several RPC endpoints (raise_write_slot)

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
            sub=item.get("sub"),
            write_slot=int(item.get("write_slot", 0)),
        )


def _table() -> str:
    return get_settings().users_table


# The provider's subject -> user id link: an item `SUB#<sub>` in the users table beside the
# user item (which carries `sub` too), written in one transaction with it.
SUB_PREFIX = "SUB#"


def get_user(user_id: str) -> User | None:
    if user_id.startswith(SUB_PREFIX):
        return None  # a link item, never a user
    item = ddb.get(_table(), user_id)
    return User.from_item(item) if item else None


def user_id_for_sub(sub: str) -> str | None:
    item = ddb.get(_table(), SUB_PREFIX + sub)
    return str(item["user_id"]) if item else None


def get_user_by_sub(sub: str) -> User | None:
    user_id = user_id_for_sub(sub)
    return get_user(user_id) if user_id else None


def create_linked_user(user_id: str, sub: str, twitter_handle: str | None) -> bool:
    """A new user (no wallet yet, delegation off) linked to `sub`, both items in one transaction;
    False when `sub` is linked already (nothing written)."""
    now = clock.now_int()
    t = _table()
    cancelled = ddb.transact(
        [
            ddb.put_action(
                t, {"pk": SUB_PREFIX + sub, "user_id": user_id, "created_at": now}, condition="attribute_not_exists(pk)"
            ),
            ddb.put_action(
                t,
                {
                    "pk": user_id,
                    "sub": sub,
                    "twitter_handle": twitter_handle,
                    "trading_enabled": False,
                    "created_at": now,
                },
                condition="attribute_not_exists(pk)",
            ),
        ]
    )
    return cancelled is None


def set_twitter_handle(user_id: str, handle: str | None) -> bool:
    if handle is None:
        expression, vals = "REMOVE twitter_handle", None
    else:
        expression, vals = "SET twitter_handle = :h", {":h": handle}
    return ddb.applied(ddb.Update(_table(), user_id, expression, condition="attribute_exists(pk)", vals=vals))


def set_wallet_once(user_id: str, wallet: str, secret: EncryptedSecret) -> bool:
    """Store the user's delegated wallet unless one is stored already (False then, or no user)."""
    return ddb.applied(
        ddb.Update(
            _table(),
            user_id,
            "SET wallet = :w, wallet_secret = :s",
            condition="attribute_exists(pk) AND attribute_not_exists(wallet)",
            vals={":w": wallet, ":s": {"ct": secret.ciphertext, "key_id": secret.key_id}},
        )
    )


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


def raise_write_slot(user_id: str, slot: int) -> None:
    """Keep `slot` as the user's `write_slot` unless a higher one is kept (the user's next write
    reads at that slot or later: partner.send.pipeline.remember_slot)."""
    ddb.update(
        ddb.Update(
            _table(),
            user_id,
            "SET write_slot = :s",
            condition="attribute_exists(pk) AND (attribute_not_exists(write_slot) OR write_slot < :s)",
            vals={":s": slot},
        )
    )


def set_trading_enabled(user_id: str, enabled: bool) -> bool:
    return ddb.applied(
        ddb.Update(
            _table(), user_id, "SET trading_enabled = :e", condition="attribute_exists(pk)", vals={":e": enabled}
        )
    )
