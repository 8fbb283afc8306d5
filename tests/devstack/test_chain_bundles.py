"""Devstack chain: the Jito-style block engine (sendBundle, getBundleStatuses, getTipAccounts)."""

from __future__ import annotations

import hashlib

import httpx
from solders.keypair import Keypair
from solders.system_program import TransferParams, transfer

from devstack.chain import constants as C
from devstack.chain.b58 import b58encode
from devstack.chain.testing import airdrop, b64, balance, build_tx, latest_blockhash, result

SOL = 1_000_000_000


def be(chain, method, params):
    r = httpx.post(chain.bundle_url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    r.raise_for_status()
    return r.json()


def test_bundle_lands_atomically_with_tip(chain):
    a, b = Keypair(), Keypair()
    airdrop(chain.url, a.pubkey(), 10 * SOL)
    tip = C.TIP_ACCOUNTS[3]
    bh = latest_blockhash(chain.url)
    tx1 = build_tx([transfer(TransferParams(from_pubkey=a.pubkey(), to_pubkey=b.pubkey(), lamports=SOL))], a, [], bh)
    tx2 = build_tx([transfer(TransferParams(from_pubkey=a.pubkey(), to_pubkey=tip, lamports=100_000))], a, [], bh)
    resp = be(chain, "sendBundle", [[b64(tx1), b64(tx2)], {"encoding": "base64"}])
    sigs = [str(tx1.signatures[0]), str(tx2.signatures[0])]
    bid = hashlib.sha256(",".join(sigs).encode()).hexdigest()
    assert resp["result"] == bid
    assert balance(chain.url, b.pubkey()) == SOL
    assert balance(chain.url, tip) == 890880 + 100_000
    assert balance(chain.url, a.pubkey()) == 10 * SOL - SOL - 100_000 - 10_000
    st = be(chain, "getBundleStatuses", [[bid, "0" * 64]])["result"]
    assert st["context"]["slot"] >= 0
    v = st["value"][0]
    assert v["bundle_id"] == bid and v["transactions"] == sigs and v["err"] == {"Ok": None}
    assert v["confirmation_status"] in ("processed", "confirmed")
    assert st["value"][1] is None
    # the transactions are visible through the RPC too
    statuses = result(chain.url, "getSignatureStatuses", [sigs])["value"]
    assert all(s is not None and s["err"] is None and s["slot"] == v["slot"] for s in statuses)
    inflight = be(chain, "getInflightBundleStatuses", [[bid]])["result"]["value"][0]
    assert inflight["status"] == "Landed"


def test_bundle_with_failing_tx_lands_nothing_and_charges_no_fee(chain):
    a, b = Keypair(), Keypair()
    airdrop(chain.url, a.pubkey(), 10 * SOL)
    bh = latest_blockhash(chain.url)
    good = build_tx([transfer(TransferParams(from_pubkey=a.pubkey(), to_pubkey=b.pubkey(), lamports=SOL))], a, [], bh)
    bad = build_tx([transfer(TransferParams(from_pubkey=a.pubkey(), to_pubkey=b.pubkey(), lamports=100 * SOL))],
                   a, [], bh)
    # base58 (the default encoding)
    resp = be(chain, "sendBundle", [[b58encode(bytes(good)), b58encode(bytes(bad))]])
    bid = resp["result"]
    assert balance(chain.url, a.pubkey()) == 10 * SOL
    assert balance(chain.url, b.pubkey()) == 0
    assert be(chain, "getBundleStatuses", [[bid]])["result"]["value"] == [None]
    assert result(chain.url, "getSignatureStatuses", [[str(good.signatures[0])]])["value"] == [None]
    assert be(chain, "getInflightBundleStatuses", [[bid]])["result"]["value"][0]["status"] == "Failed"
    # the good transaction can still land on its own afterwards
    assert "result" in httpx.post(chain.url, json={"jsonrpc": "2.0", "id": 1, "method": "sendTransaction",
                                                   "params": [b64(good), {"encoding": "base64",
                                                                          "preflightCommitment": "processed"}]}).json()
    assert balance(chain.url, b.pubkey()) == SOL


def test_bundle_limits_and_tip_accounts(chain):
    a = Keypair()
    airdrop(chain.url, a.pubkey(), 10 * SOL)
    bh = latest_blockhash(chain.url)
    txs = [build_tx([transfer(TransferParams(from_pubkey=a.pubkey(), to_pubkey=Keypair().pubkey(), lamports=SOL // 10))],
                    a, [], bh) for _ in range(6)]
    resp = be(chain, "sendBundle", [[b64(t) for t in txs], {"encoding": "base64"}])
    assert resp["error"]["code"] == -32602
    assert balance(chain.url, a.pubkey()) == 10 * SOL
    tips = be(chain, "getTipAccounts", [])["result"]
    assert tips == [str(k) for k in C.TIP_ACCOUNTS] and len(tips) == 8
    assert be(chain, "getSlot", [])["error"]["code"] == -32601  # the block engine is not an RPC node
