"""GET /partner/v1/transactions/{signature}/status through the real handler, against moto and the chain."""

from __future__ import annotations

import base64
import os

import pytest
from solders.keypair import Keypair
from solders.signature import Signature

from testkit.chain import airdrop, new_coin, rpc, signed_transfer, wait, warp
from testkit.helpers import buy, connect, tx_status

SOL = 10**9
TIP = 1_000_000
PRIO = 10_000
RESOURCE = "/partner/v1/transactions/{signature}/status"


def status(signature: str, headers: dict | None = None):
    return tx_status(signature, headers)


@pytest.fixture
def coin(chain, aws_stack):
    return new_coin(chain.url, "Status Coin", "STAT")


@pytest.fixture
def reader(aws_stack, chain, ip):
    """A token with only profile:read: the endpoint needs no scope."""
    from partnerctl import admin

    client = admin.create_client(admin.NewClient(name="Status App", redirect_uri="http://localhost:8080/callback"))
    return connect(client, admin.create_user(), scope="profile:read", ip=ip)


@pytest.fixture
def funded(chain):
    keypair = Keypair()
    airdrop(chain.url, str(keypair.pubkey()), 5 * SOL)
    return keypair


def sent_by(conn, signatures: list[str], last_valid: int, status: str = "sent") -> None:
    """The service's transaction records of a send by `conn`'s client and user (as presend writes them)."""
    from types import SimpleNamespace

    from partner.store import ddb, txrecords

    owner = SimpleNamespace(
        client=SimpleNamespace(client_id=conn.client["client_id"]), user=SimpleNamespace(user_id=conn.user["user_id"])
    )
    outgoing = txrecords.Outgoing("coin_create", tuple(signatures), None, conn.user["wallet"], last_valid)
    for item in txrecords.items_for(owner, outgoing):
        item["status"] = status
        ddb.put(txrecords.table(), item)


def unrecorded(signature: str, status: str = "not_found", slot: int | None = None) -> dict:
    """The answer for a signature the service has no record of (the chain's view alone)."""
    return {"signature": signature, "status": status, "slot": slot, "error": None, "bundle": None}


def _send(chain, keypair: Keypair, instructions, *, skip_preflight: bool = False) -> str:
    from partner.chain.rpc import Rpc
    from partner.chain.tx import WriteFees, assemble, sign
    from partner.store.wallets import KeypairSigner

    chain_rpc = Rpc(chain.url)
    blockhash, _ = chain_rpc.latest_blockhash()
    message = assemble(keypair.pubkey(), instructions, fees=WriteFees(PRIO, TIP), blockhash=blockhash)
    return str(chain_rpc.send_transaction(sign(message, [KeypairSigner(keypair)]), skip_preflight=skip_preflight))


def test_landed_trade_processed_then_finalized(chain, coin, reader, ip):
    from partnerctl import admin

    client = admin.create_client(admin.NewClient(name="Trader", redirect_uri="http://localhost:8080/callback"))
    trader = admin.create_user()
    airdrop(chain.url, trader["wallet"], 2 * SOL)
    conn = connect(client, trader, scope="trade:execute", ip=ip)
    bought = buy(conn, coin, SOL // 10, 100)
    assert bought.status == 200, bought.body
    signature = bought.json["signature"]
    landed = wait(chain.url, signature)

    first = status(signature, conn.bearer())
    assert first.status == 200, first.body
    assert first.headers["x-ratelimit-limit"] == "300"
    body = first.json
    assert body["signature"] == signature
    assert body["status"] in ("processed", "confirmed")
    assert body["slot"] == landed["slot"]
    assert body["error"] is None and body["bundle"] is None

    warp(chain.url, 15)  # 37 slots: past the 32 that finalize
    later = status(signature, reader.bearer())  # another client's token, no scope: still answered
    assert later.status == 200, later.body
    assert later.json["status"] == "finalized"
    assert later.json["slot"] == landed["slot"]


def test_failed_transaction_reports_the_mapped_code(chain, coin, reader, funded):
    from solders.pubkey import Pubkey

    from partner.chain import instructions as ix
    from partner.chain.layouts import Global
    from partner.chain.programs import global_pda

    info = rpc(chain.url, "getAccountInfo", [str(global_pda()[0]), {"encoding": "base64"}])["value"]
    fee_recipient = Global.decode(base64.b64decode(info["data"][0])).fee_recipient
    too_greedy = ix.buy(funded.pubkey(), Pubkey.from_string(coin), fee_recipient, SOL // 10, 10**17)
    signature = _send(chain, funded, [too_greedy], skip_preflight=True)
    landed = wait(chain.url, signature)
    assert landed["err"] is not None

    result = status(signature, reader.bearer())
    assert result.status == 200, result.body
    assert result.json == {
        "signature": signature,
        "status": "failed",
        "slot": landed["slot"],
        "error": "slippage_exceeded",
        "bundle": None,
    }


def _overdraw(chain, funded) -> tuple[str, dict]:
    """A System transfer of more than the sender has, landed failed (Custom(1)): (signature, status)."""
    from partner.chain import instructions as ix

    broke = Keypair()
    airdrop(chain.url, str(broke.pubkey()), 20_000_000)
    overdraw = ix.system_transfer(broke.pubkey(), funded.pubkey(), 19_000_000)
    signature = _send(chain, broke, [overdraw], skip_preflight=True)
    landed = wait(chain.url, signature)
    assert landed["err"] is not None
    return signature, landed


def test_system_custom_one_is_insufficient_sol_once_confirmed(chain, reader, funded):
    """Custom(1) of the System program (not of SPL Token): the program id comes from the
    transaction, read at `confirmed` (issue 25): the mapped code shows as soon as the failed
    transaction is confirmed, not only once it is finalized (~32 slots later)."""

    signature, landed = _overdraw(chain, funded)
    warp(chain.url, 1)  # 2.5 slots: confirmed, far from finalized
    assert rpc(chain.url, "getSignatureStatuses", [[signature]])["value"][0]["confirmationStatus"] == "confirmed"
    result = status(signature, reader.bearer())
    assert result.json == {
        "signature": signature,
        "status": "failed",
        "slot": landed["slot"],
        "error": "insufficient_sol",
        "bundle": None,
    }


def test_the_tracker_records_a_failure_s_mapped_code_once_confirmed(chain, reader, funded):
    """The tracker maps a landed failure off the transaction at `confirmed`: a record of a
    System Custom(1) failure moves to failed with insufficient_sol, not the generic tx_failed,
    without waiting for finalization."""
    from partner.jobs import tracker
    from partner.store import ddb, txrecords

    signature, landed = _overdraw(chain, funded)
    sent_by(reader, [signature], landed["slot"] + 150)
    warp(chain.url, 1)  # confirmed
    tracker.run(limit=5000)
    record = ddb.get(txrecords.table(), signature)
    assert (record["status"], record["error"]) == ("failed", "insufficient_sol")


def test_unknown_signature_is_not_found(reader):
    unknown = str(Signature(os.urandom(64)))
    result = status(unknown, reader.bearer())
    assert result.status == 200, result.body
    assert result.json == {"signature": unknown, "status": "not_found", "slot": None, "error": None, "bundle": None}


@pytest.mark.parametrize("bad", ["abc", "1" * 87 + "0", "2" * 87, "1" * 200, "%20"])
def test_malformed_signature_is_invalid_input(reader, bad):
    result = status(bad, reader.bearer())
    assert result.status == 400, result.body
    assert result.json["error"] == "invalid_input"


def test_no_token_is_401_before_input_checks(aws_stack, chain):
    result = status("abc")
    assert result.status == 401
    assert result.json["error"] == "invalid_token"
    unknown = status(str(Signature(os.urandom(64))), {"Authorization": "Bearer app_at_nope"})
    assert unknown.status == 401 and unknown.json["error"] == "invalid_token"


def test_bundle_signature_carries_its_bundle(chain, reader, funded):
    bundle_id, signature, last_valid = _bundle(chain, funded)
    sent_by(reader, [signature], last_valid)
    landed = wait(chain.url, signature)

    result = status(signature, reader.bearer())
    assert result.status == 200, result.body
    body = result.json
    assert body["status"] in ("processed", "confirmed") and body["slot"] == landed["slot"]
    assert body["error"] is None
    assert body["bundle"]["bundleId"] == bundle_id
    assert body["bundle"]["signatures"] == [signature]
    assert body["bundle"]["status"] in ("processed", "confirmed")
    warp(chain.url, 15)
    assert status(signature, reader.bearer()).json["bundle"]["status"] == "finalized"


def test_dropped_bundle_is_pending_then_expired(chain, reader, funded):
    bundle_id, signature, last_valid = _bundle(chain, funded, drop=True)
    sent_by(reader, [signature], last_valid)

    pending = status(signature, reader.bearer()).json
    assert pending["status"] == "pending" and pending["slot"] is None and pending["error"] is None
    assert pending["bundle"] == {"bundleId": bundle_id, "signatures": [signature], "status": "pending"}

    warp(chain.url, 70)  # past the blockhash's 150 slots
    expired = status(signature, reader.bearer()).json
    # issue 39 (7): one shape for one outcome, a lone send's and the webhook's (`transaction.expired`)
    assert expired["status"] == "expired" and expired["error"] == "tx_expired" and expired["slot"] is None
    assert expired["bundle"]["bundleId"] == bundle_id


def test_a_pending_bundle_is_pending_not_failed(chain, reader, funded):
    """Issue 25: the block engine lands a bundle after it accepted it (Jito: Pending, then Landed);
    while it is pending the status is `pending`, with its bundle `pending`, never `failed`."""
    from testkit.chain import block_engine

    with block_engine(chain.url, landDelayMs=3_600_000):
        bundle_id, signature, last_valid = _bundle(chain, funded)
        sent_by(reader, [signature], last_valid)
        pending = status(signature, reader.bearer())
        assert pending.status == 200, pending.body
        assert (pending.json["status"], pending.json["error"], pending.json["slot"]) == ("pending", None, None)
        assert pending.json["bundle"] == {"bundleId": bundle_id, "signatures": [signature], "status": "pending"}
        rpc(chain.url, "devstack_landBundles")
    landed = wait(chain.url, signature)
    body = status(signature, reader.bearer()).json
    assert body["status"] in ("processed", "confirmed") and body["slot"] == landed["slot"]
    assert body["bundle"]["status"] == body["status"]


def test_the_status_rides_out_the_block_engine_rate_limit(chain, reader, funded):
    """The block engine answers 429 over its rate limit; the status lookup waits and asks again."""
    from testkit.chain import block_engine, use_up_rate_limit

    with block_engine(chain.url, landDelayMs=3_600_000, rateLimitPerSecond=0.5):
        bundle_id, signature, last_valid = _bundle(chain, funded)
        sent_by(reader, [signature], last_valid)
        use_up_rate_limit(chain.bundle_url)
        pending = status(signature, reader.bearer())
        assert pending.status == 200, pending.body
        assert pending.json["bundle"] == {"bundleId": bundle_id, "signatures": [signature], "status": "pending"}
        rpc(chain.url, "devstack_landBundles")


def test_a_bundle_the_engine_does_not_hold_is_pending_then_failed(chain, reader, clock):
    """Jito answers `Invalid` for an id it does not hold (dropped, or not registered yet): taken as
    final only 8 s after the send (txstatus.INVALID_SETTLE_SECONDS), then failed with tx_failed."""
    from partner.chain.rpc import Rpc
    from partner.send import txstatus

    _, last_valid = Rpc(chain.url).latest_blockhash()
    signature = str(Signature(os.urandom(64)))
    never_sent = "ab" * 32
    txstatus.record_bundle(never_sent, [signature], last_valid_block_height=last_valid)
    sent_by(reader, [signature], last_valid)
    fresh = status(signature, reader.bearer()).json
    assert (fresh["status"], fresh["error"]) == ("pending", None)
    assert fresh["bundle"] == {"bundleId": never_sent, "signatures": [signature], "status": "invalid"}
    clock.advance(txstatus.INVALID_SETTLE_SECONDS)
    settled = status(signature, reader.bearer()).json
    assert (settled["status"], settled["error"], settled["slot"]) == ("failed", "tx_failed", None)


def test_chain_down_is_rpc_unavailable(chain, reader):
    rpc(
        chain.url,
        "devstack_setFault",
        [{"target": "rpc", "mode": "down", "methods": ["getSignatureStatuses"], "count": 1}],
    )
    result = status(str(Signature(os.urandom(64))), reader.bearer())
    assert result.status == 502, result.body
    assert result.json["error"] == "rpc_unavailable"


# ------------------------------------------------------------------ whose records (issue 23 item 3)


@pytest.fixture
def strangers(aws_stack, reader, ip):
    """Another client's token, and another user's token of the reader's own client."""
    from partnerctl import admin

    other_app = admin.create_client(
        admin.NewClient(name="Other Status App", redirect_uri="http://localhost:8080/callback")
    )
    return [
        connect(other_app, reader.user, scope="profile:read", ip=ip),
        connect(reader.client, admin.create_user(), scope="profile:read", ip=ip),
    ]


def _bundle(chain, funded, *, drop: bool = False) -> tuple[str, str, int]:
    from partner.chain.rpc import BlockEngine
    from partner.send import txstatus

    tx, last_valid = signed_transfer(chain.url, funded, 10_000_000)
    if drop:
        rpc(
            chain.url,
            "devstack_setFault",
            [{"target": "bundle", "mode": "drop", "methods": ["sendBundle"], "count": 1}],
        )
    bundle_id = BlockEngine(chain.bundle_url).send_bundle([tx])
    signature = str(tx.signatures[0])
    txstatus.record_bundle(bundle_id, [signature], last_valid_block_height=last_valid)
    return bundle_id, signature, last_valid


def test_another_caller_sees_a_landed_bundle_as_the_chain_does(chain, reader, strangers, funded):
    bundle_id, signature, last_valid = _bundle(chain, funded)
    sent_by(reader, [signature], last_valid)
    landed = wait(chain.url, signature)
    warp(chain.url, 15)  # finalized: the chain's answer no longer moves between the calls below

    own = status(signature, reader.bearer())
    assert own.status == 200 and own.json["bundle"]["bundleId"] == bundle_id
    for stranger in strangers:
        seen = status(signature, stranger.bearer())
        assert seen.status == 200, seen.body
        assert seen.json == unrecorded(signature, "finalized", landed["slot"])  # no bundle id, no signatures


def test_another_caller_sees_a_pending_bundle_as_an_unknown_signature(chain, reader, strangers, funded):
    bundle_id, signature, last_valid = _bundle(chain, funded, drop=True)
    sent_by(reader, [signature], last_valid)
    assert status(signature, reader.bearer()).json["bundle"] == {
        "bundleId": bundle_id,
        "signatures": [signature],
        "status": "pending",
    }
    unknown = str(Signature(os.urandom(64)))
    for stranger in strangers:
        seen = status(signature, stranger.bearer())
        assert seen.status == 200 and seen.json == unrecorded(signature), seen.body
        assert status(unknown, stranger.bearer()).json == unrecorded(unknown)  # the same answer, shape and all


def test_another_caller_sees_an_expired_send_as_an_unknown_signature(chain, reader, strangers):
    signature = str(Signature(os.urandom(64)))
    sent_by(reader, [signature], 1, status="expired")
    own = status(signature, reader.bearer())
    assert own.json["status"] == "expired" and own.json["error"] == "tx_expired"
    for stranger in strangers:
        assert status(signature, stranger.bearer()).json == unrecorded(signature)


def test_a_bundle_record_without_its_owners_transaction_record_is_not_shown(chain, reader, funded):
    """The transaction record names the owner; a bundle record alone (no owner) is nobody's."""
    _, signature, _ = _bundle(chain, funded, drop=True)
    assert status(signature, reader.bearer()).json == unrecorded(signature)
