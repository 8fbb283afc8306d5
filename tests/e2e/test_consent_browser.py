"""The consent screen driven by a person's browser: Debian's Chromium through Playwright."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def _sign_in_and_open_consent(page, devstack):
    base = devstack.url
    page.goto(f"{base}/demo")
    page.click("#connect")
    # no platform session yet: the consent screen asks the person to sign in
    assert "Sign in to continue" in page.content()
    page.click("#login")
    page.click("#login-0")  # alice
    page.wait_for_selector("#client-name")


def test_approve_connects_the_demo_app(browser, devstack):
    context = browser.new_context()
    page = context.new_page()
    _sign_in_and_open_consent(page, devstack)
    alice = devstack.seeded["users"][0]
    assert page.inner_text("#client-name") == "Demo Partner App"
    assert page.inner_text("#wallet") == alice["wallet"]
    scopes = page.inner_text("#scopes")
    assert "Buy and sell tokens for SOL" in scopes and "(trade:execute)" in scopes
    page.screenshot(path="/tmp/consent.png")
    page.click("button[value=approve]")
    page.wait_for_selector("#result")
    assert page.url.startswith(f"{devstack.url}/demo/callback?code=app_ac_")
    result = page.inner_text("#result")
    assert alice["wallet"] in result and '"tradingEnabled": true' in result
    page.screenshot(path="/tmp/consent-approved.png")
    context.close()


def test_deny_returns_access_denied(browser, devstack):
    context = browser.new_context()
    page = context.new_page()
    _sign_in_and_open_consent(page, devstack)
    page.click("button[value=deny]")
    page.wait_for_selector("#result")
    assert "error=access_denied" in page.url
    assert page.inner_text("#result") == "access_denied"
    context.close()
