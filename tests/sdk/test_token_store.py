"""The token store: one refresh for many concurrent callers, rotation stores both values,
invalid_grant means re-authorize; and the PKCE connect helper."""

from __future__ import annotations

import base64
import hashlib
import threading
import time
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from partner_sdk import (
    AmbiguousWriteError,
    InMemoryTokenStorage,
    OAuthClient,
    OAuthError,
    ReauthorizationRequired,
    RetryPolicy,
    TokenSet,
    TokenStore,
)

BASE = "http://api.test"


class TokenServer:
    """A /oauth/token that rotates: each refresh returns a new pair, and a rotated-out refresh
    token answers invalid_grant (as the server does, after revoking the grant)."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.current = "app_rt_0"
        self.calls: list[dict[str, str]] = []
        self.lock = threading.Lock()

    def __call__(self, request: httpx.Request) -> httpx.Response:
        form = {k: v[0] for k, v in parse_qs(request.content.decode()).items()}
        with self.lock:
            self.calls.append(form | {"auth": request.headers.get("authorization", "")})
            n = len(self.calls)
        time.sleep(self.delay)  # widen the race window
        if form["grant_type"] == "refresh_token":
            if form["refresh_token"] != self.current:
                return httpx.Response(400, json={"error": "invalid_grant"})
            self.current = f"app_rt_{n}"
        else:
            self.current = f"app_rt_{n}"
        return httpx.Response(
            200,
            json={
                "access_token": f"app_at_{n}",
                "refresh_token": self.current,
                "token_type": "Bearer",
                "expires_in": 1800,
                "scope": "profile:read",
            },
            headers={"cache-control": "no-store"},
        )


def oauth_for(server) -> OAuthClient:
    return OAuthClient(
        BASE,
        "cid",
        "app_sk_secret",
        "http://127.0.0.1:8090/callback",
        http=httpx.Client(transport=httpx.MockTransport(server)),
        retry=RetryPolicy(sleep=lambda s: None),
    )


def test_twenty_threads_on_an_expired_token_refresh_exactly_once():
    server = TokenServer(delay=0.2)
    store = TokenStore(oauth_for(server))
    store.save("alice", TokenSet("app_at_old", "app_rt_0", time.time() - 1))
    barrier = threading.Barrier(20)
    seen: list[str] = []
    errors: list[BaseException] = []

    def worker():
        try:
            barrier.wait()
            seen.append(store.access_token("alice"))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert not errors
    assert len(server.calls) == 1
    assert seen == ["app_at_1"] * 20


def test_twenty_threads_after_401_refresh_exactly_once():
    server = TokenServer(delay=0.2)
    store = TokenStore(oauth_for(server))
    store.save("alice", TokenSet("app_at_old", "app_rt_0", time.time() + 1800))
    barrier = threading.Barrier(20)
    results: list[str] = []

    def worker():
        barrier.wait()
        results.append(store.refresh("alice", stale_access="app_at_old").access_token)

    threads = [threading.Thread(target=worker) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(server.calls) == 1
    assert results == ["app_at_1"] * 20


def test_users_refresh_independently():
    server = TokenServer()
    store = TokenStore(oauth_for(server))
    store.save("a", TokenSet("app_at_a", "app_rt_0", 0))
    store.save("b", TokenSet("app_at_b", "app_rt_x", time.time() + 1800))
    assert store.access_token("a") == "app_at_1"
    assert store.access_token("b") == "app_at_b"  # fresh: no refresh
    assert len(server.calls) == 1


def test_rotation_stores_both_new_values_together():
    server = TokenServer()
    saves: list[TokenSet] = []

    class Recording(InMemoryTokenStorage):
        def save(self, user, tokens):
            saves.append(tokens)
            super().save(user, tokens)

    store = TokenStore(oauth_for(server), Recording())
    store.save("alice", TokenSet("app_at_old", "app_rt_0", 0))
    first = store.refresh("alice")
    second = store.refresh("alice")
    # each refresh sent the refresh token the previous one stored, and saved one complete pair
    assert [c["refresh_token"] for c in server.calls] == ["app_rt_0", "app_rt_1"]
    assert (first.access_token, first.refresh_token) == ("app_at_1", "app_rt_1")
    assert (second.access_token, second.refresh_token) == ("app_at_2", "app_rt_2")
    assert [(s.access_token, s.refresh_token) for s in saves[1:]] == [
        ("app_at_1", "app_rt_1"),
        ("app_at_2", "app_rt_2"),
    ]
    stored = store.get("alice")
    assert (stored.access_token, stored.refresh_token) == ("app_at_2", "app_rt_2")
    assert server.calls[0]["auth"] == "Basic " + base64.b64encode(b"cid:app_sk_secret").decode()


def test_invalid_grant_reports_reauthorize_needed():
    server = TokenServer()
    store = TokenStore(oauth_for(server))
    store.save("alice", TokenSet("app_at_old", "app_rt_rotated_out", 0))
    assert not store.needs_reauthorization("alice")
    with pytest.raises(ReauthorizationRequired) as info:
        store.access_token("alice")
    assert info.value.user == "alice" and info.value.cause.code == "invalid_grant"
    assert store.needs_reauthorization("alice")
    with pytest.raises(ReauthorizationRequired):
        store.access_token("alice")
    assert len(server.calls) == 1  # never replays the dead token


def test_refresh_timeout_is_not_retried():
    calls = []

    def slow(request):
        calls.append(1)
        raise httpx.ReadTimeout("slow")

    store = TokenStore(oauth_for(slow))
    store.save("alice", TokenSet("app_at_old", "app_rt_0", 0))
    with pytest.raises(AmbiguousWriteError):
        store.access_token("alice")
    assert len(calls) == 1


def test_authorize_url_and_code_exchange():
    server = TokenServer()
    oauth = oauth_for(server)
    request = oauth.authorization_request(["profile:read", "trade:execute"])
    url = urlsplit(request.url)
    assert url.path == "/oauth/authorize"
    query = {k: v[0] for k, v in parse_qs(url.query).items()}
    assert query == {
        "response_type": "code",
        "client_id": "cid",
        "redirect_uri": "http://127.0.0.1:8090/callback",
        "scope": "profile:read trade:execute",
        "state": request.state,
        "code_challenge": query["code_challenge"],
        "code_challenge_method": "S256",
    }
    digest = hashlib.sha256(request.verifier.encode()).digest()
    assert query["code_challenge"] == base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
    assert 43 <= len(request.verifier) <= 128

    with pytest.raises(OAuthError) as info:
        oauth.complete(request, {"code": "app_ac_1", "state": "forged"})
    assert info.value.code == "state_mismatch"
    with pytest.raises(OAuthError) as info:
        oauth.complete(request, {"error": "access_denied", "state": request.state})
    assert info.value.code == "access_denied"

    tokens = oauth.complete(request, {"code": "app_ac_1", "state": request.state})
    assert tokens.access_token == "app_at_1" and tokens.scopes == ["profile:read"]
    call = server.calls[0]
    assert call["grant_type"] == "authorization_code" and call["code"] == "app_ac_1"
    assert call["code_verifier"] == request.verifier and call["redirect_uri"] == "http://127.0.0.1:8090/callback"
    assert call["auth"].startswith("Basic ")


def test_revoke_forgets_and_revokes_the_refresh_token():
    seen = []

    def handler(request):
        seen.append((request.url.path, parse_qs(request.content.decode())))
        return httpx.Response(200, json={})

    store = TokenStore(oauth_for(handler))
    store.save("alice", TokenSet("app_at_1", "app_rt_1", time.time() + 1800))
    store.revoke("alice")
    assert seen == [("/oauth/revoke", {"token": ["app_rt_1"], "token_type_hint": ["refresh_token"]})]
    assert store.needs_reauthorization("alice")
