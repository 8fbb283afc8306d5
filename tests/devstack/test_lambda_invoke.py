"""devstack.lambdas: Lambda's Invoke API on the gateway, called with boto3's lambda client (as a
function calls it with AWS_ENDPOINT_URL_LAMBDA pointed at the gateway), runs the template's functions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from devstack.gateway import Gateway, start_gateway
from devstack.lambdas import Invoker, function_name

ROOT = Path(__file__).resolve().parents[2]
FIXTURE_TEMPLATE = Path(__file__).resolve().parent / "fixtures" / "template.yaml"
ARN = "arn:aws:lambda:us-east-1:123456789012:function:"
CLIENT = {"region_name": "us-east-1", "aws_access_key_id": "testing", "aws_secret_access_key": "testing"}


@pytest.fixture(scope="module")
def served():
    handle = start_gateway(FIXTURE_TEMPLATE, {}, port=0, log=False)
    invoker = Invoker(handle.gateway)
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
