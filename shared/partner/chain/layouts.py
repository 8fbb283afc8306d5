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


ACCOUNT_TYPES = {cls.DISCRIMINATOR: cls for cls in (Global, BondingCurve, CoinMetadata, Pool)}


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
