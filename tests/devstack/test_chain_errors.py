"""Devstack chain: transaction verification, fees, atomicity and runtime rules (error shapes as on Solana)."""

from __future__ import annotations

import asyncio

import pytest
from solana.rpc.async_api import AsyncClient
from solana.rpc.core import RPCException
from solders.instruction import AccountMeta, Instruction
from solders.keypair import Keypair
from solders.pubkey import Pubkey
from solders.rpc.errors import SendTransactionPreflightFailureMessage
from solders.system_program import TransferParams, transfer

from devstack.chain import constants as C
from devstack.chain.testing import airdrop, b64, balance, build_tx, latest_blockhash, result, rpc, send

SOL = 1_000_000_000
MEMO = C.MEMO_V2_PROGRAM_ID


@pytest.fixture
def funded(chain):
    a = Keypair()
    airdrop(chain.url, a.pubkey(), 10 * SOL)
    return chain, a


def xfer(a: Keypair, to: Pubkey, lamports: int) -> Instruction:
    return transfer(TransferParams(from_pubkey=a.pubkey(), to_pubkey=to, lamports=lamports))


def test_preflight_failure_shape_via_async_client(funded):
    chain, a = funded
    tx = build_tx([xfer(a, Keypair().pubkey(), 50 * SOL)], a, [], latest_blockhash(chain.url))

    async def go():
        async with AsyncClient(chain.url, commitment="processed") as c:
            with pytest.raises(RPCException) as ei:
                await c.send_transaction(tx)
            msg = ei.value.args[0]
            assert isinstance(msg, SendTransactionPreflightFailureMessage)
            assert msg.message == (
                "Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1"
            )
            assert msg.data.logs[-1] == "Program 11111111111111111111111111111111 failed: custom program error: 0x1"
            sim = await c.simulate_transaction(tx)
            assert sim.value.err is not None and sim.value.units_consumed == 150

    asyncio.run(go())
    raw = send(chain.url, tx)["error"]
    assert raw["code"] == -32002
    assert raw["data"]["err"] == {"InstructionError": [0, {"Custom": 1}]}
    assert raw["data"]["accounts"] is None
    assert any("insufficient lamports" in line for line in raw["data"]["logs"])
    # preflight failure: nothing landed, no fee
    assert balance(chain.url, a.pubkey()) == 10 * SOL
    assert result(chain.url, "getSignatureStatuses", [[str(tx.signatures[0])]])["value"] == [None]


def test_expired_blockhash(funded):
    chain, a = funded
    bh = latest_blockhash(chain.url)
    result(chain.url, "devstack_warp", [61])
    assert result(chain.url, "isBlockhashValid", [str(bh)])["value"] is False
    tx = build_tx([xfer(a, Keypair().pubkey(), SOL)], a, [], bh)
    err = send(chain.url, tx)["error"]
    assert err["code"] == -32002
    assert err["message"] == "Transaction simulation failed: Blockhash not found"
    assert err["data"]["err"] == "BlockhashNotFound"
    # skipPreflight: accepted, but it never lands
    assert send(chain.url, tx, skip_preflight=True)["result"] == str(tx.signatures[0])
    assert result(chain.url, "getSignatureStatuses", [[str(tx.signatures[0])]])["value"] == [None]
    assert balance(chain.url, a.pubkey()) == 10 * SOL
    # simulate with replaceRecentBlockhash works and returns the replacement
    sim = result(chain.url, "simulateTransaction", [b64(tx), {"encoding": "base64", "replaceRecentBlockhash": True}])
    assert sim["value"]["err"] is None and sim["value"]["replacementBlockhash"]["blockhash"]
    sim = result(chain.url, "simulateTransaction", [b64(tx), {"encoding": "base64"}])
    assert sim["value"]["err"] == "BlockhashNotFound"


def test_blockhash_valid_for_150_slots(funded):
    chain, a = funded
    bh = latest_blockhash(chain.url)
    result(chain.url, "devstack_warp", [40])  # 100 slots
    tx = build_tx([xfer(a, Keypair().pubkey(), SOL)], a, [], bh)
    assert "result" in send(chain.url, tx)


def test_duplicate_signature(funded):
    chain, a = funded
    tx = build_tx([xfer(a, Keypair().pubkey(), SOL)], a, [], latest_blockhash(chain.url))
    assert send(chain.url, tx)["result"] == str(tx.signatures[0])
    err = send(chain.url, tx)["error"]
    assert err["code"] == -32002
    assert err["message"] == "Transaction simulation failed: This transaction has already been processed"
    assert err["data"]["err"] == "AlreadyProcessed"
    send(chain.url, tx, skip_preflight=True)
    assert balance(chain.url, a.pubkey()) == 9 * SOL - 5000  # executed exactly once


def test_oversized_transaction_rejected(funded):
    chain, a = funded
    memo = Instruction(MEMO, b"x" * 1200, [])
    tx = build_tx([memo], a, [], latest_blockhash(chain.url))
    assert len(bytes(tx)) > 1232
    err = send(chain.url, tx)["error"]
    assert err["code"] == -32602
    assert "too large" in err["message"] and "1232" in err["message"]
    assert balance(chain.url, a.pubkey()) == 10 * SOL


def test_bad_signature_rejected(funded):
    chain, a = funded
    tx = build_tx([xfer(a, Keypair().pubkey(), SOL)], a, [], latest_blockhash(chain.url))
    raw = bytearray(bytes(tx))
    raw[5] ^= 0xFF  # corrupt the signature
    import base64

    resp = rpc(chain.url, "sendTransaction", [base64.b64encode(bytes(raw)).decode(), {"encoding": "base64"}])
    assert resp["error"] == {"code": -32003, "message": "Transaction signature verification failure"}


def test_fee_charged_on_failed_transaction_and_atomic_rollback(funded):
    chain, a = funded
    b, c = Keypair().pubkey(), Keypair().pubkey()
    # instruction 0 succeeds, instruction 1 fails: neither applies, fee is charged
    tx = build_tx([xfer(a, b, 2 * SOL), xfer(a, c, 50 * SOL)], a, [], latest_blockhash(chain.url))
    sig = send(chain.url, tx, skip_preflight=True)["result"]
    st = result(chain.url, "getSignatureStatuses", [[sig], {"searchTransactionHistory": True}])["value"][0]
    assert st["err"] == {"InstructionError": [1, {"Custom": 1}]}
    assert st["status"] == {"Err": {"InstructionError": [1, {"Custom": 1}]}}
    assert st["confirmationStatus"] in ("processed", "confirmed")
    assert balance(chain.url, a.pubkey()) == 10 * SOL - 5000
    assert balance(chain.url, b) == 0
    got = result(chain.url, "getTransaction", [sig, {"commitment": "confirmed"}])
    assert got["meta"]["fee"] == 5000
    assert got["meta"]["postBalances"][0] == 10 * SOL - 5000
    assert got["meta"]["err"] == {"InstructionError": [1, {"Custom": 1}]}
    # later it becomes finalized
    result(chain.url, "devstack_warp", [13])
    st = result(chain.url, "getSignatureStatuses", [[sig]])["value"][0]
    assert st["confirmationStatus"] == "finalized" and st["confirmations"] is None


def test_insufficient_funds_for_fee_and_rent(chain):
    a = Keypair()
    tx = build_tx([xfer(a, Keypair().pubkey(), 1)], a, [], latest_blockhash(chain.url))
    err = send(chain.url, tx)["error"]
    assert err["data"]["err"] == "AccountNotFound"
    airdrop(chain.url, a.pubkey(), SOL)
    tx = build_tx([xfer(a, Keypair().pubkey(), 1000)], a, [], latest_blockhash(chain.url))
    err = send(chain.url, tx)["error"]
    assert err["data"]["err"] == {"InsufficientFundsForRent": {"account_index": 1}}
    assert err["message"] == (
        "Transaction simulation failed: Transaction results in an account (1) with insufficient funds for rent"
    )


def test_memo_programs(funded):
    chain, a = funded
    url = chain.url
    ok = Instruction(MEMO, "héllo".encode(), [AccountMeta(a.pubkey(), True, False)])
    sig = send(url, build_tx([ok], a, [], latest_blockhash(url)))["result"]
    logs = result(url, "getTransaction", [sig, {"commitment": "confirmed"}])["meta"]["logMessages"]
    signed = logs.index("Program log: Signed by:")
    assert logs[signed + 1] == f"Program log: {a.pubkey()}"
    assert "Program log: Memo (len 6)" in logs
    bad = Instruction(MEMO, b"\xff\xfe", [])  # not UTF-8: the program panics
    err = send(url, build_tx([bad], a, [], latest_blockhash(url)))["error"]
    assert err["data"]["err"] == {"InstructionError": [0, "ProgramFailedToComplete"]}
    assert err["message"] == "Transaction simulation failed: Error processing Instruction 0: Program failed to complete"
    other = Keypair().pubkey()
    unsigned = Instruction(MEMO, b"hi", [AccountMeta(other, False, False)])
    assert send(url, build_tx([unsigned], a, [], latest_blockhash(url)))["error"]["data"]["err"] == {
        "InstructionError": [0, "MissingRequiredSignature"]
    }
    v1 = Instruction(C.MEMO_V1_PROGRAM_ID, b"legacy memo", [])
    assert "result" in send(url, build_tx([v1], a, [], latest_blockhash(url)))


def test_unknown_program(funded):
    """A program id with no account: agave refuses the transaction before execution (nothing
    lands), and the preflight error carries Solana's Display text."""
    chain, a = funded
    tx = build_tx([Instruction(Keypair().pubkey(), b"", [])], a, [], latest_blockhash(chain.url))
    err = send(chain.url, tx)["error"]
    assert err["code"] == -32002 and err["data"]["err"] == "InvalidProgramForExecution"
    assert err["message"] == "Transaction simulation failed: Transaction loads an account that is not executable"
    send(chain.url, tx, skip_preflight=True)
    assert result(chain.url, "getSignatureStatuses", [[str(tx.signatures[0])]])["value"] == [None]
    assert balance(chain.url, a.pubkey()) == 10 * SOL
