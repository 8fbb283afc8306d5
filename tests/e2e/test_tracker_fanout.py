"""The devstack's scheduled tracker run fans out as on Lambda: it invokes its own function (Lambda's
Invoke on the gateway, devstack.lambdas) once per other group of index partitions, and those
invocations run in the devstack's function processes."""

from __future__ import annotations

from typing import Any

from tests.integration.test_tracker_groups import _by_shard


def test_the_scheduled_tracker_hands_each_other_group_to_an_invocation_of_its_own(devstack, chain, monkeypatch):
    from devstack.run import scheduled_event
    from partner.store import ddb, txrecords

    gateway = devstack.gateway.gateway
    signatures = sum(_by_shard(chain).values(), [])  # open records in each of the 4 partitions
    calls: list[tuple[str, Any]] = []
    real_call = gateway.call

    def call(fn: Any, event: Any) -> Any:
        calls.append((fn.logical_id, event))
        return real_call(fn, event)

    monkeypatch.setattr(gateway, "call", call)
    tracker = gateway.template.function("TrackerFunction")
    gateway.call(tracker, scheduled_event("TrackerFunction"))
    devstack.invoker.join()
    handed = sorted(event["shards"] for name, event in calls if name == "TrackerFunction" and "shards" in event)
    assert handed == [[1], [2], [3]]  # TRACKER_GROUPS=4 (the template's default) over 4 partitions
    assert {ddb.get(txrecords.table(), s)["status"] for s in signatures} == {"expired"}
