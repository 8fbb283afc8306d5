"""Issue 20: limits the user chooses at consent, stored on the grant, enforced on trades, in /me.

Through the real handlers against moto and the devstack chain. The effective caps are the
lower of the client's and the user's; a user who keeps the defaults stores nothing.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import parse_qs, urlsplit

import pytest

from devstack import faults
from testkit.chain import airdrop
from testkit.helpers import (
    consent_page,
    consent_post,
    hidden_inputs,
    invoke,
    pkce_pair,
    token_call,
    trade,
)

SOL = 10**9
TIP = 1_000_000
PRIO = 10_000
REDIRECT = "http://localhost:8080/callback"


def _client(**caps):
    from partnerctl import admin

    return admin.create_client(admin.NewClient(name="Capped App", redirect_uri=REDIRECT, tier="Partner", **caps))


def _page(client, user, ip, scope="profile:read trade:execute"):
    from partnerctl import admin

    cookie = admin.create_session(user["user_id"])["cookie"]
    verifier, challenge = pkce_pair()
    page = consent_page(client, cookie, challenge, scope, ip=ip)
    assert page.status == 200, page.body
    return cookie, verifier, page


def _post(form, cookie, ip, accept=None):
    return consent_post(form, cookie, ip=ip, headers={"Accept": accept} if accept else None)


class Conn:
    def __init__(self, client, user, tokens):
        self.client, self.user, self.tokens = client, user, tokens

    def bearer(self):
        return {"Authorization": f"Bearer {self.tokens['access_token']}"}


def consent(client, user, ip, **limits) -> Conn:
    cookie, verifier, page = _page(client, user, ip)
    post = _post({**hidden_inputs(page.body), **limits, "decision": "approve"}, cookie, ip)
    assert post.status == 302, post.body
    code = parse_qs(urlsplit(post.headers["location"]).query)["code"][0]
    result = token_call(
        client,
        {"grant_type": "authorization_code", "code": code, "code_verifier": verifier, "redirect_uri": REDIRECT},
        ip=ip,
    )
    assert result.status == 200, result.body
    return Conn(client, user, result.json)


def me(conn):
    result = invoke("me", "GET", "/partner/v1/me", headers=conn.bearer())
    assert result.status == 200, result.body
    return result.json


def buy(conn, mint, lamports):
    return trade(
        conn,
        "buy",
        {
            "mint": mint,
            "maxSolIn": str(lamports),
            "slippageBps": 2000,
            "priorityFeeLamports": str(PRIO),
            "tipLamports": str(TIP),
        },
    )


def grant(user, client):
    from partner.store import auth

    return auth.get(auth.grant_pk(user["user_id"], client["client_id"]))


def test_consent_page_shows_the_caps_in_sol_with_inputs_defaulting_to_them(aws_stack, user, ip):
    c = _client(max_trade_lamports=1 * SOL, daily_volume_cap_lamports=5 * SOL)
    _, _, page = _page(c, user, ip)
    assert 'This app may spend up to <strong id="trade-cap">1 SOL per trade</strong>' in page.body
    assert '<strong id="daily-cap">5 SOL per day</strong> from your wallet' in page.body
    assert 'name="max_trade_sol" value="1" min="0.000000001" max="1"' in page.body
    assert 'name="daily_cap_sol" value="5" min="0.000000001" max="5"' in page.body
    assert page.body.count("<form") == 1 and set(hidden_inputs(page.body)) == {"request", "csrf"}


def test_without_trade_scope_no_limits_are_shown_or_stored(aws_stack, user, ip):
    c = _client(max_trade_lamports=1 * SOL)
    cookie, _, page = _page(c, user, ip, scope="profile:read")
    assert "per trade" not in page.body and "max_trade_sol" not in page.body
    post = _post({**hidden_inputs(page.body), "max_trade_sol": "0.5", "decision": "approve"}, cookie, ip)
    assert post.status == 302
    assert "max_trade_lamports" not in grant(user, c)


def test_lower_limits_are_enforced_and_shown_in_me(aws_stack, chain, coin, ip):
    from partnerctl import admin

    c = _client(max_trade_lamports=1 * SOL, daily_volume_cap_lamports=5 * SOL)
    user = admin.create_user()
    airdrop(chain.url, user["wallet"], 5 * SOL)
    conn = consent(c, user, ip, max_trade_sol="0.3", daily_cap_sol="0.5")
    stored = grant(user, c)
    assert stored["max_trade_lamports"] == 300_000_000 and stored["daily_volume_cap_lamports"] == 500_000_000
    assert me(conn)["limits"] == {
        "maxTradeLamports": "300000000",
        "dailyVolumeCapLamports": "500000000",
        "spentTodayLamports": "0",
    }

    over_trade = buy(conn, coin, 300_000_001)
    assert over_trade.status == 403 and over_trade.json["error"] == "trade_cap_exceeded"
    assert over_trade.json["maxTradeLamports"] == "300000000"

    first = buy(conn, coin, 300_000_000)
    assert first.status == 200, first.body
    second = buy(conn, coin, 250_000_000)
    assert second.status == 403 and second.json["error"] == "daily_cap_exceeded"
    assert second.json["dailyVolumeCapLamports"] == "500000000"
    assert second.json["spentTodayLamports"] == "300000000"
    assert buy(conn, coin, 200_000_000).status == 200
    assert me(conn)["limits"]["spentTodayLamports"] == "500000000"


def test_a_limit_above_the_cap_is_refused_and_no_code_is_issued(aws_stack, user, ip):
    c = _client(max_trade_lamports=1 * SOL, daily_volume_cap_lamports=5 * SOL)
    for field, value in (
        ("daily_cap_sol", "5.000000001"),
        ("max_trade_sol", "2"),
        ("daily_cap_sol", "0"),
        ("max_trade_sol", "-1"),
        ("daily_cap_sol", "1e3"),
        ("max_trade_sol", "nan"),
        ("daily_cap_sol", "0.0000000001"),
    ):
        cookie, _, page = _page(c, user, ip)
        form = {**hidden_inputs(page.body), field: value, "decision": "approve"}
        refused = _post(form, cookie, ip, accept="application/json")
        assert refused.status == 400, (field, value, refused.body)
        assert "location" not in refused.headers
        assert refused.json["error"] == "invalid_request" and refused.json["field"] == field
        html = _post(form, cookie, ip)
        assert html.status == 400 and 'id="error">invalid_request<' in html.body and "SOL" in html.body
        assert (grant(user, c) or {}).get("connected_at") is None


def test_limits_survive_refresh_and_reconsent_defaults_to_them(aws_stack, user, ip):
    c = _client(max_trade_lamports=1 * SOL, daily_volume_cap_lamports=5 * SOL)
    conn = consent(c, user, ip, daily_cap_sol="0.1")
    refreshed = token_call(c, {"grant_type": "refresh_token", "refresh_token": conn.tokens["refresh_token"]}, ip=ip)
    assert refreshed.status == 200, refreshed.body
    conn = Conn(c, user, refreshed.json)
    assert me(conn)["limits"]["dailyVolumeCapLamports"] == "100000000"
    # the consent page of a second connection defaults to the stored limits
    _, _, page = _page(c, user, ip)
    assert 'name="daily_cap_sol" value="0.1"' in page.body and 'name="max_trade_sol" value="1"' in page.body
    # a re-consent that does not post limits (e.g. a form without the inputs) keeps them
    conn = consent(c, user, ip)
    assert me(conn)["limits"]["dailyVolumeCapLamports"] == "100000000"
    # the user raises it back to the app's cap: nothing of their own is stored any more
    conn = consent(c, user, ip, daily_cap_sol="5")
    assert me(conn)["limits"]["dailyVolumeCapLamports"] == str(5 * SOL)
    assert "daily_volume_cap_lamports" not in grant(user, c)


def test_keeping_the_defaults_stores_no_limits(aws_stack, user, ip):
    c = _client(max_trade_lamports=1 * SOL, daily_volume_cap_lamports=5 * SOL)
    consent(c, user, ip, max_trade_sol="1", daily_cap_sol="5")
    stored = grant(user, c)
    assert "max_trade_lamports" not in stored and "daily_volume_cap_lamports" not in stored
    assert stored["scopes"] == {"profile:read", "trade:execute"} and stored["connected_at"] == stored["last_used"]


PARALLEL = 20
USER_CAP = 400_000_000
VALUES = [60_000_000 - i * 1_000_003 for i in range(PARALLEL)]  # distinct, ~2.9x the user's limit


def test_parallel_buys_never_overshoot_the_users_limit(aws_stack, chain, coin, ip, lambdas):
    """20 parallel buys against a user limit below the client's cap (moto in server mode: the
    reservation is one transaction on the client's and the grant's counters)."""
    from partner.features import grantlimits
    from partner.features.trading import _volume_key
    from partner.store import counters
    from partnerctl import admin

    assert sum(VALUES) > 2 * USER_CAP
    c = _client(daily_volume_cap_lamports=10 * SOL)
    user = admin.create_user()
    airdrop(chain.url, user["wallet"], 5 * SOL)
    conn = consent(c, user, ip, daily_cap_sol=grantlimits.sol(USER_CAP))
    start = threading.Barrier(PARALLEL)

    def one(value):
        start.wait()
        return value, buy(conn, coin, value)

    with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        outcomes = list(pool.map(one, VALUES))
    admitted = [v for v, r in outcomes if r.status == 200]
    refused = [(v, r) for v, r in outcomes if r.status != 200]
    assert admitted and refused
    assert sum(admitted) <= USER_CAP
    grant_spent = counters.read(grantlimits.grant_volume_key(c["client_id"], user["user_id"]))
    assert grant_spent == sum(admitted)
    assert counters.read(_volume_key(c["client_id"])[0]) == sum(admitted)  # the client's day counts the same
    for value, r in refused:
        assert r.status == 403 and r.json["error"] == "daily_cap_exceeded", r.body
        assert r.json["dailyVolumeCapLamports"] == str(USER_CAP)
        assert int(r.json["spentTodayLamports"]) + value > USER_CAP
        assert value > USER_CAP - grant_spent  # nothing was refused that would fit now
    assert me(conn)["limits"]["spentTodayLamports"] == str(sum(admitted))


@pytest.mark.parametrize("which", ["client", "user"])
def test_a_failed_send_releases_both_counters(aws_stack, chain, coin, ip, which):
    from partner.features import grantlimits
    from partner.features.trading import _volume_key
    from partner.store import counters
    from partnerctl import admin

    c = _client(daily_volume_cap_lamports=10 * SOL)
    user = admin.create_user()
    airdrop(chain.url, user["wallet"], 1 * SOL)
    conn = consent(c, user, ip, **({"daily_cap_sol": "0.5"} if which == "user" else {}))
    faults.set_fault("kms", "error", count=1, operations=["Decrypt"])
    try:
        failed = buy(conn, coin, 100_000_000)
    finally:
        faults.clear("kms")
    assert failed.status == 502 and failed.json["error"] == "wallet_sign_failed", failed.body
    assert counters.read(grantlimits.grant_volume_key(c["client_id"], user["user_id"])) == 0
    assert counters.read(_volume_key(c["client_id"])[0]) == 0


# Issue 23 items 1 and 4: a limit is ASCII digits with at most one `.` and at most 9 decimals;
# anything else (and a value too big for any cap) is 400 invalid_request naming the field, never a 500.
HUGE = ["10000000000000000000", "1" * 40, "9" * 29 + ".5", "1" * 5000]
NOT_PLAIN = ["\uff11", "\u0661", "1_0", "+1", " 1 ", "5\n", "1e0", "0x1", "1.2.3", ".", "", "1,5", "\u00b9", "Infinity"]


@pytest.mark.parametrize("value", HUGE + NOT_PLAIN)
@pytest.mark.parametrize("field", ["max_trade_sol", "daily_cap_sol"])
def test_a_huge_or_not_plain_limit_is_invalid_request_at_consent(aws_stack, user, ip, field, value):
    c = _client(max_trade_lamports=100 * SOL, daily_volume_cap_lamports=500 * SOL)  # 1_0, +1, 5\n: under the caps
    cookie, _, page = _page(c, user, ip)
    form = {**hidden_inputs(page.body), field: value, "decision": "approve"}
    refused = _post(form, cookie, ip, accept="application/json")
    assert refused.status == 400, (value, refused.body)
    assert "location" not in refused.headers
    assert refused.json["error"] == "invalid_request" and refused.json["field"] == field
    html = _post(form, cookie, ip)  # a browser: the HTML error page, not JSON
    assert html.status == 400 and html.headers["content-type"].startswith("text/html")
    assert 'id="error">invalid_request<' in html.body
    assert (grant(user, c) or {}).get("connected_at") is None  # no code, no grant


@pytest.mark.parametrize(
    "value,lamports",
    [
        ("0.5", 500_000_000),
        (".5", 500_000_000),
        ("1.", SOL),
        ("0.000000001", 1),
        ("0001", SOL),
        ("0.100000000", 100_000_000),
    ],
)
def test_a_plain_decimal_limit_is_accepted(aws_stack, user, ip, value, lamports):
    c = _client(max_trade_lamports=2 * SOL, daily_volume_cap_lamports=5 * SOL)
    consent(c, user, ip, max_trade_sol=value)
    assert grant(user, c)["max_trade_lamports"] == lamports
