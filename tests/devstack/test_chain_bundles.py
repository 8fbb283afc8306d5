"""Devstack chain: the block engine, held to Jito's rules (devstack/chain/blockengine.py): at most 5
transactions, a tip of at least 1,000 lamports to a tip account, at most 5 ids a status query, a
per-caller rate limit (HTTP 429), bundles that land after they are accepted (Pending, then Landed or
Failed), and a re-sent bundle that changes nothing."""

from __future__ import annotations

import hashlib

import pytest
from base58 import b58encode
from solders.instruction import AccountMeta, Instruction
from solders.keypair import Keypair
from solders.system_program import TransferParams, transfer

from devstack.chain import constants as C
from devstack.chain.blockengine import NO_TIP_LOCK
from devstack.chain.testing import (
    airdrop,
    b64,
    balance,
    block_engine,
    build_tx,
    latest_blockhash,
    result,
    send,
    send_bundle,
    wait_bundle,
)

SOL = 1_000_000_000
TIP_RENT = 890_880  # a tip account's balance at genesis


def be(chain, method, params):
    return block_engine(chain.bundle_url, method, params).json()


def pay(src: Keypair, dst, lamports: int):
    return transfer(TransferParams(from_pubkey=src.pubkey(), to_pubkey=dst, lamports=lamports))


def settings(chain, **spec):
    return result(chain.url, "devstack_setBlockEngine", [spec])


def funded(chain, lamports: int = 10 * SOL) -> Keypair:
    a = Keypair()
    airdrop(chain.url, a.pubkey(), lamports)
    return a


@pytest.fixture
def held(chain):
    """Bundles stay pending until the test lands them (devstack_landBundles)."""
    settings(chain, landDelayMs=3_600_000)
    yield chain
    settings(chain, landDelayMs=C.SLOT_SECONDS * 1000)


def test_bundle_lands_atomically_with_tip(chain):
    a, b = funded(chain), Keypair()
    tip = C.TIP_ACCOUNTS[3]
    bh = latest_blockhash(chain.url)
    tx1 = build_tx([pay(a, b.pubkey(), SOL)], a, [], bh)
    tx2 = build_tx([pay(a, tip, 100_000)], a, [], bh)
    bid = send_bundle(chain.bundle_url, [tx1, tx2])
    sigs = [str(tx1.signatures[0]), str(tx2.signatures[0])]
    assert bid == hashlib.sha256(",".join(sigs).encode()).hexdigest()
    landed = wait_bundle(chain.bundle_url, bid)
    assert landed["status"] == "Landed" and landed["landed_slot"] >= 0
    assert balance(chain.url, b.pubkey()) == SOL
    assert balance(chain.url, tip) == TIP_RENT + 100_000
    assert balance(chain.url, a.pubkey()) == 10 * SOL - SOL - 100_000 - 10_000
    st = be(chain, "getBundleStatuses", [[bid, "0" * 64]])["result"]
    assert st["context"]["slot"] >= 0
    v = st["value"][0]
    assert v["bundle_id"] == bid and v["transactions"] == sigs and v["err"] == {"Ok": None}
    assert v["slot"] == landed["landed_slot"]
    assert v["confirmation_status"] in ("processed", "confirmed", "finalized")
    assert st["value"][1] is None
    # the transactions are visible through the RPC too
    statuses = result(chain.url, "getSignatureStatuses", [sigs])["value"]
    assert all(s is not None and s["err"] is None and s["slot"] == v["slot"] for s in statuses)


def test_bundle_with_failing_tx_lands_nothing_and_charges_no_fee(chain):
    a, b = funded(chain), Keypair()
    bh = latest_blockhash(chain.url)
    good = build_tx([pay(a, b.pubkey(), SOL), pay(a, C.TIP_ACCOUNTS[0], 10_000)], a, [], bh)
    bad = build_tx([pay(a, b.pubkey(), 100 * SOL)], a, [], bh)
    # base58 (the default encoding)
    r = block_engine(
        chain.bundle_url, "sendBundle", [[b58encode(bytes(good)).decode(), b58encode(bytes(bad)).decode()]]
    )
    assert r.status_code == 200, r.text
    bid = r.json()["result"]
    assert wait_bundle(chain.bundle_url, bid) == {"bundle_id": bid, "status": "Failed", "landed_slot": None}
    assert balance(chain.url, a.pubkey()) == 10 * SOL
    assert balance(chain.url, b.pubkey()) == 0
    assert be(chain, "getBundleStatuses", [[bid]])["result"]["value"] == [None]
    assert result(chain.url, "getSignatureStatuses", [[str(good.signatures[0])]])["value"] == [None]
    # the good transaction can still land on its own afterwards
    assert "result" in send(chain.url, good)
    assert balance(chain.url, b.pubkey()) == SOL


def test_a_bundle_is_pending_until_it_lands(held):
    chain = held
    a, b = funded(chain), Keypair()
    tx = build_tx([pay(a, b.pubkey(), SOL), pay(a, C.TIP_ACCOUNTS[1], 1_000)], a, [], latest_blockhash(chain.url))
    bid = send_bundle(chain.bundle_url, [tx])
    assert be(chain, "getInflightBundleStatuses", [[bid]])["result"]["value"] == [
        {"bundle_id": bid, "status": "Pending", "landed_slot": None}
    ]
    assert be(chain, "getBundleStatuses", [[bid]])["result"]["value"] == [None]
    assert balance(chain.url, b.pubkey()) == 0
    assert result(chain.url, "getSignatureStatuses", [[str(tx.signatures[0])]])["value"] == [None]
    assert result(chain.url, "devstack_landBundles") >= 1
    landed = be(chain, "getInflightBundleStatuses", [[bid]])["result"]["value"][0]
    assert landed["status"] == "Landed" and isinstance(landed["landed_slot"], int)
    assert balance(chain.url, b.pubkey()) == SOL
    assert be(chain, "getBundleStatuses", [[bid]])["result"]["value"][0]["slot"] == landed["landed_slot"]


def test_resending_a_landed_bundle_changes_nothing(chain):
    a, b = funded(chain), Keypair()
    tx = build_tx([pay(a, b.pubkey(), SOL), pay(a, C.TIP_ACCOUNTS[2], 5_000)], a, [], latest_blockhash(chain.url))
    bid = send_bundle(chain.bundle_url, [tx])
    landed = wait_bundle(chain.bundle_url, bid)
    assert landed["status"] == "Landed"
    payer = balance(chain.url, a.pubkey())
    assert send_bundle(chain.bundle_url, [tx]) == bid
    result(chain.url, "devstack_landBundles")
    assert be(chain, "getInflightBundleStatuses", [[bid]])["result"]["value"][0] == landed
    assert be(chain, "getBundleStatuses", [[bid]])["result"]["value"][0]["slot"] == landed["landed_slot"]
    assert balance(chain.url, a.pubkey()) == payer and balance(chain.url, b.pubkey()) == SOL


def refusal(r, message_part: str) -> None:
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert error["code"] == -32602 and message_part in error["message"], error


def test_a_sixth_transaction_is_refused(chain):
    a = funded(chain)
    bh = latest_blockhash(chain.url)
    txs = [
        build_tx([pay(a, Keypair().pubkey(), SOL // 10), pay(a, C.TIP_ACCOUNTS[0], 1_000)], a, [], bh) for _ in range(6)
    ]
    refusal(
        block_engine(chain.bundle_url, "sendBundle", [[b64(t) for t in txs], {"encoding": "base64"}]),
        "exceeded maximum number of transactions",
    )
    result(chain.url, "devstack_landBundles")
    assert balance(chain.url, a.pubkey()) == 10 * SOL
    bid = send_bundle(chain.bundle_url, txs[:5])  # five are a bundle
    assert wait_bundle(chain.bundle_url, bid)["status"] == "Landed"


def test_a_bundle_without_a_tip_is_refused(chain):
    a = funded(chain)
    tx = build_tx([pay(a, Keypair().pubkey(), SOL)], a, [], latest_blockhash(chain.url))
    refusal(block_engine(chain.bundle_url, "sendBundle", [[b64(tx)], {"encoding": "base64"}]), NO_TIP_LOCK)
    # naming a tip account read-only is no tip either
    read_only = Instruction(
        C.SYSTEM_PROGRAM_ID,
        bytes([2, 0, 0, 0]) + (0).to_bytes(8, "little"),
        [
            AccountMeta(a.pubkey(), True, True),
            AccountMeta(Keypair().pubkey(), False, True),
            AccountMeta(C.TIP_ACCOUNTS[0], False, False),
        ],
    )
    tx = build_tx([read_only], a, [], latest_blockhash(chain.url))
    refusal(block_engine(chain.bundle_url, "sendBundle", [[b64(tx)], {"encoding": "base64"}]), NO_TIP_LOCK)
    result(chain.url, "devstack_landBundles")
    assert balance(chain.url, a.pubkey()) == 10 * SOL


@pytest.mark.parametrize("tip", [1, 999])
def test_a_tip_below_1000_lamports_is_refused(chain, tip):
    a = funded(chain)
    tx = build_tx([pay(a, Keypair().pubkey(), SOL), pay(a, C.TIP_ACCOUNTS[4], tip)], a, [], latest_blockhash(chain.url))
    refusal(
        block_engine(chain.bundle_url, "sendBundle", [[b64(tx)], {"encoding": "base64"}]),
        "below the minimum tip of 1000 lamports",
    )
    result(chain.url, "devstack_landBundles")
    assert balance(chain.url, a.pubkey()) == 10 * SOL


def test_the_tip_may_be_in_any_transaction_and_split(chain):
    a, b = funded(chain), Keypair()
    bh = latest_blockhash(chain.url)
    first = build_tx([pay(a, C.TIP_ACCOUNTS[5], 600), pay(a, b.pubkey(), SOL)], a, [], bh)
    second = build_tx([pay(a, C.TIP_ACCOUNTS[6], 400)], a, [], bh)
    bid = send_bundle(chain.bundle_url, [first, second])  # 600 + 400: the minimum, over two transactions
    assert wait_bundle(chain.bundle_url, bid)["status"] == "Landed"
    assert balance(chain.url, b.pubkey()) == SOL


@pytest.mark.parametrize("method", ["getBundleStatuses", "getInflightBundleStatuses"])
def test_status_queries_take_at_most_five_ids(chain, method):
    ids = [hashlib.sha256(bytes([i])).hexdigest() for i in range(6)]
    refusal(block_engine(chain.bundle_url, method, [ids]), "maximum of 5")
    r = block_engine(chain.bundle_url, method, [ids[:5]])
    assert r.status_code == 200 and len(r.json()["result"]["value"]) == 5


def test_the_rate_limit_answers_429_per_caller(chain):
    before = settings(chain, rateLimitPerSecond=0.01)  # one request, then none for 100 s
    try:
        first = block_engine(chain.bundle_url, "getTipAccounts")
        assert first.status_code == 200 and len(first.json()["result"]) == 8
        limited = block_engine(chain.bundle_url, "getTipAccounts")
        assert limited.status_code == 429
        assert limited.json()["error"] == {
            "code": -32097,
            "message": "Rate limit exceeded. Limit: 0.01 per second for txn requests",
        }
        # another caller (its x-jito-auth key) has its own budget; the RPC is not limited
        assert block_engine(chain.bundle_url, "getTipAccounts", **{"x-jito-auth": "key-1"}).status_code == 200
        assert block_engine(chain.bundle_url, "getTipAccounts", **{"x-jito-auth": "key-1"}).status_code == 429
        assert result(chain.url, "getSlot") >= 0
    finally:
        settings(chain, rateLimitPerSecond=before["rateLimitPerSecond"])
    assert block_engine(chain.bundle_url, "getTipAccounts").status_code == 200


JITO_TIP_ACCOUNTS = """
    96gYZGLnJYVFmbjzopPSU6QiEV5fGqZNyN9nmNhvrZU5 HFqU5x63VTqvQss8hp11i4wVV8bD44PvwucfZ2bU7gRe
    Cw8CFyM9FkoMi7K7Crf6HNQqf4uEMzpKw6QNghXLvLkY ADaUMid9yfUytqMBgopwjb2DTLSokTSzL1zt6iGPaS49
    DfXygSm4jCyNCybVYYK6DwvWqjKee8pbDmJGcLWNDXjh ADuUkR4vqLUMWXxW9gh6D6L8pMSawimctcNZ5pGwDcEt
    DttWaMuVvTiduZRnguLF7jNxTgiMBZ1hyAumKUiL2KRL 3AVi9Tg9Uo68tJfuvoKvqKNWKkC5wPdSSdeBnizKZ6jT
"""


def test_tip_accounts_are_jitos_eight(chain):
    from partner.chain.tx import TIP_ACCOUNTS

    tips = be(chain, "getTipAccounts", [])["result"]
    assert tips == [str(k) for k in C.TIP_ACCOUNTS] == [str(k) for k in TIP_ACCOUNTS]
    # as docs.jito.wtf (lowlatencytxnsend.md, getTipAccounts) lists them: an independent copy
    assert set(tips) == set(JITO_TIP_ACCOUNTS.split())
    assert be(chain, "getSlot", [])["error"]["code"] == -32601  # the block engine is not an RPC node
