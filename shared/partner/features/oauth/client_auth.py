"""Client authentication on /oauth/token and /oauth/revoke: HTTP Basic or body credentials.

A client locked out by 20 failures in a 5-minute window is refused before its key is
checked, so even a correct key gets 429 until the window ends.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote_plus

from partner.core import bodies
from partner.core.errors import ApiError
from partner.core.request import repeated
from partner.store import crypto, ratelimit, tokens
from partner.store.clients import Client, get_client

MAX_CLIENT_ID = 64


@dataclass(frozen=True)
class AuthenticatedClient:
    client: Client
    key_id: str


def invalid_client(message: str = "Client authentication failed.") -> ApiError:
    return ApiError("invalid_client", message, headers={"WWW-Authenticate": "Basic realm=app-oauth"})


def credentials(authorization: str | None, params: dict[str, str]) -> tuple[str, str]:
    if repeated("authorization"):  # API Gateway's `headers` holds only the last one
        raise invalid_client("Send one Authorization header.")
    body_id, body_secret = params.get("client_id"), params.get("client_secret")
    if authorization:
        scheme, _, value = authorization.partition(" ")
        if scheme.lower() != "basic":
            raise invalid_client("Use HTTP Basic or body credentials.")
        if body_secret is not None:
            raise ApiError("invalid_request", "Send client credentials either by HTTP Basic or in the body, not both.")
        try:
            decoded = base64.b64decode(value.strip(), validate=True).decode()
        except (binascii.Error, UnicodeDecodeError) as exc:
            raise invalid_client("The Basic credentials are malformed.") from exc
        client_id, sep, secret = decoded.partition(":")
        if not sep:
            raise invalid_client("The Basic credentials are malformed.")
        client_id, secret = unquote_plus(client_id), unquote_plus(secret)
        if body_id is not None and body_id != client_id:
            raise ApiError("invalid_request", "client_id in the body differs from the Basic credentials.")
        return client_id, secret
    if body_id is None or body_secret is None:
        raise invalid_client("Client credentials are missing.")
    return body_id, body_secret


def authenticate(authorization: str | None, params: dict[str, str]) -> AuthenticatedClient:
    client_id, secret = credentials(authorization, params)
    if not client_id or len(client_id) > MAX_CLIENT_ID or not tokens.is_hex_id(client_id):
        raise invalid_client()
    ratelimit.check_lockout(client_id)
    client = get_client(client_id)
    key_id = None
    if client is not None and secret.startswith(tokens.API_KEY):
        presented = crypto.digest(secret, "api_key")
        for key in client.keys.values():  # compare against every key: no early exit
            if crypto.equal(presented, key.digest) and key.status == "active":
                key_id = key.key_id
    if client is None or client.suspended or key_id is None:
        ratelimit.record_failure(client_id)
        raise invalid_client()
    return AuthenticatedClient(client, key_id)


def authenticate_form(event: Any) -> tuple[AuthenticatedClient, dict[str, str]]:
    """A token or revocation request's form body (`event`: Powertools' event) and the client it authenticates."""
    params = bodies.parse_params(
        bodies.body_text(event, "invalid_request"), bodies.header(event.headers, "content-type")
    )
    return authenticate(bodies.header(event.headers, "authorization"), params), params
