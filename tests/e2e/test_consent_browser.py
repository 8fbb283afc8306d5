"""The consent screen driven by a person's browser: Debian's Chromium through Playwright."""

from __future__ import annotations

import httpx
import pytest

pytestmark = pytest.mark.browser


def sign_in_at_the_provider(page, devstack, sub: str) -> None:
    """No platform session yet: the consent page sent the browser to the platform's OpenID provider
    (the devstack's stand-in), whose own page lists the platform's users; sign in as `sub`."""
    page.wait_for_url(f"{devstack.provider.url}/oauth2/authorize?**")
    assert f"Authorize as {sub}" in page.content()
    button = page.locator(f"button[name=sub][value={sub}]")
    # no character that most fonts lack (the package's "⮞" drew a missing-glyph box): ASCII only
    after = button.evaluate("b => getComputedStyle(b, '::after').content")
    assert after in ("none", "normal"), after
    assert button.inner_text().isascii()
    button.click()


def _sign_in_and_open_consent(page, devstack):
    base = devstack.url
    page.goto(f"{base}/demo")
    assert page.inner_text("#connect") == "Connect"  # what the README and `make run` call it
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
    # "secrets not shown": the access token is not on the page, only its prefix and length; the
    # button copies it whole, and it works
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=devstack.url)
    page.click("#copy-token")
    page.wait_for_selector("#copy-token:has-text('Copied')")
    token = page.evaluate("navigator.clipboard.readText()")
    assert token.startswith("app_at_") and len(token) > 40
    text = page.inner_text("body")
    assert token not in text and "app_rt_" not in text
    assert f'"access_token": "{token[:11]}... ({len(token)} characters)"' in text
    assert '"Authorization: Bearer $AT"' in page.inner_text("#try")
    me = httpx.get(f"{devstack.url}/partner/v1/me", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert me.status_code == 200 and alice["wallet"] in me.text
    # no box cuts its text off: every <pre> is as wide as its content
    clipped = page.evaluate("[...document.querySelectorAll('pre')].filter(p => p.scrollWidth > p.clientWidth).length")
    assert clipped == 0
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
