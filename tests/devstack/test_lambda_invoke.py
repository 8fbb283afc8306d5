"""devstack.lambdas: Lambda's Invoke API on the gateway, called with boto3's lambda client (as a
function calls it with AWS_ENDPOINT_URL_LAMBDA pointed at the gateway), runs the template's functions;
only for a request signed (SigV4, service lambda) by a key it knows, never for a browser's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import boto3
import httpx
import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.exceptions import ClientError

from devstack.gateway import Gateway, Request, start_gateway
from devstack.lambdas import Invoker, function_name

ROOT = Path(__file__).resolve().parents[2]
FIXTURE_TEMPLATE = Path(__file__).resolve().parent / "fixtures" / "template.yaml"
ARN = "arn:aws:lambda:us-east-1:123456789012:function:"
CLIENT = {"region_name": "us-east-1", "aws_access_key_id": "testing", "aws_secret_access_key": "testing"}
ROLE = "arn:aws:iam::123456789012:role/functions"
ECHO = "/2015-03-31/functions/EchoFunction/invocations"


@pytest.fixture(scope="module")
def served():
    handle = start_gateway(FIXTURE_TEMPLATE, {}, port=0, log=False)
    invoker = Invoker(handle.gateway, credentials={"testing": ("testing", ROLE)})
    handle.extra_routes.update(invoker.routes())
    calls: list[tuple[str, Any, Any]] = []
    real_call = handle.gateway.call

    def call(fn: Any, event: Any) -> Any:
        try:
            result = real_call(fn, event)
        except Exception as exc:
            calls.append((fn.logical_id, event, exc))
            raise
        calls.append((fn.logical_id, event, result))
        return result

    handle.gateway.call = call
    yield handle, invoker, calls
    handle.stop()


@pytest.fixture
def lam(served):
    handle, _invoker, calls = served
    calls.clear()
    return boto3.client("lambda", endpoint_url=handle.url, **CLIENT)


def test_request_response_runs_the_function_and_answers_its_result(served, lam):
    answer = lam.invoke(FunctionName=ARN + "EchoFunction:live", Payload=json.dumps({"resource": "/invoked"}))
    assert answer["StatusCode"] == 200 and "FunctionError" not in answer
    body = json.loads(json.loads(answer["Payload"].read())["body"])
    assert body["function"] == "echo" and body["event"] == {"resource": "/invoked"}
    assert [(name, event) for name, event, _ in served[2]] == [("EchoFunction", {"resource": "/invoked"})]


def test_an_event_invocation_answers_202_and_runs_the_function_in_the_background(served, lam):
    _handle, invoker, calls = served
    answer = lam.invoke(FunctionName="EchoFunction", InvocationType="Event", Payload=b'{"resource": "/queued"}')
    assert answer["StatusCode"] == 202
    invoker.join()
    assert [(name, event) for name, event, _ in calls] == [("EchoFunction", {"resource": "/queued"})]
    assert json.loads(calls[0][2]["body"])["event"] == {"resource": "/queued"}


def test_a_function_that_raises_answers_200_with_the_unhandled_error(served, lam):
    answer = lam.invoke(FunctionName=ARN + "BoomFunction", Payload=b'{"resource": "/boom"}')
    assert answer["StatusCode"] == 200 and answer["FunctionError"] == "Unhandled"
    assert "boom from the fixture handler" in json.loads(answer["Payload"].read())["errorMessage"]


def test_an_unknown_function_is_resource_not_found(served, lam):
    with pytest.raises(ClientError) as raised:
        lam.invoke(FunctionName=ARN + "NoSuchFunction", InvocationType="Event", Payload=b"{}")
    assert raised.value.response["Error"]["Code"] == "ResourceNotFoundException"
    assert served[2] == []


def test_a_function_is_known_by_its_logical_id_and_by_its_template_function_name():
    invoker = Invoker(Gateway(ROOT / "template.yaml", log=False), {"TrackerGroups": 3})
    found = invoker.find(function_name(ARN + "partner-dev-tracker:live"))
    assert found is not None and found.logical_id == "TrackerFunction"
    assert getattr(invoker.find("TrackerFunction"), "logical_id", None) == "TrackerFunction"
    assert invoker.find("partner-dev-tracker-other") is None
    assert invoker._slot(found)._value == 3  # at most its reserved concurrency at once


def _signed(url: str, body: bytes, key: tuple[str, str] = ("testing", "testing"), **headers: str) -> httpx.Response:
    """A POST signed as boto3 signs Lambda's (SigV4, service lambda), then sent with `headers` added."""
    request = AWSRequest(method="POST", url=url, data=body)
    SigV4Auth(Credentials(*key), "lambda", "us-east-1").add_auth(request)
    return httpx.post(url, content=body, headers={**dict(request.headers.items()), **headers}, timeout=30)


def _refused(answer: httpx.Response, status: int, error_type: str, calls: list) -> dict:
    assert answer.status_code == status, answer.text
    assert answer.headers["x-amzn-ErrorType"] == error_type
    assert calls == []  # refused before any function ran
    return answer.json()


def test_an_unsigned_invoke_is_refused_as_lambda_refuses_it(served):
    handle, _invoker, calls = served
    calls.clear()
    body = b'{"resource": "/unsigned"}'
    for headers in ({}, {"Content-Type": "text/plain"}, {"Content-Type": "application/json"}):
        answer = httpx.post(handle.url + ECHO, content=body, headers=headers)
        assert _refused(answer, 403, "MissingAuthenticationTokenException", calls) == {
            "message": "Missing Authentication Token"
        }
    answer = httpx.post(handle.url + ECHO, content=body, headers={"Authorization": "Bearer app_at_x"})
    _refused(answer, 403, "IncompleteSignatureException", calls)


def test_a_wrong_secret_an_unknown_key_and_another_services_scope_are_refused(served):
    handle, _invoker, calls = served
    calls.clear()
    body = b'{"resource": "/forged"}'
    wrong = _refused(_signed(handle.url + ECHO, body, ("testing", "wrong")), 403, "InvalidSignatureException", calls)
    assert wrong["message"].startswith("The request signature we calculated does not match")
    unknown = _signed(handle.url + ECHO, body, ("AKIA0000000000000000", "testing"))
    assert _refused(unknown, 403, "UnrecognizedClientException", calls) == {
        "message": "The security token included in the request is invalid."
    }
    other = AWSRequest(method="POST", url=handle.url + ECHO, data=body)
    SigV4Auth(Credentials("testing", "testing"), "execute-api", "us-east-1").add_auth(other)
    answer = httpx.post(handle.url + ECHO, content=body, headers=dict(other.headers.items()))
    _refused(answer, 403, "InvalidSignatureException", calls)
    # a signed request whose body was changed on the way
    signed = AWSRequest(method="POST", url=handle.url + ECHO, data=body)
    SigV4Auth(Credentials("testing", "testing"), "lambda", "us-east-1").add_auth(signed)
    tampered = httpx.post(handle.url + ECHO, content=b'{"resource": "/other"}', headers=dict(signed.headers.items()))
    _refused(tampered, 403, "InvalidSignatureException", calls)
    # the same request, untouched, runs the function
    assert _signed(handle.url + ECHO, body).status_code == 200
    assert [name for name, _, _ in calls] == ["EchoFunction"]


@pytest.mark.parametrize(
    "headers",
    [{"Origin": "http://127.0.0.1:8000"}, {"Sec-Fetch-Mode": "no-cors"}, {"Sec-Fetch-Site": "cross-site"}],
)
def test_a_browsers_request_is_refused_even_when_signed(served, headers):
    handle, _invoker, calls = served
    calls.clear()
    answer = _signed(handle.url + ECHO, b'{"resource": "/browser"}', **headers)
    assert "browser" in _refused(answer, 403, "AccessDeniedException", calls)["Message"]


def test_a_payload_that_is_not_json_is_invalid_request_content(served, lam):
    for payload in (b"not json", b'{"resource": ', b"\xff\xfe"):
        with pytest.raises(ClientError) as raised:
            lam.invoke(FunctionName="EchoFunction", Payload=payload)
        error = raised.value.response
        assert error["ResponseMetadata"]["HTTPStatusCode"] == 400
        assert error["Error"]["Code"] == "InvalidRequestContentException"
        assert error["Error"]["Message"].startswith("Could not parse request body into json")
    assert served[2] == []


def test_a_dry_run_answers_204_after_the_checks_and_runs_nothing(served, lam):
    assert lam.invoke(FunctionName="EchoFunction", InvocationType="DryRun", Payload=b"{}")["StatusCode"] == 204
    with pytest.raises(ClientError) as raised:
        lam.invoke(FunctionName="NoSuchFunction", InvocationType="DryRun", Payload=b"{}")
    assert raised.value.response["Error"]["Code"] == "ResourceNotFoundException"
    with pytest.raises(ClientError) as raised:
        lam.invoke(FunctionName="EchoFunction", InvocationType="DryRun", Payload=b"{")
    assert raised.value.response["Error"]["Code"] == "InvalidRequestContentException"
    handle = served[0]
    unsigned = httpx.post(handle.url + ECHO, content=b"{}", headers={"X-Amz-Invocation-Type": "DryRun"})
    assert unsigned.status_code == 403
    assert served[2] == []


def test_an_invoker_given_no_credentials_refuses_every_signed_request(served):
    handle, _invoker, calls = served
    calls.clear()
    url = handle.url + ECHO
    request = AWSRequest(method="POST", url=url, data=b"{}")
    SigV4Auth(Credentials("testing", "testing"), "lambda", "us-east-1").add_auth(request)
    received = Request("POST", ECHO, "", list(request.headers.items()), b"{}", "127.0.0.1", raw_path=ECHO)
    status, headers, _body = Invoker(handle.gateway).handle(received)
    assert status == 403 and ("x-amzn-ErrorType", "UnrecognizedClientException") in headers
    assert calls == []
