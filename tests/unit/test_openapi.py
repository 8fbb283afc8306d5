"""docs/openapi.json: in sync with the generator, valid OpenAPI 3.1, covering every route of
template.yaml with its method, scope, request schema and the spec's error codes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from partner.chain.errors import GovernanceErrorCode, spec_code_for_program_error
from partner.core import scopes
from partner.core.errors import CATALOGUE
from partner.features import models, trading
from partner.features.governance import content, writes
from partner.features.launch import form as launch
from testkit.helpers import catalogue_section
from tools import openapi

ROOT = Path(__file__).resolve().parents[2]
DOC_PATH = ROOT / "docs" / "openapi.json"


@pytest.fixture(scope="module")
def doc() -> dict:
    return openapi.generate()


def _op(doc: dict, method: str, path: str) -> dict:
    return doc["paths"][path][method.lower()]


def _codes(operation: dict, status: int) -> set[str]:
    response = operation["responses"].get(str(status))
    if response is None:
        return set()
    schema = response["content"]["application/json"]["schema"]
    found: set[str] = set()

    def walk(node):
        if isinstance(node, dict):
            if "error" in node.get("properties", {}) and "enum" in node["properties"]["error"]:
                found.update(node["properties"]["error"]["enum"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    return found


def test_checked_in_document_is_current(doc):
    assert DOC_PATH.exists(), "run `python -m tools.openapi`"
    assert DOC_PATH.read_text() == openapi.render(doc), "docs/openapi.json is stale: run `python -m tools.openapi`"


def test_document_is_valid_openapi_31(doc):
    validator = pytest.importorskip("openapi_spec_validator")
    assert doc["openapi"].startswith("3.1")
    validator.validate(doc)


def test_every_template_route_is_documented_with_its_method(doc):
    from devstack.cfn import load_template

    template = load_template(ROOT / "template.yaml")
    # the platform API (IAM, the platform's back end only) is not the partners' document: docs/operations.md
    routes = {
        (ev.method.lower(), ev.path)
        for fn in template.functions()
        for ev in fn.api_events
        if not ev.path.startswith("/platform/v1/")
    }
    assert len(routes) >= 21
    documented = {(m, p) for p, item in doc["paths"].items() for m in item}
    # GET on the fixed governance paths is GET governance/{mint} with a malformed mint (404)
    assert openapi.FIXED_PATH_GETS <= routes
    assert routes - documented == openapi.FIXED_PATH_GETS
    assert documented - routes == set(), "the document describes a route template.yaml does not have"
    mint_get = doc["paths"]["/partner/v1/governance/{mint}"]["get"]["description"]
    assert all(f"/partner/v1/governance/{f}`" in mint_get for f in ("votes", "proposals", "metadata", "bonds"))


def test_big_images_are_sent_through_uploads(doc):
    assert "413 payload_too_large" in doc["info"]["description"]
    for path in ("/partner/v1/coins/create", "/partner/v1/governance/proposals/update-content"):
        operation = _op(doc, "POST", path)
        assert "/partner/v1/uploads" in operation["description"]
        assert "payload_too_large" in _codes(operation, 413)


# The spec's endpoint index: scope per endpoint ("" = a valid token, no scope).
SPEC_SCOPES = {
    ("GET", "/partner/v1/me"): "profile:read",
    ("GET", "/partner/v1/governance/{mint}"): "",
    ("GET", "/partner/v1/governance/proposals/{proposal}/votes"): "",
    ("GET", "/partner/v1/transactions/{signature}/status"): "",
    ("POST", "/partner/v1/trades/buy"): "trade:execute",
    ("POST", "/partner/v1/trades/buy-exact-out"): "trade:execute",
    ("POST", "/partner/v1/trades/sell"): "trade:execute",
    ("POST", "/partner/v1/governance/votes"): "governance:vote",
    ("POST", "/partner/v1/governance/votes/cancel"): "governance:vote",
    ("POST", "/partner/v1/governance/votes/withdraw"): "governance:vote",
    ("POST", "/partner/v1/governance/proposals/settle"): "governance:vote",
    ("POST", "/partner/v1/governance/proposals/update-content"): "governance:propose",
    ("POST", "/partner/v1/governance/proposals/extend-mutability"): "governance:propose",
    ("POST", "/partner/v1/governance/proposals/finalize-metadata"): "governance:propose",
    ("POST", "/partner/v1/governance/metadata/finalize-expired"): "governance:propose",
    ("POST", "/partner/v1/governance/bonds/withdraw"): "governance:propose",
    ("POST", "/partner/v1/coins/create"): "coin:create",
}

# Error codes each endpoint can return per the spec (its endpoint sections, the error tables
# by area, the rules "every /partner/v1 call", "writes need delegation", "429 tier budget").
_TRADING = [*catalogue_section("invalid_partner_fee", "math_overflow"), "trade_cap_exceeded", "daily_cap_exceeded"]
_GOVERNANCE = [spec_code_for_program_error(code) for code in GovernanceErrorCode]  # the program's, one each
_INFRA = ["rpc_unavailable", "wallet_sign_failed", "internal", "tx_expired", "tx_failed", "tx_too_large"]
_ADMISSION = ["invalid_token", "insufficient_scope", "delegation_missing", "rate_limit_exceeded"]
_WRITE = [*_ADMISSION, "invalid_input", "invalid_wallet", *_INFRA]
SPEC_ERRORS: dict[tuple[str, str], list[str]] = {
    ("POST", "/oauth/token"): [
        "invalid_request",
        "unsupported_grant_type",
        "invalid_grant",
        "invalid_client",
        "too_many_failed_attempts",
    ],
    ("POST", "/oauth/revoke"): ["invalid_client", "too_many_failed_attempts"],
    ("GET", "/oauth/authorize"): [
        "invalid_request",
        "invalid_scope",
        "scope_not_allowed",
        "invalid_redirect_uri",
        "unknown_client",
    ],
    ("GET", "/partner/v1/me"): ["invalid_token", "insufficient_scope", "rate_limit_exceeded"],
    ("GET", "/partner/v1/governance/{mint}"): ["invalid_token", "governance_not_found", "rate_limit_exceeded"],
    ("GET", "/partner/v1/governance/proposals/{proposal}/votes"): ["invalid_token", "rate_limit_exceeded"],
    ("GET", "/partner/v1/transactions/{signature}/status"): ["invalid_token", "rate_limit_exceeded"],
    **{("POST", f"/partner/v1/trades/{p}"): _WRITE + _TRADING for p in ("buy", "buy-exact-out", "sell")},
    **{
        ("POST", f"/partner/v1/governance/{p}"): _WRITE + _GOVERNANCE
        for p in (
            "votes",
            "votes/cancel",
            "votes/withdraw",
            "proposals/settle",
            "proposals/extend-mutability",
            "proposals/finalize-metadata",
            "metadata/finalize-expired",
            "bonds/withdraw",
        )
    },
    ("POST", "/partner/v1/governance/proposals/update-content"): _WRITE
    + _GOVERNANCE
    + ["invalid_multipart", "invalid_image_type", "pinning_unavailable"]
    + catalogue_section("invalid_name", "telegram_too_long"),  # the content fields' codes
    ("POST", "/partner/v1/coins/create"): _WRITE
    + [
        "image_required",
        "invalid_image_type",
        "invalid_multipart",
        "deploy_cooldown_active",
        "launch_identity_limit_reached",
        "invalid_name",
        "invalid_symbol",
        "name_too_long",
        "symbol_too_long",
        "pinning_unavailable",
        "insufficient_sol",
    ],
}


@pytest.mark.parametrize("method,path", sorted(SPEC_ERRORS))
def test_every_spec_error_code_is_listed_under_its_status(doc, method, path):
    operation = _op(doc, method, path)
    missing = [code for code in SPEC_ERRORS[(method, path)] if code not in _codes(operation, CATALOGUE[code][0])]
    assert missing == []
    for status in operation["responses"]:
        if status.startswith(("4", "5")):
            for code in _codes(operation, int(status)):
                assert CATALOGUE[code][0] == int(status), (code, status)


@pytest.mark.parametrize("method,path", sorted(SPEC_SCOPES))
def test_partner_routes_need_a_bearer_token_with_the_spec_scope(doc, method, path):
    security = _op(doc, method, path)["security"]
    expected = [SPEC_SCOPES[(method, path)]] if SPEC_SCOPES[(method, path)] else []
    assert {"oauth2": expected} in security
    assert {"bearerAuth": []} in security


def test_oauth2_authorization_code_flow(doc):
    schemes = doc["components"]["securitySchemes"]
    flow = schemes["oauth2"]["flows"]["authorizationCode"]
    assert flow["authorizationUrl"] == "{auth_url}/oauth/authorize"
    assert flow["tokenUrl"] == "/oauth/token"
    assert (
        sorted(flow["scopes"])
        == sorted(["profile:read", "trade:execute", "governance:vote", "governance:propose", "coin:create"])
        == sorted(scopes.ALL)
    )
    assert schemes["clientBasic"] == {**schemes["clientBasic"], "type": "http", "scheme": "basic"}
    for path in ("/oauth/token", "/oauth/revoke"):
        assert {"clientBasic": []} in doc["paths"][path]["post"]["security"]


def test_generate_with_a_real_auth_url():
    flow = openapi.generate(auth_url="http://127.0.0.1:3000")["components"]["securitySchemes"]["oauth2"]["flows"]
    assert flow["authorizationCode"]["authorizationUrl"] == "http://127.0.0.1:3000/oauth/authorize"


JSON_BODIES = {
    "/partner/v1/trades/buy": trading.BuyRequest,
    "/partner/v1/trades/buy-exact-out": trading.BuyExactOutRequest,
    "/partner/v1/trades/sell": trading.SellRequest,
    "/partner/v1/governance/votes": writes.VoteRequest,
    "/partner/v1/governance/votes/cancel": writes.CancelVoteRequest,
    "/partner/v1/governance/votes/withdraw": writes.WithdrawVoteRequest,
    "/partner/v1/governance/proposals/settle": writes.SettleRequest,
    "/partner/v1/governance/proposals/extend-mutability": writes.ExtendMutabilityRequest,
    "/partner/v1/governance/proposals/finalize-metadata": writes.FinalizeMetadataRequest,
    "/partner/v1/governance/metadata/finalize-expired": writes.FinalizeExpiredRequest,
    "/partner/v1/governance/bonds/withdraw": writes.BondWithdrawRequest,
}


def _body_schema(doc: dict, path: str, media: str) -> dict:
    ref = doc["paths"][path]["post"]["requestBody"]["content"][media]["schema"]["$ref"]
    return doc["components"]["schemas"][ref.rsplit("/", 1)[1]]


@pytest.mark.parametrize("path", sorted(JSON_BODIES))
def test_json_request_schema_matches_the_handler_model(doc, path):
    model = JSON_BODIES[path]
    schema = _body_schema(doc, path, "application/json")
    assert set(schema["properties"]) == set(model.model_fields)
    assert set(schema["required"]) == {n for n, f in model.model_fields.items() if f.is_required()}
    assert schema["additionalProperties"] is False
    for name in ("priorityFeeLamports", "tipLamports"):
        assert schema["properties"][name]["type"] == "string" and "pattern" in schema["properties"][name]


@pytest.mark.parametrize(
    "path,model,extra",
    [
        ("/partner/v1/governance/proposals/update-content", content.UpdateContentFields, set()),
        # `image` or (added, issue 18) `imageUploadId`: neither is required alone
        ("/partner/v1/coins/create", launch.CoinCreateForm, {"name", "symbol"}),
    ],
)
def test_multipart_request_schema_lists_the_form_fields(doc, path, model, extra):
    schema = _body_schema(doc, path, "multipart/form-data")
    assert set(schema["properties"]) == set(model.model_fields) | {"image"}
    assert set(schema["required"]) == {n for n, f in model.model_fields.items() if f.is_required()} | extra
    assert (
        schema["properties"]["image"].get("format") == "binary"
        or schema["properties"]["image"]["anyOf"][0]["format"] == "binary"
    )
    assert "imageUploadId" in schema["properties"]


SAMPLES = [
    "0",
    "00",
    "1",
    "999",
    "1000",
    "0001000",
    "999999",
    "1000000",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999",
    "018446744073709551615",
    "1" * 19,
    "9" * 19,
    "1.5",
    "-1",
    " 1",
    "1e3",
    "",
    "abc",
    "10000",
    "5000",
    "10001",
    "0010000",
    "18446744073709",
    "18446744073710",
    "00000018446744073709",
    "000000018446744073709",
    "9999999999999",
    "99999999999999",
    "18446744073708",
]


def _accepts(fragment: dict, value: str) -> bool:
    return re.search(fragment["pattern"], value) is not None and len(value) <= fragment.get("maxLength", 10**9)


@pytest.mark.parametrize(
    "fragment_name,check",
    [
        ("AMOUNT", models._amount),
        ("POSITIVE_AMOUNT", models._positive),
        ("PRIORITY_FEE", models._priority_fee),
        ("TIP", models._at_least(1_000_000)),
    ],
)
def test_amount_patterns_agree_with_the_validators(fragment_name, check):
    fragment = getattr(models, fragment_name)
    for value in SAMPLES:
        try:
            check(value)
            valid = True
        except ValueError:
            valid = False
        assert _accepts(fragment, value) == valid, (fragment_name, value)


def test_coin_create_slippage_pattern_agrees_with_the_form_rule(doc):
    prop = _body_schema(doc, "/partner/v1/coins/create", "multipart/form-data")["properties"]["slippageBps"]
    fragment = prop["anyOf"][0]
    for value in SAMPLES:
        try:
            launch._slippage(value)
            valid = True
        except ValueError:
            valid = False
        assert _accepts(fragment, value) == valid, value


def test_error_and_response_components(doc):
    components = doc["components"]["schemas"]
    assert components["Error"]["required"] == ["error"]
    assert {"message", "action", "retryable"} <= set(components["Error"]["properties"])
    trade = components["TradeResponse"]
    assert trade["properties"]["status"]["const"] == "submitted"
    assert components["GovernanceWriteResponse"]["properties"]["status"]["const"] == "processed"
    assert set(components["CoinCreateResponse"]["required"]) >= {
        "signature",
        "mint",
        "status",
        "metadataUri",
        "imageUri",
        "initialBuyPlan",
    }
    assert components["TokenResponse"]["properties"]["token_type"]["const"] == "Bearer"
    assert "HTTPValidationError" not in components


def test_cli_check_mode(tmp_path, monkeypatch):
    monkeypatch.setattr(openapi, "OUTPUT", tmp_path / "openapi.json")
    monkeypatch.setattr(openapi, "ROOT", tmp_path)
    assert openapi.main(["--check"]) == 1
    assert openapi.main([]) == 0
    assert openapi.main(["--check"]) == 0
    assert json.loads((tmp_path / "openapi.json").read_text())["info"]["title"] == "Partner API"


def test_uploads_route_is_documented_with_either_scope_and_no_idempotency_key(doc):
    op = doc["paths"]["/partner/v1/uploads"]["post"]
    assert op["security"] == [{"oauth2": ["coin:create"]}, {"oauth2": ["governance:propose"]}, {"bearerAuth": []}]
    assert "Idempotency-Key" not in {p.get("name") for p in op.get("parameters", [])}
    assert _body_schema(doc, "/partner/v1/uploads", "application/json")["required"] == ["contentType", "contentLength"]
    response = op["responses"]["200"]["content"]["application/json"]["schema"]
    ref = response["$ref"].rsplit("/", 1)[-1]
    assert set(doc["components"]["schemas"][ref]["properties"]) == {
        "uploadId",
        "url",
        "fields",
        "expiresAt",
        "maxBytes",
    }
