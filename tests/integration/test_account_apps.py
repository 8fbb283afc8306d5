"""Issue 20: GET/POST /account/apps, the user's connected apps (limits, disconnect)."""

from __future__ import annotations

import re
from html import escape, unescape
from urllib.parse import urlencode

import pytest

from testkit.chain import airdrop
from testkit.helpers import FORM, invoke, token_call
from tests.integration.test_grant_limits import SOL, _client, buy, consent, me


def cookie_for(user) -> str:
    from partnerctl import admin

    return admin.create_session(user["user_id"])["cookie"]


def page(cookie, ip, query=None):
    result = invoke(
        "account_apps", "GET", "/account/apps", headers={"Cookie": cookie} if cookie else {}, query=query, source_ip=ip
    )
    assert result.status == 200, result.body
    return result


def csrf_of(html: str) -> str:
    return unescape(re.search(r'name="csrf" value="([^"]+)"', html).group(1))


def post(cookie, ip, form, accept=None):
    headers = {**FORM, "Cookie": cookie, **({"Accept": accept} if accept else {})}
    return invoke("account_apps", "POST", "/account/apps", body=urlencode(form), headers=headers, source_ip=ip)


def test_lists_each_connected_app_with_scopes_times_and_todays_spend(aws_stack, chain, coin, ip):
    from partner.core.scopes import DESCRIPTIONS
    from partnerctl import admin

    c = _client(max_trade_lamports=1 * SOL, daily_volume_cap_lamports=5 * SOL)
    other = admin.create_client(
        admin.NewClient(
            name="Reader <b>",
            redirect_uri="https://reader.example/cb",
            status="live",
            website="https://reader.example",
            scope="profile:read",
        )
    )
    user = admin.create_user()
    airdrop(chain.url, user["wallet"], 2 * SOL)
    conn = consent(c, user, ip, daily_cap_sol="0.5")
    assert buy(conn, coin, 200_000_000).status == 200
    cookie = cookie_for(user)
    html = page(cookie, ip).body
    assert f'id="app-{c["client_id"]}"' in html and f'id="app-{other["client_id"]}"' not in html
    from testkit.helpers import get_code

    get_code(other, user, redirect_uri="https://reader.example/cb", ip=ip)
    result = page(cookie, ip)
    html = result.body
    for name in ("x-frame-options", "content-security-policy", "cache-control", "x-content-type-options"):
        assert name in result.headers
    assert result.headers["cache-control"] == "no-store" and result.headers["x-frame-options"] == "DENY"
    assert 'name="viewport" content="width=device-width,initial-scale=1"' in html
    section = html[html.index(f'id="app-{c["client_id"]}"') :]
    section = section[: section.index("</section>")]
    assert "Capped App" in section and "http://localhost:8080" in section  # no website: the redirect origin
    assert escape(DESCRIPTIONS["trade:execute"]) in section and escape(DESCRIPTIONS["profile:read"]) in section
    assert '<strong class="spent">0.2 SOL</strong> of <strong class="daily">0.5 SOL</strong>' in section
    assert re.search(r"Connected \d{4}-\d\d-\d\d \d\d:\d\d UTC · last used \d{4}-", section)
    reader = html[html.index(f'id="app-{other["client_id"]}"') :]
    assert escape("Reader <b>") in reader and "Reader <b>" not in html
    assert 'href="https://reader.example"' in reader


def test_without_a_session_the_page_asks_to_sign_in(aws_stack, ip):
    from partnerctl import admin

    result = invoke("account_apps", "GET", "/account/apps", source_ip=ip)
    assert result.status == 200 and "Sign in to continue" in result.body and "csrf" not in result.body
    assert "No app is connected" in page(cookie_for(admin.create_user()), ip).body


def test_raising_the_limit_up_to_the_cap_takes_effect_and_above_is_refused(aws_stack, chain, coin, ip):
    from partnerctl import admin

    c = _client(max_trade_lamports=1 * SOL, daily_volume_cap_lamports=5 * SOL)
    user = admin.create_user()
    airdrop(chain.url, user["wallet"], 3 * SOL)
    conn = consent(c, user, ip, max_trade_sol="0.1", daily_cap_sol="0.2")
    refused = buy(conn, coin, 150_000_000)
    assert refused.status == 403 and refused.json["maxTradeLamports"] == "100000000"
    cookie = cookie_for(user)
    csrf = csrf_of(page(cookie, ip).body)
    base = {"action": "limits", "client_id": c["client_id"], "csrf": csrf}
    # a crafted POST above the app's cap is refused and changes nothing
    for fields in ({"max_trade_sol": "1.5"}, {"daily_cap_sol": "5.1"}, {"max_trade_sol": "0.5", "daily_cap_sol": "6"}):
        over = post(cookie, ip, {**base, **fields})
        assert over.status == 400 and 'id="error">invalid_request<' in over.body and "at most" in over.body
        assert "Back to your connected apps" in over.body and over.headers["x-frame-options"] == "DENY"
    as_json = post(cookie, ip, {**base, "daily_cap_sol": "5.1"}, accept="application/json")
    assert as_json.status == 400 and as_json.json["field"] == "daily_cap_sol"
    assert me(conn)["limits"]["maxTradeLamports"] == "100000000"
    # a bad CSRF token, another user's session: refused
    assert post(cookie, ip, {**base, "csrf": "x" * 64, "max_trade_sol": "1"}).status == 400
    mallory = admin.create_user()
    assert post(cookie_for(mallory), ip, {**base, "max_trade_sol": "1"}).status == 400
    # raise both up to the caps: the next request uses them
    ok = post(cookie, ip, {**base, "max_trade_sol": "1", "daily_cap_sol": "5"})
    assert ok.status == 303 and ok.headers["location"] == "/account/apps?done=limits"
    assert me(conn)["limits"] == {
        "maxTradeLamports": str(SOL),
        "dailyVolumeCapLamports": str(5 * SOL),
        "spentTodayLamports": "0",
    }
    assert buy(conn, coin, 900_000_000).status == 200
    assert "Limits saved" in page(cookie, ip, {"done": "limits"}).body
    # and lower again
    assert post(cookie, ip, {**base, "daily_cap_sol": "0.95"}).status == 303
    refused = buy(conn, coin, 100_000_000)
    assert refused.status == 403 and refused.json["error"] == "daily_cap_exceeded"
    assert refused.json["dailyVolumeCapLamports"] == "950000000" and refused.json["spentTodayLamports"] == "900000000"


def test_disconnect_revokes_every_token_at_once(aws_stack, ip):
    from partnerctl import admin

    c = _client()
    user = admin.create_user()
    first = consent(c, user, ip, daily_cap_sol="1")
    second = consent(c, user, ip)  # two token families of one grant
    cookie = cookie_for(user)
    csrf = csrf_of(page(cookie, ip).body)
    gone = post(cookie, ip, {"action": "disconnect", "client_id": c["client_id"], "csrf": csrf})
    assert gone.status == 303 and gone.headers["location"] == "/account/apps?done=disconnected"
    for conn in (first, second):
        result = invoke("me", "GET", "/partner/v1/me", headers=conn.bearer())
        assert result.status == 401 and result.json["error"] == "invalid_token"
        refreshed = token_call(c, {"grant_type": "refresh_token", "refresh_token": conn.tokens["refresh_token"]}, ip=ip)
        assert refreshed.status == 400 and refreshed.json["error"] == "invalid_grant"
    html = page(cookie, ip, {"done": "disconnected"}).body
    assert "App disconnected" in html and f'id="app-{c["client_id"]}"' not in html
    # disconnecting again: not connected
    again = post(cookie, ip, {"action": "disconnect", "client_id": c["client_id"], "csrf": csrf})
    assert again.status == 400
    # a new consent connects again, with fresh tokens that work; the user's limit was kept
    conn = consent(c, user, ip)
    assert me(conn)["limits"]["dailyVolumeCapLamports"] == str(SOL)
    assert f'id="app-{c["client_id"]}"' in page(cookie, ip).body


def test_last_used_is_recorded_on_refresh_at_most_hourly(aws_stack, ip, clock):
    from partner.store import auth
    from partnerctl import admin

    c = _client()
    user = admin.create_user()
    conn = consent(c, user, ip)
    pk = auth.grant_pk(user["user_id"], c["client_id"])
    connected = auth.get(pk)["last_used"]
    clock.advance(1200)
    pair = token_call(c, {"grant_type": "refresh_token", "refresh_token": conn.tokens["refresh_token"]}, ip=ip).json
    assert auth.get(pk)["last_used"] == connected  # within the hour: no write
    clock.advance(2500)
    assert token_call(c, {"grant_type": "refresh_token", "refresh_token": pair["refresh_token"]}, ip=ip).status == 200
    assert auth.get(pk)["last_used"] == connected + 3700


@pytest.mark.parametrize("value", ["10000000000000000000", "1" * 40, "\uff11", "\u0661", "1_0", "+1", " 1 ", "5\n"])
def test_a_huge_or_not_plain_limit_is_invalid_request_and_changes_nothing(aws_stack, ip, value):
    """Issue 23 items 1 and 4: 400 invalid_request naming the field (HTML for a browser, JSON
    otherwise), never a 500, and the stored limits stay."""
    from partnerctl import admin

    c = _client(max_trade_lamports=100 * SOL, daily_volume_cap_lamports=500 * SOL)  # 1_0, +1, 5\n: under the caps
    user = admin.create_user()
    conn = consent(c, user, ip, max_trade_sol="0.1", daily_cap_sol="0.2")
    cookie = cookie_for(user)
    base = {"action": "limits", "client_id": c["client_id"], "csrf": csrf_of(page(cookie, ip).body)}
    for field in ("max_trade_sol", "daily_cap_sol"):
        as_json = post(cookie, ip, {**base, field: value}, accept="application/json")
        assert as_json.status == 400, (field, value, as_json.body)
        assert as_json.json["error"] == "invalid_request" and as_json.json["field"] == field
        as_html = post(cookie, ip, {**base, field: value})
        assert as_html.status == 400 and as_html.headers["content-type"].startswith("text/html")
        assert 'id="error">invalid_request<' in as_html.body and "Back to your connected apps" in as_html.body
    assert me(conn)["limits"]["maxTradeLamports"] == "100000000"
    assert me(conn)["limits"]["dailyVolumeCapLamports"] == "200000000"


def test_sign_out_ends_the_session_server_side_and_clears_its_cookie(aws_stack, ip):
    """Issue 39 (low 4): the page's Sign out form (CSRF-bound like its other forms) ends the
    `app_session` in the auth table, not just in this browser, and clears the cookie."""
    from partner.features.oauth import authorize
    from partnerctl import admin

    user = admin.create_user()
    cookie = cookie_for(user)
    html = page(cookie, ip).body  # no app connected: the form is there all the same
    assert 'id="signout"' in html and 'id="no-apps"' in html
    forged = post(cookie, ip, {"action": "signout", "csrf": "x" * 43})
    assert forged.status == 400 and 'id="error">invalid_request<' in forged.body
    assert authorize.session_from_cookie(cookie) is not None  # a forged form ends nothing
    out = post(cookie, ip, {"action": "signout", "csrf": csrf_of(html)})
    assert out.status == 200 and 'id="signed-out"' in out.body, out.body
    assert out.headers["set-cookie"] == "app_session=; Path=/; Max-Age=0; Secure; HttpOnly; SameSite=Lax"
    assert out.headers["cache-control"] == "no-store"
    assert authorize.session_from_cookie(cookie) is None  # the old cookie, replayed, opens nothing
    again = post(cookie, ip, {"action": "signout", "csrf": csrf_of(html)})
    assert again.status == 400 and "Sign in again" in again.body
