"""Coin creation on the launchpad (the building block of `coins/create` and the devstack)."""

from __future__ import annotations

from solders.keypair import Keypair
from solders.message import Message

from partner.chain import instructions as ix
from partner.chain.confirm import wait_for
from partner.chain.rpc import Rpc
from partner.chain.signer import Signer
from partner.chain.tx import sign, submit
from partner.core.errors import ApiError
from partner.store.wallets import KeypairSigner


def create_coin_now(
    rpc: Rpc, creator: Signer, name: str, symbol: str, uri: str = "", mint: Keypair | None = None
) -> str:
    """Create a coin on a fresh curve (at `mint`, or a new key) and wait until it is processed;
    returns the mint."""
    mint = mint or Keypair()
    blockhash, last_valid = rpc.latest_blockhash()
    message = Message.new_with_blockhash(
        [ix.create_coin(creator.pubkey, mint.pubkey(), name, symbol, uri)], creator.pubkey, blockhash
    )
    tx = sign(message, [creator, KeypairSigner(mint)])
    signature = submit(rpc, tx)
    status = wait_for(rpc, signature, last_valid_block_height=last_valid)
    if status is None or status.get("err") is not None:
        raise ApiError("tx_failed", f"create_coin did not land: {status}")
    return str(mint.pubkey())
