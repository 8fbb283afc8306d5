"""GET/POST {auth_url}/oauth/authorize: validation (never a redirect), sign-in, consent, decision.

Design section 3: every validation failure answers 400 with the Error object (JSON when
the request accepts application/json, else an HTML page showing the code) and never
redirects; approve -> 302 with code and state, deny -> 302 with error=access_denied.
"""

from __future__ import annotations

import re
import secrets
from html import escape
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from testkit.helpers import FORM, authorize_query, hidden_inputs, invoke, pkce_pair, token_call

REDIRECT = "http://localhost:8080/callback"


def cookie_for(user) -> str:
    from partnerctl import admin

    return admin.create_session(user["user_id"])["cookie"]


def get_page(query, *, ip, cookie=None, accept=None):
    headers = {}
    if cookie:
        headers["Cookie"] = cookie
    if accept:
        headers["Accept"] = accept
    return invoke("oauth_authorize", "GET", "/oauth/authorize", query=query, headers=headers, source_ip=ip)


def post_form(form, *, ip, cookie=None, accept=None):
    headers = dict(FORM)
    if cookie:
        headers["Cookie"] = cookie
    if accept:
        headers["Accept"] = accept
    return invoke("oauth_authorize", "POST", "/oauth/authorize", body=urlencode(form), headers=headers, source_ip=ip)


def assert_security_headers(result):
    assert result.headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in result.headers["content-security-policy"]
    assert result.headers["cache-control"] == "no-store"


def assert_not_redirect(result):
    assert result.status == 400, result.body
    assert "location" not in result.headers
    assert "code=" not in result.body.replace('class="code"', "")


def location_params(result) -> tuple[str, dict[str, list[str]]]:
    loc = result.headers["location"]
    parts = urlsplit(loc)
    return f"{parts.scheme}://{parts.netloc}{parts.path}", parse_qs(parts.query, keep_blank_values=True)


# ---------------------------------------------------------------- consent page


def test_consent_page_names_client_wallet_and_each_scope(aws_stack, user, ip):
    from partner.core.scopes import DESCRIPTIONS
    from partnerctl import admin

    client = admin.create_client(admin.NewClient(name="Moon <Trader> & Co", redirect_uri=REDIRECT))
    _, challenge = pkce_pair()
    page = get_page(
        authorize_query(client, challenge, "profile:read trade:execute coin:create"), cookie=cookie_for(user), ip=ip
    )
    assert page.status == 200, page.body
    assert page.headers["content-type"].startswith("text/html")
    assert_security_headers(page)
    assert "location" not in page.headers
    # the client name, escaped, never raw markup
    assert escape("Moon <Trader> & Co") in page.body
    assert "<Trader>" not in page.body
    assert user["wallet"] in page.body
    for scope in ("profile:read", "trade:execute", "coin:create"):
        assert escape(DESCRIPTIONS[scope]) in page.body
    for scope in ("governance:vote", "governance:propose"):
        assert escape(DESCRIPTIONS[scope]) not in page.body
    # one POST form with the signed request, a CSRF token, and approve/deny buttons
    assert page.body.count("<form") == 1 and '<form method="post">' in page.body
    form = hidden_inputs(page.body)
    assert set(form) == {"request", "csrf"} and all(form.values())
    assert re.search(r'<button[^>]*name="decision" value="approve"', page.body)
    assert re.search(r'<button[^>]*name="decision" value="deny"', page.body)
    # the rate-limit headers of the per-IP authorize bucket
    assert page.headers["x-ratelimit-limit"] == "30"
    assert page.headers["x-ratelimit-remaining"] == "29"


def test_approve_redirects_with_code_and_state(client, user, ip):
    cookie = cookie_for(user)
    verifier, challenge = pkce_pair()
    page = get_page(authorize_query(client, challenge, state="st-123 /?&="), cookie=cookie, ip=ip)
    form = hidden_inputs(page.body)
    form["decision"] = "approve"
    post = post_form(form, cookie=cookie, ip=ip)
    assert post.status == 302, post.body
    assert post.headers["cache-control"] == "no-store"
    base, params = location_params(post)
    assert base == REDIRECT
    assert set(params) == {"code", "state"}
    assert params["state"] == ["st-123 /?&="]
    code = params["code"][0]
    assert re.fullmatch(r"app_ac_[A-Za-z0-9_-]{43}", code)
    # the code works once with the verifier
    ok = token_call(
        client,
        {"grant_type": "authorization_code", "code": code, "code_verifier": verifier, "redirect_uri": REDIRECT},
        ip=ip,
    )
    assert ok.status == 200, ok.body


def test_approve_without_state_redirects_without_state(client, user, ip):
    cookie = cookie_for(user)
    _, challenge = pkce_pair()
    page = get_page(authorize_query(client, challenge, state=None), cookie=cookie, ip=ip)
    assert page.status == 200, page.body
    form = hidden_inputs(page.body)
    post = post_form({**form, "decision": "approve"}, cookie=cookie, ip=ip)
    assert post.status == 302
    _, params = location_params(post)
    assert set(params) == {"code"}


def test_redirect_uri_query_is_preserved(aws_stack, user, ip):
    from partnerctl import admin

    uri = "https://app.example.com/cb?tenant=7"
    client = admin.create_client(admin.NewClient(name="Q", redirect_uri=uri, status="live"))
    cookie = cookie_for(user)
    _, challenge = pkce_pair()
    page = get_page(authorize_query(client, challenge, redirect_uri=uri), cookie=cookie, ip=ip)
    assert page.status == 200, page.body
    post = post_form({**hidden_inputs(page.body), "decision": "approve"}, cookie=cookie, ip=ip)
    assert post.status == 302
    base, params = location_params(post)
    assert base == "https://app.example.com/cb"
    assert params["tenant"] == ["7"] and params["state"] == ["xyz"] and params["code"][0].startswith("app_ac_")


def test_deny_redirects_with_access_denied_and_state(client, user, ip):
    cookie = cookie_for(user)
    _, challenge = pkce_pair()
    page = get_page(authorize_query(client, challenge, state="abc"), cookie=cookie, ip=ip)
    post = post_form({**hidden_inputs(page.body), "decision": "deny"}, cookie=cookie, ip=ip)
    assert post.status == 302, post.body
    base, params = location_params(post)
    assert base == REDIRECT
    assert params == {"error": ["access_denied"], "state": ["abc"]}


# ---------------------------------------------------------------- sign-in


def test_without_session_cookie_page_asks_to_sign_in(client, ip):
    _, challenge = pkce_pair()
    page = get_page(authorize_query(client, challenge), ip=ip)
    assert page.status == 200, page.body
    assert_security_headers(page)
    assert "Sign in" in page.body
    assert "<form" not in page.body and hidden_inputs(page.body) == {}
    assert "location" not in page.headers and "app_ac_" not in page.body


def test_sign_in_page_links_to_login_with_the_request_as_next(client, ip, monkeypatch):
    from partner.core.settings import get_settings
    from partner.features.oauth import web

    settings = get_settings().model_copy(update={"login_url": "https://platform.example/login"})
    monkeypatch.setattr(web, "get_settings", lambda: settings)
    _, challenge = pkce_pair()
    query = authorize_query(client, challenge, state="a b&c")
    page = get_page(query, ip=ip)
    assert page.status == 200 and "<form" not in page.body
    href = re.search(r'<a id="login" href="([^"]+)"', page.body)
    assert href, page.body
    link = urlsplit(href.group(1).replace("&amp;", "&"))
    assert (link.scheme, link.netloc, link.path) == ("https", "platform.example", "/login")
    nxt = parse_qs(link.query)["next"][0]
    assert nxt.startswith("/oauth/authorize?")
    assert {k: v[0] for k, v in parse_qs(urlsplit(nxt).query).items()} == query


@pytest.mark.parametrize(
    "cookie",
    [
        "app_session=app_ss_" + "A" * 43,  # well formed, unknown
        "app_session=garbage",
        "other=app_ss_x",
        "app_session=",
    ],
)
def test_unknown_session_cookie_asks_to_sign_in(client, ip, cookie):
    _, challenge = pkce_pair()
    page = get_page(authorize_query(client, challenge), cookie=cookie, ip=ip)
    assert page.status == 200
    assert "Sign in" in page.body and "<form" not in page.body


def test_expired_session_asks_to_sign_in(client, user, ip, clock):
    cookie = cookie_for(user)
    _, challenge = pkce_pair()
    assert "<form" in get_page(authorize_query(client, challenge), cookie=cookie, ip=ip).body
    clock.advance(12 * 3600)
    page = get_page(authorize_query(client, challenge), cookie=cookie, ip=ip)
    assert page.status == 200
    assert "Sign in" in page.body and "<form" not in page.body


# ---------------------------------------------------------------- validation errors


def _client(**kw):
    from partnerctl import admin

    kw.setdefault("name", "Err App")
    kw.setdefault("redirect_uri", REDIRECT)
    return admin.create_client(admin.NewClient(**kw))


def _q(client, **over):
    _, challenge = pkce_pair()
    query = authorize_query(client, challenge)
    for key, value in over.items():
        if value is None:
            query.pop(key, None)
        else:
            query[key] = value
    return query


def _registered(uri: str, **client) -> dict:
    """The query of a client registered with redirect `uri`, asking for that `uri`."""
    return _q(_client(redirect_uri=uri, **client), redirect_uri=uri)


def case_unknown_client():
    return _q({"client_id": secrets.token_hex(16)})


def case_non_hex_client():
    return _q({"client_id": "not-a-client"})


def case_missing_client():
    return _q(_client(), client_id=None)


def case_suspended_client():
    c = _client()
    from partnerctl import admin

    admin.set_client_status(c["client_id"], "suspended")
    return _q(c)


def case_redirect_mismatch():
    return _q(_client(), redirect_uri="http://localhost:8080/other")


def case_redirect_trailing_slash():
    return _q(_client(), redirect_uri=REDIRECT + "/")


def case_redirect_extra_query():
    return _q(_client(), redirect_uri=REDIRECT + "?x=1")


def case_redirect_case():
    return _q(_client(), redirect_uri="http://LOCALHOST:8080/callback")


def case_live_plain_http_registered():
    return _q(_client(status="live"))


def case_live_plain_http_loopback_ip():
    return _registered("http://127.0.0.1:9000/cb", status="live")


def case_dev_http_non_loopback():
    return _registered("http://example.com/cb")


def case_dev_http_loopback_lookalike():
    return _registered("http://localhost.example.com/cb")


def case_redirect_with_fragment():
    return _registered("https://app.example.com/cb#frag")


def case_redirect_other_scheme():
    return _registered("myapp://callback")


def case_scope_empty():
    return _q(_client(), scope="")


def case_scope_missing():
    return _q(_client(), scope=None)


def case_scope_unknown():
    return _q(_client(), scope="profile:read wallet:drain")


def case_scope_not_allowed():
    return _q(_client(scope="profile:read"), scope="profile:read trade:execute")


def case_response_type_token():
    return _q(_client(), response_type="token")


def case_response_type_missing():
    return _q(_client(), response_type=None)


def case_repeated_parameter():
    c = _client()
    return list(_q(c).items()) + [("scope", "profile:read")]


def case_repeated_client_id():
    c = _client()
    return list(_q(c).items()) + [("client_id", c["client_id"])]


def case_missing_redirect_uri():
    return _q(_client(), redirect_uri=None)


def case_method_plain():
    verifier = "v" * 43
    return _q(_client(), code_challenge=verifier, code_challenge_method="plain")


def case_method_missing():
    return _q(_client(), code_challenge_method=None)


def case_method_lowercase():
    return _q(_client(), code_challenge_method="s256")


def case_challenge_missing():
    return _q(_client(), code_challenge=None)


def case_challenge_42():
    return _q(_client(), code_challenge="A" * 42)


def case_challenge_44():
    return _q(_client(), code_challenge="A" * 44)


def case_challenge_128():
    return _q(_client(), code_challenge="A" * 128)


def case_challenge_bad_chars():
    return _q(_client(), code_challenge="A" * 42 + "+")


def case_challenge_trailing_newline():
    return _q(_client(), code_challenge="A" * 43 + "\n")


ERROR_CASES = [
    (case_unknown_client, "unknown_client"),
    (case_non_hex_client, "unknown_client"),
    (case_missing_client, "unknown_client"),
    (case_suspended_client, "unknown_client"),
    (case_redirect_mismatch, "invalid_redirect_uri"),
    (case_redirect_trailing_slash, "invalid_redirect_uri"),
    (case_redirect_extra_query, "invalid_redirect_uri"),
    (case_redirect_case, "invalid_redirect_uri"),
    (case_live_plain_http_registered, "invalid_redirect_uri"),
    (case_live_plain_http_loopback_ip, "invalid_redirect_uri"),
    (case_dev_http_non_loopback, "invalid_redirect_uri"),
    (case_dev_http_loopback_lookalike, "invalid_redirect_uri"),
    (case_redirect_with_fragment, "invalid_redirect_uri"),
    (case_redirect_other_scheme, "invalid_redirect_uri"),
    (case_scope_empty, "invalid_scope"),
    (case_scope_missing, "invalid_scope"),
    (case_scope_unknown, "invalid_scope"),
    (case_scope_not_allowed, "scope_not_allowed"),
    (case_response_type_token, "invalid_request"),
    (case_response_type_missing, "invalid_request"),
    (case_repeated_parameter, "invalid_request"),
    (case_repeated_client_id, "invalid_request"),
    (case_missing_redirect_uri, "invalid_request"),
    (case_method_plain, "invalid_request"),
    (case_method_missing, "invalid_request"),
    (case_method_lowercase, "invalid_request"),
    (case_challenge_missing, "invalid_request"),
    (case_challenge_42, "invalid_request"),
    (case_challenge_44, "invalid_request"),
    (case_challenge_128, "invalid_request"),
    (case_challenge_bad_chars, "invalid_request"),
    (case_challenge_trailing_newline, "invalid_request"),
]


@pytest.mark.parametrize("make, code", ERROR_CASES, ids=[c[0].__name__[5:] for c in ERROR_CASES])
def test_authorize_error_json(aws_stack, user, ip, make, code):
    page = get_page(make(), cookie=cookie_for(user), accept="application/json", ip=ip)
    assert_not_redirect(page)
    assert page.headers["content-type"].startswith("application/json")
    assert page.json["error"] == code
    assert page.json["message"] and page.json["error_description"]
    assert page.headers["cache-control"] == "no-store"


@pytest.mark.parametrize("make, code", ERROR_CASES, ids=[c[0].__name__[5:] for c in ERROR_CASES])
def test_authorize_error_html(aws_stack, user, ip, make, code):
    page = get_page(make(), cookie=cookie_for(user), accept="text/html,application/xhtml+xml", ip=ip)
    assert_not_redirect(page)
    assert page.headers["content-type"].startswith("text/html")
    assert f'id="error">{code}<' in page.body
    assert "<form" not in page.body
    assert_security_headers(page)


def test_authorize_errors_are_reported_before_sign_in(aws_stack, ip):
    """Validation happens even without a session: a bad request never reaches the sign-in page."""
    page = get_page(case_redirect_mismatch(), ip=ip)
    assert_not_redirect(page)
    assert 'id="error">invalid_redirect_uri<' in page.body and "Sign in" not in page.body


def test_live_client_https_redirect_is_accepted(aws_stack, user, ip):
    uri = "https://app.example.com/callback"
    c = _client(status="live", redirect_uri=uri)
    page = get_page(_q(c, redirect_uri=uri), cookie=cookie_for(user), ip=ip)
    assert page.status == 200, page.body
    assert "<form" in page.body


def test_development_client_loopback_http_is_accepted(aws_stack, user, ip):
    for uri in ("http://127.0.0.1:9000/cb", "http://localhost/cb"):
        c = _client(redirect_uri=uri)
        page = get_page(_q(c, redirect_uri=uri), cookie=cookie_for(user), ip=ip)
        assert page.status == 200, page.body


def test_approved_subset_scope_is_allowed(aws_stack, user, ip):
    c = _client(scope="profile:read trade:execute")
    page = get_page(_q(c, scope="trade:execute"), cookie=cookie_for(user), ip=ip)
    assert page.status == 200, page.body


# ---------------------------------------------------------------- forged decisions


def _consent(client, user, ip, cookie=None):
    cookie = cookie or cookie_for(user)
    _, challenge = pkce_pair()
    page = get_page(authorize_query(client, challenge), cookie=cookie, ip=ip)
    assert page.status == 200
    return cookie, hidden_inputs(page.body)


def _flip(text: str, index: int) -> str:
    return text[:index] + ("A" if text[index] != "A" else "B") + text[index + 1 :]


@pytest.mark.parametrize("accept", ["application/json", None])
@pytest.mark.parametrize(
    "tamper",
    [
        "request_payload",
        "request_signature",
        "request_empty",
        "request_missing",
        "csrf_wrong",
        "csrf_missing",
        "csrf_other_form",
        "decision_other",
        "decision_missing",
    ],
)
def test_forged_decision_is_400_without_redirect(aws_stack, user, ip, tamper, accept):
    c = _client()
    cookie, form = _consent(c, user, ip)
    _, other_form = _consent(c, user, ip, cookie)
    form["decision"] = "approve"
    if tamper == "request_payload":
        form["request"] = _flip(form["request"], 5)
    elif tamper == "request_signature":
        form["request"] = _flip(form["request"], len(form["request"]) - 3)
    elif tamper == "request_empty":
        form["request"] = ""
    elif tamper == "request_missing":
        del form["request"]
    elif tamper == "csrf_wrong":
        form["csrf"] = _flip(form["csrf"], 0)
    elif tamper == "csrf_missing":
        del form["csrf"]
    elif tamper == "csrf_other_form":
        form["csrf"] = other_form["csrf"]
    elif tamper == "decision_other":
        form["decision"] = "yes"
    elif tamper == "decision_missing":
        del form["decision"]
    post = post_form(form, cookie=cookie, ip=ip, accept=accept)
    assert_not_redirect(post)
    if accept:
        assert post.json["error"] == "invalid_request"
    else:
        assert 'id="error">invalid_request<' in post.body
    # the untouched form of the same session still works
    ok = post_form({**other_form, "decision": "approve"}, cookie=cookie, ip=ip)
    assert ok.status == 302


def test_request_signed_for_another_client_cannot_be_swapped(aws_stack, user, ip):
    """A request signed for one consent page combined with the CSRF token of another fails."""
    a, b = _client(), _client()
    cookie = cookie_for(user)
    _, fa = _consent(a, user, ip, cookie)
    _, fb = _consent(b, user, ip, cookie)
    post = post_form(
        {"request": fa["request"], "csrf": fb["csrf"], "decision": "approve"},
        cookie=cookie,
        ip=ip,
        accept="application/json",
    )
    assert_not_redirect(post)
    assert post.json["error"] == "invalid_request"


def test_another_users_session_cannot_post_the_form(aws_stack, user, ip):
    from partnerctl import admin

    c = _client()
    _, form = _consent(c, user, ip)
    mallory = admin.create_user(twitter="mallory")
    post = post_form({**form, "decision": "approve"}, cookie=cookie_for(mallory), ip=ip, accept="application/json")
    assert_not_redirect(post)
    assert post.json["error"] == "invalid_request"
    # a second session of the same user is another session too: the form is bound to one session
    post = post_form({**form, "decision": "approve"}, cookie=cookie_for(user), ip=ip, accept="application/json")
    assert_not_redirect(post)


def test_post_without_session_is_400(aws_stack, user, ip):
    c = _client()
    _, form = _consent(c, user, ip)
    post = post_form({**form, "decision": "approve"}, ip=ip, accept="application/json")
    assert_not_redirect(post)
    assert post.json["error"] == "invalid_request"


def test_consent_form_expires_after_ten_minutes(aws_stack, user, ip, clock):
    c = _client()
    cookie, form = _consent(c, user, ip)
    clock.advance(601)
    post = post_form({**form, "decision": "approve"}, cookie=cookie, ip=ip, accept="application/json")
    assert_not_redirect(post)
    assert post.json["error"] == "invalid_request"


@pytest.mark.parametrize("first", ["approve", "deny"])
def test_consent_form_is_used_once(aws_stack, user, ip, first):
    """Issue 17 item 7: the first decision consumes the form; a second POST of the same signed
    request and CSRF token (approve or deny, within the 10 minutes) is 400 and issues no code."""
    c = _client()
    cookie, form = _consent(c, user, ip)
    post = post_form({**form, "decision": first}, cookie=cookie, ip=ip)
    assert post.status == 302, post.body
    for again in ("approve", "deny"):
        replay = post_form({**form, "decision": again}, cookie=cookie, ip=ip, accept="application/json")
        assert_not_redirect(replay)
        assert replay.json["error"] == "invalid_request"
        assert "already" in replay.json["message"]
    # a fresh consent page of the same session still works
    _, fresh = _consent(c, user, ip, cookie)
    assert post_form({**fresh, "decision": "approve"}, cookie=cookie, ip=ip).status == 302


def test_client_suspended_between_page_and_post(aws_stack, user, ip):
    from partnerctl import admin

    c = _client()
    cookie, form = _consent(c, user, ip)
    admin.set_client_status(c["client_id"], "suspended")
    post = post_form({**form, "decision": "approve"}, cookie=cookie, ip=ip, accept="application/json")
    assert_not_redirect(post)
    assert post.json["error"] == "unknown_client"


def test_post_json_body_is_rejected(aws_stack, user, ip):
    c = _client()
    cookie, form = _consent(c, user, ip)
    post = invoke(
        "oauth_authorize",
        "POST",
        "/oauth/authorize",
        body={**form, "decision": "approve"},
        headers={"Cookie": cookie, "Accept": "application/json"},
        source_ip=ip,
    )
    assert_not_redirect(post)
    assert post.json["error"] == "invalid_request"


# ---------------------------------------------------------------- per-IP limit


def test_authorize_per_ip_limit_30_per_minute(client, ip, clock):
    _, challenge = pkce_pair()
    query = authorize_query(client, challenge)
    for i in range(30):
        page = get_page(query, ip=ip)
        assert page.status == 200, (i, page.body)
        assert page.headers["x-ratelimit-remaining"] == str(29 - i)
        assert page.headers["x-ratelimit-reset"] == "59"
    limited = get_page(query, ip=ip)
    assert limited.status == 429
    assert limited.headers["retry-after"] == "59"
    assert limited.headers["x-ratelimit-remaining"] == "0"
    assert "error" not in limited.json and limited.json["retryAfterSeconds"] == 59
    # another caller is unaffected; the next window clears it
    assert get_page(query, ip=f"2001:db8::{secrets.token_hex(2)}").status == 200
    clock.advance(60)
    assert get_page(query, ip=ip).status == 200


BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


def test_a_browser_over_the_per_ip_limit_gets_the_html_error_page(client, user, ip, clock):
    """Issue 39 (5): a page's per-IP limit answered a browser with raw JSON and no `error`. A browser
    (Accept: text/html) now gets the page's error view: 429, `retry-after` and the x-ratelimit
    headers as before, the code RFC 6749 gives an overloaded authorization server
    (`temporarily_unavailable`); a caller without text/html still gets the JSON 429 above."""
    _, challenge = pkce_pair()
    query = authorize_query(client, challenge)
    for _ in range(30):
        assert get_page(query, ip=ip, accept=BROWSER).status == 200
    limited = get_page(query, ip=ip, accept=BROWSER)
    assert limited.status == 429 and limited.headers["content-type"].startswith("text/html")
    assert limited.headers["retry-after"] == "59" and limited.headers["x-ratelimit-remaining"] == "0"
    assert_security_headers(limited)
    assert '<p class="code" id="error">temporarily_unavailable</p>' in limited.body
    assert "try again in 59 seconds" in limited.body
    # the consent form's POST too, and the connected-apps page
    assert post_form({"decision": "approve"}, ip=ip, accept=BROWSER).status == 429
    apps = invoke(
        "account_apps", "GET", "/account/apps", headers={"Accept": BROWSER, "Cookie": cookie_for(user)}, source_ip=ip
    )
    assert apps.status == 429 and '<p class="code" id="error">temporarily_unavailable</p>' in apps.body
    # JSON for whoever asks for it, as the spec's per-endpoint limit: no `error`
    as_json = get_page(query, ip=ip, accept="application/json")
    assert as_json.status == 429 and "error" not in as_json.json and as_json.json["retryAfterSeconds"] == 59
