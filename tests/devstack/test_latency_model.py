"""The devstack's latency model (devstack.latency, issue 26 item 4): which calls it holds and as what,
and that it is off unless asked. What the holds cost in time is the bench's (bench/latency.py)."""

from __future__ import annotations

import pytest

from devstack import latency


@pytest.fixture
def model():
    saved = latency.model.figures
    latency.model.reset_stats()
    yield latency.model
    latency.model.configure(saved)
    latency.model.reset_stats()


def test_parse_the_environment_setting():
    assert latency.parse(None) is None and latency.parse("") is None and latency.parse("off") is None
    assert (
        latency.parse("on")
        == latency.DEFAULTS
        == {"ddb": 5.0, "transact": 12.0, "kms": 6.0, "rpc_read": 4.0, "rpc_send": 15.0}
    )
    assert latency.parse("kms=9, rpc_send=20") == {**latency.DEFAULTS, "kms": 9.0, "rpc_send": 20.0}
    for bad in ("dynamo=5", "ddb=fast", "ddb=-1"):
        with pytest.raises(ValueError):
            latency.parse(bad)


def test_kinds_of_calls():
    assert latency.aws_kind("DynamoDB_20120810.UpdateItem") == "ddb"
    assert latency.aws_kind("DynamoDB_20120810.BatchGetItem") == "ddb"
    assert latency.aws_kind("DynamoDB_20120810.TransactWriteItems") == "transact"
    assert latency.aws_kind("TrentService.Decrypt") == "kms"
    assert latency.aws_kind("AmazonSQS.ReceiveMessage") is None and latency.aws_kind(None) is None
    assert latency.rpc_kind(["getMultipleAccounts", "getLatestBlockhash"]) == "rpc_read"
    assert latency.rpc_kind(["sendTransaction"]) == "rpc_send"
    assert latency.rpc_kind(["devstack_setFault"]) is None
    assert latency.methods_of(b'[{"method": "getSlot"}, {"method": "sendTransaction"}]') == [
        "getSlot",
        "sendTransaction",
    ]


def test_off_by_default_holds_nothing(aws_stack, chain, model):
    from partner.store import ddb
    from testkit.chain import rpc

    model.configure(None)
    ddb.get(aws_stack.physical_id("CountersTable"), "latency-probe")
    rpc(chain.url, "getSlot")
    assert model.stats() == {}


def test_on_holds_each_call_as_its_kind(aws_stack, chain, model):
    from partner.store import aws, ddb
    from testkit.chain import rpc

    model.configure("on")
    table = aws_stack.physical_id("CountersTable")
    ddb.get(table, "latency-probe")
    ddb.get(table, "latency-probe")
    aws.kms().generate_mac(KeyId=aws_stack.physical_id("HashKey"), Message=b"probe", MacAlgorithm="HMAC_SHA_256")
    rpc(chain.url, "getSlot")
    model.configure(None)
    stats = model.stats()
    assert {k: v["calls"] for k, v in stats.items()} == {"ddb": 2, "kms": 1, "rpc_read": 1}
    assert all(v["worst_ms"] >= 0 for v in stats.values())
