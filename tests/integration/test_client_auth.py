"""Client authentication on /oauth/token and /oauth/revoke: Basic or body, keys, suspension, lockout."""

from __future__ import annotations

import base64
import json
import secrets
from urllib.parse import urlencode

import pytest

from testkit.helpers import FORM, authorize_query, basic, connect, get_code, invoke, pkce_pair, token_call

REDIRECT = "http://localhost:8080/callback"
REALM = "Basic realm=app-oauth"


def other_ip() -> str:
    return f"2001:db8::{secrets.token_hex(2)}:{secrets.token_hex(2)}"


def me(access: str):
    return invoke("me", "GET", "/partner/v1/me", headers={"Authorization": f"Bearer {access}"})


def post(path, *, ip, headers=None, form=None, json_body=None):
    fn = "oauth_token" if path == "/oauth/token" else "oauth_revoke"
    if json_body is not None:
        return invoke(
            fn,
            "POST",
            path,
            body=json.dumps(json_body),
            headers={"Content-Type": "application/json", **(headers or {})},
            source_ip=ip,
        )
    return invoke(fn, "POST", path, body=urlencode(form or {}), headers={**FORM, **(headers or {})}, source_ip=ip)


def refresh_with(client, token, secret, *, ip):
    return token_call(client, {"grant_type": "refresh_token", "refresh_token": token}, ip=ip, secret=secret)


def probe(client, secret=None, *, ip, path="/oauth/token"):
    """An authenticated call whose only possible success is past client authentication."""
    form = {"grant_type": "client_credentials"} if path == "/oauth/token" else {"token": "nothing"}
    return post(
        path, ip=ip, form=form, headers={"Authorization": basic(client["client_id"], secret or client["api_key"])}
    )


def assert_invalid_client(result):
    assert result.status == 401, result.body
    assert result.json["error"] == "invalid_client"
    assert result.headers["www-authenticate"] == REALM
    assert result.headers["cache-control"] == "no-store"
    assert result.headers["pragma"] == "no-cache"


def assert_invalid_token(result):
    assert result.status == 401, result.body
    assert result.json["error"] == "invalid_token"


# ---------------------------------------------------------------- ways to authenticate


@pytest.mark.parametrize("how", ["basic", "form_body", "json_body", "basic_with_matching_body_id"])
def test_each_way_of_authenticating_works(client, user, ip, how):
    conn = connect(client, user, ip=ip)
    params = {"grant_type": "refresh_token", "refresh_token": conn.refresh}
    creds = {"client_id": client["client_id"], "client_secret": client["api_key"]}
    auth = {"Authorization": basic(client["client_id"], client["api_key"])}
    if how == "basic":
        result = post("/oauth/token", ip=ip, form=params, headers=auth)
    elif how == "form_body":
        result = post("/oauth/token", ip=ip, form={**params, **creds})
    elif how == "json_body":
        result = post("/oauth/token", ip=ip, json_body={**params, **creds})
    else:
        result = post("/oauth/token", ip=ip, form={**params, "client_id": client["client_id"]}, headers=auth)
    assert result.status == 200, result.body
    assert me(result.json["access_token"]).status == 200


def test_basic_credentials_are_form_decoded(aws_stack, ip):
    """RFC 6749 2.3.1: id and secret are form-urlencoded inside Basic; an encoded key still works."""
    from partnerctl import admin

    c = admin.create_client(admin.NewClient(name="Enc", redirect_uri=REDIRECT))
    encoded = c["api_key"].replace("-", "%2D").replace("_", "%5F")
    result = probe(c, encoded, ip=ip)
    assert result.status == 400 and result.json["error"] == "unsupported_grant_type"


@pytest.mark.parametrize("encoding", ["form", "json"])
def test_basic_and_body_secret_together_is_invalid_request(client, user, ip, encoding):
    conn = connect(client, user, ip=ip)
    params = {
        "grant_type": "refresh_token",
        "refresh_token": conn.refresh,
        "client_id": client["client_id"],
        "client_secret": client["api_key"],
    }
    auth = {"Authorization": basic(client["client_id"], client["api_key"])}
    if encoding == "form":
        result = post("/oauth/token", ip=ip, form=params, headers=auth)
    else:
        result = post("/oauth/token", ip=ip, json_body=params, headers=auth)
    assert result.status == 400, result.body
    assert result.json["error"] == "invalid_request"
    assert result.headers["cache-control"] == "no-store"
    # nothing was consumed
    assert refresh_with(client, conn.refresh, None, ip=ip).status == 200


def test_basic_and_different_body_client_id_is_invalid_request(aws_stack, client, ip):
    from partnerctl import admin

    other = admin.create_client(admin.NewClient(name="Other", redirect_uri=REDIRECT))
    result = post(
        "/oauth/token",
        ip=ip,
        form={"grant_type": "client_credentials", "client_id": other["client_id"]},
        headers={"Authorization": basic(client["client_id"], client["api_key"])},
    )
    assert result.status == 400 and result.json["error"] == "invalid_request"


def test_revoke_accepts_body_credentials_and_rejects_both(client, user, ip):
    conn = connect(client, user, ip=ip)
    both = post(
        "/oauth/revoke",
        ip=ip,
        form={"token": conn.access, "client_id": client["client_id"], "client_secret": client["api_key"]},
        headers={"Authorization": basic(client["client_id"], client["api_key"])},
    )
    assert both.status == 400 and both.json["error"] == "invalid_request"
    assert me(conn.access).status == 200
    ok = post(
        "/oauth/revoke",
        ip=ip,
        json_body={"token": conn.access, "client_id": client["client_id"], "client_secret": client["api_key"]},
    )
    assert ok.status == 200 and ok.json == {}
    assert_invalid_token(me(conn.access))


# ---------------------------------------------------------------- failures


def _bad_credentials(client, other):
    cid, key = client["client_id"], client["api_key"]
    return {
        "wrong_secret": {"Authorization": basic(cid, "app_sk_" + "A" * 43)},
        "secret_without_prefix": {"Authorization": basic(cid, key[len("app_sk_") :])},
        "other_clients_key": {"Authorization": basic(cid, other["api_key"])},
        "key_with_suffix": {"Authorization": basic(cid, key + "x")},
        "empty_secret": {"Authorization": basic(cid, "")},
        "unknown_client": {"Authorization": basic(secrets.token_hex(16), key)},
        "non_hex_client": {"Authorization": basic("Demo App", key)},
        "uppercase_client_id": {"Authorization": basic(cid.upper(), key)},
        "empty_client_id": {"Authorization": basic("", key)},
        "not_base64": {"Authorization": "Basic !!!not-base64!!!"},
        "no_colon": {"Authorization": "Basic " + base64.b64encode(cid.encode()).decode()},
        "bearer_scheme": {"Authorization": f"Bearer {key}"},
        "no_credentials": {},
    }


@pytest.mark.parametrize("path", ["/oauth/token", "/oauth/revoke"])
@pytest.mark.parametrize("case", list(_bad_credentials({"client_id": "", "api_key": ""}, {"api_key": ""})))
def test_bad_credentials_are_invalid_client(aws_stack, client, ip, path, case):
    from partnerctl import admin

    other = admin.create_client(admin.NewClient(name="Other", redirect_uri=REDIRECT))
    headers = _bad_credentials(client, other)[case]
    form = {"grant_type": "client_credentials"} if path == "/oauth/token" else {"token": "x"}
    assert_invalid_client(post(path, ip=ip, form=form, headers=headers))


@pytest.mark.parametrize(
    "body",
    [
        {"client_id": "CID"},
        {"client_secret": "KEY"},
        {"client_id": "CID", "client_secret": "app_sk_" + "B" * 43},
        {"client_id": "CID", "client_secret": ""},
    ],
)
def test_bad_body_credentials_are_invalid_client(client, ip, body):
    body = {k: v.replace("CID", client["client_id"]).replace("KEY", client["api_key"]) for k, v in body.items()}
    assert_invalid_client(post("/oauth/token", ip=ip, form={"grant_type": "client_credentials", **body}))
    assert_invalid_client(post("/oauth/token", ip=ip, json_body={"grant_type": "client_credentials", **body}))


# ---------------------------------------------------------------- suspension


def test_suspended_client(aws_stack, user, ip):
    from partnerctl import admin

    c = admin.create_client(admin.NewClient(name="Susp", redirect_uri=REDIRECT))
    conn = connect(c, user, ip=ip)
    assert me(conn.access).status == 200
    admin.set_client_status(c["client_id"], "suspended")

    _, challenge = pkce_pair()
    page = invoke(
        "oauth_authorize",
        "GET",
        "/oauth/authorize",
        query=authorize_query(c, challenge),
        headers={"Accept": "application/json", "Cookie": admin.create_session(user["user_id"])["cookie"]},
        source_ip=ip,
    )
    assert page.status == 400 and page.json["error"] == "unknown_client"
    assert "location" not in page.headers

    assert_invalid_client(refresh_with(c, conn.refresh, None, ip=ip))
    assert_invalid_client(probe(c, ip=ip, path="/oauth/revoke"))
    out = me(conn.access)
    assert_invalid_token(out)
    assert out.headers["www-authenticate"] == 'Bearer error="invalid_token"'


# ---------------------------------------------------------------- keys


def test_rotated_keys_both_work_until_the_old_one_is_revoked(aws_stack, user, ip):
    from partnerctl import admin

    c = admin.create_client(admin.NewClient(name="Rot", redirect_uri=REDIRECT))
    old_conn = connect(c, user, ip=ip)  # issued with the first key
    new = admin.rotate_key(c["client_id"])
    assert new["key_id"] != c["key_id"]
    c_new = {**c, "api_key": new["api_key"]}
    new_conn = connect(c_new, user, ip=ip)  # issued with the second key
    for secret in (c["api_key"], new["api_key"]):
        assert probe(c, secret, ip=ip).json["error"] == "unsupported_grant_type"
    assert me(old_conn.access).status == 200 and me(new_conn.access).status == 200

    admin.revoke_key(c["client_id"], c["key_id"])
    assert_invalid_client(probe(c, c["api_key"], ip=ip))
    assert probe(c, new["api_key"], ip=ip).json["error"] == "unsupported_grant_type"
    # every token the first key issued is dead: access and refresh (even refreshed with the live key)
    assert_invalid_token(me(old_conn.access))
    dead = refresh_with(c, old_conn.refresh, new["api_key"], ip=ip)
    assert dead.status == 400 and dead.json["error"] == "invalid_grant"
    # tokens of the second key live on
    assert me(new_conn.access).status == 200
    assert refresh_with(c, new_conn.refresh, new["api_key"], ip=ip).status == 200


def test_refresh_with_another_key_rebinds_the_pair(aws_stack, user, ip):
    from partnerctl import admin

    c = admin.create_client(admin.NewClient(name="Rebind", redirect_uri=REDIRECT))
    conn = connect(c, user, ip=ip)  # bound to key 1
    k2 = admin.rotate_key(c["client_id"])
    rebound = refresh_with(c, conn.refresh, k2["api_key"], ip=ip)
    assert rebound.status == 200, rebound.body
    pair = rebound.json

    admin.revoke_key(c["client_id"], c["key_id"])  # key 1 gone: the rebound pair survives
    assert me(pair["access_token"]).status == 200
    pair2 = refresh_with(c, pair["refresh_token"], k2["api_key"], ip=ip)
    assert pair2.status == 200, pair2.body
    pair = pair2.json

    k3 = admin.rotate_key(c["client_id"])
    admin.revoke_key(c["client_id"], k2["key_id"])  # key 2 gone: its pair dies
    assert_invalid_token(me(pair["access_token"]))
    dead = refresh_with(c, pair["refresh_token"], k3["api_key"], ip=ip)
    assert dead.status == 400 and dead.json["error"] == "invalid_grant"


def test_code_exchanged_with_second_key_is_bound_to_it(aws_stack, user, ip):
    from partnerctl import admin

    c = admin.create_client(admin.NewClient(name="Bind", redirect_uri=REDIRECT))
    k2 = admin.rotate_key(c["client_id"])
    code, verifier, _ = get_code(c, user, ip=ip)
    result = token_call(
        c,
        {"grant_type": "authorization_code", "code": code, "code_verifier": verifier, "redirect_uri": REDIRECT},
        ip=ip,
        secret=k2["api_key"],
    )
    assert result.status == 200
    admin.revoke_key(c["client_id"], c["key_id"])
    assert me(result.json["access_token"]).status == 200
    admin.revoke_key(c["client_id"], k2["key_id"])
    assert_invalid_token(me(result.json["access_token"]))


# ---------------------------------------------------------------- lockout


def _fail(client, *, ip, path="/oauth/token", body=False):
    wrong = "app_sk_" + secrets.token_urlsafe(32)[:43]
    if body:
        return post(
            path,
            ip=ip,
            form={
                "grant_type": "client_credentials",
                "token": "x",
                "client_id": client["client_id"],
                "client_secret": wrong,
            },
        )
    return probe(client, wrong, ip=ip, path=path)


def assert_locked(result, retry_after: int):
    assert result.status == 429, result.body
    assert result.json["error"] == "too_many_failed_attempts"
    assert result.headers["retry-after"] == str(retry_after)
    assert result.headers["cache-control"] == "no-store"


def test_twenty_failures_lock_the_client_until_it_drops_below_twenty(aws_stack, client, user, ip, clock):
    """Twenty failures within any five minutes lock the client; `retry-after` is the time until
    the oldest of them is five minutes old and the client is back under twenty."""
    from partnerctl import admin

    conn = connect(client, user, ip=other_ip())
    bystander = admin.create_client(admin.NewClient(name="Bystander", redirect_uri=REDIRECT))
    for _ in range(20):  # at t0 .. t0+19
        assert_invalid_client(_fail(client, ip=ip))
        clock.advance(1)
    # the 21st call (t0+20) is refused even with the correct key, on both endpoints, without counting
    assert_locked(probe(client, ip=ip), 280)
    assert_locked(_fail(client, ip=ip), 280)
    assert_locked(refresh_with(client, conn.refresh, None, ip=other_ip()), 280)
    assert_locked(probe(client, ip=other_ip(), path="/oauth/revoke"), 280)
    # other clients are unaffected, and so are the client's issued tokens
    assert probe(bystander, ip=ip).json["error"] == "unsupported_grant_type"
    assert me(conn.access).status == 200

    clock.advance(279)  # t0+299: the oldest failure is 299 s old
    assert_locked(probe(client, ip=other_ip()), 1)
    clock.advance(1)  # t0+300: 19 failures in the last 5 minutes
    ok = refresh_with(client, conn.refresh, None, ip=other_ip())
    assert ok.status == 200, ok.body
    # one more failure makes 20 again; the next oldest (t0+1) leaves the window a second later
    assert_invalid_client(_fail(client, ip=other_ip()))
    assert_locked(probe(client, ip=other_ip()), 1)


def test_twenty_failures_straddling_a_clock_window_boundary_lock_the_client(client, ip, clock):
    """Issue 17, item 9: the five minutes are any five minutes, not clock-aligned windows.
    (The clock fixture starts one second into a 5-minute window.)"""
    clock.advance(300 - 1 - 10)  # ten seconds before the next boundary
    for _ in range(10):
        assert_invalid_client(_fail(client, ip=other_ip()))
        clock.advance(1)
    for _ in range(10):  # across the boundary
        assert_invalid_client(_fail(client, ip=other_ip()))
        clock.advance(1)
    # 20 failures within 20 seconds: locked until the first is five minutes old (280 s from now)
    assert_locked(probe(client, ip=other_ip()), 280)


def test_failures_spread_over_more_than_five_minutes_do_not_lock(client, ip, clock):
    for _ in range(19):
        assert_invalid_client(_fail(client, ip=other_ip()))
        clock.advance(15)  # 19 failures over 285 s
    clock.advance(15)  # the first is now exactly 300 s old
    assert_invalid_client(_fail(client, ip=other_ip()))  # 19 within the last five minutes
    assert probe(client, ip=other_ip()).json["error"] == "unsupported_grant_type"
    assert_invalid_client(_fail(client, ip=other_ip()))  # the 20th within five minutes
    assert_locked(probe(client, ip=other_ip()), 15)  # until the failure at t0+15 leaves


def test_concurrent_failures_are_all_counted(client, ip, clock, lambdas):
    """Appending a failure is one atomic UpdateItem (moto server mode): none is lost."""
    from concurrent.futures import ThreadPoolExecutor

    from partner.store import counters

    with ThreadPoolExecutor(max_workers=12) as pool:
        results = list(pool.map(lambda _: _fail(client, ip=other_ip()), range(24)))
    refused = [r for r in results if r.status == 401]
    assert all(r.status in (401, 429) for r in results)
    assert len(counters.events(f"FAIL#{client['client_id']}")) == len(refused) >= 20
    assert_locked(probe(client, ip=other_ip()), 300)


def test_nineteen_failures_do_not_lock_and_successes_do_not_reset(client, ip, clock):
    for _ in range(19):
        assert_invalid_client(_fail(client, ip=ip))
    assert probe(client, ip=ip).json["error"] == "unsupported_grant_type"
    assert_invalid_client(_fail(client, ip=ip))  # the 20th failure
    assert_locked(probe(client, ip=ip), 300)


def test_a_long_stream_of_failures_keeps_the_lockout_item_small(client, ip, clock):
    """Failures are kept per client in one item; expired ones are trimmed as it grows."""
    from partner.store import counters

    for _ in range(100):
        assert_invalid_client(_fail(client, ip=other_ip()))
        clock.advance(16)  # at most 19 in any five minutes
    assert probe(client, ip=other_ip()).json["error"] == "unsupported_grant_type"
    assert len(counters.events(f"FAIL#{client['client_id']}")) <= 2 * 20


def test_failures_on_both_endpoints_and_by_body_count_together(client, ip, clock):
    for i in range(20):
        result = _fail(
            client, ip=ip if i % 2 else other_ip(), path="/oauth/revoke" if i % 3 else "/oauth/token", body=bool(i % 4)
        )
        assert_invalid_client(result)
    assert_locked(probe(client, ip=other_ip(), path="/oauth/revoke"), 300)


def test_lockout_body_carries_retry_after_seconds(client, ip, clock):
    for _ in range(20):
        _fail(client, ip=ip)
    result = probe(client, ip=ip)
    assert_locked(result, 300)
    assert result.json["retryAfterSeconds"] == 300
