"""Issue 36 item 5: a soak of the devstack under each fault kind in turn (chain, KMS, DynamoDB,
pinning), over HTTP through the gateway, then reconciled against the chain and the webhook
receiver (devstack.soak): no key executed twice, no acknowledged write lost, the caps held, each
landed transaction's events delivered once per type, and the stack still answering. `-s` shows
the counts; `python -m bench.soak --rounds N` runs it longer."""

from __future__ import annotations

from devstack import faults


def test_soak_under_each_fault_kind_reconciles_with_the_chain(devstack, chain):
    from devstack.chain.testing import rpc
    from devstack.soak import KINDS, run_soak

    faults.clear()
    timer = devstack.start_schedules(0.5)  # the tracker: webhook events
    try:
        counts = run_soak(devstack.url, chain.url, rounds=1, users=3, writes_each=4)
    finally:
        timer.stop()
        devstack._owned.remove(timer)
        faults.clear()
        rpc(chain.url, "devstack_clearFaults", [])
    assert counts["problems"] == []
    assert set(counts["per_fault_kind"]) == {"setup", *KINDS}
    assert counts["faults_set"] == dict.fromkeys(KINDS, 1)
    assert counts["retries"] > 0  # the faults were met, and retried
    assert counts["refused_by_cap"] > 0  # the soak crossed the client's cap
    assert counts["acknowledged"] > counts["refused_by_cap"]
    assert counts["landed"] >= counts["acknowledged"]  # a launch lands two transactions
    assert counts["events"] >= 2 * counts["acknowledged"]  # confirmed and finalized of each
