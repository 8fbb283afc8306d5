"""Devstack chain: each commitment level sees its own slot's state, as a real node.

`processed` is the newest state, `confirmed` one slot behind (C.CONFIRMED_AFTER_SLOTS; two with
DEVSTACK_CONFIRMED_AFTER_SLOTS=2), `finalized` 32 behind; a request that names no commitment
gets `finalized`. Requests here are sent raw (`raw=True`): the test helpers otherwise name
`processed` for the caller. Slots advance with wall time (0.4 s) and `devstack_warp`; every
check below that a level still sees the old state runs well within the 32 slots (12.8 s) that
`finalized` lags.
"""

from __future__ import annotations

import pytest
from solders.keypair import Keypair
from solders.system_program import TransferParams, transfer

from devstack.chain import constants as C
from devstack.chain.testing import b64, build_tx, rpc

SOL = 1_000_000_000


def call(url, method, params=None):
    out = rpc(url, method, params, raw=True)
    assert "error" not in out, out
    return out["result"]


def fresh(chain):
    """Past the first 32 slots, so `finalized` is a real slot and not the clamp at 0."""
    call(chain.url, "devstack_warp", [20])


def airdrop_now(chain, pubkey, lamports=SOL):
    sig = call(chain.url, "requestAirdrop", [str(pubkey), lamports])
    return sig, call(chain.url, "getSignatureStatuses", [[sig]])["value"][0]["slot"]


def test_a_read_without_commitment_is_answered_from_finalized(chain):
    fresh(chain)
    a = Keypair().pubkey()
    _, landed = airdrop_now(chain, a)

    newest = call(chain.url, "getBalance", [str(a), {"commitment": "processed"}])
    default = call(chain.url, "getBalance", [str(a)])
    after = call(chain.url, "getSlot", [{"commitment": "processed"}])
    assert newest["value"] == SOL and newest["context"]["slot"] >= landed
    assert default["value"] == 0  # the airdrop is not finalized yet
    assert newest["context"]["slot"] - 32 <= default["context"]["slot"] <= after - 32 < landed
    assert call(chain.url, "getBalance", [str(a), {"commitment": "finalized"}])["value"] == 0
    assert call(chain.url, "getAccountInfo", [str(a), {"encoding": "base64"}])["value"] is None
    info = call(chain.url, "getAccountInfo", [str(a), {"encoding": "base64", "commitment": "processed"}])
    assert info["value"]["lamports"] == SOL
    many = call(chain.url, "getMultipleAccounts", [[str(a)], {"encoding": "base64"}])
    assert many["value"] == [None]

    call(chain.url, "devstack_warp", [1])  # 2.5 slots: confirmed has it, finalized not yet
    assert call(chain.url, "getBalance", [str(a), {"commitment": "confirmed"}])["value"] == SOL
    assert call(chain.url, "getBalance", [str(a)])["value"] == 0
    call(chain.url, "devstack_warp", [13])  # 32.5 more slots: finalized
    assert call(chain.url, "getBalance", [str(a)])["value"] == SOL


def test_each_account_reads_its_state_at_the_slot(chain):
    """Two changes in two slots: the slot between them sees the first only."""
    fresh(chain)
    a = Keypair().pubkey()
    _, first = airdrop_now(chain, a, SOL)
    call(chain.url, "devstack_warp", [2])  # 5 slots on
    _, second = airdrop_now(chain, a, SOL)
    assert second >= first + 5
    bank = chain.bank
    with bank.lock:
        assert bank.get_account(a, first - 1) is None
        assert bank.get_account(a, first).lamports == SOL
        assert bank.get_account(a, second - 1).lamports == SOL
        assert bank.get_account(a, second).lamports == 2 * SOL
        assert bank.get_account(a).lamports == 2 * SOL


@pytest.mark.parametrize("lag", [1, 2])
def test_confirmed_lags_by_the_configured_slots(monkeypatch, lag):
    """DEVSTACK_CONFIRMED_AFTER_SLOTS: `confirmed` sees a transaction `lag` slots after the slot it
    landed in, and not a slot sooner. The clock is held at the middle of each slot in turn."""
    from devstack.chain.server import start_chain

    monkeypatch.setenv("DEVSTACK_CONFIRMED_AFTER_SLOTS", str(lag))
    handle = start_chain(port=0, plugins=False)
    bank = handle.bank
    try:
        call(handle.url, "devstack_warp", [20])
        landed = bank.slot + 1

        def hold(slot: int) -> None:  # the ledger's clock stands still in `slot` (Ledger._elapsed)
            bank._pinned_elapsed = (slot + 0.5) * C.SLOT_SECONDS

        hold(landed)
        a = Keypair().pubkey()
        sig, slot = airdrop_now(handle, a)
        assert slot == landed
        for after in range(lag + 1):
            hold(landed + after)
            seen = after >= lag
            assert call(handle.url, "getSlot", [{"commitment": "confirmed"}]) == landed + after - lag
            confirmed = call(handle.url, "getBalance", [str(a), {"commitment": "confirmed"}])
            assert confirmed["value"] == (SOL if seen else 0)
            assert call(handle.url, "getBalance", [str(a), {"commitment": "processed"}])["value"] == SOL
            status = call(handle.url, "getSignatureStatuses", [[sig]])["value"][0]
            assert status["confirmationStatus"] == ("confirmed" if seen else "processed"), after
            tx = call(handle.url, "getTransaction", [sig, {"encoding": "json", "commitment": "confirmed"}])
            assert (tx is not None) is seen
    finally:
        bank._pinned_elapsed = None
        handle.stop()


def test_slot_block_height_epoch_info_and_blockhash_at_each_commitment(chain):
    fresh(chain)
    p = call(chain.url, "getSlot", [{"commitment": "processed"}])
    f = call(chain.url, "getSlot", [])
    p2 = call(chain.url, "getSlot", [{"commitment": "processed"}])
    assert p - 32 <= f <= p2 - 32
    c = call(chain.url, "getSlot", [{"commitment": "confirmed"}])
    assert p - 1 <= c
    assert (
        p - 32
        <= call(chain.url, "getBlockHeight", [])
        <= call(chain.url, "getBlockHeight", [{"commitment": "processed"}]) - 32
    )
    info = call(chain.url, "getEpochInfo", [])
    assert info["absoluteSlot"] == info["blockHeight"] and p - 32 <= info["absoluteSlot"] < p

    # the Clock sysvar is the one of the commitment's slot
    import base64
    import struct

    for params in ([], [{"commitment": "processed"}]):
        clock = call(
            chain.url, "getAccountInfo", [str(C.SYSVAR_CLOCK_ID), {"encoding": "base64", **(params or [{}])[0]}]
        )
        assert struct.unpack_from("<Q", base64.b64decode(clock["value"]["data"][0]))[0] == clock["context"]["slot"]

    final = call(chain.url, "getLatestBlockhash", [])
    newest = call(chain.url, "getLatestBlockhash", [{"commitment": "processed"}])
    assert final["value"]["lastValidBlockHeight"] == final["context"]["slot"] + C.MAX_BLOCKHASH_AGE
    assert newest["value"]["lastValidBlockHeight"] == newest["context"]["slot"] + C.MAX_BLOCKHASH_AGE
    assert final["value"]["blockhash"] != newest["value"]["blockhash"]
    # a processed blockhash is unknown to the finalized bank
    assert call(chain.url, "isBlockhashValid", [newest["value"]["blockhash"]])["value"] is False
    assert call(chain.url, "isBlockhashValid", [newest["value"]["blockhash"], {"commitment": "processed"}])["value"]
    assert call(chain.url, "isBlockhashValid", [final["value"]["blockhash"]])["value"] is True


def test_min_context_slot_not_reached_is_refused_as_agave(chain):
    fresh(chain)
    a = str(Keypair().pubkey())
    now = call(chain.url, "getSlot", [{"commitment": "processed"}])
    ok = call(chain.url, "getBalance", [a, {"commitment": "processed", "minContextSlot": now}])
    assert ok["context"]["slot"] >= now
    for method, params in (
        ("getBalance", [a, {"minContextSlot": now}]),
        ("getAccountInfo", [a, {"encoding": "base64", "minContextSlot": now}]),
        ("getMultipleAccounts", [[a], {"commitment": "confirmed", "minContextSlot": now + 1000}]),
        ("getSlot", [{"commitment": "processed", "minContextSlot": now + 1000}]),
        ("getLatestBlockhash", [{"minContextSlot": now}]),
        ("getProgramAccounts", [str(C.SYSTEM_PROGRAM_ID), {"minContextSlot": now}]),
    ):
        out = rpc(chain.url, method, params, raw=True)
        err = out["error"]
        assert err["code"] == -32016, (method, out)
        assert err["message"] == "Minimum context slot has not been reached"
        assert set(err["data"]) == {"contextSlot"} and err["data"]["contextSlot"] < params[-1]["minContextSlot"]


def test_unknown_commitment_is_refused(chain):
    out = rpc(chain.url, "getBalance", [str(Keypair().pubkey()), {"commitment": "recent"}], raw=True)
    assert out["error"]["code"] == -32602
    assert out["error"]["message"] == (
        "Invalid params: unknown variant `recent`, expected one of `processed`, `confirmed`, `finalized`."
    )


def test_get_transaction_is_null_below_its_commitment_and_refuses_processed(chain):
    fresh(chain)
    sig, _ = airdrop_now(chain, Keypair().pubkey())
    refused = rpc(chain.url, "getTransaction", [sig, {"commitment": "processed"}], raw=True)
    assert refused["error"] == {"code": -32602, "message": "Method does not support commitment below `confirmed`"}
    assert call(chain.url, "getTransaction", [sig, {"encoding": "json"}]) is None  # finalized by default
    call(chain.url, "devstack_warp", [1])
    assert call(chain.url, "getTransaction", [sig, {"encoding": "json", "commitment": "confirmed"}])["slot"] > 0
    assert call(chain.url, "getTransaction", [sig, {"encoding": "json", "commitment": "finalized"}]) is None
    call(chain.url, "devstack_warp", [13])
    assert call(chain.url, "getTransaction", [sig, {"encoding": "json"}])["meta"]["err"] is None


def test_preflight_and_simulation_see_their_commitment_and_the_send_runs_on_the_newest(chain):
    """A wallet funded a moment ago: a preflight at finalized (the default) finds no such
    payer, as a real node would; at processed it passes, and the transfer lands."""
    fresh(chain)
    payer, to = Keypair(), Keypair().pubkey()
    airdrop_now(chain, payer.pubkey())
    blockhash = call(chain.url, "getLatestBlockhash", [{"commitment": "processed"}])["value"]["blockhash"]
    from solders.hash import Hash

    tx = build_tx(
        [transfer(TransferParams(from_pubkey=payer.pubkey(), to_pubkey=to, lamports=SOL // 2))],
        payer,
        [],
        Hash.from_string(blockhash),
    )
    sim = call(chain.url, "simulateTransaction", [b64(tx), {"encoding": "base64", "replaceRecentBlockhash": True}])
    assert sim["value"]["err"] == "AccountNotFound"
    sim = call(
        chain.url,
        "simulateTransaction",
        [b64(tx), {"encoding": "base64", "commitment": "processed", "replaceRecentBlockhash": True}],
    )
    assert sim["value"]["err"] is None
    # the default preflight (finalized) does not know a processed blockhash, nor the payer
    refused = rpc(chain.url, "sendTransaction", [b64(tx), {"encoding": "base64"}], raw=True)
    assert refused["error"]["code"] == -32002 and refused["error"]["data"]["err"] == "BlockhashNotFound"
    final_hash = call(chain.url, "getLatestBlockhash", [])["value"]["blockhash"]
    old_hash_tx = build_tx(
        [transfer(TransferParams(from_pubkey=payer.pubkey(), to_pubkey=to, lamports=1))],
        payer,
        [],
        Hash.from_string(final_hash),
    )
    refused = rpc(chain.url, "sendTransaction", [b64(old_hash_tx), {"encoding": "base64"}], raw=True)
    assert refused["error"]["code"] == -32002 and refused["error"]["data"]["err"] == "AccountNotFound"
    # the simulation changed nothing: the newest state is the payer's own
    assert call(chain.url, "getBalance", [str(payer.pubkey()), {"commitment": "processed"}])["value"] == SOL
    sent = call(chain.url, "sendTransaction", [b64(tx), {"encoding": "base64", "preflightCommitment": "processed"}])
    assert sent == str(tx.signatures[0])
    assert call(chain.url, "getBalance", [str(to), {"commitment": "processed"}])["value"] == SOL // 2
    assert call(chain.url, "getBalance", [str(to)])["value"] == 0


def test_program_accounts_at_finalized_and_direct_writes_at_every_level(chain):
    fresh(chain)
    a, b = Keypair().pubkey(), Keypair().pubkey()
    airdrop_now(chain, a)
    system = str(C.SYSTEM_PROGRAM_ID)
    newest = {
        x["pubkey"]
        for x in call(chain.url, "getProgramAccounts", [system, {"encoding": "base64", "commitment": "processed"}])
    }
    final = {x["pubkey"] for x in call(chain.url, "getProgramAccounts", [system, {"encoding": "base64"}])}
    assert str(a) in newest and str(a) not in final
    assert str(C.TIP_ACCOUNTS[0]) in final  # unchanged accounts are there at every level

    call(chain.url, "devstack_setAccount", [{"pubkey": str(b), "lamports": 7 * SOL}])
    call(chain.url, "devstack_setAccount", [{"pubkey": str(a), "lamports": 3 * SOL}])
    for level in ("processed", "confirmed", "finalized"):
        assert call(chain.url, "getBalance", [str(b), {"commitment": level}])["value"] == 7 * SOL
        assert call(chain.url, "getBalance", [str(a), {"commitment": level}])["value"] == 3 * SOL
