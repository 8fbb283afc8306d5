"""Reference implementation of the constant-product `pool` program (devstack only).
Instruction data and the Pool layout come from idl/pool.json (partner.chain.idl).

Base = the coin (SPL tokens in the base vault, the ATA of the pool PDA);
quote = native SOL held as lamports by the pool account. See docs/onchain.md.
"""
from __future__ import annotations

from devstack.chain.runtime import InvokeContext
from devstack.chain.legacy import layouts as L
from partner.chain import pool_math as PM
from devstack.chain.legacy import programs as P
from partner.chain.errors import ProgramErrorCode as E
from devstack.chain.legacy.idl import POOL

from .launchpad import (
    TOKEN_ACCOUNT_SIZE,
    account,
    create_account,
    create_ata,
    dispatch,
    fail,
    is_token_account,
    pay_seller,
    require_key,
    require_out,
    require_sellable,
    require_signer,
    run_math,
    store,
    system_transfer,
    token_transfer,
)

PROGRAM_ID = P.POOL_PROGRAM_ID


def initialize_pool(ctx: InvokeContext, args: dict) -> None:
    payer, authority, mint, pool, base_vault, source = (account(ctx, i) for i in range(6))
    require_signer(payer)
    require_signer(authority)
    if authority.pubkey != P.bonding_curve_pda(mint.pubkey)[0]:
        raise fail(E.Unauthorized, "only the launchpad curve of this mint may create its pool")
    base_amount, quote_amount, open_time = args["base_amount"], args["quote_amount"], args["open_time"]
    fee_bps, fee_recipient, creator = args["fee_bps"], args["fee_recipient"], args["creator"]
    key, bump = P.pool_pda(mint.pubkey, PROGRAM_ID)
    require_key(pool, key, "pool")
    require_key(base_vault, P.associated_token_address(key, mint.pubkey), "pool base vault")
    if pool.data:
        raise fail(E.AlreadyInitialized)
    if base_amount == 0 or quote_amount == 0:
        raise fail(E.InvalidInput, "empty pool")
    create_account(ctx, payer, pool, L.Pool.SIZE, PROGRAM_ID, [P.POOL_SEED, bytes(mint.pubkey), bytes([bump])])
    create_ata(ctx, payer.pubkey, key, mint.pubkey)
    token_transfer(ctx, source.pubkey, base_vault.pubkey, authority.pubkey, base_amount)
    store(pool, L.Pool(mint.pubkey, base_vault.pubkey, creator, fee_recipient, base_amount, quote_amount,
                       fee_bps, open_time, ctx.slot, bump))
    ctx.log(f"initialize_pool mint={mint.pubkey} base={base_amount} quote={quote_amount} open_time={open_time}")


class _Swap:
    def __init__(self, ctx: InvokeContext):
        (self.user, self.pool_acc, self.mint, self.base_vault, self.user_ata,
         self.fee_recipient) = (account(ctx, i) for i in range(6))
        require_signer(self.user)
        require_key(self.pool_acc, P.pool_pda(self.mint.pubkey, PROGRAM_ID)[0], "pool")
        if self.pool_acc.owner != PROGRAM_ID or not self.pool_acc.data:
            raise fail(E.MigrationPending, "pool not created yet")
        self.pool = L.Pool.decode(bytes(self.pool_acc.data))
        require_key(self.base_vault, self.pool.base_vault, "pool base vault")
        require_key(self.fee_recipient, self.pool.fee_recipient, "fee recipient")
        require_key(self.user_ata, P.associated_token_address(self.user.pubkey, self.mint.pubkey), "user ATA")
        if ctx.unix_timestamp < self.pool.open_time:
            raise fail(E.PoolNotOpen, f"pool opens at {self.pool.open_time}")
        self.seeds = [P.POOL_SEED, bytes(self.mint.pubkey), bytes([self.pool.bump])]

    def save(self, state: PM.PoolState) -> None:
        self.pool.base_reserve, self.pool.quote_reserve = state.base_reserve, state.quote_reserve
        store(self.pool_acc, self.pool)


def _buy(ctx: InvokeContext, s: _Swap, r: PM.SwapResult) -> None:
    has_ata = is_token_account(s.user_ata, s.mint.pubkey, s.user.pubkey)
    need = r.amount_in + (0 if has_ata else P.rent_exempt_minimum(TOKEN_ACCOUNT_SIZE))
    if s.user.lamports < need:
        raise fail(E.InsufficientSol, f"need {need} lamports, have {s.user.lamports}")
    if not has_ata:
        create_ata(ctx, s.user.pubkey, s.user.pubkey, s.mint.pubkey)
    system_transfer(ctx, s.user, s.pool_acc, r.amount_in - r.fee)
    system_transfer(ctx, s.user, s.fee_recipient, r.fee)
    token_transfer(ctx, s.base_vault.pubkey, s.user_ata.pubkey, s.pool_acc.pubkey, r.amount_out, s.seeds)
    s.save(r.state_after)
    ctx.log(f"swap buy mint={s.mint.pubkey} user={s.user.pubkey} sol_in={r.amount_in} "
            f"tokens_out={r.amount_out} fee={r.fee}")


def swap(ctx: InvokeContext, args: dict) -> None:
    base_in, amount_in, min_out = args["base_in"], args["amount_in"], args["min_amount_out"]
    if amount_in == 0:
        raise fail(E.InvalidInput, "amount_in must be > 0")
    s = _Swap(ctx)
    state = PM.PoolState.of(s.pool)
    if not base_in:
        r = run_math(PM.swap_quote_in, state, amount_in, s.pool.fee_bps)
        require_out(r.amount_out, min_out, "tokens")
        _buy(ctx, s, r)
        return
    require_sellable(s.user_ata, s.mint, s.user, amount_in)
    r = run_math(PM.swap_base_in, state, amount_in, s.pool.fee_bps)
    require_out(r.amount_out, min_out, "SOL")
    pay_seller(ctx, s.user, s.user_ata, s.base_vault, amount_in, s.pool_acc, s.fee_recipient, r.amount_out, r.fee)
    s.save(r.state_after)
    ctx.log(f"swap sell mint={s.mint.pubkey} user={s.user.pubkey} tokens_in={amount_in} "
            f"sol_out={r.amount_out} fee={r.fee}")


def swap_exact_out(ctx: InvokeContext, args: dict) -> None:
    base_out, max_in = args["base_out"], args["max_quote_in"]
    if base_out == 0:
        raise fail(E.InvalidInput, "base_out must be > 0")
    s = _Swap(ctx)
    r = run_math(PM.swap_base_out, PM.PoolState.of(s.pool), base_out, s.pool.fee_bps)
    if r.amount_in > max_in:
        raise fail(E.SlippageExceeded, f"sol in {r.amount_in} > max {max_in}")
    _buy(ctx, s, r)


HANDLERS = {"initialize_pool": initialize_pool, "swap": swap, "swap_exact_out": swap_exact_out}


def process(ctx: InvokeContext) -> None:
    dispatch(POOL, HANDLERS, ctx)
