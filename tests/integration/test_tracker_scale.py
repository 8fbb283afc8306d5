"""The tracker at scale: open records of many clients, and one bad record among many."""

from __future__ import annotations

import secrets

import pytest
from solders.signature import Signature

from testkit.chain import rpc


def _open_record(client_id: str, height: int) -> dict:
    from partner.store import txrecords

    signature = str(Signature(secrets.token_bytes(64)))
    return {
        "pk": signature,
        "signatures": [signature],
        "kind": "buy",
        "client_id": client_id,
        "user_id": "usr_scale",
        "mint": None,
        "wallet": "11111111111111111111111111111111",
        "last_valid_block_height": height,
        "sent_at": 1,
        "status": "sent",
        "expires_at": 4_000_000_000,
        "track": txrecords.shard(signature),
    }


def _put_records(count: int, height: int) -> list[str]:
    from partner.store import ddb, txrecords

    items = [_open_record(f"cli_scale_{secrets.token_hex(6)}", height) for _ in range(count)]
    for start in range(0, len(items), 25):
        ddb.batch_write(txrecords.table(), items[start : start + 25])
    return [item["pk"] for item in items]


def test_open_records_of_more_than_100_clients_all_move_in_one_pass(chain):
    """BatchGetItem takes at most 100 keys: the client read is chunked, so a pass over the
    records of 150 clients still moves every one of them (here: expired, never landed)."""
    from partner.jobs import tracker
    from partner.store import ddb, txrecords

    height = int(rpc(chain.url, "getBlockHeight", [{"commitment": "confirmed"}]))  # the level expiry is judged at
    signatures = _put_records(150, height - 1)
    tracker.run(limit=5000)
    statuses = [ddb.get(txrecords.table(), s)["status"] for s in signatures]
    assert statuses == ["expired"] * 150


def test_a_failing_record_does_not_stop_the_pass_for_the_others(chain, monkeypatch):
    """The batch write holding the bad record fails, so its records move one by one on the
    condition; the bad record's move fails too: only it stays open."""
    from partner.jobs import tracker
    from partner.store import ddb, txrecords

    height = int(rpc(chain.url, "getBlockHeight", [{"commitment": "confirmed"}]))  # the level expiry is judged at
    signatures = _put_records(20, height - 1)
    bad = signatures[7]
    real_move, real_put = txrecords.move, txrecords.put_moved

    def move(signature: str, *args, **kwargs) -> bool:
        if signature == bad:
            raise RuntimeError("storage hiccup on one record")
        return real_move(signature, *args, **kwargs)

    def put_moved(items: list[dict]) -> None:
        if any(item["pk"] == bad for item in items):
            raise RuntimeError("storage hiccup on one batch")
        real_put(items)

    monkeypatch.setattr(txrecords, "move", move)
    monkeypatch.setattr(txrecords, "put_moved", put_moved)
    summary = tracker.run(limit=5000)
    assert summary["errors"] >= 1
    after = {s: ddb.get(txrecords.table(), s)["status"] for s in signatures}
    assert after.pop(bad) == "sent"
    assert set(after.values()) == {"expired"}
    monkeypatch.setattr(txrecords, "move", real_move)
    tracker.run(limit=5000)
    assert ddb.get(txrecords.table(), bad)["status"] == "expired"


@pytest.mark.parametrize("count", [0, 1, 100, 101, 250])
def test_batch_get_chunks_at_100_keys(aws_stack, count):
    from partner.core.settings import get_settings
    from partner.store import ddb

    table = get_settings().clients_table
    pks = [f"cli_missing_{i}" for i in range(count)]
    assert ddb.batch_get({table: pks}) == {table: {}}


@pytest.fixture
def seven_shards(monkeypatch):
    from partner.core.settings import reset_settings

    monkeypatch.setenv("TRACKER_SHARDS", "7")
    reset_settings()
    yield 7
    monkeypatch.undo()
    reset_settings()


def test_one_pass_covers_every_index_partition(chain, seven_shards):
    """TRACKER_SHARDS=7: records written to each of the 7 partitions of the open index all move
    in one pass (the pass queries every partition, not the default 4)."""
    from partner.jobs import tracker
    from partner.store import ddb, txrecords

    height = int(rpc(chain.url, "getBlockHeight", [{"commitment": "confirmed"}]))
    signatures: list[str] = []
    while len({txrecords.shard(s) for s in signatures}) < seven_shards or len(signatures) < 3 * seven_shards:
        signatures += _put_records(7, height - 1)
    by_shard = {str(part): [s for s in signatures if txrecords.shard(s) == str(part)] for part in range(seven_shards)}
    assert all(by_shard.values())
    summary = tracker.run(limit=5000)
    assert summary["errors"] == 0
    for part, members in by_shard.items():
        assert [ddb.get(txrecords.table(), s)["status"] for s in members] == ["expired"] * len(members), part


def test_events_queue_once_per_move_and_a_failed_batch_keeps_its_records_open(chain, monkeypatch):
    """A batch of events that fails to queue keeps the records of its group `sent` (their moves
    wait); the next pass moves them, and queues each move's event once (the same ids)."""
    from partner.core.settings import get_settings
    from partner.jobs import tracker, webhooks
    from partner.store import ddb, txrecords

    client_id = f"cli_hook_{secrets.token_hex(6)}"
    ddb.put(
        get_settings().clients_table,
        _hook_item(client_id),
    )
    height = int(rpc(chain.url, "getBlockHeight", [{"commitment": "confirmed"}]))
    items = [_open_record(client_id, height - 1) for _ in range(25)]
    ddb.batch_write(txrecords.table(), items)
    signatures = {item["pk"] for item in items}
    real_enqueue = webhooks.enqueue
    queued: list[dict] = []

    def failing(events):
        if any(ev["data"]["signature"] in signatures for _cid, ev in events):
            raise RuntimeError("SQS hiccup")
        real_enqueue(events)

    monkeypatch.setattr(webhooks, "enqueue", failing)
    summary = tracker.run(limit=5000)
    assert summary["errors"] >= 25
    assert {ddb.get(txrecords.table(), s)["status"] for s in signatures} == {"sent"}

    def recording(events):
        real_enqueue(events)
        queued.extend(ev for _cid, ev in events if ev["data"]["signature"] in signatures)

    monkeypatch.setattr(webhooks, "enqueue", recording)
    tracker.run(limit=5000)
    assert {ddb.get(txrecords.table(), s)["status"] for s in signatures} == {"expired"}
    assert sorted(ev["id"] for ev in queued) == sorted(webhooks.event_id(s, "expired") for s in signatures)


def _chain_says(level: str):
    return lambda _rpc, sigs: {s: {"slot": 9, "err": None, "confirmationStatus": level} for s in sigs}


def _hook_item(client_id: str) -> dict:
    """A whole client item (an operator's `client list` reads every item of the shared table) with a
    webhook the tracker reads (its secret is never unsealed here)."""
    return {
        "pk": client_id,
        "name": "Tracker Scale Hook",
        "redirect_uri": "https://example.com/cb",
        "tier": "Basic",
        "status": "live",
        "max_trade_lamports": 10**9,
        "daily_volume_cap_lamports": 10**10,
        "webhook_url": "https://example.com/h",
        "webhook_secret": "sealed",
    }


def _hooked_client() -> str:
    from partner.core.settings import get_settings
    from partner.store import ddb

    client_id = f"cli_hook_{secrets.token_hex(6)}"
    ddb.put(
        get_settings().clients_table,
        _hook_item(client_id),
    )
    return client_id


def test_a_batched_move_never_moves_a_record_back_on_a_stale_index_copy(chain, monkeypatch):
    """The index is read eventually consistent: after a pass wrote a record `finalized` (in a batch,
    without a condition), a later pass that still reads the record's old `sent` copy from the index,
    while an endpoint behind the others answers `confirmed`, leaves it `finalized` and queues no event."""
    from partner.jobs import tracker, webhooks
    from partner.store import ddb, txrecords

    item = _open_record(_hooked_client(), 10**12)
    ddb.put(txrecords.table(), item)
    queued: list[dict] = []
    monkeypatch.setattr(  # (other tests' open records may share the partition)
        webhooks,
        "enqueue",
        lambda events: queued.extend(ev for _c, ev in events if ev["data"]["signature"] == item["pk"]),
    )
    monkeypatch.setattr(tracker, "_statuses", _chain_says("finalized"))
    tracker.run(shards=[int(item["track"])], limit=5000)
    assert ddb.get(txrecords.table(), item["pk"])["status"] == "finalized"
    assert [ev["type"] for ev in queued] == ["transaction.confirmed", "transaction.finalized"]

    queued.clear()
    monkeypatch.setattr(txrecords, "open_records", lambda limit, shards: [dict(item)])  # the stale copy
    monkeypatch.setattr(tracker, "_statuses", _chain_says("confirmed"))
    summary = tracker.run(shards=[int(item["track"])], limit=5000)
    after = ddb.get(txrecords.table(), item["pk"])
    assert (summary["moved"], after["status"], "track" in after, queued) == (0, "finalized", False, [])


def test_a_partition_under_another_lease_moves_one_record_at_a_time_on_the_condition(chain, monkeypatch):
    """While another tracker holds a partition's lease, this one writes no batch there: its records
    move with the conditional UpdateItem (a record another pass moved first is not moved again)."""
    from partner.core import clock
    from partner.core.settings import get_settings
    from partner.jobs import tracker
    from partner.store import ddb, txrecords

    item = _open_record("cli_lease", 10**12)
    lease = {"pk": txrecords.lease_pk(item["track"]), "owner": "another-tracker"}
    ddb.put(get_settings().counters_table, {**lease, "until": int(clock.now() * 1000) + 600_000})
    try:
        monkeypatch.setattr(tracker, "_owner", tracker.Owner())  # this process's tracker, just started
        ddb.put(txrecords.table(), item)
        puts: list[list[dict]] = []
        monkeypatch.setattr(txrecords, "put_moved", puts.append)
        monkeypatch.setattr(tracker, "_statuses", _chain_says("confirmed"))
        summary = tracker.run(shards=[int(item["track"])], limit=5000)
        assert summary["moved"] >= 1  # (other tests' open records may share the partition)
        assert puts == []
        assert ddb.get(txrecords.table(), item["pk"])["status"] == "confirmed"
        stale = dict(item)  # a pass that read it `sent` before: its conditional move finds it moved
        assert tracker._move((stale, "confirmed", ["confirmed"], 9, None)) is False
    finally:
        ddb.put(get_settings().counters_table, {**lease, "until": 0})  # lapsed


def test_the_lease_holder_reads_its_own_writes_over_stale_index_copies():
    """What this process wrote replaces an older copy from the index (a record it moved to `confirmed`
    is followed as `confirmed`), a record it wrote final is left out, and an index copy as far on as
    what it wrote is kept."""
    from partner.jobs import tracker

    owner = tracker.Owner()
    sent = [{"pk": f"sig{i}", "status": "sent", "track": "0", "kind": "buy"} for i in range(3)]
    owner.wrote([{**sent[0], "status": "confirmed", "slot": 7}, {**sent[1], "status": "finalized", "slot": 8}])
    assert owner.written["sig1"][1] == {"pk": "sig1", "status": "finalized"}  # a final record: its status only
    fresh = owner.freshest([*sent, {**sent[0], "pk": "sig3"}])
    assert [(r["pk"], r["status"], r.get("slot")) for r in fresh] == [
        ("sig0", "confirmed", 7),
        ("sig2", "sent", None),
        ("sig3", "sent", None),
    ]
    caught_up = {**sent[0], "status": "confirmed", "slot": 9}
    assert owner.freshest([caught_up]) == [caught_up]
