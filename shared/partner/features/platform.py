"""The platform seam: the platform's back end manages users, their delegated wallets
and their delegation, keyed on the subject (`sub`) of the platform's OpenID provider.

Behind the IAM-authorized `/platform/v1/...` routes (functions/platform_*) and `partnerctl user`.
Every change is idempotent: the same call twice leaves the same state and answers the same.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from partner.core import lazy
from partner.core.errors import ApiError
from partner.store import crypto
from partner.store import users as store
from partner.store.users import User

# only provisioning needs the sealed-wallet code (and solders, 34 ms to import): deferred at init, executed
# before the snapshot (partner.core.lazy), so a restored copy's first provisioning imports nothing
if TYPE_CHECKING:  # the checker reads it as the module it is
    from partner.store import wallets
else:
    wallets = lazy.module("partner.store.wallets")

# OpenID Connect Core 1.0 section 2: `sub` is a case-sensitive ASCII string of at most 255
# characters; we take the printable ones without spaces.
_SUB = re.compile(r"[\x21-\x7e]{1,255}")
_HANDLE = re.compile(r"@?([A-Za-z0-9_]{1,15})")


def check_sub(sub: Any) -> str:
    if not isinstance(sub, str) or not _SUB.fullmatch(sub):
        raise ApiError("invalid_input", "sub must be 1 to 255 printable ASCII characters without spaces.", field="sub")
    return sub


def check_handle(handle: Any) -> str | None:
    if handle is None:
        return None
    match = _HANDLE.fullmatch(handle) if isinstance(handle, str) else None
    if match is None:
        raise ApiError(
            "invalid_input", "twitterHandle must be a handle of 1 to 15 letters, digits or _.", field="twitterHandle"
        )
    return match.group(1)


def view(user: User) -> dict[str, Any]:
    return {
        "userId": user.user_id,
        "sub": user.sub,
        "twitterHandle": user.twitter_handle,
        "wallet": user.wallet,
        "tradingEnabled": user.trading_enabled,
    }


def _user(sub: str) -> User:
    user = store.get_user_by_sub(check_sub(sub))
    if user is None:
        raise ApiError("not_found", "No user is linked to this sub.")
    return user


def read_user(sub: str) -> dict[str, Any]:
    return view(_user(sub))


def upsert_user(sub: str, twitter_handle: Any = None) -> dict[str, Any]:
    """Create the user linked to `sub` (no wallet yet, delegation off), or update its handle."""
    sub, handle = check_sub(sub), check_handle(twitter_handle)
    user = store.get_user_by_sub(sub)
    if user is None and not store.create_linked_user(crypto.random_id(), sub, handle):
        user = store.get_user_by_sub(sub)  # linked meanwhile by a concurrent upsert: update that one
    if user is not None and user.twitter_handle != handle:
        store.set_twitter_handle(user.user_id, handle)
    return read_user(sub)


def provision_wallet(sub: str) -> dict[str, Any]:
    """The user's delegated wallet: created and KMS-sealed on the first call, the same one after."""
    user = _user(sub)
    if user.wallet is None:
        wallet, sealed = wallets.new_wallet(user.user_id)
        store.set_wallet_once(user.user_id, wallet, sealed)  # a concurrent call's wallet may win: read back
    return read_user(sub)


def set_delegation(sub: str, enabled: Any) -> dict[str, Any]:
    """Turn 1-click trading (`tradingEnabled`) on or off; trades see it on their next request."""
    if not isinstance(enabled, bool):
        raise ApiError("invalid_input", "tradingEnabled must be true or false.", field="tradingEnabled")
    user = _user(sub)
    if enabled and user.wallet is None:
        raise ApiError(
            "invalid_input", "Provision the user's wallet before enabling delegation.", field="tradingEnabled"
        )
    if user.trading_enabled != enabled:
        store.set_trading_enabled(user.user_id, enabled)
    return read_user(sub)


def json_object(
    text: str | None, allowed: set[str], required: frozenset[str] | set[str] = frozenset()
) -> dict[str, Any]:
    """A request body: a JSON object with only `allowed` keys (an empty body is `{}`); a repeated key
    or a text nested too deep is refused with the partner API's own message."""
    from partner.core.bodies import RepeatedKey, TooDeep, loads

    if not text:
        body: Any = {}
    else:
        try:
            body = loads(text)
        except TooDeep as exc:
            raise ApiError("invalid_input", f"The JSON body is {exc}.") from exc
        except RepeatedKey as exc:
            raise ApiError("invalid_input", f"The JSON body {exc}.") from exc
        except ValueError as exc:
            raise ApiError("invalid_input", "The body must be a JSON object.") from exc
    if not isinstance(body, dict):
        raise ApiError("invalid_input", "The body must be a JSON object.")
    for key in body:
        if key not in allowed:
            raise ApiError("invalid_input", f"Unknown field {key}.", field=key)
    for key in required:
        if key not in body:
            raise ApiError("invalid_input", f"{key} is required.", field=key)
    return body
