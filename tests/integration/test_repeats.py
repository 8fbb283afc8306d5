"""Issue 23 item 6: nothing repeated is read as "the last one wins", through the real handlers.

API Gateway keeps the last value of a repeated header in `headers` and every value in
`multiValueHeaders`; the events here carry both, as API Gateway builds them
(`devstack.events.api_event` with a list value). A JSON body that repeats a key at any depth is
refused as the forms already refuse a repeated field.

* two `Authorization` headers: 401 `invalid_token` on /partner/v1 (`invalid_client` on
  /oauth/token and /oauth/revoke, whose Authorization is the client's credentials);
* two `Content-Type` headers: 400 `invalid_input` on /partner/v1 (JSON and multipart),
  `invalid_request` on the OAuth endpoints and the web forms (their answer: JSON or the page);
* a repeated JSON key: 400 `invalid_input` on /partner/v1, `invalid_request` on /oauth/token.
"""

from __future__ import annotations

import json
from urllib.parse import urlencode

import pytest

from testkit.helpers import FORM, basic, connect, hidden_inputs, invoke
from tests.unit.test_multipart import encode

UPLOADS = "/partner/v1/uploads"
UPLOAD = {"contentType": "image/png", "contentLength": "70"}
JSON = {"Content-Type": "application/json"}


@pytest.fixture
def conn(aws_stack, ip):
    from partnerctl import admin

    app = admin.create_client(admin.NewClient(name="Repeat App", redirect_uri="http://localhost:8080/callback"))
    return connect(app, admin.create_user(), scope="profile:read coin:create", ip=ip)


def _invalid(result, status: int, code: str) -> None:
    assert result.status == status, result.body
    assert result.json["error"] == code, result.body


def _oauth_call(conn, ip: str, function: str, path: str, headers: dict):
    """POST `conn`'s refresh (oauth_token) or its revocation (oauth_revoke) with `headers`."""
    if function == "oauth_token":
        params = {"grant_type": "refresh_token", "refresh_token": conn.refresh}
    else:
        params = {"token": conn.access}
    return invoke(function, "POST", path, body=urlencode(params), source_ip=ip, headers=headers)


# ------------------------------------------------------------------ Authorization


@pytest.mark.parametrize("first", ["Bearer app_at_junk", "", "own", "Basic eDp5"])
def test_two_authorization_headers_are_invalid_token(conn, first):
    valid = f"Bearer {conn.access}"
    assert invoke("me", "GET", "/partner/v1/me", headers={"Authorization": valid}).status == 200
    first = valid if first == "own" else first
    result = invoke("me", "GET", "/partner/v1/me", headers={"Authorization": [first, valid]})
    _invalid(result, 401, "invalid_token")
    assert result.headers["www-authenticate"] == 'Bearer error="invalid_token"'


def test_authorization_under_two_spellings_is_invalid_token(conn):
    """`headers` itself may carry the name twice (its case differs): the same refusal."""
    valid = f"Bearer {conn.access}"
    result = invoke("me", "GET", "/partner/v1/me", headers=[("Authorization", valid), ("authorization", valid)])
    _invalid(result, 401, "invalid_token")


def test_two_authorization_headers_on_a_write_are_invalid_token_before_the_body(conn):
    valid = f"Bearer {conn.access}"
    result = invoke(
        "uploads_create", "POST", UPLOADS, headers={"Authorization": ["Bearer app_at_x", valid], **JSON}, body=UPLOAD
    )
    _invalid(result, 401, "invalid_token")


@pytest.mark.parametrize("path,function", [("/oauth/token", "oauth_token"), ("/oauth/revoke", "oauth_revoke")])
def test_two_authorization_headers_on_oauth_are_invalid_client(conn, ip, path, function):
    credentials = basic(conn.client["client_id"], conn.client["api_key"])
    wrong = basic(conn.client["client_id"], "app_sk_wrong")
    result = _oauth_call(conn, ip, function, path, {**FORM, "Authorization": [wrong, credentials]})
    _invalid(result, 401, "invalid_client")
    assert result.headers["cache-control"] == "no-store"
    # nothing was consumed: the refresh token still works, the access token too
    assert invoke("me", "GET", "/partner/v1/me", headers=conn.bearer()).status == 200
    if function == "oauth_token":
        once = _oauth_call(conn, ip, function, path, {**FORM, "Authorization": credentials})
        assert once.status == 200, once.body


# ------------------------------------------------------------------ Content-Type


def test_two_content_types_on_a_json_write_are_invalid_input(conn):
    once = invoke("uploads_create", "POST", UPLOADS, headers={**conn.bearer(), **JSON}, body=UPLOAD)
    assert once.status == 200, once.body
    for values in (["text/plain", "application/json"], ["application/json", "application/json"]):
        result = invoke(
            "uploads_create",
            "POST",
            UPLOADS,
            headers={**conn.bearer(), "Content-Type": values},
            body=json.dumps(UPLOAD),
        )
        _invalid(result, 400, "invalid_input")


def test_two_content_types_on_a_multipart_write_are_invalid_input(conn):
    body, ctype = encode({"name": "Twice", "symbol": "TWO"}, [("image", "a.png", "image/png", b"\x89PNG\r\n\x1a\n")])
    result = invoke(
        "coins_create",
        "POST",
        "/partner/v1/coins/create",
        body=body,
        headers={**conn.bearer(), "Content-Type": ["text/plain", ctype]},
    )
    _invalid(result, 400, "invalid_input")


@pytest.mark.parametrize("path,function", [("/oauth/token", "oauth_token"), ("/oauth/revoke", "oauth_revoke")])
def test_two_content_types_on_oauth_are_invalid_request(conn, ip, path, function):
    credentials = basic(conn.client["client_id"], conn.client["api_key"])
    types = ["application/json", FORM["Content-Type"]]
    result = _oauth_call(conn, ip, function, path, {"Content-Type": types, "Authorization": credentials})
    _invalid(result, 400, "invalid_request")


def _typed_twice(function: str, path: str, form: str, cookie: str, ip: str):
    """The web form POSTed with two Content-Type headers: asking for JSON, then for the page."""
    headers = {"Content-Type": ["text/plain", FORM["Content-Type"]], "Cookie": cookie}
    as_json = invoke(function, "POST", path, body=form, source_ip=ip, headers={**headers, "Accept": "application/json"})
    return as_json, invoke(function, "POST", path, body=form, source_ip=ip, headers=headers)


def test_two_content_types_on_the_consent_form_are_invalid_request_and_issue_no_code(aws_stack, ip):
    from partnerctl import admin
    from testkit.helpers import consent_page, pkce_pair

    app = admin.create_client(admin.NewClient(name="Repeat Consent", redirect_uri="http://localhost:8080/callback"))
    user = admin.create_user()
    cookie = admin.create_session(user["user_id"])["cookie"]
    page = consent_page(app, cookie, pkce_pair()[1], ip=ip)
    form = urlencode({**hidden_inputs(page.body), "decision": "approve"})
    as_json, as_page = _typed_twice("oauth_authorize", "/oauth/authorize", form, cookie, ip)
    _invalid(as_json, 400, "invalid_request")
    assert "location" not in as_json.headers
    assert as_page.status == 400 and as_page.headers["content-type"].startswith("text/html")
    assert 'id="error">invalid_request<' in as_page.body
    # the form was not used: it still approves once
    done = invoke(
        "oauth_authorize", "POST", "/oauth/authorize", body=form, source_ip=ip, headers={**FORM, "Cookie": cookie}
    )
    assert done.status == 302 and "code=" in done.headers["location"]


def test_two_content_types_on_the_apps_page_are_invalid_request(conn, ip):
    from partnerctl import admin

    cookie = admin.create_session(conn.user["user_id"])["cookie"]
    form = urlencode({"action": "disconnect", "client_id": conn.client["client_id"], "csrf": "x"})
    as_json, as_page = _typed_twice("account_apps", "/account/apps", form, cookie, ip)
    _invalid(as_json, 400, "invalid_request")
    assert "Content-Type" in as_json.json["message"]
    assert as_page.status == 400 and 'id="error">invalid_request<' in as_page.body


# ------------------------------------------------------------------ repeated JSON keys


@pytest.mark.parametrize(
    "text",
    [
        '{"contentType":"image/svg+xml","contentType":"image/png","contentLength":"70"}',
        '{"contentType":"image/png","contentLength":"abc","contentLength":"70"}',
        '{"contentType":"image/png","contentLength":"70","contentLength":"70"}',
    ],
)
def test_a_repeated_json_key_is_invalid_input(conn, text):
    result = invoke("uploads_create", "POST", UPLOADS, headers={**conn.bearer(), **JSON}, body=text)
    _invalid(result, 400, "invalid_input")
    assert "repeat" in result.json["message"]


def test_a_repeated_json_key_on_oauth_token_is_invalid_request(conn, ip):
    text = f'{{"grant_type":"authorization_code","grant_type":"refresh_token","refresh_token":"{conn.refresh}"}}'
    result = invoke(
        "oauth_token",
        "POST",
        "/oauth/token",
        body=text,
        source_ip=ip,
        headers={**JSON, "Authorization": basic(conn.client["client_id"], conn.client["api_key"])},
    )
    _invalid(result, 400, "invalid_request")


@pytest.mark.parametrize(
    "text", ['{"a":{"b":1,"b":2}}', '[{"k":1},{"k":1,"k":1}]', '{"a":[[{"x":1,"y":2,"x":3}]]}', '{"a":1,"\\u0061":2}']
)
def test_loads_refuses_a_repeated_key_at_any_depth(text):
    from partner.edge import http

    with pytest.raises(http.RepeatedKey):
        http.loads(text)


def test_loads_keeps_equal_keys_in_different_objects():
    from partner.edge import http

    assert http.loads('{"a":{"k":1},"b":{"k":2},"c":[{"k":3},{"k":4}]}') == {
        "a": {"k": 1},
        "b": {"k": 2},
        "c": [{"k": 3}, {"k": 4}],
    }
