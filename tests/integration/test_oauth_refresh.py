"""POST /oauth/token, grant refresh_token: rotation, replay, expiry, errors."""

from __future__ import annotations

import re

import pytest

from testkit.helpers import assert_oauth_error, connect, me, refresh, token_call, token_json

REDIRECT = "http://localhost:8080/callback"
DAY = 86_400


def assert_dead(client, pair, *, ip):
    out = me(pair["access_token"])
    assert out.status == 401 and out.json["error"] == "invalid_token", out.body
    assert_oauth_error(refresh(client, pair["refresh_token"], ip=ip), 400, "invalid_grant")


def test_rotation_issues_a_new_pair_and_rejects_the_old_refresh_token(client, user, ip):
    conn = connect(client, user, scope="profile:read trade:execute", ip=ip)
    result = refresh(client, conn.refresh, ip=ip)
    assert result.status == 200, result.body
    assert result.headers["cache-control"] == "no-store"
    assert result.headers["pragma"] == "no-cache"
    body = result.json
    assert set(body) == {"access_token", "token_type", "expires_in", "refresh_token", "scope"}
    assert body["token_type"] == "Bearer" and body["expires_in"] == 1800
    assert body["scope"] == "profile:read trade:execute"
    assert re.fullmatch(r"app_at_[A-Za-z0-9_-]{86}", body["access_token"])
    assert re.fullmatch(r"app_rt_[A-Za-z0-9_-]{86}", body["refresh_token"])
    assert body["access_token"] != conn.access and body["refresh_token"] != conn.refresh
    profile = me(body["access_token"])
    assert profile.status == 200 and profile.json["scopes"] == ["profile:read", "trade:execute"]
    # the new refresh token rotates again
    again = refresh(client, body["refresh_token"], ip=ip)
    assert again.status == 200 and again.json["refresh_token"] != body["refresh_token"]


def test_reuse_of_rotated_out_token_revokes_the_whole_grant(aws_stack, client, user, ip):
    from partnerctl import admin

    conn = connect(client, user, ip=ip)
    second = refresh(client, conn.refresh, ip=ip).json
    third = refresh(client, second["refresh_token"], ip=ip).json
    assert me(third["access_token"]).status == 200
    # another authorization of the same user and client: same grant
    sibling = connect(client, user, ip=ip)
    # unrelated grants: the same user with another client, another user with this client
    other_client = admin.create_client(admin.NewClient(name="Other", redirect_uri=REDIRECT))
    other_grant = connect(other_client, user, ip=ip)
    bob = admin.create_user(twitter="bob")
    bobs = connect(client, bob, ip=ip)

    replay = refresh(client, conn.refresh, ip=ip)
    assert_oauth_error(replay, 400, "invalid_grant")

    # the newest access AND refresh token die, and everything else in the grant
    assert_dead(client, third, ip=ip)
    out = me(second["access_token"])
    assert out.status == 401 and out.json["error"] == "invalid_token"
    assert_dead(client, sibling.tokens, ip=ip)
    # other grants are untouched
    assert me(other_grant.access).status == 200
    assert refresh(other_client, other_grant.refresh, ip=ip).status == 200
    assert me(bobs.access).status == 200
    assert refresh(client, bobs.refresh, ip=ip).status == 200
    # the user can connect again afterwards
    fresh = connect(client, user, ip=ip)
    assert me(fresh.access).status == 200
    assert refresh(client, fresh.refresh, ip=ip).status == 200


def test_reuse_of_the_previous_token_right_after_rotation(client, user, ip):
    conn = connect(client, user, ip=ip)
    new = refresh(client, conn.refresh, ip=ip).json
    assert_oauth_error(refresh(client, conn.refresh, ip=ip), 400, "invalid_grant")
    assert_dead(client, new, ip=ip)


def test_refresh_token_expires_after_60_days(client, user, ip, clock):
    keep = connect(client, user, ip=ip)
    lapse = connect(client, user, ip=ip)
    clock.advance(60 * DAY - 1)
    # the access token is long gone, the refresh token is still good
    assert me(keep.access).status == 401
    ok = refresh(client, keep.refresh, ip=ip)
    assert ok.status == 200, ok.body
    clock.advance(2)
    result = refresh(client, lapse.refresh, ip=ip)
    assert_oauth_error(result, 400, "invalid_grant")
    assert "expired" in result.json["error_description"]
    # the rotated pair starts a new 60 days
    clock.advance(59 * DAY)
    assert refresh(client, ok.json["refresh_token"], ip=ip).status == 200


def test_refresh_json_body_with_body_credentials(client, user, ip):
    conn = connect(client, user, ip=ip)
    result = token_json(client, {"grant_type": "refresh_token", "refresh_token": conn.refresh}, ip=ip)
    assert result.status == 200, result.body
    assert me(result.json["access_token"]).status == 200


@pytest.mark.parametrize(
    "params, code",
    [
        ({"grant_type": "refresh_token"}, "invalid_request"),
        ({"grant_type": "refresh_token", "refresh_token": ""}, "invalid_request"),
        ({"refresh_token": "app_rt_x"}, "invalid_request"),
        ({"grant_type": "", "refresh_token": "app_rt_x"}, "invalid_request"),
        ({"grant_type": "refresh", "refresh_token": "app_rt_x"}, "unsupported_grant_type"),
        ({"grant_type": "Refresh_Token", "refresh_token": "app_rt_x"}, "unsupported_grant_type"),
        ({"grant_type": "password", "username": "u", "password": "p"}, "unsupported_grant_type"),
    ],
)
def test_request_errors(client, ip, params, code):
    assert_oauth_error(token_call(client, params, ip=ip), 400, code)


def test_missing_grant_type_does_not_consume_the_token(client, user, ip):
    conn = connect(client, user, ip=ip)
    assert_oauth_error(token_call(client, {"refresh_token": conn.refresh}, ip=ip), 400, "invalid_request")
    assert_oauth_error(
        token_call(client, {"grant_type": "client_credentials", "refresh_token": conn.refresh}, ip=ip),
        400,
        "unsupported_grant_type",
    )
    assert refresh(client, conn.refresh, ip=ip).status == 200


def test_refresh_token_of_another_client_is_invalid_grant_and_harmless(aws_stack, client, user, ip):
    from partnerctl import admin

    conn = connect(client, user, ip=ip)
    other = admin.create_client(admin.NewClient(name="Other", redirect_uri=REDIRECT))
    assert_oauth_error(refresh(other, conn.refresh, ip=ip), 400, "invalid_grant")
    # neither consumed nor revoked
    assert me(conn.access).status == 200
    assert refresh(client, conn.refresh, ip=ip).status == 200


def _flip(text: str, index: int) -> str:
    return text[:index] + ("A" if text[index] != "A" else "B") + text[index + 1 :]


@pytest.mark.parametrize("variant", ["access_token", "flipped", "truncated", "prefix_only", "code_prefix", "padded"])
def test_wrong_token_is_invalid_grant_and_does_not_revoke(client, user, ip, variant):
    conn = connect(client, user, ip=ip)
    token = {
        "access_token": conn.access,
        "flipped": _flip(conn.refresh, 60),
        "truncated": conn.refresh[:-1],
        "prefix_only": "app_rt_",
        "code_prefix": "app_ac_" + conn.refresh[7:],
        "padded": conn.refresh + "==",
    }[variant]
    assert_oauth_error(refresh(client, token, ip=ip), 400, "invalid_grant")
    assert me(conn.access).status == 200
    assert refresh(client, conn.refresh, ip=ip).status == 200


def test_scope_parameter_cannot_widen_or_narrow(client, user, ip):
    """Documented decision (grants._check_scope_param): scopes are fixed by the code."""
    conn = connect(client, user, scope="profile:read trade:execute", ip=ip)
    assert_oauth_error(refresh(client, conn.refresh, ip=ip, scope="profile:read"), 400, "invalid_scope")
    assert_oauth_error(refresh(client, conn.refresh, ip=ip, scope="profile:read coin:create"), 400, "invalid_scope")
    ok = refresh(client, conn.refresh, ip=ip, scope="trade:execute profile:read")
    assert ok.status == 200 and ok.json["scope"] == "profile:read trade:execute"


def test_refreshed_access_token_expires_after_30_minutes(client, user, ip, clock):
    conn = connect(client, user, ip=ip)
    clock.advance(1000)
    pair = refresh(client, conn.refresh, ip=ip).json
    clock.advance(1799)
    assert me(pair["access_token"]).status == 200
    clock.advance(1)
    out = me(pair["access_token"])
    assert out.status == 401 and out.json["error"] == "invalid_token"
