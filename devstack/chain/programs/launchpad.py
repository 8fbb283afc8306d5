"""Reference implementation of the `launchpad` program (devstack only, never deployed).

Instruction data, account layouts and error numbers come from the program's IDL
(idl/launchpad.json through partner.chain.idl), math from partner.chain; see
docs/onchain.md. Token movements go through CPI into SPL Token; SOL moves
by system CPI from user-owned payers or by lamport changes on program-owned
accounts.
"""
from __future__ import annotations

import struct
from functools import cache

from solders import system_program as sp
from solders.instruction import AccountMeta, Instruction
from solders.pubkey import Pubkey

from devstack.chain.runtime import InstructionFailure, InvokeContext, ProgramError
from partner.chain import curve as C
from partner.chain.idl import LayoutError, Program
from devstack.chain.legacy.idl import LAUNCHPAD
from devstack.chain.legacy import instructions as I
from devstack.chain.legacy import layouts as L
from devstack.chain.legacy import programs as P
from partner.chain.errors import ProgramErrorCode as E

PROGRAM_ID = P.LAUNCHPAD_PROGRAM_ID
TOKEN_ACCOUNT_SIZE = 165
MINT_SIZE = 82
MAX_FEE_BPS = 1000


# ----------------------------------------------------------------- helpers (shared with pool.py)

def fail(code: E, message: str = "") -> ProgramError:
    return ProgramError(int(code), message or code.name)


def account(ctx: InvokeContext, i: int):
    if i >= len(ctx.accounts):
        raise InstructionFailure("NotEnoughAccountKeys")
    return ctx.accounts[i]


def require_signer(acc) -> None:
    if not acc.is_signer:
        raise InstructionFailure("MissingRequiredSignature")


def require_key(acc, key: Pubkey, what: str) -> None:
    if acc.pubkey != key:
        raise fail(E.InvalidAccount, f"{what}: expected {key}, got {acc.pubkey}")


def is_token_account(acc, mint: Pubkey, owner: Pubkey) -> bool:
    if acc.owner != P.TOKEN_PROGRAM_ID or len(acc.data) < TOKEN_ACCOUNT_SIZE:
        return False
    ta = L.SplTokenAccount.decode(bytes(acc.data))
    return ta.mint == mint and ta.owner == owner and ta.state != 0


def token_balance(acc) -> int:
    return L.SplTokenAccount.decode(bytes(acc.data)).amount


def create_account(ctx: InvokeContext, payer, new, space: int, owner: Pubkey,
                   seeds: list[bytes] | None = None) -> None:
    """Create `new` (a PDA of the calling program when `seeds` is given)."""
    signer = [seeds] if seeds else None
    lamports = P.rent_exempt_minimum(space)
    if new.lamports == 0:
        ctx.invoke(sp.create_account(sp.CreateAccountParams(
            from_pubkey=payer.pubkey, to_pubkey=new.pubkey, lamports=lamports, space=space, owner=owner)), signer)
        return
    # pre-funded address: top up, allocate, assign (what Anchor does for PDAs)
    if new.lamports < lamports:
        ctx.invoke(sp.transfer(sp.TransferParams(
            from_pubkey=payer.pubkey, to_pubkey=new.pubkey, lamports=lamports - new.lamports)))
    ctx.invoke(sp.allocate(sp.AllocateParams(pubkey=new.pubkey, space=space)), signer)
    ctx.invoke(sp.assign(sp.AssignParams(pubkey=new.pubkey, owner=owner)), signer)


def system_transfer(ctx: InvokeContext, src, dst, lamports: int) -> None:
    if lamports > 0:
        ctx.invoke(I.system_transfer(src.pubkey, dst.pubkey, lamports))


def token_transfer(ctx: InvokeContext, src: Pubkey, dst: Pubkey, authority: Pubkey, amount: int,
                   seeds: list[bytes] | None = None) -> None:
    if amount <= 0:
        return
    ix = Instruction(P.TOKEN_PROGRAM_ID, bytes([3]) + struct.pack("<Q", amount), [
        AccountMeta(src, False, True), AccountMeta(dst, False, True), AccountMeta(authority, True, False)])
    ctx.invoke(ix, [seeds] if seeds else None)


def create_ata(ctx: InvokeContext, payer: Pubkey, owner: Pubkey, mint: Pubkey) -> None:
    ctx.invoke(I.create_associated_token_account_idempotent(payer, owner, mint))


def move_lamports(src, dst, lamports: int) -> None:
    """Debit a program-owned account, credit any writable account."""
    if lamports <= 0:
        return
    if src.lamports - lamports < P.rent_exempt_minimum(len(src.data)):
        raise fail(E.InsufficientLiquidity, "would take the account below rent exemption")
    src.lamports = src.lamports - lamports
    dst.lamports = dst.lamports + lamports


def run_math(fn, *args):
    """Curve / pool math, its errors as program errors."""
    try:
        return fn(*args)
    except C.CurveMathError as exc:
        raise math_error(exc) from None


def require_out(out: int, min_out: int, unit: str) -> None:
    """A trade must give something, and at least its slippage bound."""
    if out == 0:
        raise fail(E.InvalidInput, f"amount too small: no {unit} out")
    if out < min_out:
        raise fail(E.SlippageExceeded, f"{unit} out {out} < min {min_out}")


def require_sellable(user_ata, mint, user, amount: int) -> None:
    if not is_token_account(user_ata, mint.pubkey, user.pubkey):
        raise fail(E.MissingSellTokenAccount)
    held = token_balance(user_ata)
    if held < amount:
        raise fail(E.InsufficientTokens, f"need {amount} tokens, have {held}")


def pay_seller(ctx: InvokeContext, user, user_ata, vault, tokens_in: int, venue, fee_recipient, sol_out: int,
               fee: int) -> None:
    """Tokens user -> venue vault; SOL from the venue account to the user (net) and the fee recipient."""
    token_transfer(ctx, user_ata.pubkey, vault.pubkey, user.pubkey, tokens_in)
    move_lamports(venue, user, sol_out)
    move_lamports(venue, fee_recipient, fee)


def math_error(exc: C.CurveMathError) -> ProgramError:
    if isinstance(exc, C.MathOverflow):
        return fail(E.MathOverflow, str(exc))
    if isinstance(exc, C.InsufficientLiquidity):
        return fail(E.InsufficientLiquidity, str(exc))
    if isinstance(exc, C.CurveComplete):
        return fail(E.CurveComplete, str(exc))
    return fail(E.InvalidInput, str(exc))


def dispatch(program: Program, handlers: dict, ctx: InvokeContext) -> None:
    """Run the handler of the instruction in ctx.data with its IDL-decoded args (bad data: InvalidInput)."""
    name = program.instruction_name(ctx.data)
    if name not in handlers:
        raise fail(E.InvalidInput, "unknown instruction")
    ctx.log(f"Instruction: {name}")
    try:
        _, args = program.decode_instruction(ctx.data)
    except LayoutError as exc:
        raise fail(E.InvalidInput, str(exc)) from None
    handlers[name](ctx, args)


# ----------------------------------------------------------------- state access

def load_global(ctx: InvokeContext, acc) -> L.Global:
    require_key(acc, P.global_pda(PROGRAM_ID)[0], "global")
    if acc.owner != PROGRAM_ID or not acc.data:
        raise fail(E.InvalidAccount, "global config not initialized")
    return L.Global.decode(bytes(acc.data))


def load_curve(acc, mint: Pubkey) -> L.BondingCurve:
    require_key(acc, P.bonding_curve_pda(mint, PROGRAM_ID)[0], "bonding curve")
    if acc.owner != PROGRAM_ID or not acc.data:
        raise fail(E.InvalidAccount, "bonding curve not initialized")
    return L.BondingCurve.decode(bytes(acc.data))


def store(acc, obj) -> None:
    raw = obj.encode()
    if len(acc.data) == len(raw):
        acc.data[:] = raw
    else:
        acc.data = bytearray(raw)


def _validate_global_params(fee_bps: int, cap_bps: int, delay: int) -> None:
    if not 0 <= fee_bps <= MAX_FEE_BPS:
        raise fail(E.InvalidFeeBps)
    if not 1 <= cap_bps <= 10_000 or delay < 0:
        raise fail(E.InvalidInput, "bad wallet cap or pool delay")


# ----------------------------------------------------------------- instructions

def initialize_global(ctx: InvokeContext, args: dict) -> None:
    admin, glob = account(ctx, 0), account(ctx, 1)
    require_signer(admin)
    key, bump = P.global_pda(PROGRAM_ID)
    require_key(glob, key, "global")
    if glob.owner == PROGRAM_ID and glob.data:
        raise fail(E.AlreadyInitialized)
    g = L.Global(admin=admin.pubkey, bump=bump, **args)
    _validate_global_params(g.protocol_fee_bps, g.wallet_cap_bps, g.pool_open_delay_seconds)
    irt, ivt = g.initial_real_token_reserves, g.initial_virtual_token_reserves
    if not (0 < irt < ivt and irt <= g.token_total_supply and g.initial_virtual_sol_reserves > 0):
        raise fail(E.InvalidInput, "bad curve parameters")
    create_account(ctx, admin, glob, L.Global.SIZE, PROGRAM_ID, [P.GLOBAL_SEED, bytes([bump])])
    store(glob, g)


def load_global_as_admin(ctx: InvokeContext) -> tuple:
    """(global account, Global) for the admin instructions: accounts 0 admin (signer), 1 global."""
    admin, glob = account(ctx, 0), account(ctx, 1)
    require_signer(admin)
    g = load_global(ctx, glob)
    if admin.pubkey != g.admin:
        raise fail(E.Unauthorized)
    return glob, g


def set_params(ctx: InvokeContext, args: dict) -> None:
    glob, g = load_global_as_admin(ctx)
    _validate_global_params(args["protocol_fee_bps"], args["wallet_cap_bps"], args["pool_open_delay_seconds"])
    g.admin = args.pop("new_admin")
    for name, value in args.items():
        setattr(g, name, value)
    store(glob, g)


def set_governance_params(ctx: InvokeContext, args: dict) -> None:
    """Admin: the governance params create_coin copies into each new coin's Governance."""
    glob, g = load_global_as_admin(ctx)
    params = args["params"]
    if params.problems():
        raise fail(E.InvalidInput, "; ".join(params.problems()))
    g.set_governance_params(params)
    store(glob, g)


def check_text(text: str, limit: int, empty: E, too_long: E) -> str:
    if not text.strip():
        raise fail(empty)
    if len(text.encode("utf-8")) > limit:
        raise fail(too_long)
    return text


def check_uri(uri: str) -> str:
    if len(uri.encode("utf-8")) > L.URI_MAX_BYTES:
        raise fail(E.UriTooLong)
    return uri


def create_coin(ctx: InvokeContext, args: dict) -> None:
    creator, mint, glob, curve_acc, vault, meta = (account(ctx, i) for i in range(6))
    gov_acc = account(ctx, 9)
    name = check_text(args["name"], L.NAME_MAX_BYTES, E.NameEmpty, E.NameTooLong)
    symbol = check_text(args["symbol"], L.SYMBOL_MAX_BYTES, E.SymbolEmpty, E.SymbolTooLong)
    uri = check_uri(args["uri"])

    require_signer(creator)
    require_signer(mint)
    g = load_global(ctx, glob)
    curve_key, curve_bump = P.bonding_curve_pda(mint.pubkey, PROGRAM_ID)
    meta_key, meta_bump = P.metadata_pda(mint.pubkey, PROGRAM_ID)
    require_key(curve_acc, curve_key, "bonding curve")
    require_key(meta, meta_key, "metadata")
    require_key(vault, P.associated_token_address(curve_key, mint.pubkey), "curve vault")
    require_key(gov_acc, P.governance_pda(mint.pubkey, PROGRAM_ID)[0], "governance")
    if mint.lamports or mint.data or curve_acc.data or meta.data or gov_acc.data:
        raise fail(E.AlreadyInitialized, "mint, curve, metadata or governance already exists")
    gov_params = g.governance_params()
    need = (P.rent_exempt_minimum(MINT_SIZE) + P.rent_exempt_minimum(L.BondingCurve.SIZE)
            + P.rent_exempt_minimum(L.CoinMetadata.SIZE) + P.rent_exempt_minimum(TOKEN_ACCOUNT_SIZE)
            + P.rent_exempt_minimum(L.Governance.SIZE)
            - curve_acc.lamports - meta.lamports - gov_acc.lamports)
    if creator.lamports < need:
        raise fail(E.InsufficientSol, f"need {need} lamports for rent")

    curve_seeds = [P.BONDING_CURVE_SEED, bytes(mint.pubkey), bytes([curve_bump])]
    # mint: 6 decimals, authority = curve PDA (revoked after minting the supply)
    create_account(ctx, creator, mint, MINT_SIZE, P.TOKEN_PROGRAM_ID)
    ctx.invoke(Instruction(P.TOKEN_PROGRAM_ID, bytes([20, C.TOKEN_DECIMALS]) + bytes(curve_key) + b"\x00",
                           [AccountMeta(mint.pubkey, False, True)]))
    create_account(ctx, creator, curve_acc, L.BondingCurve.SIZE, PROGRAM_ID, curve_seeds)
    create_account(ctx, creator, meta, L.CoinMetadata.SIZE, PROGRAM_ID,
                   [P.METADATA_SEED, bytes(mint.pubkey), bytes([meta_bump])])
    create_ata(ctx, creator.pubkey, curve_key, mint.pubkey)
    ctx.invoke(Instruction(P.TOKEN_PROGRAM_ID, bytes([7]) + struct.pack("<Q", g.token_total_supply), [
        AccountMeta(mint.pubkey, False, True), AccountMeta(vault.pubkey, False, True),
        AccountMeta(curve_key, True, False)]), [curve_seeds])
    ctx.invoke(Instruction(P.TOKEN_PROGRAM_ID, bytes([6, 0, 0]), [  # SetAuthority(MintTokens, None)
        AccountMeta(mint.pubkey, False, True), AccountMeta(curve_key, True, False)]), [curve_seeds])

    store(curve_acc, L.BondingCurve(
        mint=mint.pubkey, creator=creator.pubkey,
        virtual_token_reserves=g.initial_virtual_token_reserves,
        virtual_sol_reserves=g.initial_virtual_sol_reserves,
        real_token_reserves=g.initial_real_token_reserves, real_sol_reserves=0,
        token_total_supply=g.token_total_supply, bump=curve_bump,
        created_slot=ctx.slot, created_at=ctx.unix_timestamp))
    store(meta, L.CoinMetadata(mint.pubkey, creator.pubkey, name, symbol, uri, ctx.unix_timestamp, meta_bump))
    from . import governance
    governance.init_governance(ctx, creator, gov_acc, mint.pubkey, gov_params, g.token_total_supply)
    ctx.log(f"create_coin mint={mint.pubkey} creator={creator.pubkey} slot={ctx.slot}")


class _Trade:
    """Accounts of buy / buy_exact_out / sell, validated."""

    def __init__(self, ctx: InvokeContext):
        (self.user, self.glob, self.fee_recipient, self.mint, self.curve_acc, self.vault,
         self.user_ata) = (account(ctx, i) for i in range(7))
        require_signer(self.user)
        self.g = load_global(ctx, self.glob)
        require_key(self.fee_recipient, self.g.fee_recipient, "fee recipient")
        self.curve = load_curve(self.curve_acc, self.mint.pubkey)
        require_key(self.mint, self.curve.mint, "mint")
        require_key(self.vault, P.associated_token_address(self.curve_acc.pubkey, self.mint.pubkey), "curve vault")
        require_key(self.user_ata, P.associated_token_address(self.user.pubkey, self.mint.pubkey), "user ATA")
        if self.curve.complete or self.curve.migrated:
            raise fail(E.CurveComplete)
        if ctx.slot <= self.curve.created_slot and self.user.pubkey != self.curve.creator:
            raise fail(E.SameSlotTradingBlocked)
        self.seeds = [P.BONDING_CURVE_SEED, bytes(self.mint.pubkey), bytes([self.curve.bump])]

    def save(self, state: C.CurveState) -> None:
        c = self.curve
        c.virtual_token_reserves, c.virtual_sol_reserves = state.virtual_token_reserves, state.virtual_sol_reserves
        c.real_token_reserves, c.real_sol_reserves = state.real_token_reserves, state.real_sol_reserves
        c.complete = state.complete
        store(self.curve_acc, c)


def _buy(ctx: InvokeContext, args: dict, exact_out: bool) -> None:
    amount, bound = args.values()   # (sol_in, min_tokens_out) or (tokens_out, max_sol_in)
    if amount == 0:
        raise fail(E.InvalidInput, "amount must be > 0")
    t = _Trade(ctx)
    r = run_math(C.buy_exact_out if exact_out else C.buy, t.curve, amount, t.g.protocol_fee_bps)
    require_out(r.tokens_out, 0 if exact_out else bound, "tokens")
    if exact_out and r.sol_in > bound:
        raise fail(E.SlippageExceeded, f"sol in {r.sol_in} > max {bound}")
    has_ata = is_token_account(t.user_ata, t.mint.pubkey, t.user.pubkey)
    held = token_balance(t.user_ata) if has_ata else 0
    if t.g.wallet_cap_bps < 10_000:
        cap = t.curve.token_total_supply * t.g.wallet_cap_bps // 10_000
        if held + r.tokens_out > cap:
            raise fail(E.BuyLimitExceeded, f"balance would be {held + r.tokens_out} > cap {cap}")
    need = r.sol_in + (0 if has_ata else P.rent_exempt_minimum(TOKEN_ACCOUNT_SIZE))
    if t.user.lamports < need:
        raise fail(E.InsufficientSol, f"need {need} lamports, have {t.user.lamports}")
    if not has_ata:
        create_ata(ctx, t.user.pubkey, t.user.pubkey, t.mint.pubkey)
    system_transfer(ctx, t.user, t.curve_acc, r.sol_to_curve)
    system_transfer(ctx, t.user, t.fee_recipient, r.fee)
    token_transfer(ctx, t.vault.pubkey, t.user_ata.pubkey, t.curve_acc.pubkey, r.tokens_out, t.seeds)
    t.save(r.state_after)
    ctx.log(f"buy mint={t.mint.pubkey} user={t.user.pubkey} tokens_out={r.tokens_out} sol_in={r.sol_in} "
            f"fee={r.fee} capped={r.capped}")
    if r.completes:
        ctx.log(f"curve complete mint={t.mint.pubkey}")


def buy(ctx: InvokeContext, args: dict) -> None:
    _buy(ctx, args, exact_out=False)


def buy_exact_out(ctx: InvokeContext, args: dict) -> None:
    _buy(ctx, args, exact_out=True)


def sell(ctx: InvokeContext, args: dict) -> None:
    tokens_in, min_sol_out = args["tokens_in"], args["min_sol_out"]
    if tokens_in == 0:
        raise fail(E.InvalidInput, "tokens_in must be > 0")
    t = _Trade(ctx)
    require_sellable(t.user_ata, t.mint, t.user, tokens_in)
    r = run_math(C.sell, t.curve, tokens_in, t.g.protocol_fee_bps)
    require_out(r.sol_out, min_sol_out, "SOL")
    pay_seller(ctx, t.user, t.user_ata, t.vault, tokens_in, t.curve_acc, t.fee_recipient, r.sol_out, r.fee)
    t.save(r.state_after)
    ctx.log(f"sell mint={t.mint.pubkey} user={t.user.pubkey} tokens_in={tokens_in} sol_out={r.sol_out} fee={r.fee}")


def migrate(ctx: InvokeContext, args: dict) -> None:
    payer, glob, mint, curve_acc, vault, pool, pool_vault, pool_program = (account(ctx, i) for i in range(8))
    require_signer(payer)
    g = load_global(ctx, glob)
    c = load_curve(curve_acc, mint.pubkey)
    require_key(mint, c.mint, "mint")
    require_key(vault, P.associated_token_address(curve_acc.pubkey, mint.pubkey), "curve vault")
    require_key(pool_program, P.POOL_PROGRAM_ID, "pool program")
    require_key(pool, P.pool_pda(mint.pubkey)[0], "pool")
    require_key(pool_vault, P.associated_token_address(pool.pubkey, mint.pubkey), "pool vault")
    if c.migrated:
        raise fail(E.AlreadyMigrated)
    if not c.complete:
        raise fail(E.CurveNotComplete)
    need = P.rent_exempt_minimum(L.Pool.SIZE) + P.rent_exempt_minimum(TOKEN_ACCOUNT_SIZE)
    if payer.lamports < need:
        raise fail(E.InsufficientSol, f"need {need} lamports for rent")
    base_amount = token_balance(vault)
    quote_amount = c.real_sol_reserves
    open_time = ctx.unix_timestamp + g.pool_open_delay_seconds
    seeds = [P.BONDING_CURVE_SEED, bytes(mint.pubkey), bytes([c.bump])]
    ctx.invoke(I.initialize_pool(payer.pubkey, mint.pubkey, base_amount, quote_amount, open_time,
                                 g.protocol_fee_bps, g.fee_recipient, c.creator), [seeds])
    move_lamports(curve_acc, pool, quote_amount)
    c.real_sol_reserves = 0
    c.real_token_reserves = 0
    c.migrated = True
    store(curve_acc, c)
    ctx.log(f"migrate mint={mint.pubkey} pool={pool.pubkey} base={base_amount} quote={quote_amount} "
            f"open_time={open_time}")


@cache
def _handlers() -> dict:
    from . import governance as GOV  # imported lazily: governance.py imports helpers from this module
    return {
        "initialize_global": initialize_global, "set_params": set_params,
        "set_governance_params": set_governance_params, "create_coin": create_coin, "buy": buy,
        "buy_exact_out": buy_exact_out, "sell": sell, "migrate": migrate,
        "create_proposal": GOV.create_proposal, "cast_vote": GOV.cast_vote, "cancel_vote": GOV.cancel_vote,
        "withdraw_vote": GOV.withdraw_vote, "settle_proposal": GOV.settle_proposal,
        "finalize_expired": GOV.finalize_expired, "withdraw_bond": GOV.withdraw_bond,
    }


def process(ctx: InvokeContext) -> None:
    dispatch(LAUNCHPAD, _handlers(), ctx)
