"""Devstack chain: the JSON-RPC façade, block engine and controls over
real execution (System, SPL Token, Token-2022, ATA, Memo, ComputeBudget in agave's SVM)."""

from __future__ import annotations

import base64
import hashlib
import struct

import httpx
import pytest
from solders.hash import Hash
from solders.instruction import AccountMeta, Instruction
from solders.keypair import Keypair
from solders.message import Message
from solders.pubkey import Pubkey
from solders.system_program import CreateAccountParams, TransferParams, create_account, transfer
from solders.transaction import VersionedTransaction
from spl.token import instructions as T
from spl.token.constants import TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID

from devstack.chain import constants as C
from devstack.chain.server import start_chain
from devstack.chain.testing import airdrop, b64, balance, build_tx, latest_blockhash, result, rpc, send, wait_bundle
from testkit.chain import mint_to_checked, transfer_checked

SOL = 1_000_000_000
MEMO = Pubkey.from_string("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr")


def pay(a: Keypair, to: Pubkey, lamports: int):
    return transfer(TransferParams(from_pubkey=a.pubkey(), to_pubkey=to, lamports=lamports))


def cu_limit(units: int) -> Instruction:
    return Instruction(C.COMPUTE_BUDGET_PROGRAM_ID, bytes([2]) + struct.pack("<I", units), [])


def cu_price(micro_lamports: int) -> Instruction:
    return Instruction(C.COMPUTE_BUDGET_PROGRAM_ID, bytes([3]) + struct.pack("<Q", micro_lamports), [])


def be(chain, method, params):
    r = httpx.post(chain.bundle_url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    r.raise_for_status()
    return r.json()


def preflight_err(resp) -> object:
    assert resp["error"]["code"] == -32002, resp
    return resp["error"]["data"]["err"]


def test_transfer_lands_with_real_execution_meta(chain):
    a, b = Keypair(), Keypair()
    airdrop(chain.url, a.pubkey(), 10 * SOL)
    tx = build_tx([pay(a, b.pubkey(), SOL)], a, [], latest_blockhash(chain.url))
    sig = send(chain.url, tx)["result"]
    assert balance(chain.url, a.pubkey()) == 9 * SOL - 5000
    assert balance(chain.url, b.pubkey()) == SOL
    got = result(chain.url, "getTransaction", [sig, {"encoding": "json"}])
    meta = got["meta"]
    assert meta["err"] is None and meta["fee"] == 5000
    assert meta["preBalances"][:2] == [10 * SOL, 0] and meta["postBalances"][:2] == [9 * SOL - 5000, SOL]
    assert meta["logMessages"] == [
        f"Program {C.SYSTEM_PROGRAM_ID} invoke [1]",
        f"Program {C.SYSTEM_PROGRAM_ID} success",
    ]
    assert meta["computeUnitsConsumed"] == 150  # agave's System transfer
    status = result(chain.url, "getSignatureStatuses", [[sig]])["value"][0]
    assert status["err"] is None and status["slot"] == got["slot"]
    assert result(chain.url, "getTransactionCount") == 2  # the airdrop and the transfer
    listed = result(chain.url, "getSignaturesForAddress", [str(b.pubkey())])
    assert [s["signature"] for s in listed] == [sig]


def test_duplicate_signature_is_already_processed_and_charged_once(chain):
    a = Keypair()
    airdrop(chain.url, a.pubkey(), 2 * SOL)
    tx = build_tx([pay(a, Keypair().pubkey(), SOL // 2)], a, [], latest_blockhash(chain.url))
    assert "result" in send(chain.url, tx)
    assert preflight_err(send(chain.url, tx)) == "AlreadyProcessed"
    assert send(chain.url, tx, skip_preflight=True)["result"] == str(tx.signatures[0])  # accepted, never lands
    assert balance(chain.url, a.pubkey()) == 2 * SOL - SOL // 2 - 5000


def test_fee_payer_checks(chain):
    nobody, poor, data_payer = Keypair(), Keypair(), Keypair()
    result(chain.url, "devstack_setAccount", [{"pubkey": str(poor.pubkey()), "lamports": 4_999, "data": ""}])
    result(
        chain.url,
        "devstack_setAccount",
        [{"pubkey": str(data_payer.pubkey()), "lamports": SOL, "data": base64.b64encode(b"x").decode()}],
    )
    bh = latest_blockhash(chain.url)
    memo = Instruction(MEMO, b"fee", [])
    assert preflight_err(send(chain.url, build_tx([memo], nobody, [], bh))) == "AccountNotFound"
    assert preflight_err(send(chain.url, build_tx([memo], poor, [], bh))) == "InsufficientFundsForFee"
    assert preflight_err(send(chain.url, build_tx([memo], data_payer, [], bh))) == "InvalidAccountForFee"
    # skipping preflight: nothing lands, nothing is charged
    tx = build_tx([memo], poor, [], bh)
    send(chain.url, tx, skip_preflight=True)
    assert result(chain.url, "getSignatureStatuses", [[str(tx.signatures[0])]])["value"] == [None]
    assert balance(chain.url, poor.pubkey()) == 4_999


def test_compute_unit_limit_is_honoured_and_fee_matches_get_fee_for_message(chain):
    a = Keypair()
    airdrop(chain.url, a.pubkey(), 10 * SOL)
    bh = latest_blockhash(chain.url)
    # too small a limit: the transaction fails for its budget, lands, and pays its fee
    tx = build_tx([cu_limit(100), pay(a, Keypair().pubkey(), SOL)], a, [], bh)
    sig = send(chain.url, tx, skip_preflight=True)["result"]
    meta = result(chain.url, "getTransaction", [sig])["meta"]
    assert meta["err"] == {"InstructionError": [0, "ComputationalBudgetExceeded"]}  # the budget ix costs 150
    assert meta["fee"] == 5000 and balance(chain.url, a.pubkey()) == 10 * SOL - 5000
    # explicit limit and price: fee = 5000 + ceil(limit * price / 1e6), as getFeeForMessage says
    msg = Message.new_with_blockhash(
        [cu_limit(40_000), cu_price(12_345), pay(a, Keypair().pubkey(), SOL)], a.pubkey(), bh
    )
    quoted = result(chain.url, "getFeeForMessage", [base64.b64encode(bytes(msg)).decode()])["value"]
    assert quoted == 5000 + -(-40_000 * 12_345 // 1_000_000)
    sig = send(chain.url, VersionedTransaction(msg, [a]))["result"]
    meta = result(chain.url, "getTransaction", [sig])["meta"]
    assert meta["err"] is None and meta["fee"] == quoted and meta["computeUnitsConsumed"] <= 40_000
    # no limit: agave's defaults (3 000 per builtin instruction, 200 000 per other one)
    result(chain.url, "devstack_warp", [C.SLOT_SECONDS])  # a slot of its own for the fee cache below
    msg = Message.new_with_blockhash(
        [cu_price(1_000_000), pay(a, Keypair().pubkey(), SOL), Instruction(MEMO, b"m", [])], a.pubkey(), bh
    )
    quoted = result(chain.url, "getFeeForMessage", [base64.b64encode(bytes(msg)).decode()])["value"]
    assert quoted == 5000 + 3_000 + 3_000 + 200_000
    sig = send(chain.url, VersionedTransaction(msg, [a]))["result"]
    got = result(chain.url, "getTransaction", [sig])
    assert got["meta"]["fee"] == quoted
    fees = result(chain.url, "getRecentPrioritizationFees", [[str(a.pubkey())]])
    assert {f["slot"]: f["prioritizationFee"] for f in fees}[got["slot"]] == 1_000_000


def test_blockhash_is_valid_for_150_slots_then_expires(chain):
    a = Keypair()
    airdrop(chain.url, a.pubkey(), 10 * SOL)
    bh = latest_blockhash(chain.url)
    start = result(chain.url, "getSlot")
    result(chain.url, "devstack_warp", [140 * C.SLOT_SECONDS])  # 140 slots later: still valid
    assert latest_blockhash(chain.url) != bh
    assert result(chain.url, "isBlockhashValid", [str(bh)])["value"] is True
    assert "result" in send(chain.url, build_tx([pay(a, Keypair().pubkey(), SOL)], a, [], bh))
    result(chain.url, "devstack_warp", [11 * C.SLOT_SECONDS])  # past 150 slots
    assert result(chain.url, "getSlot") - start > C.MAX_BLOCKHASH_AGE
    assert result(chain.url, "isBlockhashValid", [str(bh)])["value"] is False
    old = build_tx([pay(a, Keypair().pubkey(), SOL)], a, [], bh)
    assert preflight_err(send(chain.url, old)) == "BlockhashNotFound"
    send(chain.url, old, skip_preflight=True)
    assert result(chain.url, "getSignatureStatuses", [[str(old.signatures[0])]])["value"] == [None]
    assert balance(chain.url, a.pubkey()) == 9 * SOL - 5000
    # an unknown blockhash never passes
    bogus = build_tx([pay(a, Keypair().pubkey(), SOL)], a, [], Hash.new_unique())
    assert preflight_err(send(chain.url, bogus)) == "BlockhashNotFound"


def test_warp_moves_the_clock_sysvar(chain):
    def clock():
        raw = base64.b64decode(
            result(chain.url, "getAccountInfo", [str(C.SYSVAR_CLOCK_ID), {"encoding": "base64"}])["value"]["data"][0]
        )
        slot, _start, _epoch, _leader, unix = struct.unpack("<QqQQq", raw)
        return slot, unix

    slot0, unix0 = clock()
    assert abs(slot0 - result(chain.url, "getSlot")) <= 1
    warped = result(chain.url, "devstack_warp", [3600])
    slot1, unix1 = clock()
    assert slot1 >= warped["slot"] >= slot0 + 9000 and unix1 - unix0 >= 3600
    a = Keypair()
    sig = airdrop(chain.url, a.pubkey(), SOL)
    assert result(chain.url, "getTransaction", [sig])["slot"] >= warped["slot"]


def test_bundle_lands_atomically(chain):
    a, b = Keypair(), Keypair()
    airdrop(chain.url, a.pubkey(), 10 * SOL)
    tip = C.TIP_ACCOUNTS[2]
    bh = latest_blockhash(chain.url)
    tx1 = build_tx([pay(a, b.pubkey(), SOL)], a, [], bh)
    tx2 = build_tx([pay(a, tip, 100_000)], a, [], bh)
    bid = be(chain, "sendBundle", [[b64(tx1), b64(tx2)], {"encoding": "base64"}])["result"]
    assert bid == hashlib.sha256(f"{tx1.signatures[0]},{tx2.signatures[0]}".encode()).hexdigest()
    assert wait_bundle(chain.bundle_url, bid)["status"] == "Landed"  # it lands after it is accepted
    assert balance(chain.url, b.pubkey()) == SOL and balance(chain.url, tip) == 890_880 + 100_000
    assert balance(chain.url, a.pubkey()) == 9 * SOL - 100_000 - 10_000
    st = be(chain, "getBundleStatuses", [[bid]])["result"]["value"][0]
    assert st["err"] == {"Ok": None} and st["transactions"] == [str(tx1.signatures[0]), str(tx2.signatures[0])]
    assert be(chain, "getInflightBundleStatuses", [[bid]])["result"]["value"][0]["status"] == "Landed"


def test_bundle_with_a_failing_transaction_restores_every_account_and_charges_nothing(chain):
    a, b, new = Keypair(), Keypair(), Keypair()
    owner = Pubkey.new_unique()
    airdrop(chain.url, a.pubkey(), 10 * SOL)
    airdrop(chain.url, b.pubkey(), SOL)
    bh = latest_blockhash(chain.url)
    create = build_tx(
        [
            create_account(
                CreateAccountParams(from_pubkey=a.pubkey(), to_pubkey=new.pubkey(), lamports=SOL, space=16, owner=owner)
            )
        ],
        a,
        [new],
        bh,
    )
    move = build_tx([pay(b, a.pubkey(), SOL // 2), pay(b, C.TIP_ACCOUNTS[0], 1_000)], b, [], bh)
    bad = build_tx([pay(a, b.pubkey(), 100 * SOL)], a, [], bh)
    bid = be(chain, "sendBundle", [[b64(create), b64(move), b64(bad)], {"encoding": "base64"}])["result"]
    assert wait_bundle(chain.bundle_url, bid)["status"] == "Failed"
    assert be(chain, "getBundleStatuses", [[bid]])["result"]["value"] == [None]
    assert balance(chain.url, a.pubkey()) == 10 * SOL and balance(chain.url, b.pubkey()) == SOL
    assert result(chain.url, "getAccountInfo", [str(new.pubkey())])["value"] is None
    assert result(chain.url, "getProgramAccounts", [str(owner)]) == []
    sigs = [str(t.signatures[0]) for t in (create, move, bad)]
    assert result(chain.url, "getSignatureStatuses", [sigs])["value"] == [None, None, None]
    # nothing of it was recorded: the same good transactions land in a new bundle
    bid2 = be(chain, "sendBundle", [[b64(create), b64(move)], {"encoding": "base64"}])["result"]
    assert wait_bundle(chain.bundle_url, bid2)["status"] == "Landed"
    assert be(chain, "getBundleStatuses", [[bid2]])["result"]["value"][0]["err"] == {"Ok": None}
    assert balance(chain.url, b.pubkey()) == SOL // 2 - 5000 - 1_000
    assert balance(chain.url, new.pubkey()) == SOL


def test_faults_on_the_litesvm_engine(chain):
    a = Keypair()
    airdrop(chain.url, a.pubkey(), 2 * SOL)
    result(chain.url, "devstack_setFault", [{"target": "rpc", "mode": "drop", "count": 1}])
    tx = build_tx([pay(a, Keypair().pubkey(), SOL)], a, [], latest_blockhash(chain.url))
    assert send(chain.url, tx)["result"] == str(tx.signatures[0])
    assert result(chain.url, "getSignatureStatuses", [[str(tx.signatures[0])]])["value"] == [None]
    assert balance(chain.url, a.pubkey()) == 2 * SOL
    result(chain.url, "devstack_setFault", [{"target": "rpc", "mode": "error", "methods": ["getBalance"], "count": 1}])
    assert rpc(chain.url, "getBalance", [str(a.pubkey())])["error"]["code"] == -32005
    assert balance(chain.url, a.pubkey()) == 2 * SOL
    assert "result" in send(chain.url, tx)  # the dropped transaction can still land


def test_airdrop_is_a_real_transaction(chain):
    a = Keypair()
    sig = result(chain.url, "requestAirdrop", [str(a.pubkey()), 3 * SOL])
    assert result(chain.url, "devstack_airdrop", [str(a.pubkey()), SOL]) != sig
    assert balance(chain.url, a.pubkey()) == 4 * SOL
    got = result(chain.url, "getTransaction", [sig])
    keys = got["transaction"]["message"]["accountKeys"]
    assert keys[0] == str(chain.bank.faucet.pubkey()) and str(a.pubkey()) in keys
    assert got["meta"]["err"] is None and got["meta"]["fee"] == 5000


def test_set_account_and_get_program_accounts_filters(chain):
    owner = Pubkey.new_unique()
    x, y, z = Pubkey.new_unique(), Pubkey.new_unique(), Pubkey.new_unique()
    for key, data in ((x, b"\x01" * 8 + bytes(x)), (y, b"\x02" * 8 + bytes(y)), (z, b"\x01" * 8)):
        assert (
            result(
                chain.url,
                "devstack_setAccount",
                [{"pubkey": str(key), "lamports": SOL, "data": base64.b64encode(data).decode(), "owner": str(owner)}],
            )
            is True
        )
    # and one created by a transaction
    a, made = Keypair(), Keypair()
    airdrop(chain.url, a.pubkey(), 10 * SOL)
    send(
        chain.url,
        build_tx(
            [
                create_account(
                    CreateAccountParams(
                        from_pubkey=a.pubkey(), to_pubkey=made.pubkey(), lamports=SOL, space=40, owner=owner
                    )
                )
            ],
            a,
            [made],
            latest_blockhash(chain.url),
        ),
    )

    def gpa(filters):
        got = result(chain.url, "getProgramAccounts", [str(owner), {"encoding": "base64", "filters": filters}])
        return {g["pubkey"] for g in got}

    assert gpa([]) == {str(x), str(y), str(z), str(made.pubkey())}
    assert gpa([{"dataSize": 40}]) == {str(x), str(y), str(made.pubkey())}
    assert gpa(
        [
            {"dataSize": 40},
            {"memcmp": {"offset": 0, "bytes": base64.b64encode(b"\x01" * 8).decode(), "encoding": "base64"}},
        ]
    ) == {str(x)}
    assert gpa([{"memcmp": {"offset": 8, "bytes": str(y)}}]) == {str(y)}
    # lamports 0 deletes
    result(chain.url, "devstack_setAccount", [str(x), 0])
    assert gpa([]) == {str(y), str(z), str(made.pubkey())}
    assert result(chain.url, "getAccountInfo", [str(x)])["value"] is None


def _create_coin(url, lp, creator: Keypair, mint: Keypair, name: str, symbol: str, uri: str) -> None:
    """The launchpad's create_coin, landed; then the next slot, where trading opens."""
    accounts = {"creator": creator.pubkey(), "mint": mint.pubkey(), "metadata": mint.pubkey()}
    create = lp.instruction("create_coin", accounts, name=name, symbol=symbol, uri=uri, content_digests=[bytes(16)] * 5)
    assert "result" in send(url, build_tx([cu_limit(400_000), create], creator, [mint], latest_blockhash(url)))
    result(url, "devstack_warp", [C.SLOT_SECONDS])


def _token_2022_mint(url, payer: Keypair, decimals: int) -> Pubkey:
    """A Token-2022 mint with the MetadataPointer extension (pointing at itself)."""
    mint = Keypair()
    space = 234
    pointer = Instruction(
        TOKEN_2022_PROGRAM_ID,
        bytes([39, 0]) + bytes(payer.pubkey()) + bytes(mint.pubkey()),
        [AccountMeta(mint.pubkey(), False, True)],
    )
    init = Instruction(
        TOKEN_2022_PROGRAM_ID,
        bytes([20, decimals]) + bytes(payer.pubkey()) + b"\x00",
        [AccountMeta(mint.pubkey(), False, True)],
    )
    ixs = [
        create_account(
            CreateAccountParams(
                from_pubkey=payer.pubkey(),
                to_pubkey=mint.pubkey(),
                lamports=C.minimum_balance(space),
                space=space,
                owner=TOKEN_2022_PROGRAM_ID,
            )
        ),
        pointer,
        init,
    ]
    assert "result" in send(url, build_tx(ixs, payer, [mint], latest_blockhash(url)))
    return mint.pubkey()


def test_token_2022_transfer_checked_and_balances(chain):
    url = chain.url
    payer, alice, bob = Keypair(), Keypair(), Keypair()
    for k in (payer, alice, bob):
        airdrop(url, k.pubkey(), 10 * SOL)
    mint = _token_2022_mint(url, payer, 6)
    a_ata = T.get_associated_token_address(alice.pubkey(), mint, TOKEN_2022_PROGRAM_ID)
    b_ata = T.get_associated_token_address(bob.pubkey(), mint, TOKEN_2022_PROGRAM_ID)
    ixs = [
        T.create_idempotent_associated_token_account(payer.pubkey(), alice.pubkey(), mint, TOKEN_2022_PROGRAM_ID),
        mint_to_checked(mint, a_ata, payer.pubkey(), 5_000_000, 6, TOKEN_2022_PROGRAM_ID),
    ]
    assert "result" in send(url, build_tx(ixs, payer, [], latest_blockhash(url)))
    ixs = [
        T.create_idempotent_associated_token_account(alice.pubkey(), bob.pubkey(), mint, TOKEN_2022_PROGRAM_ID),
        transfer_checked(a_ata, mint, b_ata, alice.pubkey(), 1_500_000, 6, TOKEN_2022_PROGRAM_ID),
    ]
    sig = send(url, build_tx(ixs, alice, [], latest_blockhash(url)))["result"]

    assert result(url, "getTokenAccountBalance", [str(b_ata)])["value"] == {
        "amount": "1500000",
        "decimals": 6,
        "uiAmount": 1.5,
        "uiAmountString": "1.5",
    }
    assert result(url, "getTokenAccountBalance", [str(a_ata)])["value"]["amount"] == "3500000"
    assert result(url, "getTokenSupply", [str(mint)])["value"]["amount"] == "5000000"
    info = result(url, "getAccountInfo", [str(b_ata), {"encoding": "jsonParsed"}])["value"]
    assert info["owner"] == str(TOKEN_2022_PROGRAM_ID) and info["space"] == 170  # with ImmutableOwner
    assert info["data"]["program"] == "spl-token-2022"
    assert info["data"]["parsed"]["info"]["tokenAmount"]["amount"] == "1500000"
    minfo = result(url, "getAccountInfo", [str(mint), {"encoding": "jsonParsed"}])["value"]["data"]
    assert minfo["parsed"]["type"] == "mint" and minfo["parsed"]["info"]["supply"] == "5000000"

    def owned(who, flt):
        return [
            v["pubkey"]
            for v in result(url, "getTokenAccountsByOwner", [str(who), flt, {"encoding": "base64"}])["value"]
        ]

    assert owned(bob.pubkey(), {"mint": str(mint)}) == [str(b_ata)]
    assert owned(alice.pubkey(), {"programId": str(TOKEN_2022_PROGRAM_ID)}) == [str(a_ata)]
    assert owned(alice.pubkey(), {"programId": str(TOKEN_PROGRAM_ID)}) == []
    holders = result(
        url,
        "getProgramAccounts",
        [
            str(TOKEN_2022_PROGRAM_ID),
            {"encoding": "base64", "filters": [{"memcmp": {"offset": 0, "bytes": str(mint)}}, {"dataSize": 170}]},
        ],
    )
    assert {h["pubkey"] for h in holders} == {str(a_ata), str(b_ata)}

    meta = result(url, "getTransaction", [sig])["meta"]
    keys = result(url, "getTransaction", [sig])["transaction"]["message"]["accountKeys"]
    pre = {t["accountIndex"]: t for t in meta["preTokenBalances"]}
    post = {t["accountIndex"]: t for t in meta["postTokenBalances"]}
    ia, ib = keys.index(str(a_ata)), keys.index(str(b_ata))
    assert pre[ia]["uiTokenAmount"]["amount"] == "5000000" and ib not in pre
    assert post[ia]["uiTokenAmount"]["amount"] == "3500000" and post[ib]["uiTokenAmount"]["amount"] == "1500000"
    assert post[ib]["programId"] == str(TOKEN_2022_PROGRAM_ID) and post[ib]["owner"] == str(bob.pubkey())
    assert meta["innerInstructions"] and meta["innerInstructions"][0]["index"] == 0  # the ATA program's CPIs


def test_token_2022_wrong_decimals_is_the_programs_error(chain):
    url = chain.url
    payer = Keypair()
    airdrop(url, payer.pubkey(), 10 * SOL)
    mint = _token_2022_mint(url, payer, 6)
    ata = T.get_associated_token_address(payer.pubkey(), mint, TOKEN_2022_PROGRAM_ID)
    ixs = [
        T.create_idempotent_associated_token_account(payer.pubkey(), payer.pubkey(), mint, TOKEN_2022_PROGRAM_ID),
        mint_to_checked(mint, ata, payer.pubkey(), 1, 9, TOKEN_2022_PROGRAM_ID),
    ]
    err = preflight_err(send(url, build_tx(ixs, payer, [], latest_blockhash(url))))
    assert err == {"InstructionError": [1, {"Custom": 18}]}  # TokenError::MintDecimalsMismatch
    assert result(url, "getAccountInfo", [str(ata)])["value"] is None


def test_simulate_does_not_change_state(chain):
    a, b = Keypair(), Keypair()
    airdrop(chain.url, a.pubkey(), 10 * SOL)
    tx = build_tx([pay(a, b.pubkey(), SOL)], a, [], latest_blockhash(chain.url))
    sim = result(
        chain.url,
        "simulateTransaction",
        [b64(tx), {"encoding": "base64", "accounts": {"addresses": [str(b.pubkey())], "encoding": "base64"}}],
    )["value"]
    assert sim["err"] is None and sim["unitsConsumed"] == 150 and sim["accounts"][0]["lamports"] == SOL
    assert balance(chain.url, b.pubkey()) == 0 and balance(chain.url, a.pubkey()) == 10 * SOL
    raw = bytearray(bytes(tx))
    raw[10] ^= 1  # break the signature
    bad = base64.b64encode(bytes(raw)).decode()
    assert result(chain.url, "simulateTransaction", [bad, {"encoding": "base64"}])["value"]["err"] is None
    assert (
        rpc(chain.url, "simulateTransaction", [bad, {"encoding": "base64", "sigVerify": True}])["error"]["code"]
        == -32003
    )
    assert send(chain.url, VersionedTransaction.from_bytes(bytes(raw)))["error"]["code"] == -32003
    assert balance(chain.url, a.pubkey()) == 10 * SOL


def test_genesis_refuses_to_start_without_built_programs(tmp_path):
    from devstack.chain import genesis
    from devstack.chain.svm import SvmBank

    with pytest.raises(genesis.GenesisError, match="make programs"):
        genesis.install(SvmBank(), out_dir=tmp_path)


# ----------------------------------------------------------------- genesis on the SBF programs


@pytest.fixture(scope="module")
def full_chain():
    """The chain with its genesis: programs/out/*.so (`make programs`) deployed."""
    handle = start_chain(port=0)
    yield handle
    handle.stop()


def test_genesis_deploys_the_programs_through_the_upgradeable_loader(full_chain):
    from devstack.chain import genesis as G
    from partner.chain import curve
    from partner.chain import layouts as L
    from partner.chain import programs as P

    ADMIN, FEE_RECIPIENT = G.ADMIN, G.FEE_RECIPIENT

    url = full_chain.url
    loader = "BPFLoaderUpgradeab1e11111111111111111111111"
    for pid in (P.LAUNCHPAD_PROGRAM_ID, P.POOL_PROGRAM_ID):
        prog = result(url, "getAccountInfo", [str(pid), {"encoding": "base64"}])["value"]
        assert prog["owner"] == loader and prog["executable"] is True
        raw = base64.b64decode(prog["data"][0])
        programdata = Pubkey.find_program_address([bytes(pid)], Pubkey.from_string(loader))[0]
        assert struct.unpack_from("<I", raw)[0] == 2 and raw[4:36] == bytes(programdata)  # Program { programdata }
        pd = base64.b64decode(
            result(url, "getAccountInfo", [str(programdata), {"encoding": "base64"}])["value"]["data"][0]
        )
        assert struct.unpack_from("<I", pd)[0] == 3 and pd[12] == 1 and pd[13:45] == bytes(ADMIN)  # upgrade authority
        assert pd[45:49] == b"\x7fELF"
    glob = result(url, "getAccountInfo", [str(P.global_pda()[0]), {"encoding": "base64"}])["value"]
    assert glob["owner"] == str(P.LAUNCHPAD_PROGRAM_ID)
    assert L.Global.decode(base64.b64decode(glob["data"][0])) == L.Global(
        admin=ADMIN,
        fee_recipient=FEE_RECIPIENT,
        protocol_fee_bps=G.DEFAULT_PROTOCOL_FEE_BPS,
        wallet_cap_bps=G.DEFAULT_WALLET_CAP_BPS,
        pool_open_delay_seconds=G.DEFAULT_POOL_OPEN_DELAY_SECONDS,
        initial_virtual_token_reserves=curve.INITIAL_VIRTUAL_TOKEN_RESERVES,
        initial_virtual_sol_reserves=curve.INITIAL_VIRTUAL_SOL_RESERVES,
        initial_real_token_reserves=curve.INITIAL_REAL_TOKEN_RESERVES,
        token_total_supply=curve.TOKEN_TOTAL_SUPPLY,
        bump=P.global_pda()[1],
    )
    assert balance(url, FEE_RECIPIENT) == C.minimum_balance(0)
    # initialize_global is a real, recorded transaction signed by the admin
    sigs = result(url, "getSignaturesForAddress", [str(P.global_pda()[0])])
    assert len(sigs) == 1 and sigs[0]["err"] is None
    tx = result(url, "getTransaction", [sigs[0]["signature"]])
    assert tx["transaction"]["message"]["accountKeys"][0] == str(ADMIN)
    assert any(m.startswith(f"Program {P.LAUNCHPAD_PROGRAM_ID} consumed") for m in tx["meta"]["logMessages"])


def test_a_curve_buy_on_the_sbf_launchpad_over_json_rpc(full_chain):
    import json
    from pathlib import Path

    from devstack.chain.genesis import FEE_RECIPIENT
    from partner.chain import layouts as L
    from partner.chain import programs as P
    from partner.chain.idl import Program
    from partner.chain.idls import BINDINGS

    lp = Program(json.loads((Path(__file__).resolve().parents[2] / "idl" / "launchpad.json").read_text()), BINDINGS)
    url = full_chain.url
    creator, mint, user = Keypair(), Keypair(), Keypair()
    airdrop(url, creator.pubkey(), 10 * SOL)
    airdrop(url, user.pubkey(), 10 * SOL)
    _create_coin(url, lp, creator, mint, "Real", "REAL", "https://r/x")
    curve_key = P.bonding_curve_pda(mint.pubkey())[0]

    def state():
        raw = result(url, "getAccountInfo", [str(curve_key), {"encoding": "base64"}])["value"]["data"][0]
        return L.BondingCurve.decode(base64.b64decode(raw))

    before = state()
    buy = lp.instruction(
        "buy",
        {"user": user.pubkey(), "mint": mint.pubkey(), "fee_recipient": FEE_RECIPIENT},
        sol_in=SOL,
        min_tokens_out=1,
    )
    resp = send(url, build_tx([cu_limit(200_000), buy], user, [], latest_blockhash(url)))
    assert "result" in resp, resp
    sig = resp["result"]
    meta = result(url, "getTransaction", [sig])["meta"]
    assert meta["err"] is None and 0 < meta["computeUnitsConsumed"] <= 200_000
    after = state()
    bought = before.virtual_token_reserves - after.virtual_token_reserves
    assert bought > 0
    held = result(
        url,
        "getTokenAccountsByOwner",
        [str(user.pubkey()), {"programId": str(TOKEN_2022_PROGRAM_ID)}, {"encoding": "jsonParsed"}],
    )["value"]
    assert len(held) == 1
    assert held[0]["account"]["data"]["parsed"]["info"]["tokenAmount"]["amount"] == str(bought)
    assert held[0]["pubkey"] == str(T.get_associated_token_address(user.pubkey(), mint.pubkey(), TOKEN_2022_PROGRAM_ID))
    post = [t for t in meta["postTokenBalances"] if t["owner"] == str(user.pubkey())]
    assert (
        post
        and post[0]["uiTokenAmount"]["amount"] == str(bought)
        and post[0]["programId"] == str(TOKEN_2022_PROGRAM_ID)
    )


def test_migration_into_the_sbf_pool_and_a_swap_and_a_rolled_back_bundle(full_chain):
    """A complete curve migrates by CPI into the pool program; a bundle whose second transaction
    fails leaves even the accounts the first one created by CPI as they were."""
    import json
    from pathlib import Path

    from devstack.chain.genesis import FEE_RECIPIENT
    from partner.chain import layouts as L
    from partner.chain import programs as P
    from partner.chain.idl import Program
    from partner.chain.idls import BINDINGS

    idl = Path(__file__).resolve().parents[2] / "idl"
    lp = Program(json.loads((idl / "launchpad.json").read_text()), BINDINGS)
    pool = Program(json.loads((idl / "pool.json").read_text()), BINDINGS)
    url = full_chain.url
    creator, mint, whale, trader = Keypair(), Keypair(), Keypair(), Keypair()
    for k, sol in ((creator, 10), (whale, 200), (trader, 10)):
        airdrop(url, k.pubkey(), sol * SOL)
    _create_coin(url, lp, creator, mint, "Pool", "POOL", "https://p/x")
    buy_all = lp.instruction(
        "buy",
        {"user": whale.pubkey(), "mint": mint.pubkey(), "fee_recipient": FEE_RECIPIENT},
        sol_in=150 * SOL,
        min_tokens_out=1,
    )
    assert "result" in send(url, build_tx([cu_limit(200_000), buy_all], whale, [], latest_blockhash(url)))
    curve_key = P.bonding_curve_pda(mint.pubkey())[0]
    pool_key = P.pool_pda(mint.pubkey())[0]

    def curve():
        raw = result(url, "getAccountInfo", [str(curve_key), {"encoding": "base64"}])["value"]["data"][0]
        return L.BondingCurve.decode(base64.b64decode(raw))

    assert curve().complete and not curve().migrated
    migrate = build_tx(
        [cu_limit(400_000), lp.instruction("migrate", {"payer": whale.pubkey(), "mint": mint.pubkey()})],
        whale,
        [],
        latest_blockhash(url),
    )
    too_much = build_tx(
        [pay(whale, C.TIP_ACCOUNTS[0], 1_000), pay(whale, trader.pubkey(), 10_000 * SOL)],
        whale,
        [],
        latest_blockhash(url),
    )
    whale_before = balance(url, whale.pubkey())
    bid = be(full_chain, "sendBundle", [[b64(migrate), b64(too_much)], {"encoding": "base64"}])["result"]
    assert wait_bundle(full_chain.bundle_url, bid)["status"] == "Failed"
    assert be(full_chain, "getBundleStatuses", [[bid]])["result"]["value"] == [None]
    assert result(url, "getAccountInfo", [str(pool_key)])["value"] is None  # created by CPI, then restored
    assert not curve().migrated and balance(url, whale.pubkey()) == whale_before

    sig = send(url, migrate)["result"]
    assert result(url, "getTransaction", [sig])["meta"]["err"] is None
    assert curve().migrated
    pool_acct = result(url, "getAccountInfo", [str(pool_key), {"encoding": "base64"}])["value"]
    assert pool_acct["owner"] == str(P.POOL_PROGRAM_ID)
    result(url, "devstack_warp", [5])  # past the pool's open delay
    swap = pool.instruction(
        "swap",
        {"user": trader.pubkey(), "mint": mint.pubkey(), "fee_recipient": FEE_RECIPIENT},
        base_in=False,
        amount_in=SOL,
        min_amount_out=1,
    )
    resp = send(url, build_tx([cu_limit(200_000), swap], trader, [], latest_blockhash(url)))
    assert "result" in resp, resp
    held = result(
        url, "getTokenAccountsByOwner", [str(trader.pubkey()), {"mint": str(mint.pubkey())}, {"encoding": "jsonParsed"}]
    )["value"]
    assert int(held[0]["account"]["data"]["parsed"]["info"]["tokenAmount"]["amount"]) > 0


def test_a_bundle_lands_in_one_slot_even_when_the_clock_ticks_mid_bundle(monkeypatch):
    """A bundle executes in one slot, as Jito's do: the ledger's wall-clock slot must not move
    between its transactions (the launch's create and first buy landed in two slots)."""
    from solders.keypair import Keypair
    from solders.message import Message
    from solders.system_program import TransferParams, transfer
    from solders.transaction import VersionedTransaction

    from devstack.chain import ledger
    from devstack.chain.svm import SvmBank

    bank = SvmBank()
    payer = Keypair()
    bank.process_transaction(bank.airdrop_transaction(payer.pubkey(), 10**10))
    txs = []
    for lamports in (1_000_000, 2_000_000):
        blockhash, _ = bank.latest_blockhash()
        ix = transfer(TransferParams(from_pubkey=payer.pubkey(), to_pubkey=Keypair().pubkey(), lamports=lamports))
        txs.append(VersionedTransaction(Message.new_with_blockhash([ix], payer.pubkey(), blockhash), [payer]))
    now = [ledger.time.monotonic()]

    def ticking() -> float:  # every reading of the clock is half a slot later
        now[0] += ledger.C.SLOT_SECONDS / 2
        return now[0]

    monkeypatch.setattr(ledger.time, "monotonic", ticking)
    result = bank.process_bundle(txs, "b1")
    assert result.landed
    assert {r.slot for r in result.results} == {result.slot}
