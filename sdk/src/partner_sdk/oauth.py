"""The connect flow: authorization code with PKCE (S256), token exchange and refresh with HTTP
Basic client authentication, revocation. Server-side only: it holds the API key."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import httpx

from .errors import OAuthError
from .models import TokenSet
from .retry import RetryPolicy, Session, send

ALL_SCOPES = ("profile:read", "trade:execute", "governance:vote", "governance:propose", "coin:create")


def pkce_pair() -> tuple[str, str]:
    """(verifier, S256 challenge): a 64-character verifier of `[A-Za-z0-9_-]`."""
    verifier = secrets.token_urlsafe(48)[:64]
    return verifier, s256(verifier)


def s256(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


@dataclass(frozen=True)
class AuthorizationRequest:
    """Keep `state` and `verifier` server-side (e.g. in the user's session) until the callback."""

    url: str
    state: str
    verifier: str
    redirect_uri: str
    scope: str

    def check_state(self, state: str | None) -> bool:
        return state is not None and hmac.compare_digest(state, self.state)


class OAuthClient(Session):
    def __init__(
        self,
        base_url: str,
        client_id: str,
        api_key: str,
        redirect_uri: str,
        *,
        auth_url: str | None = None,
        http: httpx.Client | None = None,
        retry: RetryPolicy | None = None,
        timeout: float = 30.0,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.auth_url = (auth_url or base_url).rstrip("/")
        self.client_id, self.api_key, self.redirect_uri = client_id, api_key, redirect_uri
        super().__init__(http, retry, timeout)

    def authorization_request(
        self, scopes: str | Iterable[str] = ALL_SCOPES, *, state: str | None = None, verifier: str | None = None
    ) -> AuthorizationRequest:
        """The consent-screen URL to send the user's browser to, with a fresh state and PKCE verifier."""
        scope = scopes if isinstance(scopes, str) else " ".join(scopes)
        state = state or secrets.token_urlsafe(24)
        verifier = verifier or pkce_pair()[0]
        query = urlencode(
            {
                "response_type": "code",
                "client_id": self.client_id,
                "redirect_uri": self.redirect_uri,
                "scope": scope,
                "state": state,
                "code_challenge": s256(verifier),
                "code_challenge_method": "S256",
            }
        )
        return AuthorizationRequest(
            f"{self.auth_url}/oauth/authorize?{query}", state, verifier, self.redirect_uri, scope
        )

    def _post_form(self, path: str, form: dict[str, str]) -> Any:
        # never retried on a timeout or 5xx: a refresh token rotates, and replaying a rotated-out
        # one revokes the whole grant
        parts = {"data": form, "auth": (self.client_id, self.api_key)}
        return send(self.http, self.retry, "POST", self.base_url + path, write=True, build=lambda: dict(parts))

    def _token(self, form: dict[str, str]) -> TokenSet:
        return TokenSet.from_response(self._post_form("/oauth/token", form))

    def exchange_code(self, code: str, verifier: str, *, redirect_uri: str | None = None) -> TokenSet:
        """`authorization_code` grant with the PKCE verifier."""
        return self._token(
            {
                "grant_type": "authorization_code",
                "code": code,
                "redirect_uri": redirect_uri or self.redirect_uri,
                "code_verifier": verifier,
            }
        )

    def complete(self, request: AuthorizationRequest, callback_query: dict[str, str]) -> TokenSet:
        """Check the callback's `state`, surface `error=access_denied`, exchange the code."""
        if not request.check_state(callback_query.get("state")):
            raise OAuthError("state_mismatch", None, "the callback's state does not match the request")
        if "error" in callback_query:
            raise OAuthError(callback_query["error"], None, callback_query.get("error_description"))
        if not callback_query.get("code"):
            raise OAuthError("invalid_request", None, "the callback carries no code")
        return self.exchange_code(callback_query["code"], request.verifier, redirect_uri=request.redirect_uri)

    def refresh(self, refresh_token: str) -> TokenSet:
        """`refresh_token` grant. The answer's refresh token replaces the one sent."""
        return self._token({"grant_type": "refresh_token", "refresh_token": refresh_token})

    def revoke(self, token: str, token_type_hint: str | None = None) -> None:
        form = {"token": token}
        if token_type_hint:
            form["token_type_hint"] = token_type_hint
        self._post_form("/oauth/revoke", form)
