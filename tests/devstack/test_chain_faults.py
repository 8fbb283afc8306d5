"""Devstack chain: fault injection (down / error / slow / drop, with counts) on the RPC and the block engine."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
from solana.exceptions import SolanaRpcException
from solana.rpc.async_api import AsyncClient
from solana.rpc.core import RPCException
from solders.keypair import Keypair
from solders.system_program import TransferParams, transfer

from devstack.chain import constants as C
from devstack.chain.testing import airdrop, b64, balance, build_tx, latest_blockhash, result, rpc, send, wait_bundle

SOL = 1_000_000_000


def fault(chain, **spec):
    return result(chain.url, "devstack_setFault", [spec])


def test_down_with_count_then_recovers(chain):
    fault(chain, target="rpc", mode="down", methods=["getBalance"], count=2)
    k = str(Keypair().pubkey())
    for _ in range(2):
        r = httpx.post(chain.url, json={"jsonrpc": "2.0", "id": 1, "method": "getBalance", "params": [k]})
        assert r.status_code == 503
    assert result(chain.url, "getSlot") >= 0  # other methods unaffected
    assert balance(chain.url, k) == 0  # count exhausted -> cleared
    assert result(chain.url, "devstack_getFaults") == []


def test_down_all_methods_but_controls_still_work(chain):
    fault(chain, target="rpc", mode="down")
    r = httpx.post(chain.url, json={"jsonrpc": "2.0", "id": 1, "method": "getHealth"})
    assert r.status_code == 503

    async def go():
        async with AsyncClient(chain.url, commitment="processed") as c:
            with pytest.raises(SolanaRpcException, match="HTTPStatusError"):  # the 503
                await c.get_slot()

    asyncio.run(go())
    # control methods are never faulted
    assert len(result(chain.url, "devstack_getFaults")) == 1
    assert result(chain.url, "devstack_clearFaults") is True
    assert result(chain.url, "getHealth") == "ok"


def test_error_mode_is_node_unhealthy(chain):
    fault(chain, target="rpc", mode="error", methods=["getLatestBlockhash"], count=1)
    resp = rpc(chain.url, "getLatestBlockhash")
    assert resp["error"]["code"] == -32005
    assert resp["error"]["message"] == "Node is unhealthy"

    async def go():
        fault(chain, target="rpc", mode="error", methods=["getLatestBlockhash"], count=1)
        async with AsyncClient(chain.url, commitment="processed") as c:
            with pytest.raises(RPCException):
                await c.get_latest_blockhash()
            assert (await c.get_latest_blockhash()).value.last_valid_block_height > 0

    asyncio.run(go())


def test_slow_mode(chain):
    fault(chain, target="rpc", mode="slow", delayMs=400, methods=["getSlot"], count=1)
    t0 = time.monotonic()
    assert isinstance(result(chain.url, "getSlot"), int)
    assert time.monotonic() - t0 >= 0.38
    t0 = time.monotonic()
    result(chain.url, "getSlot")
    assert time.monotonic() - t0 < 0.38


def test_drop_send_transaction_never_lands_and_expires(chain):
    a = Keypair()
    airdrop(chain.url, a.pubkey(), 2 * SOL)
    fault(chain, target="rpc", mode="drop", count=1)
    bh = latest_blockhash(chain.url)
    tx = build_tx(
        [transfer(TransferParams(from_pubkey=a.pubkey(), to_pubkey=Keypair().pubkey(), lamports=SOL))], a, [], bh
    )
    assert send(chain.url, tx)["result"] == str(tx.signatures[0])  # accepted...
    assert result(chain.url, "getSignatureStatuses", [[str(tx.signatures[0])]])["value"] == [None]  # ...never lands
    assert balance(chain.url, a.pubkey()) == 2 * SOL
    result(chain.url, "devstack_warp", [61])
    assert result(chain.url, "isBlockhashValid", [str(bh)])["value"] is False
    # the drop fault was consumed by sendTransaction only (count=1); a new send works
    tx2 = build_tx(
        [transfer(TransferParams(from_pubkey=a.pubkey(), to_pubkey=Keypair().pubkey(), lamports=SOL))],
        a,
        [],
        latest_blockhash(chain.url),
    )
    assert "result" in send(chain.url, tx2)
    assert balance(chain.url, a.pubkey()) == SOL - 5000


def test_bundle_faults(chain):
    a = Keypair()
    airdrop(chain.url, a.pubkey(), 2 * SOL)
    tip = transfer(TransferParams(from_pubkey=a.pubkey(), to_pubkey=C.TIP_ACCOUNTS[0], lamports=1_000))
    tx = build_tx(
        [transfer(TransferParams(from_pubkey=a.pubkey(), to_pubkey=Keypair().pubkey(), lamports=SOL)), tip],
        a,
        [],
        latest_blockhash(chain.url),
    )
    body = {"jsonrpc": "2.0", "id": 1, "method": "sendBundle", "params": [[b64(tx)], {"encoding": "base64"}]}
    fault(chain, target="bundle", mode="down", count=1)
    assert result(chain.url, "getSlot") >= 0  # rpc target unaffected
    assert httpx.post(chain.bundle_url, json=body).status_code == 503
    fault(chain, target="bundle", mode="error", methods=["sendBundle"], count=1)
    assert httpx.post(chain.bundle_url, json=body).json()["error"]["code"] == -32005
    fault(chain, target="bundle", mode="drop", count=1)
    bid = httpx.post(chain.bundle_url, json=body).json()["result"]
    st = httpx.post(
        chain.bundle_url, json={"jsonrpc": "2.0", "id": 2, "method": "getBundleStatuses", "params": [[bid]]}
    ).json()
    assert st["result"]["value"] == [None]
    assert balance(chain.url, a.pubkey()) == 2 * SOL
    # faults exhausted: the same bundle now lands
    assert httpx.post(chain.bundle_url, json=body).json()["result"] == bid
    assert wait_bundle(chain.bundle_url, bid)["status"] == "Landed"
    assert balance(chain.url, a.pubkey()) == SOL - 5000 - 1_000


def test_set_fault_validation(chain):
    assert rpc(chain.url, "devstack_setFault", [{"target": "rpc", "mode": "explode"}])["error"]["code"] == -32602
