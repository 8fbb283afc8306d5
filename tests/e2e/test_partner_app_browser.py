"""The example partner app (examples/partner_app) driven by Debian's Chromium through Playwright:
connect -> profile -> trade, checked on the chain."""

from __future__ import annotations

import threading

import pytest

from testkit.chain import new_coin, token_balance, wait
from tests.e2e.test_consent_browser import sign_in_at_the_provider

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def partner_app(devstack):
    from examples.partner_app.app import PartnerApp, attach, bind
    from partnerctl import admin

    server = bind("127.0.0.1", 0)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    client = admin.create_client(
        admin.NewClient(
            name="Example Partner App",
            redirect_uri=f"{base}/callback",
            tier="Partner",
            scope="profile:read trade:execute",
        )
    )
    attach(server, PartnerApp(devstack.url, client["client_id"], client["api_key"], f"{base}/callback"), log=False)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield base
    server.shutdown()
    server.server_close()


def test_connect_profile_trade(browser, devstack, chain, partner_app):
    bob = devstack.seeded["users"][1]
    mint = new_coin(chain.url, "App Coin", "APPC")
    before = token_balance(chain.url, bob["wallet"], mint)

    context = browser.new_context()
    page = context.new_page()
    page.goto(partner_app)
    page.click("#connect")
    sign_in_at_the_provider(page, devstack, "bob")  # the consent screen sent the browser to the platform
    page.wait_for_selector("#client-name")
    assert page.inner_text("#client-name") == "Example Partner App"
    page.click("button[value=approve]")

    page.wait_for_selector("#wallet")  # back on the app, connected
    assert page.url.rstrip("/") == partner_app
    assert page.inner_text("#wallet") == bob["wallet"]
    assert page.inner_text("#scopes") == "profile:read trade:execute"

    page.fill("#mint", mint)
    page.fill("#sol", "0.25")
    page.fill("#slippage", "150")
    page.click("#trade")
    page.wait_for_selector("#signature", timeout=30_000)
    signature = page.inner_text("#signature")
    assert page.inner_text("#status") in ("processed", "confirmed", "finalized")
    assert wait(chain.url, signature)["err"] is None
    assert token_balance(chain.url, bob["wallet"], mint) > before
    page.screenshot(path="/tmp/partner-app-trade.png")

    page.click("#back")
    page.click("#disconnect")
    page.wait_for_selector("#connect")
    context.close()
