"""SPL Token (classic, TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA) with the real layouts and error numbers.

Mint (82 bytes): mint_authority COption<Pubkey> (u32 tag + 32), supply u64, decimals u8,
is_initialized bool, freeze_authority COption<Pubkey>.
Account (165 bytes): mint, owner, amount u64, delegate COption<Pubkey>, state u8
(0 uninitialized, 1 initialized, 2 frozen), is_native COption<u64>, delegated_amount u64,
close_authority COption<Pubkey>. Multisig authorities are not supported.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from solders.pubkey import Pubkey

from .. import constants as C
from ..runtime import AccountRef, InstructionFailure, InvokeContext

MINT_LEN = 82
ACCOUNT_LEN = 165
MULTISIG_LEN = 355

# TokenError
NOT_RENT_EXEMPT = 0
INSUFFICIENT_FUNDS = 1
INVALID_MINT = 2
MINT_MISMATCH = 3
OWNER_MISMATCH = 4
FIXED_SUPPLY = 5
ALREADY_IN_USE = 6
UNINITIALIZED_STATE = 9
NATIVE_NOT_SUPPORTED = 10
NON_NATIVE_HAS_BALANCE = 11
INVALID_INSTRUCTION = 12
INVALID_STATE = 13
OVERFLOW = 14
AUTHORITY_TYPE_NOT_SUPPORTED = 15
MINT_CANNOT_FREEZE = 16
ACCOUNT_FROZEN = 17
MINT_DECIMALS_MISMATCH = 18
NON_NATIVE_NOT_SUPPORTED = 19

_MESSAGES = {
    NOT_RENT_EXEMPT: "Lamport balance below rent-exempt threshold",
    INSUFFICIENT_FUNDS: "insufficient funds",
    INVALID_MINT: "Invalid Mint",
    MINT_MISMATCH: "Account not associated with this Mint",
    OWNER_MISMATCH: "owner does not match",
    FIXED_SUPPLY: "the total supply of this token is fixed",
    ALREADY_IN_USE: "account or token already in use",
    UNINITIALIZED_STATE: "State is uninitialized",
    NATIVE_NOT_SUPPORTED: "Instruction does not support native tokens",
    NON_NATIVE_HAS_BALANCE: "Non-native account can only be closed if its balance is zero",
    INVALID_INSTRUCTION: "Invalid instruction",
    INVALID_STATE: "State is invalid for requested operation",
    OVERFLOW: "Operation overflowed",
    AUTHORITY_TYPE_NOT_SUPPORTED: "Account does not support specified authority type",
    MINT_CANNOT_FREEZE: "This token mint cannot freeze accounts",
    ACCOUNT_FROZEN: "Account is frozen",
    MINT_DECIMALS_MISMATCH: "The provided decimals value different from the Mint decimals",
    NON_NATIVE_NOT_SUPPORTED: "Instruction does not support non-native tokens",
}

U64_MAX = 2**64 - 1


def token_error(code: int) -> InstructionFailure:
    return InstructionFailure(custom=code, log=f"Error: {_MESSAGES.get(code, code)}")


def _copt_key(data: bytes, off: int) -> Pubkey | None:
    tag = struct.unpack_from("<I", data, off)[0]
    if tag == 0:
        return None
    if tag != 1:
        raise InstructionFailure("InvalidAccountData")
    return Pubkey.from_bytes(bytes(data[off + 4 : off + 36]))


def _pack_copt_key(k: Pubkey | None) -> bytes:
    return struct.pack("<I", 0) + bytes(32) if k is None else struct.pack("<I", 1) + bytes(k)


@dataclass
class Mint:
    mint_authority: Pubkey | None
    supply: int
    decimals: int
    is_initialized: bool
    freeze_authority: Pubkey | None

    @classmethod
    def unpack_unchecked(cls, data: bytes) -> Mint:
        if len(data) != MINT_LEN:
            raise InstructionFailure("InvalidAccountData")
        return cls(
            _copt_key(data, 0),
            struct.unpack_from("<Q", data, 36)[0],
            data[44],
            bool(data[45]),
            _copt_key(data, 46),
        )

    @classmethod
    def unpack(cls, data: bytes) -> Mint:
        m = cls.unpack_unchecked(data)
        if not m.is_initialized:
            raise InstructionFailure("UninitializedAccount")
        return m

    def pack(self) -> bytes:
        return (
            _pack_copt_key(self.mint_authority)
            + struct.pack("<QBB", self.supply, self.decimals, int(self.is_initialized))
            + _pack_copt_key(self.freeze_authority)
        )


@dataclass
class TokenAccount:
    mint: Pubkey
    owner: Pubkey
    amount: int
    delegate: Pubkey | None
    state: int
    is_native: int | None
    delegated_amount: int
    close_authority: Pubkey | None

    @classmethod
    def unpack_unchecked(cls, data: bytes) -> TokenAccount:
        if len(data) != ACCOUNT_LEN:
            raise InstructionFailure("InvalidAccountData")
        native_tag = struct.unpack_from("<I", data, 109)[0]
        return cls(
            Pubkey.from_bytes(bytes(data[0:32])),
            Pubkey.from_bytes(bytes(data[32:64])),
            struct.unpack_from("<Q", data, 64)[0],
            _copt_key(data, 72),
            data[108],
            struct.unpack_from("<Q", data, 113)[0] if native_tag == 1 else None,
            struct.unpack_from("<Q", data, 121)[0],
            _copt_key(data, 129),
        )

    @classmethod
    def unpack(cls, data: bytes) -> TokenAccount:
        a = cls.unpack_unchecked(data)
        if a.state == 0:
            raise InstructionFailure("UninitializedAccount")
        return a

    def pack(self) -> bytes:
        native = struct.pack("<IQ", 0, 0) if self.is_native is None else struct.pack("<IQ", 1, self.is_native)
        return (
            bytes(self.mint)
            + bytes(self.owner)
            + struct.pack("<Q", self.amount)
            + _pack_copt_key(self.delegate)
            + bytes([self.state])
            + native
            + struct.pack("<Q", self.delegated_amount)
            + _pack_copt_key(self.close_authority)
        )

    @property
    def is_frozen(self) -> bool:
        return self.state == 2


def decode_token_account(data: bytes) -> TokenAccount | None:
    """Initialized token account from raw data, or None (used by RPC helpers)."""
    if len(data) != ACCOUNT_LEN:
        return None
    try:
        a = TokenAccount.unpack_unchecked(data)
    except InstructionFailure:
        return None
    return a if a.state in (1, 2) else None


def decode_mint(data: bytes) -> Mint | None:
    if len(data) != MINT_LEN:
        return None
    try:
        m = Mint.unpack_unchecked(data)
    except InstructionFailure:
        return None
    return m if m.is_initialized else None


# --------------------------------------------------------------------------


def _owned(acct: AccountRef) -> None:
    if acct.owner != C.TOKEN_PROGRAM_ID:
        raise InstructionFailure("IncorrectProgramId")


def _load_account(acct: AccountRef) -> TokenAccount:
    _owned(acct)
    return TokenAccount.unpack(acct.data)


def _load_mint(acct: AccountRef) -> Mint:
    _owned(acct)
    return Mint.unpack(acct.data)


def _store(acct: AccountRef, state: Mint | TokenAccount) -> None:
    acct.data[:] = state.pack()


def _validate_owner(expected: Pubkey, authority: AccountRef) -> None:
    if expected != authority.pubkey:
        raise token_error(OWNER_MISMATCH)
    if not authority.is_signer:
        raise InstructionFailure("MissingRequiredSignature")


def _rent_exempt(acct: AccountRef) -> bool:
    return acct.lamports >= C.minimum_balance(len(acct.data))


def _read_copt_key_ix(data: bytes, off: int) -> tuple[Pubkey | None, int]:
    if off >= len(data):
        raise token_error(INVALID_INSTRUCTION)
    tag = data[off]
    if tag == 0:
        return None, off + 1
    if tag == 1 and off + 33 <= len(data):
        return Pubkey.from_bytes(data[off + 1 : off + 33]), off + 33
    raise token_error(INVALID_INSTRUCTION)


def _u64(data: bytes, off: int) -> int:
    if off + 8 > len(data):
        raise token_error(INVALID_INSTRUCTION)
    return struct.unpack_from("<Q", data, off)[0]


def _u8(data: bytes, off: int) -> int:
    if off >= len(data):
        raise token_error(INVALID_INSTRUCTION)
    return data[off]


def _initialize_mint(ctx: InvokeContext, data: bytes, with_rent: bool) -> None:
    decimals = _u8(data, 1)
    if len(data) < 34:
        raise token_error(INVALID_INSTRUCTION)
    mint_authority = Pubkey.from_bytes(data[2:34])
    freeze, _ = _read_copt_key_ix(data, 34)
    mint_acct = ctx.account(0)
    m = Mint.unpack_unchecked(mint_acct.data)
    if m.is_initialized:
        raise token_error(ALREADY_IN_USE)
    if not _rent_exempt(mint_acct):
        raise token_error(NOT_RENT_EXEMPT)
    _store(mint_acct, Mint(mint_authority, 0, decimals, True, freeze))


def _initialize_account(ctx: InvokeContext, owner: Pubkey) -> None:
    acct, mint_acct = ctx.account(0), ctx.account(1)
    a = TokenAccount.unpack_unchecked(acct.data)
    if a.state != 0:
        raise token_error(ALREADY_IN_USE)
    if not _rent_exempt(acct):
        raise token_error(NOT_RENT_EXEMPT)
    is_native = mint_acct.pubkey == C.NATIVE_MINT
    if not is_native:
        if mint_acct.owner != C.TOKEN_PROGRAM_ID:
            raise InstructionFailure("IncorrectProgramId")
        if decode_mint(bytes(mint_acct.data)) is None:
            raise token_error(INVALID_MINT)
    reserve = C.minimum_balance(len(acct.data))
    new = TokenAccount(
        mint=mint_acct.pubkey,
        owner=owner,
        amount=acct.lamports - reserve if is_native else 0,
        delegate=None,
        state=1,
        is_native=reserve if is_native else None,
        delegated_amount=0,
        close_authority=None,
    )
    _store(acct, new)


def _transfer(ctx: InvokeContext, amount: int, expected_decimals: int | None) -> None:
    if expected_decimals is None:
        src_ref, dst_ref, auth = ctx.account(0), ctx.account(1), ctx.account(2)
        mint_ref = None
    else:
        src_ref, mint_ref, dst_ref, auth = ctx.account(0), ctx.account(1), ctx.account(2), ctx.account(3)
    src = _load_account(src_ref)
    dst = _load_account(dst_ref)
    if src.is_frozen or dst.is_frozen:
        raise token_error(ACCOUNT_FROZEN)
    if src.amount < amount:
        raise token_error(INSUFFICIENT_FUNDS)
    if src.mint != dst.mint:
        raise token_error(MINT_MISMATCH)
    if mint_ref is not None:
        if mint_ref.pubkey != src.mint:
            raise token_error(MINT_MISMATCH)
        m = _load_mint(mint_ref)
        if expected_decimals != m.decimals:
            raise token_error(MINT_DECIMALS_MISMATCH)
    self_transfer = src_ref.pubkey == dst_ref.pubkey
    if src.delegate is not None and src.delegate == auth.pubkey:
        _validate_owner(src.delegate, auth)
        if src.delegated_amount < amount:
            raise token_error(INSUFFICIENT_FUNDS)
        if not self_transfer:
            src.delegated_amount -= amount
            if src.delegated_amount == 0:
                src.delegate = None
    else:
        _validate_owner(src.owner, auth)
    if self_transfer:
        _store(src_ref, src)
        return
    src.amount -= amount
    if dst.amount + amount > U64_MAX:
        raise token_error(OVERFLOW)
    dst.amount += amount
    if src.is_native is not None:
        src_ref.lamports -= amount
        dst_ref.lamports += amount
    _store(src_ref, src)
    _store(dst_ref, dst)


def _approve(ctx: InvokeContext, amount: int, expected_decimals: int | None) -> None:
    if expected_decimals is None:
        src_ref, delegate, owner = ctx.account(0), ctx.account(1), ctx.account(2)
    else:
        src_ref, mint_ref, delegate, owner = ctx.account(0), ctx.account(1), ctx.account(2), ctx.account(3)
    src = _load_account(src_ref)
    if src.is_frozen:
        raise token_error(ACCOUNT_FROZEN)
    if expected_decimals is not None:
        if mint_ref.pubkey != src.mint:
            raise token_error(MINT_MISMATCH)
        if _load_mint(mint_ref).decimals != expected_decimals:
            raise token_error(MINT_DECIMALS_MISMATCH)
    _validate_owner(src.owner, owner)
    src.delegate = delegate.pubkey
    src.delegated_amount = amount
    _store(src_ref, src)


def _revoke(ctx: InvokeContext) -> None:
    src_ref, auth = ctx.account(0), ctx.account(1)
    src = _load_account(src_ref)
    if src.is_frozen:
        raise token_error(ACCOUNT_FROZEN)
    if src.delegate is not None and auth.pubkey == src.delegate:
        _validate_owner(src.delegate, auth)
    else:
        _validate_owner(src.owner, auth)
    src.delegate = None
    src.delegated_amount = 0
    _store(src_ref, src)


def _set_authority(ctx: InvokeContext, data: bytes) -> None:
    authority_type = _u8(data, 1)
    new_auth, _ = _read_copt_key_ix(data, 2)
    target, auth = ctx.account(0), ctx.account(1)
    _owned(target)
    if len(target.data) == ACCOUNT_LEN:
        a = TokenAccount.unpack(target.data)
        if a.is_frozen:
            raise token_error(ACCOUNT_FROZEN)
        if authority_type == 2:  # AccountOwner
            _validate_owner(a.owner, auth)
            if new_auth is None:
                raise token_error(INVALID_INSTRUCTION)
            a.owner = new_auth
            a.delegate = None
            a.delegated_amount = 0
            if a.is_native is not None:
                a.close_authority = None
        elif authority_type == 3:  # CloseAccount
            _validate_owner(a.close_authority or a.owner, auth)
            a.close_authority = new_auth
        else:
            raise token_error(AUTHORITY_TYPE_NOT_SUPPORTED)
        _store(target, a)
    elif len(target.data) == MINT_LEN:
        m = Mint.unpack(target.data)
        if authority_type == 0:  # MintTokens
            if m.mint_authority is None:
                raise token_error(FIXED_SUPPLY)
            _validate_owner(m.mint_authority, auth)
            m.mint_authority = new_auth
        elif authority_type == 1:  # FreezeAccount
            if m.freeze_authority is None:
                raise token_error(MINT_CANNOT_FREEZE)
            _validate_owner(m.freeze_authority, auth)
            m.freeze_authority = new_auth
        else:
            raise token_error(AUTHORITY_TYPE_NOT_SUPPORTED)
        _store(target, m)
    else:
        raise InstructionFailure("InvalidArgument")


def _mint_to(ctx: InvokeContext, amount: int, expected_decimals: int | None) -> None:
    mint_ref, dst_ref, auth = ctx.account(0), ctx.account(1), ctx.account(2)
    dst = _load_account(dst_ref)
    if dst.is_frozen:
        raise token_error(ACCOUNT_FROZEN)
    if dst.is_native is not None:
        raise token_error(NATIVE_NOT_SUPPORTED)
    if mint_ref.pubkey != dst.mint:
        raise token_error(MINT_MISMATCH)
    m = _load_mint(mint_ref)
    if expected_decimals is not None and expected_decimals != m.decimals:
        raise token_error(MINT_DECIMALS_MISMATCH)
    if m.mint_authority is None:
        raise token_error(FIXED_SUPPLY)
    _validate_owner(m.mint_authority, auth)
    if dst.amount + amount > U64_MAX or m.supply + amount > U64_MAX:
        raise token_error(OVERFLOW)
    dst.amount += amount
    m.supply += amount
    _store(mint_ref, m)
    _store(dst_ref, dst)


def _burn(ctx: InvokeContext, amount: int, expected_decimals: int | None) -> None:
    src_ref, mint_ref, auth = ctx.account(0), ctx.account(1), ctx.account(2)
    src = _load_account(src_ref)
    m = _load_mint(mint_ref)
    if src.is_frozen:
        raise token_error(ACCOUNT_FROZEN)
    if src.is_native is not None:
        raise token_error(NATIVE_NOT_SUPPORTED)
    if src.amount < amount:
        raise token_error(INSUFFICIENT_FUNDS)
    if mint_ref.pubkey != src.mint:
        raise token_error(MINT_MISMATCH)
    if expected_decimals is not None and expected_decimals != m.decimals:
        raise token_error(MINT_DECIMALS_MISMATCH)
    if src.delegate is not None and src.delegate == auth.pubkey:
        _validate_owner(src.delegate, auth)
        if src.delegated_amount < amount:
            raise token_error(INSUFFICIENT_FUNDS)
        src.delegated_amount -= amount
        if src.delegated_amount == 0:
            src.delegate = None
    else:
        _validate_owner(src.owner, auth)
    src.amount -= amount
    m.supply -= amount
    _store(src_ref, src)
    _store(mint_ref, m)


def _close(ctx: InvokeContext) -> None:
    src_ref, dst_ref, auth = ctx.account(0), ctx.account(1), ctx.account(2)
    if src_ref.pubkey == dst_ref.pubkey:
        raise InstructionFailure("InvalidAccountData")
    src = _load_account(src_ref)
    if src.is_native is None and src.amount != 0:
        raise token_error(NON_NATIVE_HAS_BALANCE)
    _validate_owner(src.close_authority or src.owner, auth)
    if src.is_frozen:
        raise token_error(ACCOUNT_FROZEN)
    dst_ref.lamports += src_ref.lamports
    src_ref.lamports = 0
    src_ref.data = bytearray()
    src_ref.owner = C.SYSTEM_PROGRAM_ID


def _freeze(ctx: InvokeContext, freeze: bool) -> None:
    src_ref, mint_ref, auth = ctx.account(0), ctx.account(1), ctx.account(2)
    src = _load_account(src_ref)
    if src.is_native is not None:
        raise token_error(NATIVE_NOT_SUPPORTED)
    if mint_ref.pubkey != src.mint:
        raise token_error(MINT_MISMATCH)
    if freeze == src.is_frozen:
        raise token_error(INVALID_STATE)
    m = _load_mint(mint_ref)
    if m.freeze_authority is None:
        raise token_error(MINT_CANNOT_FREEZE)
    _validate_owner(m.freeze_authority, auth)
    src.state = 2 if freeze else 1
    _store(src_ref, src)


def _sync_native(ctx: InvokeContext) -> None:
    ref = ctx.account(0)
    a = _load_account(ref)
    if a.is_native is None:
        raise token_error(NON_NATIVE_NOT_SUPPORTED)
    new_amount = ref.lamports - a.is_native
    if new_amount < a.amount:
        raise token_error(INVALID_STATE)
    a.amount = new_amount
    _store(ref, a)


_NAMES = {
    0: "InitializeMint", 1: "InitializeAccount", 2: "InitializeMultisig", 3: "Transfer", 4: "Approve",
    5: "Revoke", 6: "SetAuthority", 7: "MintTo", 8: "Burn", 9: "CloseAccount", 10: "FreezeAccount",
    11: "ThawAccount", 12: "TransferChecked", 13: "ApproveChecked", 14: "MintToChecked",
    15: "BurnChecked", 16: "InitializeAccount2", 17: "SyncNative", 18: "InitializeAccount3",
    20: "InitializeMint2", 22: "InitializeImmutableOwner",
}


def process(ctx: InvokeContext) -> None:
    data = bytes(ctx.data)
    if not data or data[0] not in _NAMES or data[0] == 2:
        raise token_error(INVALID_INSTRUCTION)
    tag = data[0]
    ctx.log(f"Instruction: {_NAMES[tag]}")
    if tag in (0, 20):
        _initialize_mint(ctx, data, with_rent=tag == 0)
    elif tag == 1:
        _initialize_account(ctx, ctx.account(2).pubkey)
    elif tag in (16, 18):
        if len(data) < 33:
            raise token_error(INVALID_INSTRUCTION)
        _initialize_account(ctx, Pubkey.from_bytes(data[1:33]))
    elif tag == 3:
        _transfer(ctx, _u64(data, 1), None)
    elif tag == 12:
        _transfer(ctx, _u64(data, 1), _u8(data, 9))
    elif tag == 4:
        _approve(ctx, _u64(data, 1), None)
    elif tag == 13:
        _approve(ctx, _u64(data, 1), _u8(data, 9))
    elif tag == 5:
        _revoke(ctx)
    elif tag == 6:
        _set_authority(ctx, data)
    elif tag == 7:
        _mint_to(ctx, _u64(data, 1), None)
    elif tag == 14:
        _mint_to(ctx, _u64(data, 1), _u8(data, 9))
    elif tag == 8:
        _burn(ctx, _u64(data, 1), None)
    elif tag == 15:
        _burn(ctx, _u64(data, 1), _u8(data, 9))
    elif tag == 9:
        _close(ctx)
    elif tag in (10, 11):
        _freeze(ctx, tag == 10)
    elif tag == 17:
        _sync_native(ctx)
    elif tag == 22:
        ctx.log("Please upgrade to SPL Token 2022 for immutable owner support")
