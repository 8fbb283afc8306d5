"""Fuzzing at the edges (issue 17 item 15): never a 5xx, on every route, through the real handlers.

* Hypothesis draws, per route: bodies that are not text (random bytes, sent base64 as API
  Gateway does for a binary media type, under several content types), deep nesting (1 to
  60,000 levels, bare or inside a field) and a valid body with one field given a trailing
  newline (or CR LF, NUL, U+2028). Every answer is a 4xx with the Error shape (the consent
  page may answer HTML), never a 5xx; an integer or an id with a trailing character is 400
  naming the field (an id: its format error, not "no such upload"), on every suffix for the
  staged-upload fields (`contentLength`, `imageUploadId`).
* Every integer field of every write (and the quote), `priorityFeeLamports` and
  `tipLamports` included, at the u64 extremes 0, 2^64-1 and 2^64, on a real coin with a
  funded, delegated user: never a 5xx.

Examples are bounded (10 per route and strategy) and each test item has its own client,
token and caller address, so no rate limit is reached and the module stays within a minute.
"""

from __future__ import annotations

import json
import os
from urllib.parse import urlencode

import pytest
import urllib3
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from devstack.events import ApiRequest, ApiStage, api_event, lambda_context
from testkit.chain import airdrop, new_coin
from testkit.helpers import basic, connect, handler

PK = "So11111111111111111111111111111111111111112"
FEES = {"priorityFeeLamports": "10000", "tipLamports": "1000000"}
SOL = 10**9
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + os.urandom(32)
ALL_SCOPES = "profile:read trade:execute governance:vote governance:propose coin:create"
U64_EXTREMES = ["0", str(2**64 - 1), str(2**64)]
EXAMPLES = 10
UPLOAD_ID = "upl_" + "A" * 22  # well-formed, no such upload

# function -> (method, path, resource, a body that passes validation; None for GET routes)
ROUTES = {
    "trades_buy": (
        "POST",
        "/partner/v1/trades/buy",
        None,
        {"mint": PK, "maxSolIn": "1000", "slippageBps": 100, **FEES},
    ),
    "trades_buy_exact_out": (
        "POST",
        "/partner/v1/trades/buy-exact-out",
        None,
        {"mint": PK, "tokensOut": "1000", "maxSolIn": "1000", **FEES},
    ),
    "trades_sell": (
        "POST",
        "/partner/v1/trades/sell",
        None,
        {"mint": PK, "tokensIn": "1000", "minSolOut": "0", **FEES},
    ),
    "trades_quote": ("POST", "/partner/v1/trades/quote", None, {"side": "buy", "mint": PK, "maxSolIn": "1000"}),
    "governance_vote": (
        "POST",
        "/partner/v1/governance/votes",
        None,
        {"proposal": PK, "side": "yes", "amount": "1000000", **FEES},
    ),
    "governance_vote_cancel": ("POST", "/partner/v1/governance/votes/cancel", None, {"proposal": PK, **FEES}),
    "governance_vote_withdraw": ("POST", "/partner/v1/governance/votes/withdraw", None, {"proposal": PK, **FEES}),
    "governance_settle": ("POST", "/partner/v1/governance/proposals/settle", None, {"proposal": PK, **FEES}),
    "governance_extend_mutability": (
        "POST",
        "/partner/v1/governance/proposals/extend-mutability",
        None,
        {"mint": PK, "additionalSeconds": "60", "voteDurationSeconds": "600", **FEES},
    ),
    "governance_finalize_metadata": (
        "POST",
        "/partner/v1/governance/proposals/finalize-metadata",
        None,
        {"mint": PK, "voteDurationSeconds": "600", **FEES},
    ),
    "governance_finalize_expired": (
        "POST",
        "/partner/v1/governance/metadata/finalize-expired",
        None,
        {"mint": PK, **FEES},
    ),
    "governance_bond_withdraw": ("POST", "/partner/v1/governance/bonds/withdraw", None, {"proposal": PK, **FEES}),
    "coins_create": (
        "POST",
        "/partner/v1/coins/create",
        None,
        {
            "name": "Fuzz Coin",
            "symbol": "FUZZ",
            "priorityFeeLamports": "10000",
            "slippageBps": "100",
            "initialBuySol": "1000",
            "maxBypassFeeLamports": "0",
        },
    ),
    "governance_update_content": (
        "POST",
        "/partner/v1/governance/proposals/update-content",
        None,
        {"mint": PK, **FEES, "voteDurationSeconds": "600", "baseContentRevision": "0", "description": "new"},
    ),
    "me": ("GET", "/partner/v1/me", None, None),
    "governance_read": ("GET", f"/partner/v1/governance/{PK}", "/partner/v1/governance/{mint}", None),
    "governance_votes_list": (
        "GET",
        f"/partner/v1/governance/proposals/{PK}/votes",
        "/partner/v1/governance/proposals/{proposal}/votes",
        None,
    ),
    "transaction_status": (
        "GET",
        "/partner/v1/transactions/abc/status",
        "/partner/v1/transactions/{signature}/status",
        None,
    ),
    "fees_estimate": ("GET", "/partner/v1/fees/estimate", None, None),
    "uploads_create": ("POST", "/partner/v1/uploads", None, {"contentType": "image/png", "contentLength": "70"}),
    "coins_create_staged": (
        "POST",
        "/partner/v1/coins/create",
        None,
        {"name": "Fuzz Coin", "symbol": "FUZZ", "priorityFeeLamports": "10000", "imageUploadId": UPLOAD_ID},
    ),
    "oauth_token": ("POST", "/oauth/token", None, {"grant_type": "refresh_token", "refresh_token": "app_rt_x"}),
    "oauth_revoke": ("POST", "/oauth/revoke", None, {"token": "app_at_x"}),
    "oauth_authorize": ("POST", "/oauth/authorize", None, {"decision": "approve", "request": "x", "csrf": "y"}),
}
MULTIPART = {"coins_create", "coins_create_staged", "governance_update_content"}
FUNCTION = {"coins_create_staged": "coins_create"}  # a second body for one function: a staged image
# a field whose format is checked before any lookup: the format error, not an answer about a record
FORMAT_ERRORS = {"imageUploadId": "must be an uploadId"}
FORM_ROUTES = {"oauth_token", "oauth_revoke", "oauth_authorize"}
TRAILING = ["\n", "\r\n", " ", "\x00", "\u2028", "\t"]
CONTENT_TYPES = [
    "application/json",
    "application/octet-stream",
    "multipart/form-data; boundary=xyz",
    "application/x-www-form-urlencoded",
    "text/plain",
    None,
]


@pytest.fixture
def caller(aws_stack, chain, pin_server, clock, ip):
    from partnerctl import admin

    client = admin.create_client(
        admin.NewClient(name="Fuzz App", redirect_uri="http://localhost:8080/callback", tier="Partner")
    )
    user = admin.create_user(twitter="fuzz")
    conn = connect(client, user, scope=ALL_SCOPES, ip=ip)
    return conn, ip


def _headers(function: str, conn, content_type: str | None, cookie: str | None = None) -> dict[str, str]:
    headers: dict[str, str] = {"Accept": "application/json"}
    if function in ("oauth_token", "oauth_revoke"):
        headers["Authorization"] = basic(conn.client["client_id"], conn.client["api_key"])
    elif function == "oauth_authorize":
        from partnerctl import admin

        headers["Cookie"] = cookie or admin.create_session(conn.user["user_id"])["cookie"]
    else:
        headers["Authorization"] = f"Bearer {conn.access}"
    if content_type is not None:
        headers["Content-Type"] = content_type
    return headers


def call(
    function: str, conn, ip: str, body: str | bytes | None, content_type: str | None, *, binary: bool = False
) -> dict:
    method, path, resource, _ = ROUTES[function]
    event = api_event(
        ApiRequest(
            method, path, headers=_headers(function, conn, content_type), body=body, source_ip=ip, resource=resource
        ),
        ApiStage(binary_media_types=["*/*"] if binary else None),
    )
    name = FUNCTION.get(function, function)
    return handler(name)(event, lambda_context(name))


def assert_no_5xx(out: dict, what) -> None:
    status = out["statusCode"]
    assert status < 500, (what, status, (out.get("body") or "")[:300])
    body = out.get("body") or ""
    if status >= 400 and body.startswith("{"):
        data = json.loads(body)
        assert isinstance(data, dict)
        assert "error" in data or (status == 429 and "retryAfterSeconds" in data), (what, body[:300])


def encode(function: str, fields: dict) -> tuple[str | bytes, str]:
    if function in MULTIPART:
        parts: dict = {k: str(v) for k, v in fields.items()}
        if function == "coins_create":
            parts["image"] = ("logo.png", PNG, "image/png")
        return urllib3.encode_multipart_formdata(parts)
    if function in FORM_ROUTES:
        return urlencode(fields), "application/x-www-form-urlencoded"
    return json.dumps(fields), "application/json"


FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.mark.parametrize("function", sorted(ROUTES))
@FUZZ
@given(data=st.binary(max_size=600), ctype=st.sampled_from(CONTENT_TYPES))
def test_binary_bodies_never_5xx(caller, function, data, ctype):
    conn, ip = caller
    out = call(function, conn, ip, data or b"\xff", ctype, binary=True)
    assert_no_5xx(out, (function, data[:40], ctype))


@pytest.mark.parametrize("function", sorted(f for f, r in ROUTES.items() if r[0] == "POST"))
@FUZZ
@given(
    depth=st.integers(min_value=1, max_value=60_000),
    kind=st.sampled_from("[{"),
    where=st.sampled_from(["bare", "field", "unclosed"]),
)
def test_deep_nesting_never_5xx(caller, function, depth, kind, where):
    conn, ip = caller
    opened, closed = ("[" * depth, "]" * depth) if kind == "[" else ('{"a":' * depth, "}" * depth)
    inner = opened + ("" if kind == "[" else "1") + closed
    text = {"bare": inner, "field": '{"mint":' + inner + "}", "unclosed": opened}[where]
    ctype = "application/x-www-form-urlencoded" if function == "oauth_authorize" else "application/json"
    out = call(function, conn, ip, text, ctype)
    assert_no_5xx(out, (function, depth, kind, where))
    if function not in FORM_ROUTES or function == "oauth_token":
        assert out["statusCode"] == 400, out["body"][:200]


@pytest.mark.parametrize("function", sorted(f for f, r in ROUTES.items() if r[3]))
@FUZZ
@given(data=st.data(), suffix=st.sampled_from(TRAILING))
def test_a_trailing_character_on_any_field_never_5xx(caller, function, data, suffix):
    conn, ip = caller
    fields = dict(ROUTES[function][3])
    name = data.draw(st.sampled_from(sorted(k for k, v in fields.items() if isinstance(v, str))))
    fields[name] = fields[name] + suffix
    body, ctype = encode(function, fields)
    out = call(function, conn, ip, body, ctype)
    assert_no_5xx(out, (function, name, suffix))
    assert_trailing_refused(out, function, name, fields[name].removesuffix(suffix))


def assert_trailing_refused(out: dict, function: str, name: str, value: str) -> None:
    """An integer or an id with a trailing character is 400 naming the field (an id: its format error)."""
    if (value.isdigit() or name in FORMAT_ERRORS) and function not in FORM_ROUTES:
        assert out["statusCode"] == 400, out["body"][:200]
        body = json.loads(out["body"])
        assert body.get("field") == name, out["body"][:200]
        assert FORMAT_ERRORS.get(name, "") in body["message"], out["body"][:200]


@pytest.mark.parametrize("suffix", TRAILING)
@pytest.mark.parametrize(
    "function,name", [("uploads_create", "contentLength"), ("coins_create_staged", "imageUploadId")]
)
def test_a_trailing_character_on_an_upload_field_is_refused(caller, function, name, suffix):
    """Issue 23 item 5: `contentLength: "70\n"` was 200 and `imageUploadId=upl_...\n` "no such upload"
    (re.match with `$`); every suffix, not only those Hypothesis draws."""
    conn, ip = caller
    fields = dict(ROUTES[function][3])
    fields[name] += suffix
    body, ctype = encode(function, fields)
    out = call(function, conn, ip, body, ctype)
    assert_trailing_refused(out, function, name, ROUTES[function][3][name])
    assert json.loads(out["body"])["error"] == "invalid_input"


# ------------------------------------------------------------------ u64 extremes on a real coin

U64_FIELDS = {
    "trades_buy": ["maxSolIn", "minTokensOut", "priorityFeeLamports", "tipLamports"],
    "trades_buy_exact_out": ["tokensOut", "maxSolIn", "priorityFeeLamports", "tipLamports"],
    "trades_sell": ["tokensIn", "minSolOut", "priorityFeeLamports", "tipLamports"],
    "trades_quote": ["maxSolIn"],
    "governance_vote": ["amount", "priorityFeeLamports", "tipLamports"],
    "governance_vote_cancel": ["priorityFeeLamports", "tipLamports"],
    "governance_vote_withdraw": ["priorityFeeLamports", "tipLamports"],
    "governance_settle": ["priorityFeeLamports", "tipLamports"],
    "governance_extend_mutability": ["additionalSeconds", "voteDurationSeconds", "priorityFeeLamports", "tipLamports"],
    "governance_finalize_metadata": ["voteDurationSeconds", "priorityFeeLamports", "tipLamports"],
    "governance_finalize_expired": ["voteDurationSeconds", "priorityFeeLamports", "tipLamports"],
    "governance_bond_withdraw": ["priorityFeeLamports", "tipLamports"],
    "coins_create": ["priorityFeeLamports", "initialBuySol", "maxBypassFeeLamports", "slippageBps"],
    "governance_update_content": ["priorityFeeLamports", "tipLamports", "voteDurationSeconds", "baseContentRevision"],
}


def _u64_cases():
    for function, names in U64_FIELDS.items():
        for name in names:
            for value in U64_EXTREMES:
                yield pytest.param(function, name, value, id=f"{function}-{name}-{value}")


@pytest.fixture(scope="module")
def live_coin(chain):
    return new_coin(chain.url, "Fuzz Coin", "FZZ")


@pytest.mark.parametrize("function,name,value", list(_u64_cases()))
def test_u64_extremes_never_5xx(aws_stack, chain, pin_server, clock, ip, live_coin, function, name, value):
    from partnerctl import admin

    client = admin.create_client(
        admin.NewClient(name="U64 App", redirect_uri="http://localhost:8080/callback", tier="Partner")
    )
    user = admin.create_user()
    airdrop(chain.url, user["wallet"], 20 * SOL)
    conn = connect(client, user, scope=ALL_SCOPES, ip=ip)
    fields = {k: (live_coin if v == PK else v) for k, v in ROUTES[function][3].items()}
    if function.startswith("trades_") and function != "trades_quote":
        fields.pop("slippageBps", None)
        fields.setdefault(
            {"trades_buy": "minTokensOut", "trades_sell": "minSolOut", "trades_buy_exact_out": "maxSolIn"}[function],
            "1",
        )
    fields[name] = value
    body, ctype = encode(function, fields)
    out = call(function, conn, ip, body, ctype)
    assert_no_5xx(out, (function, name, value))
