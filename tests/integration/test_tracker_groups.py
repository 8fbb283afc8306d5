"""The scheduled tracker run fans out: TRACKER_GROUPS groups of index partitions, one run here, each
other one in an asynchronous invocation of the function itself (its own interpreter)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote

import pytest
from botocore.awsrequest import AWSResponse

from testkit.chain import rpc
from testkit.helpers import handler
from tests.integration.test_tracker_scale import _put_records


@pytest.fixture
def two_groups(monkeypatch):
    from partner.core.settings import reset_settings

    monkeypatch.setenv("TRACKER_SHARDS", "4")
    monkeypatch.setenv("TRACKER_GROUPS", "2")
    monkeypatch.setenv("TRACKER_RUN_SECONDS", "0")
    reset_settings()
    yield
    monkeypatch.undo()
    reset_settings()


class Invokes:
    """Lambda's Invoke as the function's own client makes it (`partner.store.aws`), answered here:
    202 (queued), or refused with `status`."""

    def __init__(self, status: int = 202) -> None:
        self.status = status
        self.calls: list[dict[str, Any]] = []

    def __call__(self, params: dict[str, Any], **_: Any) -> tuple[AWSResponse, dict[str, Any]]:
        """`params`: the request as serialized (its path names the function, a header the type)."""
        name = unquote(params["url_path"].split("/")[3])
        kind = params["headers"].get("X-Amz-Invocation-Type")
        self.calls.append({"FunctionName": name, "InvocationType": kind, "Payload": params["body"]})
        if self.status == 202:
            return AWSResponse("https://lambda", 202, {}, None), {"StatusCode": 202}
        error = {"Error": {"Code": "TooManyRequestsException", "Message": "Rate exceeded"}}
        return AWSResponse("https://lambda", self.status, {}, None), {**error, "ResponseMetadata": {}}


@pytest.fixture
def invokes():
    from partner.store import aws

    found = Invokes()
    aws.add_hook("before-call.lambda.Invoke", found)
    yield found
    aws.remove_hook("before-call.lambda.Invoke", found)


def _by_shard(chain) -> dict[int, list[str]]:
    """Open records (expired: past their last valid height) in each of the 4 partitions."""
    from partner.store import txrecords

    height = int(rpc(chain.url, "getBlockHeight", [{"commitment": "confirmed"}]))
    signatures: list[str] = []
    while len({txrecords.shard(s) for s in signatures}) < 4:
        signatures += _put_records(8, height - 1)
    return {part: [s for s in signatures if txrecords.shard(s) == str(part)] for part in range(4)}


def _statuses(signatures: list[str]) -> set[str]:
    from partner.store import ddb, txrecords

    return {ddb.get(txrecords.table(), s)["status"] for s in signatures}


def _context() -> Any:
    from devstack.events import lambda_context

    return lambda_context("TrackerFunction", timeout_seconds=90)


def test_the_scheduled_run_invokes_itself_with_the_other_group_and_runs_its_own(chain, two_groups, invokes):
    """TRACKER_GROUPS=2 over 4 partitions: the scheduled run invokes its own function (the ARN it was
    invoked by) once, asynchronously, with the second group's partitions, and moves the records of the
    first group only; that invocation moves the others."""
    by_shard = _by_shard(chain)
    context = _context()
    run = handler("tracker")
    run({"source": "aws.events", "detail-type": "Scheduled Event"}, context)
    assert [(c["FunctionName"], c["InvocationType"]) for c in invokes.calls] == [
        (context.invoked_function_arn, "Event")
    ]
    payload = json.loads(invokes.calls[0]["Payload"])
    assert payload == {"shards": [1, 3]}
    assert _statuses(by_shard[0] + by_shard[2]) == {"expired"}
    assert _statuses(by_shard[1] + by_shard[3]) == {"sent"}
    run(payload, _context())  # the invocation Lambda would run
    assert _statuses(sum(by_shard.values(), [])) == {"expired"}
    assert len(invokes.calls) == 1  # an invocation with its shards hands nothing out


def test_a_failed_invoke_leaves_no_partition_behind(chain, two_groups, invokes):
    """Lambda refuses the invoke (throttled): the scheduled run runs that group's partitions too."""
    invokes.status = 429
    by_shard = _by_shard(chain)
    handler("tracker")({"source": "aws.events"}, _context())
    assert [json.loads(c["Payload"]) for c in invokes.calls] == [{"shards": [1, 3]}]
    assert _statuses(sum(by_shard.values(), [])) == {"expired"}
