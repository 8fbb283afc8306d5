"""Input at the edges (issue 17 items 10, 11, 12, 16) through the real handlers:

* an integer string is digits only: `"100000000\\n"` is 400 naming the field on every route family;
* a body that is not text (bytes that are not UTF-8, sent base64 as API Gateway does for a binary
  media type) is a 400, never a 500: `invalid_input` on /partner/v1, `invalid_request` on OAuth;
* deep nesting is a 400 at any depth (no RecursionError);
* `Cache-Control: no-store` on every /partner/v1 answer, `Strict-Transport-Security` on every answer.
"""

from __future__ import annotations

import pytest
import urllib3

from devstack.events import ApiRequest, ApiStage, api_event, lambda_context
from testkit.helpers import (
    basic,
    connect,
    consent_page,
    consent_post,
    handler,
    hidden_inputs,
    invoke,
    pkce_pair,
    token_call,
)

PK = "So11111111111111111111111111111111111111112"
FEES = {"priorityFeeLamports": "1000", "tipLamports": "1000000"}
ALL_SCOPES = "profile:read trade:execute governance:vote governance:propose coin:create"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + b"\x00" * 32
HSTS = "max-age=63072000; includeSubDomains"
NOT_UTF8 = b'\xff\xfe\x80{"mint": "\xc3\x28"}'

# (function, path, a body that passes validation up to the field under test)
JSON_ROUTES = {
    "trades_buy": ("/partner/v1/trades/buy", {"mint": PK, "maxSolIn": "1000", "slippageBps": 100, **FEES}),
    "trades_buy_exact_out": (
        "/partner/v1/trades/buy-exact-out",
        {"mint": PK, "tokensOut": "1000", "slippageBps": 100, **FEES},
    ),
    "trades_sell": ("/partner/v1/trades/sell", {"mint": PK, "tokensIn": "1000", "slippageBps": 100, **FEES}),
    "trades_quote": ("/partner/v1/trades/quote", {"side": "buy", "mint": PK, "maxSolIn": "1000"}),
    "governance_vote": ("/partner/v1/governance/votes", {"proposal": PK, "side": "yes", "amount": "1000000", **FEES}),
    "governance_vote_cancel": ("/partner/v1/governance/votes/cancel", {"proposal": PK, **FEES}),
    "governance_vote_withdraw": ("/partner/v1/governance/votes/withdraw", {"proposal": PK, **FEES}),
    "governance_settle": ("/partner/v1/governance/proposals/settle", {"proposal": PK, **FEES}),
    "governance_extend_mutability": (
        "/partner/v1/governance/proposals/extend-mutability",
        {"mint": PK, "additionalSeconds": "60", **FEES},
    ),
    "governance_finalize_metadata": ("/partner/v1/governance/proposals/finalize-metadata", {"mint": PK, **FEES}),
    "governance_finalize_expired": ("/partner/v1/governance/metadata/finalize-expired", {"mint": PK, **FEES}),
    "governance_bond_withdraw": ("/partner/v1/governance/bonds/withdraw", {"proposal": PK, **FEES}),
}
MULTIPART_ROUTES = {
    "coins_create": "/partner/v1/coins/create",
    "governance_update_content": "/partner/v1/governance/proposals/update-content",
}

# every integer-string field of the JSON routes: (function, field, extra fields the body needs)
NEWLINE_JSON = [
    ("trades_buy", "maxSolIn"),
    ("trades_buy", "priorityFeeLamports"),
    ("trades_buy", "tipLamports"),
    ("trades_buy_exact_out", "tokensOut"),
    ("trades_sell", "tokensIn"),
    ("trades_quote", "maxSolIn"),
    ("governance_vote", "amount"),
    ("governance_extend_mutability", "additionalSeconds"),
    ("governance_finalize_metadata", "voteDurationSeconds"),
    ("governance_settle", "tipLamports"),
]
NEWLINE_EXTRA = {
    ("trades_buy", "minTokensOut"): "1",
    ("trades_sell", "minSolOut"): "1",
    ("trades_buy_exact_out", "maxSolIn"): "1000",
}


@pytest.fixture
def conn(aws_stack, clock, ip):
    from partnerctl import admin

    client = admin.create_client(admin.NewClient(name="Edges App", redirect_uri="http://localhost:8080/callback"))
    return connect(client, admin.create_user(twitter="edge"), scope=ALL_SCOPES, ip=ip)


def post_json(conn, function: str, body, *, content_type: str = "application/json"):
    path = JSON_ROUTES[function][0] if function in JSON_ROUTES else MULTIPART_ROUTES[function]
    return invoke(function, "POST", path, headers={**conn.bearer(), "Content-Type": content_type}, body=body)


def assert_invalid_input(result, field: str | None = None, code: str = "invalid_input"):
    assert result.status == 400, result.body
    assert result.json["error"] == code, result.body
    if field is not None:
        assert result.json["field"] == field, result.body


def _h(result, name: str) -> str | None:
    return result.headers.get(name.lower())


# ------------------------------------------------------------------ item 10: digits only


@pytest.mark.parametrize("function,field", NEWLINE_JSON + list(NEWLINE_EXTRA))
def test_integer_string_with_a_trailing_newline_is_invalid_input(conn, function, field):
    _, body = JSON_ROUTES[function]
    value = NEWLINE_EXTRA.get((function, field), body.get(field, "600"))
    result = post_json(conn, function, {**body, field: value + "\n"})
    assert_invalid_input(result, field)


def test_partner_fee_with_a_trailing_newline_is_invalid_partner_fee(conn):
    _, body = JSON_ROUTES["trades_buy"]
    assert_invalid_input(
        post_json(conn, "trades_buy", {**body, "partnerFeeBps": "100\n"}), "partnerFeeBps", "invalid_partner_fee"
    )


def test_address_with_a_trailing_newline_is_invalid_input(conn):
    _, body = JSON_ROUTES["governance_vote"]
    assert_invalid_input(post_json(conn, "governance_vote", {**body, "proposal": PK + "\n"}), "proposal")


def _coin_form(**fields) -> tuple[bytes, str]:
    parts = {"name": "Edge Coin", "symbol": "EDGE", **fields, "image": ("logo.png", PNG, "image/png")}
    return urllib3.encode_multipart_formdata(parts)


@pytest.mark.parametrize(
    "field,value",
    [
        ("priorityFeeLamports", "10000"),
        ("initialBuySol", "1000"),
        ("slippageBps", "100"),
        ("maxBypassFeeLamports", "0"),
    ],
)
def test_coin_create_integer_fields_with_a_trailing_newline_are_invalid_input(conn, field, value):
    body, ctype = _coin_form(**{field: value + "\n"})
    assert_invalid_input(post_json(conn, "coins_create", body, content_type=ctype), field)


@pytest.mark.parametrize(
    "field,value",
    [
        ("priorityFeeLamports", "1000"),
        ("tipLamports", "1000000"),
        ("voteDurationSeconds", "600"),
        ("baseContentRevision", "0"),
    ],
)
def test_update_content_integer_fields_with_a_trailing_newline_are_invalid_input(conn, field, value):
    parts = {"mint": PK, **FEES, "description": "new", field: value + "\n"}
    body, ctype = urllib3.encode_multipart_formdata(parts)
    assert_invalid_input(post_json(conn, "governance_update_content", body, content_type=ctype), field)


# ------------------------------------------------------------------ item 11: a body that is not text


@pytest.mark.parametrize("function", sorted(JSON_ROUTES))
def test_a_body_that_is_not_utf8_is_invalid_input(conn, function):
    for ctype in ("application/octet-stream", "application/json"):
        event = api_event(
            ApiRequest(
                "POST", JSON_ROUTES[function][0], headers={**conn.bearer(), "Content-Type": ctype}, body=NOT_UTF8
            ),
            ApiStage(binary_media_types=["*/*"]),
        )
        assert event["isBase64Encoded"] is True
        out = handler(function)(event, lambda_context(function))
        assert out["statusCode"] == 400, out
        assert '"error":"invalid_input"' in out["body"]


def test_a_body_that_is_not_base64_is_invalid_input(conn):
    event = api_event(
        ApiRequest(
            "POST",
            JSON_ROUTES["trades_buy"][0],
            headers={**conn.bearer(), "Content-Type": "application/json"},
            body="{}",
        )
    )
    event.update(body="not*base64!", isBase64Encoded=True)
    out = handler("trades_buy")(event, lambda_context("trades_buy"))
    assert out["statusCode"] == 400 and '"error":"invalid_input"' in out["body"], out


def _oauth_binary(function: str, path: str, headers: dict, ctype: str, ip: str) -> dict:
    event = api_event(
        ApiRequest("POST", path, headers={**headers, "Content-Type": ctype}, body=NOT_UTF8, source_ip=ip),
        ApiStage(binary_media_types=["*/*"]),
    )
    assert event["isBase64Encoded"] is True
    return handler(function)(event, lambda_context(function))


@pytest.mark.parametrize("function,path", [("oauth_token", "/oauth/token"), ("oauth_revoke", "/oauth/revoke")])
@pytest.mark.parametrize("ctype", ["application/octet-stream", "application/x-www-form-urlencoded", "application/json"])
def test_oauth_body_that_is_not_utf8_is_invalid_request(client, ip, clock, function, path, ctype):
    out = _oauth_binary(function, path, {"Authorization": basic(client["client_id"], client["api_key"])}, ctype, ip)
    assert out["statusCode"] == 400, out
    assert '"error":"invalid_request"' in out["body"]
    assert out["multiValueHeaders"]["Cache-Control"] == ["no-store"]


@pytest.mark.parametrize("function,path", [("oauth_authorize", "/oauth/authorize"), ("account_apps", "/account/apps")])
def test_web_form_post_body_that_is_not_utf8_is_invalid_request(client, user, ip, clock, function, path):
    from partnerctl import admin

    cookie = admin.create_session(user["user_id"])["cookie"]
    for accept, marker in (("application/json", '"error":"invalid_request"'), ("text/html", "invalid_request")):
        out = _oauth_binary(
            function, path, {"Cookie": cookie, "Accept": accept}, "application/x-www-form-urlencoded", ip
        )
        assert out["statusCode"] == 400, out
        assert marker in out["body"]


# ------------------------------------------------------------------ item 12: deep nesting

DEPTHS = [1_000, 20_000, 60_000]


def nested(depth: int, kind: str) -> str:
    if kind == "array":
        return "[" * depth + "]" * depth
    return '{"a":' * depth + "1" + "}" * depth


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("function", ["trades_buy", "trades_quote", "governance_vote", "governance_settle"])
def test_deep_nesting_is_invalid_input(conn, function, depth):
    _, body = JSON_ROUTES[function]
    for kind in ("array", "object"):
        for text in (
            nested(depth, kind),
            '{"mint":' + nested(depth, kind) + "}",
            nested(depth, kind)[:depth],
        ):  # unclosed: only opening brackets
            result = post_json(conn, function, text)
            assert result.status == 400, (function, depth, kind, result.body[:200])
            assert result.json["error"] == "invalid_input"


@pytest.mark.parametrize("depth", DEPTHS)
def test_deep_nesting_on_oauth_token_is_invalid_request(client, ip, clock, depth):
    for kind in ("array", "object"):
        result = invoke(
            "oauth_token",
            "POST",
            "/oauth/token",
            body=nested(depth, kind),
            source_ip=ip,
            headers={
                "Content-Type": "application/json",
                "Authorization": basic(client["client_id"], client["api_key"]),
            },
        )
        assert result.status == 400, result.body[:200]
        assert result.json["error"] == "invalid_request"


def test_moderate_nesting_still_parses_to_the_usual_field_error(conn):
    """A nested value well under the limit is a field error as before, not a nesting error."""
    _, body = JSON_ROUTES["trades_buy"]
    result = post_json(conn, "trades_buy", {**body, "maxSolIn": [[[["1"]]]]})
    assert_invalid_input(result, "maxSolIn")


# ------------------------------------------------------------------ item 16: response headers


def _assert_api_headers(result, *, no_store: bool = True):
    assert _h(result, "strict-transport-security") == HSTS, result.headers
    if no_store:
        assert _h(result, "cache-control") == "no-store", result.headers


def test_partner_answers_carry_no_store_and_hsts(conn, clock):
    ok = invoke("me", "GET", "/partner/v1/me", headers=conn.bearer())
    assert ok.status == 200
    _assert_api_headers(ok)
    unauthenticated = invoke("me", "GET", "/partner/v1/me", headers={"Authorization": "Bearer app_at_nope"})
    assert unauthenticated.status == 401
    _assert_api_headers(unauthenticated)
    invalid = post_json(conn, "trades_buy", {"mint": PK})
    assert invalid.status == 400
    _assert_api_headers(invalid)
    body, ctype = _coin_form(slippageBps="x")
    multipart_error = post_json(conn, "coins_create", body, content_type=ctype)
    assert multipart_error.status == 400
    _assert_api_headers(multipart_error)
    status = invoke(
        "transaction_status",
        "GET",
        "/partner/v1/transactions/abc/status",
        headers=conn.bearer(),
        resource="/partner/v1/transactions/{signature}/status",
    )
    _assert_api_headers(status)
    missing = invoke("me", "GET", "/partner/v1/nowhere", headers=conn.bearer())
    assert missing.status == 404
    _assert_api_headers(missing)


def test_partner_429_carries_no_store_and_hsts(conn, clock):
    body, ctype = _coin_form(slippageBps="x")
    for _ in range(20):  # coins/create: 20/min per token
        assert post_json(conn, "coins_create", body, content_type=ctype).status == 400
    limited = post_json(conn, "coins_create", body, content_type=ctype)
    assert limited.status == 429, limited.body
    assert "error" not in limited.json  # the per-endpoint bucket's answer
    _assert_api_headers(limited)


def test_idempotent_replay_carries_no_store_and_hsts(conn):
    _, body = JSON_ROUTES["trades_buy"]
    headers = {**conn.bearer(), "Content-Type": "application/json", "Idempotency-Key": "edge-replay-1"}
    first = invoke("trades_buy", "POST", JSON_ROUTES["trades_buy"][0], headers=headers, body={**body, "x": 1})
    again = invoke("trades_buy", "POST", JSON_ROUTES["trades_buy"][0], headers=headers, body={**body, "x": 1})
    assert first.status == again.status == 400
    _assert_api_headers(first)
    _assert_api_headers(again)
    assert again.headers["cache-control"] == "no-store"  # once, not twice


def test_oauth_answers_carry_hsts(client, user, ip, clock):
    from partnerctl import admin

    verifier, challenge = pkce_pair()
    cookie = admin.create_session(user["user_id"])["cookie"]
    page = consent_page(client, cookie, challenge, ip=ip)
    assert page.status == 200
    _assert_api_headers(page)
    post = consent_post({**hidden_inputs(page.body), "decision": "deny"}, cookie, ip=ip)
    assert post.status == 302
    _assert_api_headers(post)
    bad = invoke("oauth_authorize", "GET", "/oauth/authorize", query={"client_id": "nope"}, source_ip=ip)
    assert bad.status == 400
    _assert_api_headers(bad)
    token = token_call(client, {"grant_type": "nope"}, ip=ip)
    assert token.status == 400
    _assert_api_headers(token)
    assert token.headers["cache-control"] == "no-store"
