"""The devstack's stand-in OpenID provider checks PKCE S256 as a conformant provider does: the code
exchange needs the verifier of the challenge the authorization request carried."""

from __future__ import annotations

import base64
import hashlib
import secrets
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from devstack.oidc import start_provider

REDIRECT = "http://127.0.0.1:9/account/signin/callback"
WAIT = 15


@pytest.fixture(scope="module")
def provider():
    provider = start_provider([("alice", {"name": "Alice"})])
    client = provider.register_client(REDIRECT)
    yield provider, client
    provider.stop()


def s256(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


def authorize(provider, client, **pkce: str) -> httpx.Response:
    """alice signs in on the provider's page (its form posts back to the authorization URL)."""
    params = {
        "response_type": "code",
        "client_id": client["client_id"],
        "redirect_uri": REDIRECT,
        "scope": "openid",
        "state": "s",
        "nonce": secrets.token_urlsafe(16),
        **pkce,
    }
    return httpx.post(f"{provider.url}/oauth2/authorize", params=params, data={"sub": "alice"}, timeout=WAIT)


def code_for(provider, client, verifier: str) -> str:
    answer = authorize(provider, client, code_challenge=s256(verifier), code_challenge_method="S256")
    assert answer.status_code == 302, answer.text
    return parse_qs(urlsplit(answer.headers["location"]).query)["code"][0]


def exchange(provider, client, code: str, **verifier: str) -> httpx.Response:
    return httpx.post(
        f"{provider.url}/oauth2/token",
        data={"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, **verifier},
        auth=(client["client_id"], client["client_secret"]),
        timeout=WAIT,
    )


def test_the_exchange_needs_the_right_code_verifier(provider):
    """A wrong verifier is `invalid_grant`, none `invalid_request`; the right one gets the tokens, once."""
    provider, client = provider
    verifier = secrets.token_urlsafe(48)
    code = code_for(provider, client, verifier)
    wrong = exchange(provider, client, code, code_verifier=secrets.token_urlsafe(48))
    assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_grant"
    missing = exchange(provider, client, code)
    assert missing.status_code == 400 and missing.json()["error"] == "invalid_request"
    right = exchange(provider, client, code, code_verifier=verifier)  # the refusals did not spend the code
    assert right.status_code == 200, right.text
    assert right.json()["token_type"] == "Bearer" and right.json()["id_token"].count(".") == 2
    again = exchange(provider, client, code, code_verifier=verifier)
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"


@pytest.mark.parametrize(
    "pkce",
    [{}, {"code_challenge": s256("v" * 43), "code_challenge_method": "plain"}, {"code_challenge": s256("v" * 43)}],
    ids=["none", "plain", "no_method"],
)
def test_the_authorization_request_needs_an_s256_challenge(provider, pkce):
    """No challenge, or `plain` (also the default when no method is named): refused, no code."""
    provider, client = provider
    answer = authorize(provider, client, **pkce)
    assert answer.status_code == 302
    back = parse_qs(urlsplit(answer.headers["location"]).query)
    assert back["error"] == ["invalid_request"] and "code" not in back


def test_discovery_says_s256(provider):
    provider, _ = provider
    config = httpx.get(f"{provider.url}/.well-known/openid-configuration", timeout=WAIT).json()
    assert config["code_challenge_methods_supported"] == ["S256"]
    assert config["token_endpoint"] == f"{provider.url}/oauth2/token"
