"""Devstack chain: Solana JSON-RPC basics, driven by solana-py's AsyncClient and raw httpx."""

from __future__ import annotations

import asyncio
import base64

import httpx
from solana.rpc.async_api import AsyncClient
from solana.rpc.models import TxOpts
from solders.keypair import Keypair
from solders.pubkey import Pubkey
from solders.system_program import TransferParams, transfer

from devstack.chain import constants as C
from devstack.chain.testing import airdrop, balance, build_tx, latest_blockhash, result, rpc

SOL = 1_000_000_000


def run(coro):
    return asyncio.run(coro)


def test_airdrop_and_system_transfer_with_async_client(chain):
    a, b = Keypair(), Keypair()

    async def go():
        async with AsyncClient(chain.url, commitment="processed") as c:
            sig = (await c.request_airdrop(a.pubkey(), 2 * SOL)).value
            st = (await c.get_signature_statuses([sig])).value[0]
            assert st is not None and st.err is None
            assert (await c.get_balance(a.pubkey())).value == 2 * SOL
            bh = (await c.get_latest_blockhash()).value
            assert bh.last_valid_block_height >= (await c.get_block_height()).value + 149
            ix = transfer(TransferParams(from_pubkey=a.pubkey(), to_pubkey=b.pubkey(), lamports=SOL // 2))
            tx = build_tx([ix], a, [], bh.blockhash, v0=True)
            sig = (
                await c.send_transaction(tx, TxOpts(skip_confirmation=False, preflight_commitment="processed"))
            ).value
            assert (await c.get_balance(a.pubkey())).value == 2 * SOL - SOL // 2 - 5000
            assert (await c.get_balance(b.pubkey())).value == SOL // 2
            statuses = (await c.get_signature_statuses([sig], search_transaction_history=True)).value
            assert statuses[0].err is None
            assert str(statuses[0].confirmation_status) in (
                "TransactionConfirmationStatus.Confirmed",
                "TransactionConfirmationStatus.Processed",
            )
            result(chain.url, "devstack_warp", [1])  # getTransaction sees it once it is confirmed
            got = (await c.get_transaction(sig, commitment="confirmed", max_supported_transaction_version=0)).value
            assert got is not None
            meta = got.transaction.meta
            assert meta.fee == 5000
            assert meta.err is None
            assert meta.pre_balances[:2] == [2 * SOL, 0]
            assert meta.post_balances[:2] == [2 * SOL - SOL // 2 - 5000, SOL // 2]
            assert "Program 11111111111111111111111111111111 success" in meta.log_messages
            info = (await c.get_account_info(b.pubkey())).value
            assert info.lamports == SOL // 2 and info.owner == C.SYSTEM_PROGRAM_ID and info.data == b""

    run(go())


def test_get_transaction_json_and_base64_shapes(chain):
    a, b = Keypair(), Keypair()
    airdrop(chain.url, a.pubkey(), SOL)
    ix = transfer(TransferParams(from_pubkey=a.pubkey(), to_pubkey=b.pubkey(), lamports=SOL // 4))
    tx = build_tx([ix], a, [], latest_blockhash(chain.url))
    sig = result(chain.url, "sendTransaction", [base64.b64encode(bytes(tx)).decode(), {"encoding": "base64"}])
    assert sig == str(tx.signatures[0])
    j = result(chain.url, "getTransaction", [sig, {"encoding": "json", "commitment": "confirmed"}])
    assert j["transaction"]["signatures"] == [sig]
    assert j["transaction"]["message"]["accountKeys"][0] == str(a.pubkey())
    assert j["meta"]["status"] == {"Ok": None}
    assert j["meta"]["fee"] == 5000
    assert "version" not in j  # only with maxSupportedTransactionVersion
    b64 = result(chain.url, "getTransaction", [sig, {"encoding": "base64", "maxSupportedTransactionVersion": 0}])
    assert b64["version"] == "legacy"
    assert base64.b64decode(b64["transaction"][0]) == bytes(tx)
    assert b64["transaction"][1] == "base64"

    # v0 without maxSupportedTransactionVersion: Solana's -32015
    tx0 = build_tx(
        [transfer(TransferParams(from_pubkey=a.pubkey(), to_pubkey=b.pubkey(), lamports=1))],
        a,
        [],
        latest_blockhash(chain.url),
        v0=True,
    )
    sig0 = result(chain.url, "sendTransaction", [base64.b64encode(bytes(tx0)).decode(), {"encoding": "base64"}])
    assert rpc(chain.url, "getTransaction", [sig0, {"commitment": "confirmed"}])["error"]["code"] == -32015

    async def parse():
        async with AsyncClient(chain.url, commitment="processed") as c:
            from solders.signature import Signature

            got = await c.get_transaction(Signature.from_string(sig), encoding="base64", commitment="confirmed")
            assert got.value.transaction.meta.fee == 5000

    run(parse())


def test_base58_send_and_misc_methods(chain):
    from base58 import b58encode

    a = Keypair()
    airdrop(chain.url, a.pubkey(), SOL)
    tx = build_tx(
        [transfer(TransferParams(from_pubkey=a.pubkey(), to_pubkey=Keypair().pubkey(), lamports=SOL // 10))],
        a,
        [],
        latest_blockhash(chain.url),
    )
    assert result(chain.url, "sendTransaction", [b58encode(bytes(tx)).decode()]) == str(tx.signatures[0])
    assert balance(chain.url, a.pubkey()) == SOL - SOL // 10 - 5000

    assert result(chain.url, "getHealth") == "ok"
    assert result(chain.url, "getVersion")["solana-core"].startswith("2.")
    assert result(chain.url, "getMinimumBalanceForRentExemption", [165]) == 2039280
    assert result(chain.url, "getMinimumBalanceForRentExemption", [0]) == 890880
    assert result(chain.url, "getMinimumBalanceForRentExemption", [82]) == 1461600
    assert isinstance(result(chain.url, "getGenesisHash"), str)
    ei = result(chain.url, "getEpochInfo")
    assert ei["slotsInEpoch"] == 432000 and ei["absoluteSlot"] >= 0
    bh = latest_blockhash(chain.url)
    assert result(chain.url, "isBlockhashValid", [str(bh)])["value"] is True
    assert result(chain.url, "isBlockhashValid", [str(Keypair().pubkey())])["value"] is False
    resp = rpc(chain.url, "noSuchMethod")
    assert resp["error"] == {"code": -32601, "message": "Method not found"}
    # batch
    r = httpx.post(
        chain.url,
        json=[
            {"jsonrpc": "2.0", "id": 1, "method": "getSlot"},
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "getBalance",
                "params": [str(a.pubkey()), {"commitment": "processed"}],
            },
        ],
    )
    out = r.json()
    assert [o["id"] for o in out] == [1, 2]
    assert out[1]["result"]["value"] == SOL - SOL // 10 - 5000
    assert out[1]["result"]["context"]["apiVersion"].startswith("2.")
    # parse error
    r = httpx.post(chain.url, content=b"{nope", headers={"Content-Type": "application/json"})
    assert r.json()["error"]["code"] == -32700


def test_slots_advance_and_warp(chain):
    s0 = result(chain.url, "getSlot")
    t0 = result(chain.url, "devstack_getClock")["unixTimestamp"]
    out = result(chain.url, "devstack_warp", [40])
    assert out["slot"] >= s0 + 100
    assert out["unixTimestamp"] >= t0 + 40
    assert result(chain.url, "getSlot") >= s0 + 100
    assert result(chain.url, "getBlockHeight") >= s0 + 100


def test_account_queries_and_program_account_filters(chain):
    owner = Pubkey.from_string("Stake11111111111111111111111111111111111111")
    keys = [Keypair().pubkey() for _ in range(3)]
    datas = [b"\x01AAAA" + bytes(10), b"\x02BBBB" + bytes(10), b"\x01CCCC" + bytes(20)]
    for k, d in zip(keys, datas, strict=True):
        assert result(
            chain.url,
            "devstack_setAccount",
            [{"pubkey": str(k), "lamports": 5 * SOL, "data": base64.b64encode(d).decode(), "owner": str(owner)}],
        )
    allp = result(chain.url, "getProgramAccounts", [str(owner), {"encoding": "base64"}])
    assert {x["pubkey"] for x in allp} == {str(k) for k in keys}
    sized = result(chain.url, "getProgramAccounts", [str(owner), {"encoding": "base64", "filters": [{"dataSize": 15}]}])
    assert {x["pubkey"] for x in sized} == {str(keys[0]), str(keys[1])}
    from base58 import b58encode

    m58 = result(
        chain.url,
        "getProgramAccounts",
        [
            str(owner),
            {"encoding": "base64", "filters": [{"memcmp": {"offset": 0, "bytes": b58encode(b"\x01").decode()}}]},
        ],
    )
    assert {x["pubkey"] for x in m58} == {str(keys[0]), str(keys[2])}
    m64 = result(
        chain.url,
        "getProgramAccounts",
        [
            str(owner),
            {
                "encoding": "base64",
                "withContext": True,
                "filters": [
                    {"memcmp": {"offset": 1, "bytes": base64.b64encode(b"BBBB").decode(), "encoding": "base64"}}
                ],
            },
        ],
    )
    assert [x["pubkey"] for x in m64["value"]] == [str(keys[1])]
    assert "slot" in m64["context"]
    acct = m64["value"][0]["account"]
    assert base64.b64decode(acct["data"][0]) == datas[1] and acct["lamports"] == 5 * SOL
    assert acct["owner"] == str(owner) and acct["space"] == 15

    multi = result(chain.url, "getMultipleAccounts", [[str(keys[0]), str(Keypair().pubkey())], {"encoding": "base64"}])
    assert multi["value"][1] is None
    assert base64.b64decode(multi["value"][0]["data"][0]) == datas[0]
    sliced = result(
        chain.url, "getAccountInfo", [str(keys[2]), {"encoding": "base64", "dataSlice": {"offset": 1, "length": 4}}]
    )
    assert base64.b64decode(sliced["value"]["data"][0]) == b"CCCC"
    assert result(chain.url, "getAccountInfo", [str(Keypair().pubkey()), {"encoding": "base64"}])["value"] is None

    async def go():
        from solana.rpc.models import MemcmpOpts

        async with AsyncClient(chain.url, commitment="processed") as c:
            r = await c.get_program_accounts(
                owner, encoding="base64", filters=[15, MemcmpOpts(offset=1, bytes=b58encode(b"BBBB").decode())]
            )
            assert [str(x.pubkey) for x in r.value] == [str(keys[1])]
            assert r.value[0].account.data == datas[1]

    run(go())


def test_tip_accounts_exist_at_genesis(chain):
    tips = httpx.post(
        chain.bundle_url, json={"jsonrpc": "2.0", "id": 1, "method": "getTipAccounts", "params": []}
    ).json()
    assert tips["result"] == [str(k) for k in C.TIP_ACCOUNTS]
    assert len(set(tips["result"])) == 8
    for k in tips["result"]:
        assert balance(chain.url, k) == 890880


def test_simulate_accounts_parsed_mint_and_signature_history(chain):
    a, b = Keypair(), Keypair().pubkey()
    airdrop(chain.url, a.pubkey(), SOL)
    tx = build_tx(
        [transfer(TransferParams(from_pubkey=a.pubkey(), to_pubkey=b, lamports=SOL // 10))],
        a,
        [],
        latest_blockhash(chain.url),
    )

    async def go():
        async with AsyncClient(chain.url, commitment="processed") as c:
            sim = await c.simulate_transaction(tx, sig_verify=True, accounts_addresses=[b, a.pubkey()])
            assert sim.value.err is None
            assert [x.lamports for x in sim.value.accounts] == [SOL // 10, SOL - SOL // 10 - 5000]
            assert (await c.get_balance(b)).value == 0  # simulation changed nothing
            parsed = (await c.get_account_info_json_parsed(C.NATIVE_MINT)).value.data
            assert parsed.program == "spl-token" and parsed.parsed["type"] == "mint"
            assert parsed.parsed["info"]["decimals"] == 9
            sigs = (await c.get_signatures_for_address(a.pubkey())).value
            assert len(sigs) == 1 and sigs[0].err is None  # the airdrop

    asyncio.run(go())
