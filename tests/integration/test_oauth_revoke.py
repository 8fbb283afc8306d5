"""POST /oauth/revoke (RFC 7009): token, optional token_type_hint, client authentication."""

from __future__ import annotations

import secrets
import time
from urllib.parse import urlencode

import pytest

from partner.store import tokens
from testkit.helpers import FORM, connect, invoke, me, refresh, token_call

REDIRECT = "http://localhost:8080/callback"


@pytest.fixture
def frozen(ports):
    """Freeze the port's clock one second into a minute, so fixed windows cannot roll mid-test."""
    t = float((int(time.time()) // 300) * 300 + 1)
    ports.install(clock=lambda: t)
    return t


def revoke(client, params, *, ip, secret=None):
    return token_call(client, params, ip=ip, secret=secret, endpoint="revoke")


def assert_revoked_ok(result):
    assert result.status == 200, result.body
    assert result.json == {}
    assert result.headers["cache-control"] == "no-store"
    assert result.headers["pragma"] == "no-cache"


def assert_invalid_token(result):
    assert result.status == 401, result.body
    assert result.json["error"] == "invalid_token"
    assert result.headers["www-authenticate"] == 'Bearer error="invalid_token"'


def assert_invalid_grant(result):
    assert result.status == 400, result.body
    assert result.json["error"] == "invalid_grant"


def revocation(token: str, hint: str | None) -> dict[str, str]:
    return {"token": token, "token_type_hint": hint} if hint else {"token": token}


@pytest.mark.parametrize("hint", [None, "access_token", "refresh_token", "bogus"])
def test_revoke_access_token(client, user, ip, hint):
    conn = connect(client, user, ip=ip)
    params = revocation(conn.access, hint)
    assert_revoked_ok(revoke(client, params, ip=ip))
    assert_invalid_token(me(conn.access))
    # idempotent
    assert_revoked_ok(revoke(client, params, ip=ip))
    # Code's decision (grants.revoke): revoking an access token leaves its refresh token
    # (RFC 7009 section 2.1 allows either); the refreshed pair works.
    new = refresh(client, conn.refresh, ip=ip)
    assert new.status == 200, new.body
    assert me(new.json["access_token"]).status == 200


@pytest.mark.parametrize("hint", [None, "refresh_token", "access_token"])
def test_revoke_refresh_token_kills_it_and_its_access_tokens(client, user, ip, hint):
    conn = connect(client, user, ip=ip)
    params = revocation(conn.refresh, hint)
    assert_revoked_ok(revoke(client, params, ip=ip))
    assert_invalid_token(me(conn.access))
    assert_invalid_grant(refresh(client, conn.refresh, ip=ip))


def test_revoke_rotated_refresh_token_kills_the_whole_chain(client, user, ip):
    conn = connect(client, user, ip=ip)
    pair = refresh(client, conn.refresh, ip=ip).json
    assert_revoked_ok(revoke(client, {"token": pair["refresh_token"]}, ip=ip))
    assert_invalid_token(me(pair["access_token"]))
    assert_invalid_token(me(conn.access))
    assert_invalid_grant(refresh(client, pair["refresh_token"], ip=ip))


def test_revoke_refresh_token_revokes_every_access_token_of_its_grant(aws_stack, client, user, ip):
    """Design section 3 (RFC 7009 2.1): revoking a refresh token revokes its grant's access
    tokens: every access token of this user and client, not only those of the token's own
    code (issue 17, item 8). The refresh token and its rotation chain die; another consent's
    refresh token is not revoked and mints working access tokens; other grants are untouched."""
    from partnerctl import admin

    conn = connect(client, user, ip=ip)
    other = connect(client, user, ip=ip)
    rotated = refresh(client, other.refresh, ip=ip).json  # the other consent, refreshed once
    bob = connect(client, admin.create_user(twitter="bob"), ip=ip)
    elsewhere = connect(admin.create_client(admin.NewClient(name="Elsewhere", redirect_uri=REDIRECT)), user, ip=ip)

    assert_revoked_ok(revoke(client, {"token": conn.refresh}, ip=ip))
    assert_invalid_token(me(conn.access))
    assert_invalid_grant(refresh(client, conn.refresh, ip=ip))
    # every access token of the grant is dead, whichever code issued it
    assert_invalid_token(me(other.access))
    assert_invalid_token(me(rotated["access_token"]))
    # the other consent's live refresh token still works, and what it mints now is live
    fresh = refresh(client, rotated["refresh_token"], ip=ip)
    assert fresh.status == 200, fresh.body
    assert me(fresh.json["access_token"]).status == 200
    # other grants: another user of this client, this user with another client
    assert me(bob.access).status == 200
    assert me(elsewhere.access).status == 200
    # a new consent after the revocation works
    again = connect(client, user, ip=ip)
    assert me(again.access).status == 200


@pytest.mark.parametrize(
    "token",
    [
        "app_at_" + "A" * 86,
        "app_rt_" + "A" * 86,
        "app_at_short",
        "app_rt_",
        "app_ac_" + "A" * 43,
        "app_sk_" + "A" * 43,
        "completely-unknown",
        "x" * 2000,
    ],
)
def test_unknown_token_is_200_empty(client, user, ip, token):
    conn = connect(client, user, ip=ip)
    assert_revoked_ok(revoke(client, {"token": token}, ip=ip))
    assert me(conn.access).status == 200


def test_well_formed_token_with_this_clients_ids_but_unknown(client, user, ip):
    forged_access = tokens.new_bound_token(tokens.ACCESS, user["user_id"], client["client_id"])
    forged_refresh = tokens.new_bound_token(tokens.REFRESH, user["user_id"], client["client_id"])
    conn = connect(client, user, ip=ip)
    assert_revoked_ok(revoke(client, {"token": forged_access}, ip=ip))
    assert_revoked_ok(revoke(client, {"token": forged_refresh}, ip=ip))
    assert me(conn.access).status == 200
    assert refresh(client, conn.refresh, ip=ip).status == 200


@pytest.mark.parametrize("kind", ["access", "refresh"])
def test_another_clients_token_is_200_and_untouched(aws_stack, client, user, ip, kind):
    from partnerctl import admin

    owner = admin.create_client(admin.NewClient(name="Owner", redirect_uri=REDIRECT))
    conn = connect(owner, user, ip=ip)
    token = conn.access if kind == "access" else conn.refresh
    assert_revoked_ok(revoke(client, {"token": token}, ip=ip))
    assert me(conn.access).status == 200
    assert refresh(owner, conn.refresh, ip=ip).status == 200


def test_authorization_code_cannot_be_revoked_here(client, user, ip):
    from testkit.helpers import get_code

    code, verifier, _ = get_code(client, user, ip=ip)
    assert_revoked_ok(revoke(client, {"token": code}, ip=ip))
    result = token_call(
        client,
        {"grant_type": "authorization_code", "code": code, "code_verifier": verifier, "redirect_uri": REDIRECT},
        ip=ip,
    )
    assert result.status == 200, result.body


@pytest.mark.parametrize("params", [{}, {"token": ""}, {"token_type_hint": "access_token"}])
def test_missing_token_is_invalid_request(client, ip, params):
    result = revoke(client, params, ip=ip)
    assert result.status == 400, result.body
    assert result.json["error"] == "invalid_request"
    assert result.json["error_description"]
    assert result.headers["cache-control"] == "no-store"


@pytest.mark.parametrize("secret", ["app_sk_" + "A" * 43, "wrong"])
def test_bad_client_auth_is_401_and_revokes_nothing(client, user, ip, secret):
    conn = connect(client, user, ip=ip)
    result = revoke(client, {"token": conn.access}, ip=ip, secret=secret)
    assert result.status == 401, result.body
    assert result.json["error"] == "invalid_client"
    assert result.headers["www-authenticate"] == "Basic realm=app-oauth"
    assert me(conn.access).status == 200
    unauthenticated = invoke(
        "oauth_revoke", "POST", "/oauth/revoke", body=urlencode({"token": conn.refresh}), headers=FORM, source_ip=ip
    )
    assert unauthenticated.status == 401 and unauthenticated.json["error"] == "invalid_client"
    assert refresh(client, conn.refresh, ip=ip).status == 200


def test_revoked_tokens_of_a_revoked_key(aws_stack, user, ip):
    """Revoking an API key (operator) invalidates every token it issued: access and refresh."""
    from partnerctl import admin

    c = admin.create_client(admin.NewClient(name="Key", redirect_uri=REDIRECT))
    conn = connect(c, user, ip=ip)
    k2 = admin.rotate_key(c["client_id"])
    admin.revoke_key(c["client_id"], c["key_id"])
    assert_invalid_token(me(conn.access))
    assert_invalid_grant(
        token_call(c, {"grant_type": "refresh_token", "refresh_token": conn.refresh}, ip=ip, secret=k2["api_key"])
    )
    # and the revoked key no longer authenticates /oauth/revoke
    result = revoke(c, {"token": conn.access}, ip=ip)
    assert result.status == 401 and result.json["error"] == "invalid_client"
    assert_revoked_ok(revoke(c, {"token": conn.access}, ip=ip, secret=k2["api_key"]))


def test_revoke_shares_the_per_ip_oauth_bucket(client, ip, frozen):
    """Spec limits table: /oauth/token and /oauth/revoke are one row, 30/min per caller IP."""
    first = revoke(client, {"token": "x"}, ip=ip)
    assert first.headers["x-ratelimit-limit"] == "30"
    assert first.headers["x-ratelimit-remaining"] == "29"
    assert first.headers["x-ratelimit-reset"] == "59"
    second = token_call(client, {"grant_type": "client_credentials"}, ip=ip)
    assert second.headers["x-ratelimit-remaining"] == "28"
    other = revoke(client, {"token": "x"}, ip=f"2001:db8::{secrets.token_hex(2)}")
    assert other.headers["x-ratelimit-remaining"] == "29"
