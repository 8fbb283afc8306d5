"""Account layouts of the launchpad and pool programs (packed little-endian,
8-byte Anchor-style discriminator sha256("account:<Name>")[:8]), plus plain
SPL Token mint/account readers. See docs/onchain.md "Accounts".
"""
from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass, field
from typing import ClassVar

from solders.pubkey import Pubkey

from . import governance_math as GM
from .governance_math import ActionKind, GovernanceParams, Outcome, VoteSide  # noqa: F401 (re-exported)

NAME_MAX_BYTES = 32
SYMBOL_MAX_BYTES = 10
URI_MAX_BYTES = 200


class LayoutError(ValueError):
    """Bytes are not a valid account of the expected type."""


def account_discriminator(name: str) -> bytes:
    return hashlib.sha256(f"account:{name}".encode()).digest()[:8]


def _pk(b: bytes) -> Pubkey:
    return Pubkey.from_bytes(bytes(b))


def _check(cls, data: bytes) -> bytes:
    data = bytes(data)
    if len(data) < cls.SIZE:
        raise LayoutError(f"{cls.__name__}: need {cls.SIZE} bytes, got {len(data)}")
    if data[:8] != cls.DISCRIMINATOR:
        raise LayoutError(f"{cls.__name__}: discriminator mismatch")
    return data


def _fixed_str(value: str, size: int, what: str) -> bytes:
    raw = value.encode("utf-8")
    if len(raw) > size:
        raise LayoutError(f"{what} over {size} bytes")
    return bytes([len(raw)]) + raw.ljust(size, b"\0")


def _read_fixed_str(data: bytes, offset: int, size: int, what: str) -> str:
    n = data[offset]
    if n > size:
        raise LayoutError(f"{what} length {n} over {size}")
    return data[offset + 1: offset + 1 + n].decode("utf-8")


@dataclass
class Global:
    """Launchpad global config. PDA [b"global"] (launchpad)."""
    admin: Pubkey
    fee_recipient: Pubkey
    protocol_fee_bps: int = 100
    wallet_cap_bps: int = 10_000
    pool_open_delay_seconds: int = 2
    initial_virtual_token_reserves: int = 1_073_000_000 * 10**6
    initial_virtual_sol_reserves: int = 30 * 10**9
    initial_real_token_reserves: int = 793_100_000 * 10**6
    token_total_supply: int = 1_000_000_000 * 10**6
    bump: int = 0
    reserved: bytes = field(default=bytes(128), repr=False)

    NAME: ClassVar[str] = "Global"
    DISCRIMINATOR: ClassVar[bytes] = account_discriminator("Global")
    _FMT: ClassVar[struct.Struct] = struct.Struct("<8sB32s32sHHqQQQQ128s")
    SIZE: ClassVar[int] = _FMT.size  # 245

    @classmethod
    def decode(cls, data: bytes) -> "Global":
        data = _check(cls, data)
        (_, bump, admin, fee, fee_bps, cap_bps, delay, ivt, ivs, irt, supply, reserved) = cls._FMT.unpack_from(data)
        return cls(_pk(admin), _pk(fee), fee_bps, cap_bps, delay, ivt, ivs, irt, supply, bump, reserved)

    # Governance defaults live in the first bytes of `reserved` (Global offset 117):
    # u8 flag (0 = built-in design section 8 defaults, 1 = the params that follow),
    # then GovernanceParams as GOVERNANCE_PARAMS_FMT.
    GOVERNANCE_PARAMS_FMT: ClassVar[struct.Struct] = struct.Struct("<BIQHHHqqqq")
    GOVERNANCE_PARAMS_OFFSET: ClassVar[int] = 117

    def governance_params(self) -> GovernanceParams:
        raw = bytes(self.reserved).ljust(128, b"\0")
        flag, *values = self.GOVERNANCE_PARAMS_FMT.unpack_from(raw)
        if flag == 0:
            return GM.DEFAULT_PARAMS
        if flag != 1:
            raise LayoutError("Global: bad governance params flag")
        return GovernanceParams(*values)

    def set_governance_params(self, params: GovernanceParams | None) -> None:
        """Store explicit governance params (None: back to the built-in defaults)."""
        raw = bytearray(bytes(self.reserved).ljust(128, b"\0")[:128])
        if params is None:
            raw[:self.GOVERNANCE_PARAMS_FMT.size] = bytes(self.GOVERNANCE_PARAMS_FMT.size)
        else:
            self.GOVERNANCE_PARAMS_FMT.pack_into(raw, 0, 1, *governance_params_tuple(params))
        self.reserved = bytes(raw)

    def encode(self) -> bytes:
        return self._FMT.pack(self.DISCRIMINATOR, self.bump, bytes(self.admin), bytes(self.fee_recipient),
                              self.protocol_fee_bps, self.wallet_cap_bps, self.pool_open_delay_seconds,
                              self.initial_virtual_token_reserves, self.initial_virtual_sol_reserves,
                              self.initial_real_token_reserves, self.token_total_supply,
                              bytes(self.reserved).ljust(128, b"\0")[:128])


@dataclass
class BondingCurve:
    """Per-coin bonding curve. PDA [b"bonding-curve", mint] (launchpad).

    Holds the curve's real SOL as lamports above its rent-exempt minimum.
    """
    mint: Pubkey
    creator: Pubkey
    virtual_token_reserves: int
    virtual_sol_reserves: int
    real_token_reserves: int
    real_sol_reserves: int
    token_total_supply: int
    complete: bool = False
    migrated: bool = False
    bump: int = 0
    created_slot: int = 0
    created_at: int = 0
    reserved: bytes = field(default=bytes(64), repr=False)

    NAME: ClassVar[str] = "BondingCurve"
    DISCRIMINATOR: ClassVar[bytes] = account_discriminator("BondingCurve")
    _FMT: ClassVar[struct.Struct] = struct.Struct("<8s32s32sQQQQQ??BQq64s")
    SIZE: ClassVar[int] = _FMT.size  # 195

    @classmethod
    def decode(cls, data: bytes) -> "BondingCurve":
        data = _check(cls, data)
        if data[112] > 1 or data[113] > 1:
            raise LayoutError("BondingCurve: bad bool")
        (_, mint, creator, vt, vs, rt, rs, supply, complete, migrated, bump, slot, ts, reserved) = \
            cls._FMT.unpack_from(data)
        return cls(_pk(mint), _pk(creator), vt, vs, rt, rs, supply, complete, migrated, bump, slot, ts, reserved)

    def encode(self) -> bytes:
        return self._FMT.pack(self.DISCRIMINATOR, bytes(self.mint), bytes(self.creator),
                              self.virtual_token_reserves, self.virtual_sol_reserves, self.real_token_reserves,
                              self.real_sol_reserves, self.token_total_supply, bool(self.complete),
                              bool(self.migrated), self.bump, self.created_slot, self.created_at,
                              bytes(self.reserved).ljust(64, b"\0")[:64])


@dataclass
class CoinMetadata:
    """Coin metadata. PDA [b"metadata", mint] (launchpad). Strings are stored
    as a u8 length plus a zero-padded fixed-size byte array. `reserved` is
    room for governance-owned fields (content revision, locks, ...)."""
    mint: Pubkey
    creator: Pubkey
    name: str
    symbol: str
    uri: str
    created_at: int = 0
    bump: int = 0
    reserved: bytes = field(default=bytes(128), repr=False)

    NAME: ClassVar[str] = "CoinMetadata"
    DISCRIMINATOR: ClassVar[bytes] = account_discriminator("CoinMetadata")
    SIZE: ClassVar[int] = 8 + 32 + 32 + (1 + NAME_MAX_BYTES) + (1 + SYMBOL_MAX_BYTES) + (1 + URI_MAX_BYTES) + 8 + 1 + 128
    # offsets
    _NAME_AT: ClassVar[int] = 72
    _SYMBOL_AT: ClassVar[int] = 72 + 33
    _URI_AT: ClassVar[int] = 72 + 33 + 11
    _TAIL_AT: ClassVar[int] = 72 + 33 + 11 + 201

    @classmethod
    def decode(cls, data: bytes) -> "CoinMetadata":
        data = _check(cls, data)
        try:
            name = _read_fixed_str(data, cls._NAME_AT, NAME_MAX_BYTES, "name")
            symbol = _read_fixed_str(data, cls._SYMBOL_AT, SYMBOL_MAX_BYTES, "symbol")
            uri = _read_fixed_str(data, cls._URI_AT, URI_MAX_BYTES, "uri")
        except UnicodeDecodeError as exc:
            raise LayoutError(f"CoinMetadata: bad utf-8: {exc}") from exc
        created_at, bump, reserved = struct.unpack_from("<qB128s", data, cls._TAIL_AT)
        return cls(_pk(data[8:40]), _pk(data[40:72]), name, symbol, uri, created_at, bump, reserved)

    def encode(self) -> bytes:
        return (self.DISCRIMINATOR + bytes(self.mint) + bytes(self.creator)
                + _fixed_str(self.name, NAME_MAX_BYTES, "name")
                + _fixed_str(self.symbol, SYMBOL_MAX_BYTES, "symbol")
                + _fixed_str(self.uri, URI_MAX_BYTES, "uri")
                + struct.pack("<qB128s", self.created_at, self.bump, bytes(self.reserved).ljust(128, b"\0")[:128]))


@dataclass
class Pool:
    """Constant-product pool of a migrated coin. PDA [b"pool", mint] (pool program).

    Base reserve sits in the base vault (ATA of the pool PDA); the quote
    reserve is native SOL held as lamports by this account above its
    rent-exempt minimum."""
    mint: Pubkey
    base_vault: Pubkey
    creator: Pubkey
    fee_recipient: Pubkey
    base_reserve: int
    quote_reserve: int
    fee_bps: int = 100
    open_time: int = 0
    created_slot: int = 0
    bump: int = 0
    reserved: bytes = field(default=bytes(64), repr=False)

    NAME: ClassVar[str] = "Pool"
    DISCRIMINATOR: ClassVar[bytes] = account_discriminator("Pool")
    _FMT: ClassVar[struct.Struct] = struct.Struct("<8s32s32s32s32sQQHqQB64s")
    SIZE: ClassVar[int] = _FMT.size  # 235

    @classmethod
    def decode(cls, data: bytes) -> "Pool":
        data = _check(cls, data)
        (_, mint, vault, creator, fee_recipient, base, quote, fee_bps, open_time, slot, bump, reserved) = \
            cls._FMT.unpack_from(data)
        return cls(_pk(mint), _pk(vault), _pk(creator), _pk(fee_recipient), base, quote, fee_bps, open_time,
                   slot, bump, reserved)

    def encode(self) -> bytes:
        return self._FMT.pack(self.DISCRIMINATOR, bytes(self.mint), bytes(self.base_vault), bytes(self.creator),
                              bytes(self.fee_recipient), self.base_reserve, self.quote_reserve, self.fee_bps,
                              self.open_time, self.created_slot, self.bump,
                              bytes(self.reserved).ljust(64, b"\0")[:64])


def governance_params_tuple(p: GovernanceParams) -> tuple:
    return (p.min_voter_count, p.min_lock_amount, p.min_participating_supply_bps, p.approval_bps,
            p.proposal_bond_bps, p.mutability_window_seconds, p.max_extension_seconds,
            p.min_vote_duration_seconds, p.max_vote_duration_seconds)


# ---- schema-driven layouts (governance accounts) ----
#
# Field kinds: "pubkey" (32), "u8" "u16" "u32" "u64" "i64", "bool" (1 byte, 0/1),
# ("optstr", n): u8 present + u8 len + [u8; n] zero padded (None when absent),
# "optu64": u8 present + u64, "optpubkey": u8 present + [u8; 32],
# ("reserved", n): zero bytes kept as-is.

_INT = {"u8": "<B", "u16": "<H", "u32": "<I", "u64": "<Q", "i64": "<q"}


def _kind_size(kind) -> int:
    if kind == "pubkey":
        return 32
    if kind in _INT:
        return struct.calcsize(_INT[kind])
    if kind == "bool":
        return 1
    if kind == "optu64":
        return 9
    if kind == "optpubkey":
        return 33
    tag, n = kind
    if tag == "optstr":
        return 2 + n
    if tag == "reserved":
        return n
    raise ValueError(kind)


def _schema_offsets(schema) -> tuple[dict[str, int], int]:
    offsets, at = {}, 8
    for name, kind in schema:
        offsets[name] = at
        at += _kind_size(kind)
    return offsets, at


def _read_bool(data: bytes, at: int, what: str) -> bool:
    if data[at] > 1:
        raise LayoutError(f"{what}: bad bool {data[at]}")
    return data[at] == 1


class _SchemaAccount:
    """Mixin: encode/decode a dataclass from its _SCHEMA (after the 8-byte discriminator)."""
    _SCHEMA: ClassVar[tuple] = ()
    OFFSETS: ClassVar[dict[str, int]] = {}
    SIZE: ClassVar[int] = 0

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        cls.NAME = cls.__name__
        cls.DISCRIMINATOR = account_discriminator(cls.__name__)
        cls.OFFSETS, cls.SIZE = _schema_offsets(cls._SCHEMA)

    @classmethod
    def decode(cls, data: bytes):
        data = _check(cls, data)
        values = {}
        for name, kind in cls._SCHEMA:
            at = cls.OFFSETS[name]
            what = f"{cls.__name__}.{name}"
            if kind == "pubkey":
                values[name] = _pk(data[at:at + 32])
            elif kind in _INT:
                values[name] = struct.unpack_from(_INT[kind], data, at)[0]
            elif kind == "bool":
                values[name] = _read_bool(data, at, what)
            elif kind == "optu64":
                values[name] = struct.unpack_from("<Q", data, at + 1)[0] if _read_bool(data, at, what) else None
            elif kind == "optpubkey":
                values[name] = _pk(data[at + 1:at + 33]) if _read_bool(data, at, what) else None
            elif kind[0] == "optstr":
                if _read_bool(data, at, what):
                    try:
                        values[name] = _read_fixed_str(data, at + 1, kind[1], what)
                    except UnicodeDecodeError as exc:
                        raise LayoutError(f"{what}: bad utf-8: {exc}") from exc
                else:
                    values[name] = None
            elif kind[0] == "reserved":
                values[name] = bytes(data[at:at + kind[1]])
        return cls(**values)

    def encode(self) -> bytes:
        out = bytearray(self.DISCRIMINATOR)
        for name, kind in self._SCHEMA:
            v = getattr(self, name)
            if kind == "pubkey":
                out += bytes(v)
            elif kind in _INT:
                out += struct.pack(_INT[kind], int(v))
            elif kind == "bool":
                out += b"\x01" if v else b"\x00"
            elif kind == "optu64":
                out += b"\x00" + bytes(8) if v is None else b"\x01" + struct.pack("<Q", v)
            elif kind == "optpubkey":
                out += b"\x00" + bytes(32) if v is None else b"\x01" + bytes(v)
            elif kind[0] == "optstr":
                out += b"\x00" + bytes(1 + kind[1]) if v is None else b"\x01" + _fixed_str(v, kind[1], name)
            elif kind[0] == "reserved":
                out += bytes(v).ljust(kind[1], b"\0")[:kind[1]]
        assert len(out) == self.SIZE
        return bytes(out)


LOCK_FIELDS = tuple(f"{f}_locked" for f in GM.CONTENT_FIELDS)
CHANGED_FIELDS = tuple(f"changed_{f}" for f in GM.CONTENT_FIELDS)


@dataclass
class Governance(_SchemaAccount):
    """Metadata governance of one coin. PDA [b"governance", mint] (launchpad),
    created by create_coin with the Global governance params."""
    mint: Pubkey
    creator: Pubkey
    total_supply: int
    created_at: int
    mutable_until: int
    min_voter_count: int = GM.DEFAULT_MIN_VOTER_COUNT
    min_lock_amount: int = GM.DEFAULT_MIN_LOCK_AMOUNT
    min_participating_supply_bps: int = GM.DEFAULT_MIN_PARTICIPATING_SUPPLY_BPS
    approval_bps: int = GM.DEFAULT_APPROVAL_BPS
    proposal_bond_bps: int = GM.DEFAULT_PROPOSAL_BOND_BPS
    max_extension_seconds: int = GM.DEFAULT_MAX_EXTENSION_SECONDS
    min_vote_duration_seconds: int = GM.DEFAULT_MIN_VOTE_DURATION_SECONDS
    max_vote_duration_seconds: int = GM.DEFAULT_MAX_VOTE_DURATION_SECONDS
    finalized: bool = False
    finalized_by_expiry: bool = False
    content_revision: int = 0
    mutability_extended: bool = False
    name_locked: bool = False
    symbol_locked: bool = False
    image_locked: bool = False
    description_locked: bool = False
    website_locked: bool = False
    twitter_locked: bool = False
    telegram_locked: bool = False
    active_proposal: Pubkey | None = None
    next_proposal_index: int = 0
    bump: int = 0
    reserved: bytes = field(default=bytes(64), repr=False)

    _SCHEMA: ClassVar[tuple] = (
        ("mint", "pubkey"), ("creator", "pubkey"), ("total_supply", "u64"), ("created_at", "i64"),
        ("mutable_until", "i64"), ("min_voter_count", "u32"), ("min_lock_amount", "u64"),
        ("min_participating_supply_bps", "u16"), ("approval_bps", "u16"), ("proposal_bond_bps", "u16"),
        ("max_extension_seconds", "i64"), ("min_vote_duration_seconds", "i64"),
        ("max_vote_duration_seconds", "i64"), ("finalized", "bool"), ("finalized_by_expiry", "bool"),
        ("content_revision", "u64"), ("mutability_extended", "bool"),
        *((f, "bool") for f in LOCK_FIELDS),
        ("active_proposal", "optpubkey"), ("next_proposal_index", "u64"), ("bump", "u8"),
        ("reserved", ("reserved", 64)),
    )

    @property
    def locked_mask(self) -> int:
        return sum(1 << i for i, f in enumerate(LOCK_FIELDS) if getattr(self, f))

    def lock(self, mask: int) -> None:
        for i, f in enumerate(LOCK_FIELDS):
            if mask >> i & 1:
                setattr(self, f, True)


@dataclass
class Proposal(_SchemaAccount):
    """One governance proposal. PDA [b"proposal", governance, index u64 LE] (launchpad).
    Locked tokens (bond and votes) sit in its vault = ATA(owner = proposal PDA, mint)."""
    governance: Pubkey
    mint: Pubkey
    proposer: Pubkey
    index: int
    base_content_revision: int
    action_kind: int
    action_name: str | None = None
    action_symbol: str | None = None
    action_uri: str | None = None
    action_additional_seconds: int | None = None
    changed_name: bool = False
    changed_symbol: bool = False
    changed_image: bool = False
    changed_description: bool = False
    changed_website: bool = False
    changed_twitter: bool = False
    changed_telegram: bool = False
    created_at: int = 0
    voting_ends_at: int = 0
    bond_amount: int = 0
    bond_withdrawn: bool = False
    yes_votes: int = 0
    no_votes: int = 0
    participating_supply: int = 0
    participating_voters: int = 0
    outcome: int = Outcome.PENDING
    executed: bool = False
    settled: bool = False
    metadata_updated: bool = False
    settled_at: int = 0
    bump: int = 0
    reserved: bytes = field(default=bytes(64), repr=False)

    _SCHEMA: ClassVar[tuple] = (
        ("governance", "pubkey"), ("mint", "pubkey"), ("proposer", "pubkey"), ("index", "u64"),
        ("base_content_revision", "u64"), ("action_kind", "u8"),
        ("action_name", ("optstr", NAME_MAX_BYTES)), ("action_symbol", ("optstr", SYMBOL_MAX_BYTES)),
        ("action_uri", ("optstr", URI_MAX_BYTES)), ("action_additional_seconds", "optu64"),
        *((f, "bool") for f in CHANGED_FIELDS),
        ("created_at", "i64"), ("voting_ends_at", "i64"), ("bond_amount", "u64"), ("bond_withdrawn", "bool"),
        ("yes_votes", "u64"), ("no_votes", "u64"), ("participating_supply", "u64"),
        ("participating_voters", "u32"), ("outcome", "u8"), ("executed", "bool"), ("settled", "bool"),
        ("metadata_updated", "bool"), ("settled_at", "i64"), ("bump", "u8"),
        ("reserved", ("reserved", 64)),
    )

    @classmethod
    def decode(cls, data: bytes) -> "Proposal":
        p = super().decode(data)
        try:
            p.action_kind = ActionKind(p.action_kind)
            p.outcome = Outcome(p.outcome)
        except ValueError as exc:
            raise LayoutError(f"Proposal: {exc}") from exc
        return p

    @property
    def changed_mask(self) -> int:
        return sum(1 << i for i, f in enumerate(CHANGED_FIELDS) if getattr(self, f))

    def set_changed_mask(self, mask: int) -> None:
        for i, f in enumerate(CHANGED_FIELDS):
            setattr(self, f, bool(mask >> i & 1))


@dataclass
class VoteReceipt(_SchemaAccount):
    """One wallet's vote on one proposal. PDA [b"vote", proposal, voter] (launchpad)."""
    proposal: Pubkey
    voter: Pubkey
    side: int
    amount: int
    counted_as_voter: bool = False
    active: bool = True
    withdrawn: bool = False
    created_at: int = 0
    bump: int = 0
    reserved: bytes = field(default=bytes(32), repr=False)

    _SCHEMA: ClassVar[tuple] = (
        ("proposal", "pubkey"), ("voter", "pubkey"), ("side", "u8"), ("amount", "u64"),
        ("counted_as_voter", "bool"), ("active", "bool"), ("withdrawn", "bool"), ("created_at", "i64"),
        ("bump", "u8"), ("reserved", ("reserved", 32)),
    )

    @classmethod
    def decode(cls, data: bytes) -> "VoteReceipt":
        v = super().decode(data)
        try:
            v.side = VoteSide(v.side)
        except ValueError as exc:
            raise LayoutError(f"VoteReceipt: {exc}") from exc
        return v


ACCOUNT_TYPES = {cls.DISCRIMINATOR: cls for cls in (Global, BondingCurve, CoinMetadata, Pool, Governance,
                                                    Proposal, VoteReceipt)}


def decode_account(data: bytes):
    """Decode any of our accounts by its discriminator."""
    cls = ACCOUNT_TYPES.get(bytes(data[:8]))
    if cls is None:
        raise LayoutError("unknown account discriminator")
    return cls.decode(data)


# ---- SPL Token (no discriminator; standard layouts) ----

@dataclass
class SplMint:
    """SPL Token mint, 82 bytes."""
    mint_authority: Pubkey | None
    supply: int
    decimals: int
    is_initialized: bool = True
    freeze_authority: Pubkey | None = None

    SIZE: ClassVar[int] = 82

    @classmethod
    def decode(cls, data: bytes) -> "SplMint":
        data = bytes(data)
        if len(data) < cls.SIZE:
            raise LayoutError("SplMint: short data")
        ma_tag, ma, supply, decimals, init, fa_tag, fa = struct.unpack_from("<I32sQB?I32s", data)
        return cls(_pk(ma) if ma_tag else None, supply, decimals, init, _pk(fa) if fa_tag else None)

    def encode(self) -> bytes:
        return struct.pack("<I32sQB?I32s", 1 if self.mint_authority else 0,
                           bytes(self.mint_authority) if self.mint_authority else bytes(32),
                           self.supply, self.decimals, self.is_initialized,
                           1 if self.freeze_authority else 0,
                           bytes(self.freeze_authority) if self.freeze_authority else bytes(32))


@dataclass
class SplTokenAccount:
    """SPL Token account, 165 bytes (only the fields we use are decoded)."""
    mint: Pubkey
    owner: Pubkey
    amount: int
    state: int = 1  # 0 uninitialized, 1 initialized, 2 frozen

    SIZE: ClassVar[int] = 165

    @classmethod
    def decode(cls, data: bytes) -> "SplTokenAccount":
        data = bytes(data)
        if len(data) < cls.SIZE:
            raise LayoutError("SplTokenAccount: short data")
        mint, owner, amount = struct.unpack_from("<32s32sQ", data)
        return cls(_pk(mint), _pk(owner), amount, data[108])

    def encode(self) -> bytes:
        out = bytearray(self.SIZE)
        struct.pack_into("<32s32sQ", out, 0, bytes(self.mint), bytes(self.owner), self.amount)
        out[108] = self.state
        return bytes(out)


def token_account_amount(data: bytes) -> int:
    """Amount of an SPL token account (bytes 64..72)."""
    return SplTokenAccount.decode(data).amount
