"""Helpers for tests that look at the devstack chain."""

from __future__ import annotations

import contextlib
import time
from typing import Any

import httpx

# The seed of a mint whose PDA bumps are deep (its pool's vault has bump 240 and is derived three
# times in a migrate, the pool's 244 twice): its migrate takes up to 162,227 units, above the stated
# migrate limit (partner.jobs.migration). Found by search; about one mint in 90,000 is so.
DEEP_BUMP_MINT_SEED = (300_197_775).to_bytes(32, "little")


def rpc(url: str, method: str, params: list[Any] | None = None) -> Any:
    """The result of one JSON-RPC call. A method that takes a commitment reads at ``processed``
    when ``params`` names none: tests look at the newest state, as an explorer set to processed
    does (a node's own default is ``finalized``, ~13 s behind); getTransaction, which takes
    ``confirmed`` at the lowest, waits (bounded) for its transaction to be confirmed.
    See devstack.chain.testing.with_commitment."""
    from devstack.chain.testing import rpc as chain_rpc

    body = chain_rpc(url, method, params or [], timeout=30)
    if "error" in body:
        raise AssertionError(f"{method}: {body['error']}")
    return body["result"]


def balance(url: str, pubkey: str) -> int:
    return rpc(url, "getBalance", [pubkey])["value"]


def token_balance(url: str, owner: str, mint: str) -> int:
    from partner.chain.programs import associated_token_address

    ata = str(associated_token_address(owner, mint))
    info = rpc(url, "getAccountInfo", [ata, {"encoding": "base64"}])["value"]
    if info is None:
        return 0
    return int(rpc(url, "getTokenAccountBalance", [ata])["value"]["amount"])


def airdrop(url: str, pubkey: str, lamports: int) -> None:
    signature = rpc(url, "requestAirdrop", [pubkey, lamports])
    wait(url, signature)


def wait(url: str, signature: str, timeout: float = 10) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = rpc(url, "getSignatureStatuses", [[signature], {"searchTransactionHistory": True}])["value"][0]
        if status is not None:
            return status
        time.sleep(0.05)
    raise AssertionError(f"{signature} did not land")


def landed(url: str, signature: str) -> tuple[list[tuple[str, bytes]], dict]:
    """(program id, data) of each top-level instruction of the landed transaction, read off the
    transaction itself, and its meta."""
    import base64

    from solders.transaction import VersionedTransaction

    tx = rpc(url, "getTransaction", [signature, {"encoding": "base64", "maxSupportedTransactionVersion": 0}])
    message = VersionedTransaction.from_bytes(base64.b64decode(tx["transaction"][0])).message
    keys = [str(k) for k in message.account_keys]
    return [(keys[ix.program_id_index], bytes(ix.data)) for ix in message.instructions], tx["meta"]


def memos(url: str, signature: str) -> list[bytes]:
    """The data of the landed transaction's SPL Memo instructions (the real Memo program logs only a
    memo's length when it has no signer)."""
    from partner.chain.unique import MEMO_PROGRAM_ID

    return [data for program, data in landed(url, signature)[0] if program == str(MEMO_PROGRAM_ID)]


def compute_budget(url: str, signature: str) -> tuple[int | None, int | None, int]:
    """The landed transaction's SetComputeUnitLimit, SetComputeUnitPrice (micro-lamports a unit;
    None when absent) and the runtime's computeUnitsConsumed."""
    import struct

    instructions, meta = landed(url, signature)
    budget = [data for program, data in instructions if program == "ComputeBudget111111111111111111111111111111"]
    limit = next((struct.unpack_from("<I", d, 1)[0] for d in budget if d[:1] == b"\x02"), None)
    price = next((struct.unpack_from("<Q", d, 1)[0] for d in budget if d[:1] == b"\x03"), None)
    return limit, price, meta["computeUnitsConsumed"]


def launchpad_instructions(url: str, signature: str) -> list[tuple[str, dict]]:
    """The landed transaction's launchpad instructions, decoded from the IDL: (name, args) each."""
    import base64

    from solders.transaction import VersionedTransaction

    from partner.chain.idls import LAUNCHPAD

    tx = rpc(url, "getTransaction", [signature, {"encoding": "base64", "maxSupportedTransactionVersion": 0}])
    message = VersionedTransaction.from_bytes(base64.b64decode(tx["transaction"][0])).message
    keys = message.account_keys
    return [
        LAUNCHPAD.decode_instruction(bytes(ix.data))
        for ix in message.instructions
        if keys[ix.program_id_index] == LAUNCHPAD.address
    ]


def warp(url: str, seconds: int) -> Any:
    return rpc(url, "devstack_warp", [seconds])


def new_coin(url: str, name: str = "Test Coin", symbol: str = "TEST", mint=None) -> str:
    """A coin on a fresh curve (at `mint`, a Keypair, or a new key), created by its own funded user,
    one second in the past."""
    from partner.chain.rpc import Rpc
    from partner.store.users import get_user
    from partner.store.wallets import SealedWalletSigner
    from partnerctl import admin
    from partnerctl.coins import create_coin_now

    creator = admin.create_user()
    airdrop(url, creator["wallet"], 10**9)
    user = get_user(creator["user_id"])
    assert user is not None
    mint = create_coin_now(Rpc(url), SealedWalletSigner(user), name, symbol, mint=mint)
    warp(url, 1)
    return mint


# The test chain opens pools this long (chain seconds) after migration, so a test sees
# `pool_not_open` however slow the machine is, and steps past it with `warp`.
POOL_OPEN_DELAY = 60


def set_pool_open_delay(handle, seconds: int) -> None:
    """Rewrite the launchpad's global config in a running devstack chain (tests only)."""
    import dataclasses

    from partner.chain.layouts import Global
    from partner.chain.programs import global_pda

    key = global_pda()[0]
    bank = handle.bank
    with bank.lock:
        account = bank.get_account(key)
        config = dataclasses.replace(Global.decode(bytes(account.data)), pool_open_delay_seconds=seconds)
        bank.set_account(key, account.lamports, config.encode(), account.owner)


@contextlib.contextmanager
def block_engine(url: str, **spec: Any):
    """The chain's block engine with other settings (`rateLimitPerSecond`, `landDelayMs`) for the
    block; restored after. A rate limit starts with every caller's budget full."""
    before = rpc(url, "devstack_setBlockEngine", [spec])
    try:
        yield before
    finally:
        rpc(url, "devstack_setBlockEngine", [before])


def use_up_rate_limit(bundle_url: str, timeout: float = 10) -> None:
    """Spend this process's budget at a slow block engine: once a request passes, the next answers 429."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "getTipAccounts", "params": []}
    deadline = time.monotonic() + timeout
    while httpx.post(bundle_url, json=body).status_code == 429:
        assert time.monotonic() < deadline, "the block engine's rate limit never let a request through"
        time.sleep(0.1)
    assert httpx.post(bundle_url, json=body).status_code == 429


def mint_to_checked(mint, dest, authority, amount: int, decimals: int, program_id=None):
    """An SPL Token MintToChecked instruction (Token-2022's with its `program_id`)."""
    from spl.token import instructions as T
    from spl.token.constants import TOKEN_PROGRAM_ID

    fields = {"mint": mint, "dest": dest, "mint_authority": authority, "amount": amount, "decimals": decimals}
    return T.mint_to_checked(T.models.MintToCheckedParams(program_id=program_id or TOKEN_PROGRAM_ID, **fields))


def transfer_checked(source, mint, dest, owner, amount: int, decimals: int, program_id=None):
    """An SPL Token TransferChecked instruction (Token-2022's with its `program_id`)."""
    from spl.token import instructions as T
    from spl.token.constants import TOKEN_PROGRAM_ID

    fields = {"source": source, "mint": mint, "dest": dest, "owner": owner, "amount": amount, "decimals": decimals}
    return T.transfer_checked(T.models.TransferCheckedParams(program_id=program_id or TOKEN_PROGRAM_ID, **fields))


def signed_transfer(url: str, payer, lamports: int):
    """A transfer of `lamports` from `payer` to a new address, with the tests' priority fee and tip,
    signed on the latest blockhash: (transaction, last valid block height)."""
    from solders.keypair import Keypair

    from partner.chain import instructions as ix
    from partner.chain.rpc import Rpc
    from partner.chain.tx import WriteFees, assemble, sign
    from partner.store.wallets import KeypairSigner

    blockhash, last_valid = Rpc(url).latest_blockhash()
    transfer = ix.system_transfer(payer.pubkey(), Keypair().pubkey(), lamports)
    message = assemble(payer.pubkey(), [transfer], fees=WriteFees(10_000, 1_000_000), blockhash=blockhash)
    return sign(message, [KeypairSigner(payer)]), last_valid
