"""Devstack chain: SPL Token + Associated Token Account programs with solana-py's instruction builders."""

from __future__ import annotations

import asyncio
import base64
import struct

import pytest
from solana.rpc.async_api import AsyncClient
from solana.rpc.models import TokenAccountOpts
from solders.keypair import Keypair
from solders.pubkey import Pubkey
from solders.system_program import CreateAccountParams, create_account
from spl.token import instructions as T
from spl.token.constants import TOKEN_PROGRAM_ID

from devstack.chain.testing import airdrop, balance, build_tx, latest_blockhash, result, rpc, send
from testkit.chain import mint_to_checked, transfer_checked

SOL = 1_000_000_000
DEC = 6


def ok(url, tx):
    resp = send(url, tx)
    assert "result" in resp, resp
    return resp["result"]


def make_mint(url, payer: Keypair, authority: Pubkey, *, freeze: Pubkey | None = None) -> Pubkey:
    mint = Keypair()
    ixs = [
        create_account(
            CreateAccountParams(
                from_pubkey=payer.pubkey(), to_pubkey=mint.pubkey(), lamports=1461600, space=82, owner=TOKEN_PROGRAM_ID
            )
        ),
        T.initialize_mint2(
            T.models.InitializeMint2Params(
                decimals=DEC,
                program_id=TOKEN_PROGRAM_ID,
                mint=mint.pubkey(),
                mint_authority=authority,
                freeze_authority=freeze,
            )
        ),
    ]
    ok(url, build_tx(ixs, payer, [mint], latest_blockhash(url)))
    return mint.pubkey()


def make_ata(url, payer: Keypair, owner: Pubkey, mint: Pubkey) -> Pubkey:
    ok(
        url,
        build_tx([T.create_associated_token_account(payer.pubkey(), owner, mint)], payer, [], latest_blockhash(url)),
    )
    return T.get_associated_token_address(owner, mint)


def mint_to(url, payer: Keypair, mint: Pubkey, dest: Pubkey, amount: int):
    ix = mint_to_checked(mint, dest, payer.pubkey(), amount, DEC)
    return ok(url, build_tx([ix], payer, [], latest_blockhash(url)))


@pytest.fixture
def setup(chain):
    payer, alice, bob = Keypair(), Keypair(), Keypair()
    for k in (payer, alice, bob):
        airdrop(chain.url, k.pubkey(), 10 * SOL)
    mint = make_mint(chain.url, payer, payer.pubkey())
    a_ata = make_ata(chain.url, payer, alice.pubkey(), mint)
    return chain, payer, alice, bob, mint, a_ata


def test_mint_ata_mint_to_transfer_checked(setup):
    chain, payer, alice, bob, mint, a_ata = setup
    url = chain.url
    # real layouts: 82-byte mint, 165-byte account at the standard ATA address
    mi = result(url, "getAccountInfo", [str(mint), {"encoding": "base64"}])["value"]
    raw = base64.b64decode(mi["data"][0])
    assert len(raw) == 82 and mi["owner"] == str(TOKEN_PROGRAM_ID)
    assert struct.unpack_from("<I", raw, 0)[0] == 1 and raw[4:36] == bytes(payer.pubkey())
    assert raw[44] == DEC and raw[45] == 1
    ai = result(url, "getAccountInfo", [str(a_ata), {"encoding": "base64"}])["value"]
    assert ai["lamports"] == 2039280 and ai["space"] == 165
    expected_ata = Pubkey.find_program_address(
        [bytes(alice.pubkey()), bytes(TOKEN_PROGRAM_ID), bytes(mint)],
        Pubkey.from_string("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL"),
    )[0]
    assert a_ata == expected_ata

    mint_to(url, payer, mint, a_ata, 5_000_000)
    bal = result(url, "getTokenAccountBalance", [str(a_ata)])
    assert bal["value"] == {"amount": "5000000", "decimals": 6, "uiAmount": 5.0, "uiAmountString": "5"}

    # transfer_checked to bob's ATA, created idempotently in the same tx
    b_ata = T.get_associated_token_address(bob.pubkey(), mint)
    ixs = [
        T.create_idempotent_associated_token_account(alice.pubkey(), bob.pubkey(), mint),
        transfer_checked(a_ata, mint, b_ata, alice.pubkey(), 1_500_000, DEC),
    ]
    sig = ok(url, build_tx(ixs, alice, [], latest_blockhash(url)))

    async def go():
        async with AsyncClient(url, commitment="processed") as c:
            r = await c.get_token_account_balance(b_ata, commitment="processed")
            assert r.value.amount == "1500000" and r.value.ui_amount_string == "1.5" and r.value.decimals == 6
            r = await c.get_token_account_balance(a_ata)
            assert r.value.amount == "3500000"
            owned = await c.get_token_accounts_by_owner(bob.pubkey(), TokenAccountOpts(mint=mint))
            assert [str(x.pubkey) for x in owned.value] == [str(b_ata)]
            owned = await c.get_token_accounts_by_owner(alice.pubkey(), TokenAccountOpts(program_id=TOKEN_PROGRAM_ID))
            assert [str(x.pubkey) for x in owned.value] == [str(a_ata)]
            parsed = await c.get_token_accounts_by_owner_json_parsed(bob.pubkey(), TokenAccountOpts(mint=mint))
            info = parsed.value[0].account.data.parsed["info"]
            assert info["tokenAmount"]["amount"] == "1500000" and info["owner"] == str(bob.pubkey())
            from solders.signature import Signature

            result(url, "devstack_warp", [1])  # getTransaction sees it once it is confirmed
            tx = await c.get_transaction(Signature.from_string(sig), commitment="confirmed")
            meta = tx.value.transaction.meta
            pre = {b.account_index: b.ui_token_amount.amount for b in meta.pre_token_balances}
            post = {b.account_index: b.ui_token_amount.amount for b in meta.post_token_balances}
            keys = [str(k) for k in tx.value.transaction.transaction.message.account_keys]
            assert post[keys.index(str(b_ata))] == "1500000" and post[keys.index(str(a_ata))] == "3500000"
            assert pre[keys.index(str(a_ata))] == "5000000" and keys.index(str(b_ata)) not in pre
            assert f"Program {TOKEN_PROGRAM_ID} success" in meta.log_messages
            assert meta.inner_instructions  # ATA's CPIs into system + token are recorded

    asyncio.run(go())
    supply = result(url, "getTokenSupply", [str(mint)])["value"]
    assert supply["amount"] == "5000000"


def test_token_error_numbers(setup):
    chain, payer, alice, bob, mint, a_ata = setup
    url = chain.url
    mint_to(url, payer, mint, a_ata, 1_000)
    b_ata = make_ata(url, payer, bob.pubkey(), mint)

    def xfer(owner: Keypair, amount: int, decimals: int = DEC, src=a_ata):
        ix = transfer_checked(src, mint, b_ata, owner.pubkey(), amount, decimals)
        return send(url, build_tx([ix], owner, [], latest_blockhash(url)))["error"]["data"]["err"]

    assert xfer(alice, 2_000) == {"InstructionError": [0, {"Custom": 1}]}  # InsufficientFunds
    assert xfer(bob, 10) == {"InstructionError": [0, {"Custom": 4}]}  # OwnerMismatch
    assert xfer(alice, 10, decimals=9) == {"InstructionError": [0, {"Custom": 18}]}  # MintDecimalsMismatch
    # mint_to by a non-authority: OwnerMismatch
    ix = mint_to_checked(mint, a_ata, alice.pubkey(), 1, DEC)
    err = send(url, build_tx([ix], alice, [], latest_blockhash(url)))["error"]
    assert err["code"] == -32002
    assert err["message"] == "Transaction simulation failed: Error processing Instruction 0: custom program error: 0x4"
    assert err["data"]["err"] == {"InstructionError": [0, {"Custom": 4}]}
    # close with a balance: NonNativeHasBalance (11)
    close = T.close_account(
        T.models.CloseAccountParams(
            program_id=TOKEN_PROGRAM_ID, account=a_ata, dest=alice.pubkey(), owner=alice.pubkey()
        )
    )
    err = send(url, build_tx([close], alice, [], latest_blockhash(url)))["error"]["data"]["err"]
    assert err == {"InstructionError": [0, {"Custom": 11}]}
    # plain Create of an existing ATA: IllegalOwner
    dup = T.create_associated_token_account(payer.pubkey(), alice.pubkey(), mint)
    err = send(url, build_tx([dup], payer, [], latest_blockhash(url)))["error"]["data"]["err"]
    assert err == {"InstructionError": [0, "IllegalOwner"]}
    # initialize an already-initialized mint: AlreadyInUse (6)
    init = T.initialize_mint2(
        T.models.InitializeMint2Params(
            decimals=2, program_id=TOKEN_PROGRAM_ID, mint=mint, mint_authority=alice.pubkey()
        )
    )
    err = send(url, build_tx([init], alice, [], latest_blockhash(url)))["error"]["data"]["err"]
    assert err == {"InstructionError": [0, {"Custom": 6}]}
    assert result(url, "getTokenAccountBalance", [str(a_ata)])["value"]["amount"] == "1000"


def test_burn_set_authority_and_close(setup):
    chain, payer, alice, bob, mint, a_ata = setup
    url = chain.url
    mint_to(url, payer, mint, a_ata, 700)
    burn = T.burn_checked(
        T.models.BurnCheckedParams(
            program_id=TOKEN_PROGRAM_ID, account=a_ata, mint=mint, owner=alice.pubkey(), amount=700, decimals=DEC
        )
    )
    ok(url, build_tx([burn], alice, [], latest_blockhash(url)))
    assert result(url, "getTokenSupply", [str(mint)])["value"]["amount"] == "0"
    # revoke mint authority -> fixed supply (5)
    sa = T.set_authority(
        T.models.SetAuthorityParams(
            program_id=TOKEN_PROGRAM_ID,
            account=mint,
            authority=T.AuthorityType.MINT_TOKENS,
            current_authority=payer.pubkey(),
            new_authority=None,
        )
    )
    ok(url, build_tx([sa], payer, [], latest_blockhash(url)))
    ix = mint_to_checked(mint, a_ata, payer.pubkey(), 1, DEC)
    err = send(url, build_tx([ix], payer, [], latest_blockhash(url)))["error"]["data"]["err"]
    assert err == {"InstructionError": [0, {"Custom": 5}]}
    # close the empty account: rent goes back to alice, account disappears
    before = balance(url, alice.pubkey())
    close = T.close_account(
        T.models.CloseAccountParams(
            program_id=TOKEN_PROGRAM_ID, account=a_ata, dest=alice.pubkey(), owner=alice.pubkey()
        )
    )
    ok(url, build_tx([close], alice, [], latest_blockhash(url)))
    assert balance(url, alice.pubkey()) == before + 2039280 - 5000
    assert result(url, "getAccountInfo", [str(a_ata), {"encoding": "base64"}])["value"] is None
    assert rpc(url, "getTokenAccountBalance", [str(a_ata)])["error"]["code"] == -32602


def test_wrapped_sol_sync_native_and_prefunded_ata(chain):
    from solders.system_program import TransferParams, transfer
    from spl.token.constants import WRAPPED_SOL_MINT

    url = chain.url
    alice = Keypair()
    airdrop(url, alice.pubkey(), 10 * SOL)
    ata = T.get_associated_token_address(alice.pubkey(), WRAPPED_SOL_MINT)
    # someone pre-funds the ATA address before it exists: Create still works (transfer + allocate + assign)
    ok(
        url,
        build_tx(
            [transfer(TransferParams(from_pubkey=alice.pubkey(), to_pubkey=ata, lamports=SOL))],
            alice,
            [],
            latest_blockhash(url),
        ),
    )
    ixs = [
        T.create_associated_token_account(alice.pubkey(), alice.pubkey(), WRAPPED_SOL_MINT),
        T.sync_native(T.models.SyncNativeParams(program_id=TOKEN_PROGRAM_ID, account=ata)),
    ]
    ok(url, build_tx(ixs, alice, [], latest_blockhash(url)))
    assert balance(url, ata) == SOL  # already above the rent-exempt reserve, nothing added
    assert result(url, "getTokenAccountBalance", [str(ata)])["value"]["amount"] == str(SOL - 2039280)
    ok(
        url,
        build_tx(
            [
                transfer(TransferParams(from_pubkey=alice.pubkey(), to_pubkey=ata, lamports=SOL)),
                T.sync_native(T.models.SyncNativeParams(program_id=TOKEN_PROGRAM_ID, account=ata)),
            ],
            alice,
            [],
            latest_blockhash(url),
        ),
    )
    assert result(url, "getTokenAccountBalance", [str(ata)])["value"]["uiAmountString"] == "1.99796072"
