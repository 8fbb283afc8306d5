"""POST /oauth/token, grant authorization_code: response shape, PKCE, code lifecycle."""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
from urllib.parse import parse_qs, urlsplit

import pytest

from testkit.helpers import (
    assert_oauth_error,
    basic,
    connect,
    consent_page,
    consent_post,
    get_code,
    hidden_inputs,
    invoke,
    me,
    pkce_pair,
    refresh,
    token_call,
    token_json,
)

REDIRECT = "http://localhost:8080/callback"


def s256(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


def code_for_challenge(client, user, challenge, *, ip, scope="profile:read") -> str:
    from partnerctl import admin

    cookie = admin.create_session(user["user_id"])["cookie"]
    page = consent_page(client, cookie, challenge, scope, ip=ip)
    assert page.status == 200, page.body
    post = consent_post({**hidden_inputs(page.body), "decision": "approve"}, cookie, ip=ip)
    assert post.status == 302, post.body
    return parse_qs(urlsplit(post.headers["location"]).query)["code"][0]


def exchange(client, code, verifier, *, ip, redirect_uri=REDIRECT, secret=None, **extra):
    params = {
        "grant_type": "authorization_code",
        "code": code,
        "code_verifier": verifier,
        "redirect_uri": redirect_uri,
        **extra,
    }
    return token_call(client, {k: v for k, v in params.items() if v is not None}, ip=ip, secret=secret)


# ---------------------------------------------------------------- success


def test_token_response_shape_and_headers(client, user, ip):
    code, verifier, _ = get_code(client, user, scope="trade:execute profile:read", ip=ip)
    result = exchange(client, code, verifier, ip=ip)
    assert result.status == 200, result.body
    assert result.headers["content-type"].startswith("application/json")
    assert result.headers["cache-control"] == "no-store"
    assert result.headers["pragma"] == "no-cache"
    body = result.json
    assert set(body) == {"access_token", "token_type", "expires_in", "refresh_token", "scope"}
    assert body["token_type"] == "Bearer"
    assert body["expires_in"] == 1800 and isinstance(body["expires_in"], int)
    assert body["scope"] == "trade:execute profile:read"
    assert re.fullmatch(r"app_at_[A-Za-z0-9_-]{86}", body["access_token"])
    assert re.fullmatch(r"app_rt_[A-Za-z0-9_-]{86}", body["refresh_token"])
    # the OAuth per-IP bucket: the consent page and POST use "authorize", the token call "oauth"
    assert result.headers["x-ratelimit-limit"] == "30"
    assert result.headers["x-ratelimit-remaining"] == "29"
    profile = me(body["access_token"])
    assert profile.status == 200, profile.body
    assert profile.json["scopes"] == ["trade:execute", "profile:read"]
    assert profile.json["client"] == client["client_id"]


def test_scopes_of_the_token_are_the_codes(aws_stack, user, ip):
    from partnerctl import admin

    c = admin.create_client(admin.NewClient(name="S", redirect_uri=REDIRECT, scope="profile:read governance:vote"))
    conn = connect(c, user, scope="governance:vote profile:read", ip=ip)
    assert conn.tokens["scope"] == "governance:vote profile:read"
    assert me(conn.access).json["scopes"] == ["governance:vote", "profile:read"]


def test_scope_parameter_cannot_change_the_grant(client, user, ip):
    """Documented decision (grants._check_scope_param): a differing `scope` is invalid_scope."""
    code, verifier, _ = get_code(client, user, scope="profile:read", ip=ip)
    result = exchange(client, code, verifier, ip=ip, scope="profile:read trade:execute")
    assert_oauth_error(result, 400, "invalid_scope")
    # the same scopes are accepted
    assert exchange(client, code, verifier, ip=ip, scope="profile:read").status == 200


def test_json_body_with_body_credentials(client, user, ip):
    code, verifier, _ = get_code(client, user, ip=ip)
    grant = {"grant_type": "authorization_code", "code": code, "code_verifier": verifier, "redirect_uri": REDIRECT}
    result = token_json(client, grant, ip=ip)
    assert result.status == 200, result.body
    assert result.headers["cache-control"] == "no-store"
    assert me(result.json["access_token"]).status == 200


@pytest.mark.parametrize(
    "ctype, body",
    [
        ("text/plain", "grant_type=authorization_code"),
        ("application/json", "{not json"),
        ("application/json", '{"grant_type": ["authorization_code"]}'),
        ("application/json", '["grant_type"]'),
        ("application/x-www-form-urlencoded", "grant_type=authorization_code&grant_type=refresh_token"),
    ],
)
def test_malformed_bodies_are_invalid_request(client, ip, ctype, body):
    result = invoke(
        "oauth_token",
        "POST",
        "/oauth/token",
        body=body,
        source_ip=ip,
        headers={"Content-Type": ctype, "Authorization": basic(client["client_id"], client["api_key"])},
    )
    assert_oauth_error(result, 400, "invalid_request")


# ---------------------------------------------------------------- grant type and required fields


@pytest.mark.parametrize(
    "grant_type",
    [
        "password",
        "client_credentials",
        "implicit",
        "AUTHORIZATION_CODE",
        "urn:ietf:params:oauth:grant-type:device_code",
    ],
)
def test_unsupported_grant_type(client, ip, grant_type):
    result = token_call(client, {"grant_type": grant_type, "code": "app_ac_x"}, ip=ip)
    assert_oauth_error(result, 400, "unsupported_grant_type")


@pytest.mark.parametrize("params", [{}, {"grant_type": ""}, {"code": "app_ac_x"}])
def test_missing_grant_type_is_invalid_request(client, ip, params):
    assert_oauth_error(token_call(client, params, ip=ip), 400, "invalid_request")


@pytest.mark.parametrize("missing", ["code", "redirect_uri", "code_verifier"])
def test_missing_field_is_invalid_request(client, user, ip, missing):
    code, verifier, _ = get_code(client, user, ip=ip)
    params = {"grant_type": "authorization_code", "code": code, "code_verifier": verifier, "redirect_uri": REDIRECT}
    del params[missing]
    result = token_call(client, params, ip=ip)
    assert_oauth_error(result, 400, "invalid_request")
    assert missing in result.json["error_description"]
    # nothing was consumed: the complete request still succeeds
    assert exchange(client, code, verifier, ip=ip).status == 200


def test_empty_code_verifier_is_invalid_request(client, user, ip):
    code, _, _ = get_code(client, user, ip=ip)
    assert_oauth_error(exchange(client, code, "", ip=ip), 400, "invalid_request")


# ---------------------------------------------------------------- PKCE


@pytest.mark.parametrize(
    "verifier",
    [
        "A" * 42,  # too short
        "A" * 129,  # too long
        "A" * 42 + "+",  # standard base64 character
        "A" * 42 + "/",
        "A" * 42 + "=",
        "A" * 42 + " ",
        "A" * 42 + ".",  # RFC 7636 unreserved, outside the spec's [A-Za-z0-9_-]
        "A" * 42 + "~",
        "A" * 43 + "\n",  # trailing newline
        "A" * 42 + "é",
    ],
    ids=["short42", "long129", "plus", "slash", "equals", "space", "dot", "tilde", "newline", "non_ascii"],
)
def test_malformed_verifier_is_invalid_grant_even_when_it_hashes_to_the_challenge(client, user, ip, verifier):
    code = code_for_challenge(client, user, s256(verifier), ip=ip)
    result = exchange(client, code, verifier, ip=ip)
    assert_oauth_error(result, 400, "invalid_grant")
    assert "access_token" not in result.json


@pytest.mark.parametrize("length", [43, 128])
def test_verifier_length_bounds_accepted(client, user, ip, length):
    verifier = (secrets.token_urlsafe(96) + "A" * 128)[:length]
    code = code_for_challenge(client, user, s256(verifier), ip=ip)
    result = exchange(client, code, verifier, ip=ip)
    assert result.status == 200, result.body


def test_mismatched_verifier_is_invalid_grant(client, user, ip):
    code, verifier, _ = get_code(client, user, ip=ip)
    other, _ = pkce_pair()
    result = exchange(client, code, other, ip=ip)
    assert_oauth_error(result, 400, "invalid_grant")
    # the challenge itself is not accepted as the verifier (no plain method)
    result = exchange(client, code, s256(verifier), ip=ip)
    assert_oauth_error(result, 400, "invalid_grant")


def test_plain_method_verifier_cannot_be_used(client, user, ip):
    """The S256 challenge of a verifier never equals the verifier: sending the challenge fails."""
    verifier = "Z" * 43
    code = code_for_challenge(client, user, s256(verifier), ip=ip)
    assert_oauth_error(exchange(client, code, s256(verifier), ip=ip), 400, "invalid_grant")
    assert exchange(client, code, verifier, ip=ip).status == 200


# ---------------------------------------------------------------- code lifecycle


def test_code_reuse_revokes_every_token_issued_from_it(client, user, ip):
    code, verifier, _ = get_code(client, user, ip=ip)
    first = exchange(client, code, verifier, ip=ip)
    assert first.status == 200
    access, refresh_token = first.json["access_token"], first.json["refresh_token"]
    assert me(access).status == 200

    replay = exchange(client, code, verifier, ip=ip)
    assert_oauth_error(replay, 400, "invalid_grant")
    assert "access_token" not in replay.json

    after = me(access)
    assert after.status == 401 and after.json["error"] == "invalid_token"
    assert_oauth_error(refresh(client, refresh_token, ip=ip), 400, "invalid_grant")
    # a third attempt is still refused
    assert_oauth_error(exchange(client, code, verifier, ip=ip), 400, "invalid_grant")


def test_code_reuse_also_revokes_tokens_refreshed_from_it(client, user, ip):
    code, verifier, _ = get_code(client, user, ip=ip)
    first = exchange(client, code, verifier, ip=ip).json
    second = refresh(client, first["refresh_token"], ip=ip)
    assert second.status == 200
    rotated = second.json
    assert me(rotated["access_token"]).status == 200

    assert_oauth_error(exchange(client, code, verifier, ip=ip), 400, "invalid_grant")
    assert me(rotated["access_token"]).status == 401
    assert_oauth_error(refresh(client, rotated["refresh_token"], ip=ip), 400, "invalid_grant")


def test_code_reuse_leaves_tokens_of_another_authorization(client, user, ip):
    """The spec scopes a code replay to the tokens of that code (unlike refresh replay)."""
    other = connect(client, user, ip=ip)
    code, verifier, _ = get_code(client, user, ip=ip)
    assert exchange(client, code, verifier, ip=ip).status == 200
    assert exchange(client, code, verifier, ip=ip).status == 400
    assert me(other.access).status == 200
    assert refresh(client, other.refresh, ip=ip).status == 200


def test_code_reuse_with_wrong_verifier_still_revokes(client, user, ip):
    code, verifier, _ = get_code(client, user, ip=ip)
    first = exchange(client, code, verifier, ip=ip).json
    wrong, _ = pkce_pair()
    assert_oauth_error(exchange(client, code, wrong, ip=ip), 400, "invalid_grant")
    assert me(first["access_token"]).status == 401


def test_code_expires_after_five_minutes(client, user, ip, clock):
    code, verifier, _ = get_code(client, user, ip=ip)
    clock.advance(299)
    assert exchange(client, code, verifier, ip=ip).status == 200

    code, verifier, _ = get_code(client, user, ip=ip)
    clock.advance(301)
    result = exchange(client, code, verifier, ip=ip)
    assert_oauth_error(result, 400, "invalid_grant")
    assert "expired" in result.json["error_description"]


def test_code_of_another_client_is_invalid_grant_and_not_consumed(aws_stack, client, user, ip):
    from partnerctl import admin

    other = admin.create_client(admin.NewClient(name="Other", redirect_uri=REDIRECT))
    code, verifier, _ = get_code(client, user, ip=ip)
    result = exchange(other, code, verifier, ip=ip)
    assert_oauth_error(result, 400, "invalid_grant")
    # the rightful client can still redeem it, and its tokens are not revoked
    ok = exchange(client, code, verifier, ip=ip)
    assert ok.status == 200, ok.body
    assert me(ok.json["access_token"]).status == 200


@pytest.mark.parametrize(
    "redirect_uri",
    [
        "http://localhost:8080/callback/",
        "http://localhost:8080/other",
        "http://127.0.0.1:8080/callback",
        "https://localhost:8080/callback",
        "http://localhost:8080/callback?x=1",
    ],
)
def test_redirect_uri_mismatch_is_invalid_grant(client, user, ip, redirect_uri):
    code, verifier, _ = get_code(client, user, ip=ip)
    result = exchange(client, code, verifier, ip=ip, redirect_uri=redirect_uri)
    assert_oauth_error(result, 400, "invalid_grant")
    assert exchange(client, code, verifier, ip=ip).status == 200


@pytest.mark.parametrize(
    "code",
    [
        "app_ac_" + "A" * 43,
        "app_ac_",
        "garbage",
        "app_at_" + "A" * 86,
        "app_rt_" + "A" * 86,
    ],
)
def test_unknown_or_malformed_code_is_invalid_grant(client, ip, code):
    verifier, _ = pkce_pair()
    assert_oauth_error(exchange(client, code, verifier, ip=ip), 400, "invalid_grant")


def test_denied_authorization_yields_no_code(client, user, ip):
    error, _, params = get_code(client, user, decision="deny", ip=ip)
    assert error == "access_denied" and "code" not in params


def test_unexpected_failure_is_500_internal_and_not_cached(client, ip, monkeypatch):
    from partner.features.oauth import grants

    def boom(*_a, **_k):
        raise RuntimeError("storage exploded")

    monkeypatch.setattr(grants, "exchange", boom)
    result = token_call(client, {"grant_type": "refresh_token", "refresh_token": "app_rt_x"}, ip=ip)
    assert result.status == 500, result.body
    assert result.json["error"] == "internal"
    assert "exploded" not in result.body
    assert result.headers["cache-control"] == "no-store"
    assert result.headers["pragma"] == "no-cache"
