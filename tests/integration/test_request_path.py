"""The /partner/v1 request path (design section 2): token, per-endpoint bucket, tier budget, scope.

Also the per-IP OAuth bucket on /oauth/token. Every test that counts requests freezes
partner.core.clock one second into a window, so no fixed window can roll over mid-test.
"""

from __future__ import annotations

import secrets

import pytest

from partner.store import tokens
from testkit.helpers import connect, get_code, invoke, token_call

REDIRECT = "http://localhost:8080/callback"
INVALID = 'Bearer error="invalid_token"'


def other_ip() -> str:
    return f"2001:db8::{secrets.token_hex(2)}:{secrets.token_hex(2)}"


def me(headers=None):
    return invoke("me", "GET", "/partner/v1/me", headers=headers)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def rl(result) -> tuple[str, str, str]:
    h = result.headers
    return h["x-ratelimit-limit"], h["x-ratelimit-remaining"], h["x-ratelimit-reset"]


def assert_invalid_token(result):
    assert result.status == 401, result.body
    assert result.json["error"] == "invalid_token"
    assert result.headers["www-authenticate"] == INVALID
    assert "retry-after" not in result.headers


def _client(tier="Basic", **kw):
    from partnerctl import admin

    return admin.create_client(admin.NewClient(name=kw.pop("name", "Path App"), redirect_uri=REDIRECT, tier=tier, **kw))


# ---------------------------------------------------------------- step 1: the bearer token


def test_missing_authorization_header(aws_stack, clock):
    for headers in (None, {}, {"Authorization": ""}):
        result = me(headers)
        assert_invalid_token(result)
        # refused before the bucket: the headers describe an untouched bucket
        assert rl(result) == ("300", "300", "59")


@pytest.mark.parametrize(
    "variant",
    [
        "basic_scheme",
        "token_scheme",
        "no_scheme",
        "scheme_only",
        "scheme_and_space",
        "double_space",
        "refresh_token",
        "api_key",
        "auth_code",
        "session",
        "garbage_after_prefix",
        "prefix_only",
        "unknown_well_formed",
        "flipped_char",
        "truncated",
        "extra_char",
        "other_users_ids",
    ],
)
def test_malformed_or_unknown_bearer_is_invalid_token(client, user, ip, clock, variant):
    conn = connect(client, user, ip=ip)
    value = {
        "basic_scheme": f"Basic {conn.access}",
        "token_scheme": f"Token {conn.access}",
        "no_scheme": conn.access,
        "scheme_only": "Bearer",
        "scheme_and_space": "Bearer ",
        "double_space": f"Bearer  {conn.access}",
        "refresh_token": f"Bearer {conn.refresh}",
        "api_key": f"Bearer {client['api_key']}",
        "auth_code": f"Bearer {get_code(client, user, ip=ip)[0]}",
        "session": "Bearer " + tokens.new_secret(tokens.SESSION),
        "garbage_after_prefix": "Bearer app_at_garbage!!",
        "prefix_only": "Bearer app_at_",
        "unknown_well_formed": "Bearer " + tokens.new_bound_token(tokens.ACCESS, user["user_id"], client["client_id"]),
        "flipped_char": "Bearer " + conn.access[:-5] + ("A" if conn.access[-5] != "A" else "B") + conn.access[-4:],
        "truncated": "Bearer " + conn.access[:-1],
        "extra_char": "Bearer " + conn.access + "A",
        "other_users_ids": "Bearer " + tokens.ACCESS + _swap_ids(conn.access, secrets.token_hex(16)),
    }[variant]
    result = me({"Authorization": value})
    assert_invalid_token(result)
    assert rl(result) == ("300", "300", "59")
    # the genuine token still works and its bucket was never drawn on
    ok = me(conn.bearer())
    assert ok.status == 200 and rl(ok) == ("300", "299", "59")


def _swap_ids(access: str, user_id: str) -> str:
    """The random part of a real token re-wrapped with another user id."""
    from partner.store.crypto import b64url, b64url_decode

    raw = b64url_decode(access[len(tokens.ACCESS) :])
    return b64url(bytes.fromhex(user_id) + raw[16:])


def test_bearer_scheme_is_case_insensitive(client, user, ip):
    conn = connect(client, user, ip=ip)
    for scheme in ("bearer", "BEARER", "Bearer"):
        assert me({"Authorization": f"{scheme} {conn.access}"}).status == 200
    assert me({"authorization": f"Bearer {conn.access}"}).status == 200


def test_access_token_expires_after_30_minutes(client, user, ip, clock):
    conn = connect(client, user, ip=ip)
    clock.advance(1799)
    assert me(conn.bearer()).status == 200
    clock.advance(1)
    assert_invalid_token(me(conn.bearer()))


def test_token_of_a_suspended_client_is_invalid_token(aws_stack, user, ip):
    from partnerctl import admin

    c = _client()
    conn = connect(c, user, ip=ip)
    admin.set_client_status(c["client_id"], "suspended")
    assert_invalid_token(me(conn.bearer()))


# ---------------------------------------------------------------- step 4: scope


def test_token_without_profile_read_is_insufficient_scope(client, user, ip, clock):
    conn = connect(client, user, scope="trade:execute", ip=ip)
    result = me(conn.bearer())
    assert result.status == 403, result.body
    assert result.json["error"] == "insufficient_scope"
    assert result.headers["www-authenticate"] == 'Bearer error="insufficient_scope", scope="profile:read"'
    # scope is checked after the bucket: the refused call was counted
    assert rl(result) == ("300", "299", "59")
    assert rl(me(conn.bearer())) == ("300", "298", "59")


# ---------------------------------------------------------------- step 2: per-endpoint bucket


def test_ratelimit_headers_count_down_exactly_per_token(aws_stack, user, ip, clock):
    from partnerctl import admin

    c = _client()
    conn = connect(c, user, ip=ip)
    scopeless = connect(c, admin.create_user(twitter="bob"), scope="coin:create", ip=ip)
    assert rl(me(conn.bearer())) == ("300", "299", "59")
    clock.advance(10)
    assert rl(me(conn.bearer())) == ("300", "298", "49")
    # error responses carry them too, counted on their own token's bucket
    refused = me(scopeless.bearer())
    assert refused.status == 403 and rl(refused) == ("300", "299", "49")
    clock.advance(0.5)
    assert rl(me(conn.bearer())) == ("300", "297", "49")  # reset rounds up
    clock.advance(47.5)  # 59 s into the window
    assert rl(me(conn.bearer())) == ("300", "296", "1")
    clock.advance(1)  # the next window
    assert rl(me(conn.bearer())) == ("300", "299", "60")


def test_exhausting_the_300_per_minute_bucket(aws_stack, user, ip, clock):
    from partnerctl import admin

    c = _client(tier="Partner")  # 1,200/min: the tier is not what binds
    conn = connect(c, user, ip=ip)
    sibling = connect(c, admin.create_user(twitter="bob"), ip=ip)
    for i in range(300):
        result = me(conn.bearer())
        assert result.status == 200, (i, result.body)
    assert rl(result) == ("300", "0", "59")
    limited = me(conn.bearer())
    assert limited.status == 429, limited.body
    assert limited.headers["retry-after"] == "59"
    assert rl(limited) == ("300", "0", "59")
    body = limited.json
    assert "error" not in body
    assert body["retryAfterSeconds"] == 59 and body["message"]
    # keyed on the access token: another token of the same client is unaffected
    ok = me(sibling.bearer())
    assert ok.status == 200 and rl(ok) == ("300", "299", "59")
    # an invalid token still answers 401 first
    assert_invalid_token(me(bearer(conn.refresh)))
    clock.advance(59)
    after = me(conn.bearer())
    assert after.status == 200 and rl(after) == ("300", "299", "60")


# ---------------------------------------------------------------- step 3: tier budget


def test_basic_tier_budget_120_per_minute_across_users(aws_stack, ip, clock):
    from partnerctl import admin

    c = _client()
    conns = [connect(c, admin.create_user(twitter=f"u{i}"), ip=ip) for i in range(3)]
    bystander_client = _client(name="Bystander")
    bystander = connect(bystander_client, admin.create_user(twitter="z"), ip=ip)
    for i in range(120):
        result = me(conns[i % 3].bearer())
        assert result.status == 200, (i, result.body)
    limited = me(conns[0].bearer())
    assert limited.status == 429, limited.body
    assert limited.json["error"] == "rate_limit_exceeded"
    assert limited.json["retryAfterSeconds"] == 59
    assert limited.headers["retry-after"] == "59"
    # the per-endpoint headers are still there (and describe the per-endpoint bucket)
    assert rl(limited) == ("300", str(300 - 41), "59")
    # a brand-new token of the same client is refused too; other clients are not
    fresh = connect(c, admin.create_user(twitter="late"), ip=ip)
    assert me(fresh.bearer()).json["error"] == "rate_limit_exceeded"
    assert me(bystander.bearer()).status == 200
    clock.advance(59)
    assert me(conns[1].bearer()).status == 200


def test_partner_tier_uses_its_own_budget(aws_stack, user, ip, clock, monkeypatch):
    from partner.store import ratelimit

    monkeypatch.setattr(ratelimit, "TIER_LIMITS", {"Basic": 2, "Partner": 4})
    c = _client(tier="Partner")
    conn = connect(c, user, ip=ip)
    for _ in range(4):
        assert me(conn.bearer()).status == 200
    limited = me(conn.bearer())
    assert limited.status == 429 and limited.json["error"] == "rate_limit_exceeded"


def test_limits_match_the_spec():
    from partner.store import ratelimit

    assert ratelimit.TIER_LIMITS == {"Basic": 120, "Partner": 1200}
    assert ratelimit.BUCKETS["read"] == 300
    assert ratelimit.BUCKETS["trade"] == 60 and ratelimit.BUCKETS["governance"] == 60
    assert ratelimit.BUCKETS["coin"] == 20
    assert ratelimit.BUCKETS["oauth"] == 30 and ratelimit.BUCKETS["authorize"] == 30
    assert ratelimit.WINDOW == 60
    assert (ratelimit.LOCKOUT_FAILURES, ratelimit.LOCKOUT_WINDOW) == (20, 300)


# ---------------------------------------------------------------- check order


def test_tier_is_checked_before_scope(aws_stack, user, ip, clock, monkeypatch):
    from partner.store import ratelimit

    monkeypatch.setattr(ratelimit, "TIER_LIMITS", {"Basic": 2, "Partner": 2})
    c = _client()
    conn = connect(c, user, scope="trade:execute", ip=ip)
    assert me(conn.bearer()).json["error"] == "insufficient_scope"
    assert me(conn.bearer()).json["error"] == "insufficient_scope"
    limited = me(conn.bearer())
    assert limited.status == 429 and limited.json["error"] == "rate_limit_exceeded"


def test_bucket_is_checked_before_tier_and_a_refusal_does_not_draw_on_the_tier(aws_stack, user, ip, clock, monkeypatch):
    from partner.store import ratelimit
    from partnerctl import admin

    monkeypatch.setattr(ratelimit, "BUCKETS", {**ratelimit.BUCKETS, "read": 2})
    monkeypatch.setattr(ratelimit, "TIER_LIMITS", {"Basic": 3, "Partner": 3})
    c = _client()
    a = connect(c, user, ip=ip)
    b = connect(c, admin.create_user(twitter="b"), ip=ip)
    assert me(a.bearer()).status == 200
    assert me(a.bearer()).status == 200  # tier: 2 of 3
    for _ in range(3):
        refused = me(a.bearer())
        assert refused.status == 429 and "error" not in refused.json
        assert rl(refused) == ("2", "0", "59")
    ok = me(b.bearer())  # tier: 3 of 3
    assert ok.status == 200, ok.body
    assert rl(ok) == ("2", "1", "59")
    over = me(b.bearer())
    assert over.status == 429 and over.json["error"] == "rate_limit_exceeded"


def test_token_is_checked_before_the_bucket(aws_stack, user, ip, clock, monkeypatch):
    from partner.store import ratelimit

    monkeypatch.setattr(ratelimit, "BUCKETS", {**ratelimit.BUCKETS, "read": 1})
    c = _client()
    conn = connect(c, user, ip=ip)
    assert me(conn.bearer()).status == 200
    assert me(conn.bearer()).status == 429
    revoked = token_call(c, {"token": conn.access}, ip=ip, endpoint="revoke")
    assert revoked.status == 200
    # with the bucket still empty, a revoked token answers 401, not 429
    assert_invalid_token(me(conn.bearer()))


# ---------------------------------------------------------------- OAuth per-IP bucket


def _assert_ip_limited(limited) -> None:
    """The per-IP bucket's 429 on an OAuth endpoint (no `error`; no-store and no-cache, as every
    /oauth/token answer per the spec)."""
    assert limited.status == 429, limited.body
    assert limited.headers["retry-after"] == "59"
    assert rl(limited) == ("30", "0", "59")
    assert "error" not in limited.json and limited.json["retryAfterSeconds"] == 59
    assert limited.headers["cache-control"] == "no-store"
    assert limited.headers["pragma"] == "no-cache"


def test_oauth_token_per_ip_limit_30_per_minute(client, ip, clock):
    for i in range(30):
        result = token_call(client, {"grant_type": "client_credentials"}, ip=ip)
        assert result.status == 400 and result.json["error"] == "unsupported_grant_type"
        assert rl(result) == ("30", str(29 - i), "59")
    limited = token_call(client, {"grant_type": "client_credentials"}, ip=ip)
    _assert_ip_limited(limited)
    # refused before client authentication: a bad key now is not a failure that counts
    for _ in range(25):
        assert (
            token_call(client, {"grant_type": "client_credentials"}, ip=ip, secret="app_sk_" + "A" * 43).status == 429
        )
    # another caller address is unaffected, and the client is not locked out
    other = token_call(client, {"grant_type": "client_credentials"}, ip=other_ip())
    assert other.status == 400 and other.json["error"] == "unsupported_grant_type"
    assert rl(other) == ("30", "29", "59")
    clock.advance(59)
    again = token_call(client, {"grant_type": "client_credentials"}, ip=ip)
    assert again.status == 400 and rl(again) == ("30", "29", "60")


def test_oauth_revoke_per_ip_limit_shares_the_token_bucket(client, ip, clock):
    for _ in range(30):
        assert token_call(client, {"grant_type": "client_credentials"}, ip=ip).status == 400
    limited = token_call(client, {"token": "x"}, ip=ip, endpoint="revoke")
    _assert_ip_limited(limited)
