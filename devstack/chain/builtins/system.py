"""System program: CreateAccount, Assign, Transfer, Allocate and the *WithSeed variants."""

from __future__ import annotations

import struct

from solders.pubkey import Pubkey

from .. import constants as C
from ..runtime import MAX_PERMITTED_DATA_LENGTH, AccountRef, InstructionFailure, InvokeContext

# SystemError codes
ACCOUNT_ALREADY_IN_USE = 0
RESULT_WITH_NEGATIVE_LAMPORTS = 1
INVALID_ACCOUNT_DATA_LENGTH = 3
MAX_SEED_LENGTH_EXCEEDED = 4
ADDRESS_WITH_SEED_MISMATCH = 5


class _Reader:
    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise InstructionFailure("InvalidInstructionData")
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def u64(self) -> int:
        return struct.unpack("<Q", self.take(8))[0]

    def pubkey(self) -> Pubkey:
        return Pubkey.from_bytes(self.take(32))

    def string(self) -> str:
        n = self.u64()
        try:
            return self.take(n).decode("utf-8")
        except UnicodeDecodeError as e:
            raise InstructionFailure("InvalidInstructionData") from e


def _addr(acct: AccountRef, base: Pubkey | None = None) -> str:
    return f"Address {{ address: {acct.pubkey}, base: {base if base else 'None'} }}"


def _transfer(ctx: InvokeContext, frm: AccountRef, to: AccountRef, lamports: int, *, check_signer: bool = True) -> None:
    if check_signer and not frm.is_signer:
        ctx.log(f"Transfer: `from` account {frm.pubkey} must sign")
        raise InstructionFailure("MissingRequiredSignature")
    if len(frm.data):
        ctx.log("Transfer: `from` must not carry data")
        raise InstructionFailure("InvalidArgument")
    if lamports > frm.lamports:
        ctx.log(f"Transfer: insufficient lamports {frm.lamports}, need {lamports}")
        raise InstructionFailure(custom=RESULT_WITH_NEGATIVE_LAMPORTS)
    frm.lamports -= lamports
    to.lamports += lamports


def _allocate(ctx: InvokeContext, acct: AccountRef, space: int, signer_ok: bool, base: Pubkey | None = None) -> None:
    if not signer_ok:
        ctx.log(f"Allocate: 'to' account {_addr(acct, base)} must sign")
        raise InstructionFailure("MissingRequiredSignature")
    if len(acct.data) or acct.owner != C.SYSTEM_PROGRAM_ID:
        ctx.log(f"Allocate: account {_addr(acct, base)} already in use")
        raise InstructionFailure(custom=ACCOUNT_ALREADY_IN_USE)
    if space > MAX_PERMITTED_DATA_LENGTH:
        ctx.log(f"Allocate: requested {space}, max allowed {MAX_PERMITTED_DATA_LENGTH}")
        raise InstructionFailure(custom=INVALID_ACCOUNT_DATA_LENGTH)
    acct.data = bytearray(space)


def _assign(ctx: InvokeContext, acct: AccountRef, owner: Pubkey, signer_ok: bool, base: Pubkey | None = None) -> None:
    if acct.owner == owner:
        return
    if not signer_ok:
        ctx.log(f"Assign: account {_addr(acct, base)} must sign")
        raise InstructionFailure("MissingRequiredSignature")
    acct.owner = owner


def _with_seed(ctx: InvokeContext, target: AccountRef, base: Pubkey, seed: str, owner: Pubkey) -> None:
    if len(seed.encode()) > 32:
        raise InstructionFailure(custom=MAX_SEED_LENGTH_EXCEEDED)
    expected = Pubkey.create_with_seed(base, seed, owner)
    if expected != target.pubkey:
        ctx.log(f"Create: address {target.pubkey} does not match derived address {expected}")
        raise InstructionFailure(custom=ADDRESS_WITH_SEED_MISMATCH)


def _base_signed(ctx: InvokeContext, base: Pubkey) -> bool:
    return any(a.pubkey == base and a.is_signer for a in ctx.accounts)


def _create_account(ctx, frm, to, lamports, space, owner, to_signed, base=None) -> None:
    if to.lamports > 0:
        ctx.log(f"Create Account: account {_addr(to, base)} already in use")
        raise InstructionFailure(custom=ACCOUNT_ALREADY_IN_USE)
    _allocate(ctx, to, space, to_signed, base)
    _assign(ctx, to, owner, to_signed, base)
    _transfer(ctx, frm, to, lamports)


def process(ctx: InvokeContext) -> None:
    if len(ctx.data) < 4:
        raise InstructionFailure("InvalidInstructionData")
    tag = struct.unpack("<I", ctx.data[:4])[0]
    r = _Reader(bytes(ctx.data[4:]))
    acc = ctx.account
    if tag == 0:  # CreateAccount
        lamports, space, owner = r.u64(), r.u64(), r.pubkey()
        frm, to = acc(0), acc(1)
        _create_account(ctx, frm, to, lamports, space, owner, to.is_signer)
    elif tag == 1:  # Assign
        owner = r.pubkey()
        a = acc(0)
        _assign(ctx, a, owner, a.is_signer)
    elif tag == 2:  # Transfer
        lamports = r.u64()
        _transfer(ctx, acc(0), acc(1), lamports)
    elif tag == 3:  # CreateAccountWithSeed
        base, seed, lamports, space, owner = r.pubkey(), r.string(), r.u64(), r.u64(), r.pubkey()
        frm, to = acc(0), acc(1)
        _with_seed(ctx, to, base, seed, owner)
        _create_account(ctx, frm, to, lamports, space, owner, _base_signed(ctx, base), base)
    elif tag == 8:  # Allocate
        space = r.u64()
        a = acc(0)
        _allocate(ctx, a, space, a.is_signer)
    elif tag == 9:  # AllocateWithSeed
        base, seed, space, owner = r.pubkey(), r.string(), r.u64(), r.pubkey()
        a = acc(0)
        _with_seed(ctx, a, base, seed, owner)
        _allocate(ctx, a, space, _base_signed(ctx, base), base)
        _assign(ctx, a, owner, True, base)
    elif tag == 10:  # AssignWithSeed
        base, seed, owner = r.pubkey(), r.string(), r.pubkey()
        a = acc(0)
        _with_seed(ctx, a, base, seed, owner)
        _assign(ctx, a, owner, _base_signed(ctx, base), base)
    elif tag == 11:  # TransferWithSeed
        lamports, from_seed, from_owner = r.u64(), r.string(), r.pubkey()
        frm, base, to = acc(0), acc(1), acc(2)
        if not base.is_signer:
            ctx.log(f"Transfer: 'from' account {base.pubkey} must sign")
            raise InstructionFailure("MissingRequiredSignature")
        expected = Pubkey.create_with_seed(base.pubkey, from_seed, from_owner)
        if expected != frm.pubkey:
            ctx.log(f"Transfer: 'from' address {frm.pubkey} does not match derived address {expected}")
            raise InstructionFailure(custom=ADDRESS_WITH_SEED_MISMATCH)
        _transfer(ctx, frm, to, lamports, check_signer=False)
    else:
        raise InstructionFailure("InvalidInstructionData")
