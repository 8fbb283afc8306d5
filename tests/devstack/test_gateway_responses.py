"""The devstack gateway is no kinder than AWS: the quotas of devstack/limits.py, the stage
throttle and API Gateway's route selection, each answered with the gateway response that
template.yaml defines, rendered as API Gateway renders it (no server, no moto: the
gateway's `handle` with the real template and stand-in handlers)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from devstack import limits
from devstack.cfn import load_template
from devstack.gateway import Gateway, Request
from devstack.gateway_responses import GatewayError, render, substitute
from partner.core.errors import CATALOGUE

ROOT = Path(__file__).resolve().parents[2]
REAL_TEMPLATE = ROOT / "template.yaml"
BOUNDARY = "b0undary"
MULTIPART = f"multipart/form-data; boundary={BOUNDARY}"


def _request(
    method: str,
    path: str,
    body: bytes = b"",
    content_type: str | None = None,
    headers: list[tuple[str, str]] | None = None,
) -> Request:
    pairs = [("Host", "127.0.0.1:3000"), ("User-Agent", "test/1")] + (headers or [])
    if content_type:
        pairs.append(("Content-Type", content_type))
    return Request(
        method=method, path=path, query_string="", headers=pairs, body=body, source_ip="127.0.0.9", raw_path=path
    )


def _form(image: bytes) -> bytes:
    return (
        (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="name"\r\n\r\nCoin\r\n'
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\n'
            "Content-Type: image/png\r\n\r\n"
        ).encode()
        + image
        + f"\r\n--{BOUNDARY}--\r\n".encode()
    )


def _error(response, status: int, code: str) -> dict:
    got_status, headers, body = response
    assert got_status == status, (got_status, body[:300])
    assert dict((k.lower(), v) for k, v in headers)["content-type"] == "application/json"
    data = json.loads(body)
    assert data["error"] == code and isinstance(data["message"], str) and isinstance(data["retryable"], bool)
    assert code in CATALOGUE
    return data


class Calls:
    """A stand-in handler for every function: records calls and answers `answer(event)`."""

    def __init__(self, answer=None) -> None:
        self.events: list[dict] = []
        self.answer = answer or (lambda event: {"statusCode": 200, "body": "{}"})

    def __call__(self, event, context):
        self.events.append(event)
        return self.answer(event)


@pytest.fixture()
def gateway() -> Gateway:
    gw = Gateway(REAL_TEMPLATE, log=False)
    gw.calls = Calls()
    gw.handler_for = lambda fn: gw.calls  # the template's routes, quotas and responses; stand-in code
    return gw


# --------------------------------------------------------------------------- rendering


def test_templates_substitute_context_variables_and_headers():
    responses = {
        "THROTTLED": {
            "StatusCode": 429,
            "Headers": {
                "retry-after": "'7'",
                "x-echo": "method.request.header.X-In",
                "x-q": "method.request.querystring.q",
                "x-stage-variable": "stageVariables.nope",
            },
            "Templates": {
                "application/json": '{"m":$context.error.messageString,'
                '"id":"$context.requestId","type":"${context.error.responseType}",'
                '"unknown":"$context.nothing.here","ip":"$context.identity.sourceIp"}'
            },
        }
    }
    error = GatewayError("THROTTLED", 429, 'say "hi"', "TooManyRequestsException")
    status, headers, body = render(
        responses,
        error,
        {"requestId": "r-1", "identity.sourceIp": "10.0.0.1"},
        request_headers=[("x-in", "a"), ("X-In", "b")],
        query={"q": ["1", "2"]},
    )
    assert status == 429
    assert ("retry-after", "7") in headers and ("x-echo", "b") in headers and ("x-q", "2") in headers
    assert not any(k == "x-stage-variable" for k, _ in headers)
    assert ("x-amzn-ErrorType", "TooManyRequestsException") in headers and ("x-amzn-RequestId", "r-1") in headers
    assert json.loads(body) == {
        "m": 'say "hi"',  # messageString: a JSON string
        "id": "r-1",
        "type": "THROTTLED",
        "unknown": "",
        "ip": "10.0.0.1",
    }
    # $context.error.message is substituted as it is, quotes and all (hence messageString in JSON)
    assert substitute('"$context.error.message"', {"error.message": 'say "hi"'}) == '"say "hi""'
    assert substitute("$context.a.b/${context.c}", {"a.b": 1, "c": "x"}) == "1/x"


def test_undefined_types_fall_back_to_default_4xx_5xx_then_to_api_gateways_own():
    default_4xx = {
        "StatusCode": None,
        "Headers": {},
        "Templates": {"application/json": '{"e":"$context.error.responseType"}'},
    }
    status, _, body = render({"DEFAULT_4XX": default_4xx}, GatewayError.of("MISSING_AUTHENTICATION_TOKEN"), {})
    assert status == 403 and json.loads(body) == {"e": "MISSING_AUTHENTICATION_TOKEN"}
    status, _, body = render({"DEFAULT_4XX": {**default_4xx, "StatusCode": 400}}, GatewayError.of("THROTTLED"), {})
    assert status == 400 and json.loads(body) == {"e": "THROTTLED"}
    status, _, body = render({"DEFAULT_4XX": default_4xx}, GatewayError.of("INTEGRATION_TIMEOUT"), {})
    assert status == 504 and json.loads(body) == {"message": "Endpoint request timed out"}
    for kind, (status_code, message, _) in {
        "REQUEST_TOO_LARGE": (413, "Request Too Long", ""),
        "INTEGRATION_FAILURE": (502, "Internal server error", ""),
    }.items():
        status, _, body = render({}, GatewayError.of(kind), {})
        assert status == status_code and json.loads(body) == {"message": message}


def test_the_templates_gateway_responses_are_the_error_shape():
    responses = load_template(REAL_TEMPLATE).gateway_responses()
    expected = {
        "DEFAULT_4XX": (None, "request_rejected"),
        "DEFAULT_5XX": (None, "internal"),
        "MISSING_AUTHENTICATION_TOKEN": (404, "not_found"),
        "THROTTLED": (429, "rate_limit_exceeded"),
        "REQUEST_TOO_LARGE": (413, "payload_too_large"),
        "INTEGRATION_TIMEOUT": (504, "gateway_timeout"),
        "INTEGRATION_FAILURE": (502, "internal"),
    }
    assert set(responses) == set(expected)
    for kind, (status, code) in expected.items():
        spec = responses[kind]
        assert spec["StatusCode"] == status, kind
        assert set(spec["Templates"]) == {"application/json"}, kind
        rendered = substitute(spec["Templates"]["application/json"], {"error.messageString": json.dumps("m")})
        body = json.loads(rendered)
        assert body["error"] == code and isinstance(body["message"], str) and isinstance(body["retryable"], bool)
        assert code in CATALOGUE and (status is None or code == "internal" or CATALOGUE[code][0] == status)
    assert responses["THROTTLED"]["Headers"] == {"retry-after": "'1'"}
    assert "/partner/v1/uploads" in responses["REQUEST_TOO_LARGE"]["Templates"]["application/json"]


def test_the_quotas_are_aws_and_the_template_carries_throttle_and_timeouts(gateway):
    assert limits.API_GATEWAY_MAX_REQUEST_BYTES == 10_485_760
    assert limits.LAMBDA_MAX_REQUEST_BYTES == limits.LAMBDA_MAX_RESPONSE_BYTES == 6_291_456
    assert limits.INTEGRATION_TIMEOUT_MS == 29_000
    assert gateway.stage_throttle == (200.0, 500.0)  # MethodSettings /* *
    assert gateway.integration_timeout_ms is None
    assert {r.timeout_ms for r in gateway.routes} == {29_000}


# --------------------------------------------------------------------------- routing


def test_a_literal_resource_wins_over_mint_and_fixed_governance_paths_have_a_get(gateway):
    for fixed in ("votes", "proposals", "metadata", "bonds"):
        route, params, _ = gateway.match("GET", f"/partner/v1/governance/{fixed}")
        assert route.function.logical_id == "GovernanceReadFunction" and route.path.endswith(f"/{fixed}")
        assert params == {}
    route, params, _ = gateway.match("GET", "/partner/v1/governance/So11111111111111111111111111111111111111112")
    assert route.path == "/partner/v1/governance/{mint}" and params == {
        "mint": "So11111111111111111111111111111111111111112"
    }
    route, params, _ = gateway.match("GET", "/partner/v1/governance/proposals/P1/votes")
    assert route.function.logical_id == "GovernanceVotesListFunction" and params == {"proposal": "P1"}


@pytest.mark.parametrize(
    "method,path",
    [
        ("GET", "/partner/v1/nope"),
        ("POST", "/partner/v1/me"),
        ("GET", "/partner/v1/trades"),
        ("DELETE", "/partner/v1/governance/votes"),
        ("GET", "/partner/v1/governance/votes/cancel"),
        ("GET", "/"),
    ],
)
def test_no_route_answers_not_found_from_the_template(gateway, method, path):
    body = _error(gateway.handle(_request(method, path)), 404, "not_found")
    assert body["retryable"] is False and gateway.calls.events == []


# --------------------------------------------------------------------------- throttle


def test_stage_throttle_answers_throttled_from_the_template(gateway):
    gateway.stage_throttle = (0, 2)  # no refill: deterministic
    assert gateway.handle(_request("GET", "/partner/v1/me"))[0] == 200
    assert gateway.handle(_request("GET", "/partner/v1/me"))[0] == 200
    response = gateway.handle(_request("GET", "/partner/v1/me"))
    body = _error(response, 429, "rate_limit_exceeded")
    assert body["retryable"] is True and body["retryAfterSeconds"] == 1
    assert ("retry-after", "1") in response[1]
    assert len(gateway.calls.events) == 2
    assert gateway.handle(_request("GET", "/partner/v1/governance/votes"))[0] == 200  # its own bucket


# --------------------------------------------------------------------------- Lambda's payload quotas


def test_an_event_over_lambdas_request_quota_is_request_too_large(gateway):
    # 4,800,000 bytes of image: base64 in the event makes it 6.4 MB, over 6,291,456
    response = gateway.handle(
        _request("POST", "/partner/v1/coins/create", _form(b"\x89PNG" + b"\0" * 4_800_000), MULTIPART)
    )
    body = _error(response, 413, "payload_too_large")
    assert "/partner/v1/uploads" in body["message"] and body["retryable"] is False
    assert gateway.calls.events == []  # the function never ran

    # 4,000,000 bytes: 5.33 MB of base64, under the quota; the function gets it
    assert (
        gateway.handle(_request("POST", "/partner/v1/coins/create", _form(b"\x89PNG" + b"\0" * 4_000_000), MULTIPART))[
            0
        ]
        == 200
    )
    event = gateway.calls.events[-1]
    assert event["isBase64Encoded"] is True
    assert len(json.dumps(event, separators=(",", ":"))) <= limits.LAMBDA_MAX_REQUEST_BYTES


def test_a_json_event_is_measured_as_json(gateway):
    # not a binary media type: no base64, so the same bytes as text fit where base64 would not
    text = b'{"x":"' + b"a" * 5_000_000 + b'"}'
    assert gateway.handle(_request("POST", "/partner/v1/trades/buy", text, "application/json"))[0] == 200
    assert gateway.calls.events[-1]["isBase64Encoded"] is False


def test_a_response_over_lambdas_quota_is_the_integration_failure(gateway):
    over = limits.LAMBDA_MAX_RESPONSE_BYTES
    gateway.calls.answer = lambda event: {"statusCode": 200, "body": "a" * over}
    body = _error(gateway.handle(_request("GET", "/partner/v1/me")), 502, "internal")
    assert body["retryable"] is True
    gateway.calls.answer = lambda event: {"statusCode": 200, "body": "a" * (over - 1000)}
    status, _, data = gateway.handle(_request("GET", "/partner/v1/me"))
    assert status == 200 and len(data) == over - 1000


def test_a_function_that_raises_or_answers_malformed_is_the_integration_failure(gateway):
    def boom(event):
        raise RuntimeError("boom")

    for answer in (boom, lambda event: {"statusCode": "x"}, lambda event: "not an object"):
        gateway.calls.answer = answer
        _error(gateway.handle(_request("GET", "/partner/v1/me")), 502, "internal")


def test_no_answer_within_the_integration_timeout_is_integration_timeout(gateway):
    release = threading.Event()
    finished = threading.Event()

    def slow(event):
        release.wait(60)
        finished.set()
        return {"statusCode": 200, "body": "{}"}

    gateway.calls.answer = slow
    gateway.integration_timeout_ms = 50  # tests only; the default is the template's / limits' 29 s
    try:
        body = _error(
            gateway.handle(_request("POST", "/partner/v1/trades/buy", b"{}", "application/json")),
            504,
            "gateway_timeout",
        )
        assert body["retryable"] is False and "29 seconds" in body["message"]
        assert not finished.is_set()  # the function is still running, as a Lambda would be
    finally:
        release.set()
    assert finished.wait(10)
