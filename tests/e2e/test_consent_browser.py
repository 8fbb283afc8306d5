"""The consent screen driven by a person's browser: Debian's Chromium through Playwright."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def sign_in_at_the_provider(page, devstack, sub: str) -> None:
    """No platform session yet: the consent page sent the browser to the platform's OpenID provider
    (the devstack's stand-in), whose own page lists the platform's users; sign in as `sub`."""
    page.wait_for_url(f"{devstack.provider.url}/oauth2/authorize?**")
    assert f"Authorize as {sub}" in page.content()
    page.click(f"button[name=sub][value={sub}]")


def _sign_in_and_open_consent(page, devstack):
    base = devstack.url
    page.goto(f"{base}/demo")
    page.click("#connect")
    sign_in_at_the_provider(page, devstack, "alice")
    page.wait_for_selector("#client-name")  # back on the consent page, signed in


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


def test_sign_in_round_trip_sets_a_secure_session_cookie(browser, devstack):
    """demo app -> consent -> provider sign-in -> consent: the session is the service's own cookie,
    Secure, HttpOnly, SameSite=Lax, on the auth host; the spent sign-in cookie is gone."""
    context = browser.new_context()
    page = context.new_page()
    _sign_in_and_open_consent(page, devstack)
    assert page.url.startswith(f"{devstack.url}/oauth/authorize?")
    cookies = {c["name"]: c for c in context.cookies(devstack.url)}
    session = cookies["app_session"]
    assert session["value"].startswith("app_ss_") and session["secure"] and session["httpOnly"]
    assert session["sameSite"] == "Lax" and session["domain"] == "127.0.0.1"  # host-only
    assert "app_signin" not in cookies
    # a second connection needs no second sign-in
    page.goto(f"{devstack.url}/demo")
    page.click("#connect")
    page.wait_for_selector("#client-name")
    context.close()
