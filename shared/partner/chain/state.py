"""Reading a coin's venue and a wallet's balances in one RPC round trip."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from solders.hash import Hash
from solders.pubkey import Pubkey

from partner.chain import programs as P
from partner.chain.layouts import BondingCurve, Global, Pool, decode_owned, token_account_amount
from partner.chain.rpc import Rpc
from partner.core.errors import ApiError

CLOCK_SYSVAR = Pubkey.from_string("SysvarC1ock11111111111111111111111111111111")


@dataclass(frozen=True)
class CoinState:
    mint: Pubkey
    global_config: Global
    curve: BondingCurve
    pool: Pool | None
    wallet_lamports: int
    token_account_exists: bool
    token_balance: int
    slot: int
    unix_timestamp: int
    blockhash: Hash
    last_valid_block_height: int

    @property
    def venue(self) -> str:
        """`curve`, or `pool`; raises the spec's 409s in between."""
        if not self.curve.complete:
            return "curve"
        if not self.curve.migrated or self.pool is None:
            raise ApiError("migration_pending", action="Wait a few seconds and retry.")
        if self.unix_timestamp < self.pool.open_time:
            wait = self.pool.open_time - self.unix_timestamp
            raise ApiError("pool_not_open", action="Wait a few seconds and retry.", retryAfterSeconds=wait)
        return "pool"


def decode_global(account: Any) -> Global:
    """The launchpad's global config from its account as read; rpc_unavailable when it cannot be."""
    global_config = decode_owned(Global, account, P.LAUNCHPAD_PROGRAM_ID)
    if global_config is None:
        raise ApiError("rpc_unavailable", "The launchpad's global configuration could not be read.")
    return global_config


def decode_curve(account: Any, mint: Pubkey) -> BondingCurve:
    """The mint's bonding curve from its account as read; 400 invalid_input when the mint is not a
    coin of this launchpad (the quote's, the trades' and the fee estimate's one answer)."""
    curve = decode_owned(BondingCurve, account, P.LAUNCHPAD_PROGRAM_ID)
    if curve is None or curve.mint != mint:
        raise ApiError("invalid_input", "mint is not a coin of this launchpad.", field="mint")
    return curve


def read_coin(rpc: Rpc, mint: Pubkey, wallet: Pubkey) -> CoinState:
    curve_key, _ = P.bonding_curve_pda(mint)
    pool_key, _ = P.pool_pda(mint)
    global_key, _ = P.global_pda()
    ata = P.associated_token_address(wallet, mint)
    keys = [global_key, curve_key, pool_key, ata, wallet, CLOCK_SYSVAR]
    accounts_raw, blockhash_raw = rpc.batch([rpc.multiple_accounts_request(keys, 1), Rpc.latest_blockhash_request(2)])
    accounts = Rpc.parse_multiple_accounts(accounts_raw)
    blockhash, last_valid = Rpc.parse_latest_blockhash(blockhash_raw)
    global_config = decode_global(accounts[0])
    curve = decode_curve(accounts[1], mint)
    pool = decode_owned(Pool, accounts[2], P.POOL_PROGRAM_ID)
    token_account = accounts[3]
    balance = 0
    if token_account is not None and token_account.owner == P.TOKEN_2022_PROGRAM_ID:
        balance = token_account_amount(token_account.data)
    clock = accounts[5]
    if clock is None or len(clock.data) < 40:
        raise ApiError("rpc_unavailable", "The chain clock could not be read.")
    slot, _, _, _, unix_ts = struct.unpack_from("<QqQQq", clock.data)
    return CoinState(
        mint=mint,
        global_config=global_config,
        curve=curve,
        pool=pool,
        wallet_lamports=accounts[4].lamports if accounts[4] else 0,
        token_account_exists=token_account is not None,
        token_balance=balance,
        slot=slot,
        unix_timestamp=unix_ts,
        blockhash=blockhash,
        last_valid_block_height=last_valid,
    )
