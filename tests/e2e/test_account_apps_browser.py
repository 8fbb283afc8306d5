"""Issue 20 in headless Chromium on the devstack's /demo app: connect with a lower daily limit,
trade past it (403 with the lower cap), see the app on /account/apps with today's spend, a
crafted limit above the cap refused, raise it (takes effect), disconnect (401 at once, and the
refresh token invalid_grant). With UPDATE_SCREENSHOTS=1 it also writes docs/guide.md's screenshots
(docs/consent-limits.png, docs/account-apps.png); otherwise they go to the test's temporary folder."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.e2e.test_consent_browser import sign_in_at_the_provider

pytestmark = pytest.mark.browser
DOCS = Path(__file__).resolve().parents[2] / "docs"
PHONE = {"width": 430, "height": 932}


def _answer(page) -> tuple[str, dict]:
    page.wait_for_selector("#status")
    return page.inner_text("#status"), json.loads(page.inner_text("#result"))


def test_limits_at_consent_apps_page_and_disconnect(browser, devstack, tmp_path):
    shots = DOCS if os.environ.get("UPDATE_SCREENSHOTS") else tmp_path
    client_id = devstack.seeded["client"]["client_id"]
    context = browser.new_context(viewport=PHONE)
    demo = context.new_page()
    demo.goto(f"{devstack.url}/demo")
    demo.click("#connect")
    sign_in_at_the_provider(demo, devstack, "carol")
    demo.wait_for_selector("#limits")
    assert "This app may spend up to 10 SOL per trade and 100 SOL per day from your wallet" in demo.inner_text(
        "#limits"
    )
    assert demo.input_value("#daily_cap_sol") == "100" and demo.get_attribute("#daily_cap_sol", "max") == "100"
    demo.fill("#daily_cap_sol", "0.1")
    demo.screenshot(path=str(shots / "consent-limits.png"), full_page=True)
    demo.click("button[value=approve]")
    demo.wait_for_selector("#result")
    me = json.loads(demo.inner_text("#result"))
    assert me["limits"] == {
        "maxTradeLamports": str(10**10),
        "dailyVolumeCapLamports": "100000000",
        "spentTodayLamports": "0",
    }

    demo.fill("#buy-sol", "0.04")
    demo.click("#buy")
    status, body = _answer(demo)
    assert status == "200", body
    demo.fill("#buy-sol", "0.2")
    demo.click("#buy")
    status, body = _answer(demo)
    assert status == "403" and body["error"] == "daily_cap_exceeded"
    assert body["dailyVolumeCapLamports"] == "100000000" and body["spentTodayLamports"] == "40000000"

    apps = context.new_page()  # the user's own tab; the demo app keeps its page
    apps.goto(f"{devstack.url}/account/apps")
    section = f"#app-{client_id}"
    apps.wait_for_selector(section)
    assert apps.inner_text(f"{section} .app-name") == "Demo Partner App"
    assert apps.inner_text(f"{section} .spent") == "0.04 SOL" and apps.inner_text(f"{section} .daily") == "0.1 SOL"
    assert "Buy and sell tokens for SOL with your wallet" in apps.inner_text(f"{section} .scopes")
    apps.screenshot(path=str(shots / "account-apps.png"), full_page=True)

    # a crafted value above the app's cap (the input's max removed) is refused by the server
    apps.evaluate(f"""() => {{
        const input = document.querySelector('{section} .limits-form input[name=daily_cap_sol]');
        input.removeAttribute('max'); input.value = '100.5'; }}""")
    apps.click(f"{section} .limits-form button[type=submit]")
    apps.wait_for_selector("#error")
    assert apps.inner_text("#error") == "invalid_request" and "at most 100 SOL" in apps.content()

    # raising the daily limit up to the app's cap takes effect on the next request
    apps.goto(f"{devstack.url}/account/apps")
    apps.fill(f"{section} .limits-form input[name=daily_cap_sol]", "100")
    apps.click(f"{section} .limits-form button[type=submit]")
    apps.wait_for_selector("#notice")
    assert apps.inner_text(f"{section} .daily") == "100 SOL"
    demo.click("#buy")
    status, body = _answer(demo)
    assert status == "200", body

    # disconnect: the demo app's next call is 401, and its refresh token invalid_grant
    apps.click(f"{section} .disconnect-form button[type=submit]")
    apps.wait_for_selector("#notice")
    assert "App disconnected" in apps.inner_text("#notice") and apps.query_selector(section) is None
    demo.click("#me")
    status, body = _answer(demo)
    assert status == "401" and body["error"] == "invalid_token"
    demo.click("#refresh")
    status, body = _answer(demo)
    assert status == "400" and body["error"] == "invalid_grant"
    context.close()
