"""Formats of the secrets the service issues (`app_sk_`, `app_ac_`, `app_at_`, `app_rt_`, `app_ss_`):
32 random bytes, after the user and client ids for access and refresh tokens (docs/auth.md, "OAuth").
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from partner.store.crypto import b64url, b64url_decode

API_KEY = "app_sk_"
CODE = "app_ac_"
ACCESS = "app_at_"
REFRESH = "app_rt_"
SESSION = "app_ss_"


@dataclass(frozen=True)
class TokenIds:
    user_id: str
    client_id: str


def new_secret(prefix: str) -> str:
    return prefix + b64url(secrets.token_bytes(32))


def new_bound_token(prefix: str, user_id: str, client_id: str) -> str:
    """API key             app_sk_<43 base64url chars>           (32 random bytes)
    authorization code  app_ac_<43 base64url chars>
    access token        app_at_<86 base64url chars>           user id (16) | client id (16) | 32 random bytes
    refresh token       app_rt_<86 base64url chars>           same layout
    session             app_ss_<43 base64url chars>
    """
    raw = bytes.fromhex(user_id) + bytes.fromhex(client_id) + secrets.token_bytes(32)
    return prefix + b64url(raw)


def parse_bound_token(prefix: str, token: str) -> TokenIds | None:
    """The ids inside an access or refresh token, or None when it is not well formed."""
    if not token.startswith(prefix) or len(token) != len(prefix) + 86:
        return None
    try:
        raw = b64url_decode(token[len(prefix) :])
    except ValueError:
        return None
    if len(raw) != 64:
        return None
    return TokenIds(raw[:16].hex(), raw[16:32].hex())


def is_hex_id(value: str) -> bool:
    return len(value) == 32 and all(c in "0123456789abcdef" for c in value)
