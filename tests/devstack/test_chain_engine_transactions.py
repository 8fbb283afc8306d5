"""Devstack chain: the block engine's `sendTransaction` (`POST /api/v1/transactions`), held to Jito's
rules (devstack/chain/blockengine.py; docs/chain.md, "Tipped sends"): the same tip rule as a bundle
(a write-locked tip account, at least 1,000 lamports), refused with Jito's error; no preflight
(Jito forces skip_preflight); the signature in `result` and the bundle id in `x-bundle-id`;
`?bundleOnly=true` sends it only as a single-transaction bundle; the engine's rate limit."""

from __future__ import annotations

import hashlib

import httpx
import pytest
from base58 import b58encode
from solders.keypair import Keypair
from solders.system_program import TransferParams, transfer

from devstack.chain import constants as C
from devstack.chain.blockengine import ALREADY_PROCESSED, TX_NO_TIP_LOCK
from devstack.chain.testing import airdrop, b64, balance, block_engine, build_tx, latest_blockhash, result, wait_bundle

SOL = 1_000_000_000
FEE = 5_000


def pay(src: Keypair, dst, lamports: int):
    return transfer(TransferParams(from_pubkey=src.pubkey(), to_pubkey=dst, lamports=lamports))


def funded(chain, lamports: int = 10 * SOL) -> Keypair:
    a = Keypair()
    airdrop(chain.url, a.pubkey(), lamports)
    return a


def send_tx(chain, tx, *, encoding: str = "base64", query: str = "", **headers: str) -> httpx.Response:
    encoded = b64(tx) if encoding == "base64" else b58encode(bytes(tx)).decode()
    params = [encoded, {"encoding": "base64"}] if encoding == "base64" else [encoded]
    body = {"jsonrpc": "2.0", "id": 7, "method": "sendTransaction", "params": params}
    return httpx.post(chain.transactions_url + query, json=body, headers=headers, timeout=10.0)


def seen(chain, tx):
    return result(chain.url, "devstack_getEngineTransactions", [[str(tx.signatures[0])]])[0]


def bundle_of(tx) -> str:
    return hashlib.sha256(str(tx.signatures[0]).encode()).hexdigest()


@pytest.fixture
def held(chain):
    """Bundles stay pending until the test lands them (devstack_landBundles)."""
    result(chain.url, "devstack_setBlockEngine", [{"landDelayMs": 3_600_000}])
    yield chain
    result(chain.url, "devstack_setBlockEngine", [{"landDelayMs": C.SLOT_SECONDS * 1000}])


def refused(r: httpx.Response, message: str) -> None:
    assert r.status_code == 400, r.text
    body = r.json()
    assert body["id"] == 7 and body["error"] == {"code": -32602, "message": message}, body
    assert "x-bundle-id" not in r.headers


@pytest.mark.parametrize("query", ["", "?bundleOnly=true"])
def test_a_transaction_without_a_tip_is_refused(chain, query):
    a, b = funded(chain), Keypair()
    tx = build_tx([pay(a, b.pubkey(), SOL)], a, [], latest_blockhash(chain.url))
    refused(send_tx(chain, tx, query=query), TX_NO_TIP_LOCK)
    assert TX_NO_TIP_LOCK == "Transaction must write lock at least one tip account."
    result(chain.url, "devstack_landBundles")
    assert balance(chain.url, a.pubkey()) == 10 * SOL and balance(chain.url, b.pubkey()) == 0
    assert seen(chain, tx) is None
    assert result(chain.url, "getSignatureStatuses", [[str(tx.signatures[0])]])["value"] == [None]


@pytest.mark.parametrize("tip", [1, 999])
def test_a_tip_below_1000_lamports_is_refused(chain, tip):
    a, b = funded(chain), Keypair()
    tx = build_tx([pay(a, b.pubkey(), SOL), pay(a, C.TIP_ACCOUNTS[4], tip)], a, [], latest_blockhash(chain.url))
    refused(send_tx(chain, tx), f"transaction tips {tip} lamports, below the minimum tip of 1000 lamports")
    result(chain.url, "devstack_landBundles")
    assert balance(chain.url, a.pubkey()) == 10 * SOL and balance(chain.url, b.pubkey()) == 0
    assert seen(chain, tx) is None


@pytest.mark.parametrize("encoding", ["base64", "base58"])
def test_a_tipped_transaction_lands_at_once_and_names_its_bundle(chain, encoding):
    a, b = funded(chain), Keypair()
    tip = C.TIP_ACCOUNTS[2]
    before_tip = balance(chain.url, tip)
    tx = build_tx([pay(a, b.pubkey(), SOL), pay(a, tip, 1_000)], a, [], latest_blockhash(chain.url))
    r = send_tx(chain, tx, encoding=encoding)
    assert r.status_code == 200, r.text
    sig = str(tx.signatures[0])
    assert r.json() == {"jsonrpc": "2.0", "result": sig, "id": 7}
    assert r.headers["x-bundle-id"] == bundle_of(tx)
    # sent as a transaction: on chain when the call returns
    status = result(chain.url, "getSignatureStatuses", [[sig]])["value"][0]
    assert status is not None and status["err"] is None
    assert balance(chain.url, b.pubkey()) == SOL
    assert balance(chain.url, tip) == before_tip + 1_000
    assert balance(chain.url, a.pubkey()) == 10 * SOL - SOL - 1_000 - FEE
    # its single-transaction bundle reads as landed, in the transaction's slot
    inflight = block_engine(chain.bundle_url, "getInflightBundleStatuses", [[bundle_of(tx)]]).json()
    assert inflight["result"]["value"] == [
        {"bundle_id": bundle_of(tx), "status": "Landed", "landed_slot": status["slot"]}
    ]
    assert seen(chain, tx) == {"signature": sig, "bundleId": bundle_of(tx), "bundleOnly": False}
    # sent again (a client's retry): refused as already processed, nothing lands twice
    refused(send_tx(chain, tx, encoding=encoding), ALREADY_PROCESSED)
    assert balance(chain.url, b.pubkey()) == SOL
    assert seen(chain, tx) == {"signature": sig, "bundleId": bundle_of(tx), "bundleOnly": False}


@pytest.mark.parametrize("query", ["", "?bundleOnly=true"])
def test_a_transaction_the_chain_already_processed_is_refused_and_not_taken(chain, query):
    """Landed through the RPC, then sent to the engine: Jito's answer for a bundle holding an already
    processed transaction (a sendTransaction is a one-transaction bundle), no x-bundle-id, and the engine
    does not list it as taken."""
    a, b = funded(chain), Keypair()
    tx = build_tx([pay(a, b.pubkey(), SOL), pay(a, C.TIP_ACCOUNTS[5], 1_000)], a, [], latest_blockhash(chain.url))
    sig = str(tx.signatures[0])
    assert result(chain.url, "sendTransaction", [b64(tx), {"encoding": "base64"}]) == sig
    assert result(chain.url, "getSignatureStatuses", [[sig]])["value"][0] is not None
    refused(send_tx(chain, tx, query=query), ALREADY_PROCESSED)
    assert ALREADY_PROCESSED == "bundle contains an already processed transaction"
    result(chain.url, "devstack_landBundles")
    assert seen(chain, tx) is None
    assert balance(chain.url, b.pubkey()) == SOL and balance(chain.url, a.pubkey()) == 9 * SOL - 1_000 - FEE
    inflight = block_engine(chain.bundle_url, "getInflightBundleStatuses", [[bundle_of(tx)]]).json()
    assert inflight["result"]["value"] == [{"bundle_id": bundle_of(tx), "status": "Invalid", "landed_slot": None}]


def test_no_preflight_a_failing_transaction_lands_with_its_error(chain):
    """Jito "always sets skip_preflight=true": the engine answers the signature of a transaction
    that fails; it lands failed and pays its fee, as on a real leader (the RPC, with preflight,
    would have refused it)."""
    a, b = funded(chain, SOL), Keypair()
    tx = build_tx([pay(a, C.TIP_ACCOUNTS[1], 1_000), pay(a, b.pubkey(), 2 * SOL)], a, [], latest_blockhash(chain.url))
    r = send_tx(chain, tx)
    assert r.status_code == 200 and r.json()["result"] == str(tx.signatures[0]), r.text
    status = result(chain.url, "getSignatureStatuses", [[str(tx.signatures[0])]])["value"][0]
    assert status is not None and status["err"] is not None
    assert balance(chain.url, a.pubkey()) == SOL - FEE and balance(chain.url, b.pubkey()) == 0
    inflight = block_engine(chain.bundle_url, "getInflightBundleStatuses", [[bundle_of(tx)]]).json()
    assert inflight["result"]["value"][0]["status"] == "Failed"


def test_bundle_only_is_a_single_transaction_bundle(held):
    chain = held
    a, b = funded(chain), Keypair()
    tx = build_tx([pay(a, b.pubkey(), SOL), pay(a, C.TIP_ACCOUNTS[3], 2_000)], a, [], latest_blockhash(chain.url))
    r = send_tx(chain, tx, query="?bundleOnly=true")
    assert r.status_code == 200 and r.json()["result"] == str(tx.signatures[0]), r.text
    assert r.headers["x-bundle-id"] == bundle_of(tx)
    assert seen(chain, tx)["bundleOnly"] is True
    # queued like sendBundle: pending, nothing on chain yet
    inflight = block_engine(chain.bundle_url, "getInflightBundleStatuses", [[bundle_of(tx)]]).json()
    assert inflight["result"]["value"][0]["status"] == "Pending"
    assert balance(chain.url, b.pubkey()) == 0
    assert result(chain.url, "devstack_landBundles") >= 1
    assert wait_bundle(chain.bundle_url, bundle_of(tx))["status"] == "Landed"
    assert balance(chain.url, b.pubkey()) == SOL


def test_bundle_only_reverts_a_failing_transaction(chain):
    a, b = funded(chain, SOL), Keypair()
    tx = build_tx([pay(a, C.TIP_ACCOUNTS[1], 1_000), pay(a, b.pubkey(), 2 * SOL)], a, [], latest_blockhash(chain.url))
    r = send_tx(chain, tx, query="?bundleOnly=true")
    assert r.status_code == 200, r.text
    assert wait_bundle(chain.bundle_url, bundle_of(tx))["status"] == "Failed"
    assert balance(chain.url, a.pubkey()) == SOL  # all or nothing: not even the fee
    assert result(chain.url, "getSignatureStatuses", [[str(tx.signatures[0])]])["value"] == [None]


def test_the_engine_rate_limit_covers_both_paths(chain):
    a = funded(chain)
    tx = build_tx(
        [pay(a, Keypair().pubkey(), SOL), pay(a, C.TIP_ACCOUNTS[0], 1_000)], a, [], latest_blockhash(chain.url)
    )
    before = result(chain.url, "devstack_setBlockEngine", [{"rateLimitPerSecond": 0.01}])
    try:
        assert block_engine(chain.bundle_url, "getTipAccounts").status_code == 200  # this caller's one request
        limited = send_tx(chain, tx)
        assert limited.status_code == 429
        assert limited.json()["error"] == {
            "code": -32097,
            "message": "Rate limit exceeded. Limit: 0.01 per second for txn requests",
        }
        assert seen(chain, tx) is None
        assert result(chain.url, "getSignatureStatuses", [[str(tx.signatures[0])]])["value"] == [None]
        # another caller (its x-jito-auth key) has its own budget
        assert send_tx(chain, tx, **{"x-jito-auth": "key-tx"}).status_code == 200
    finally:
        result(chain.url, "devstack_setBlockEngine", [{"rateLimitPerSecond": before["rateLimitPerSecond"]}])


def test_only_send_transaction_is_served_there(chain):
    r = httpx.post(chain.transactions_url, json={"jsonrpc": "2.0", "id": 1, "method": "getSlot", "params": []})
    assert r.json()["error"]["code"] == -32601


def test_a_block_engine_fault_applies_to_the_transactions_path(chain):
    a = funded(chain)
    tx = build_tx(
        [pay(a, Keypair().pubkey(), SOL), pay(a, C.TIP_ACCOUNTS[0], 1_000)], a, [], latest_blockhash(chain.url)
    )
    result(
        chain.url,
        "devstack_setFault",
        [{"target": "bundle", "mode": "down", "methods": ["sendTransaction"], "count": 1}],
    )
    assert send_tx(chain, tx).status_code == 503
    assert seen(chain, tx) is None
    assert send_tx(chain, tx).status_code == 200  # the fault was for one call
