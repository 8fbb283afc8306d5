"""Account layouts of the launchpad and pool programs, from their IDLs (idl/*.json):
each class below is a dataclass whose fields, order, sizes, offsets, discriminator,
``decode(bytes)`` and ``encode()`` come from the IDL type of the same name (see
``partner.chain.idl``); only behaviour is written here. Plus plain SPL Token
mint/account readers. See docs/onchain.md "Accounts".

Adding a field: change the IDL, run `make idl`; nothing here changes.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import ClassVar

from solders.pubkey import Pubkey

from . import governance_math as GM
from .governance_math import ActionKind, GovernanceParams, Outcome, VoteSide  # noqa: F401 - re-exported
from .idl import PRIMITIVES, IdlAccount, LayoutError  # noqa: F401 - LayoutError re-exported
from .idl_types import (
    BondingCurveFields,
    GlobalFields,
    GovernanceFields,
    PoolFields,
    ProposalFields,
    VoteReceiptFields,
)
from .idls import LAUNCHPAD, POOL

# The launchpad's limits on a coin's TokenMetadata fields (programs/launchpad/src/metadata.rs).
NAME_MAX_BYTES = 32
SYMBOL_MAX_BYTES = 10
URI_MAX_BYTES = 200


def _pk(b: bytes) -> Pubkey:
    return Pubkey.from_bytes(bytes(b))


class Global(GlobalFields, program=LAUNCHPAD):
    """Launchpad global config. PDA [b"global"] (launchpad)."""

    def governance_params(self) -> GovernanceParams:
        """The params create_coin copies into a new Governance (the built-in defaults while unset)."""
        return self.governance_defaults if self.governance_defaults_set else GM.DEFAULT_PARAMS

    def set_governance_params(self, params: GovernanceParams | None) -> None:
        """Store explicit governance params (None: back to the built-in defaults, all zero)."""
        self.governance_defaults_set = params is not None
        self.governance_defaults = params if params is not None else Global.governance_defaults


class BondingCurve(BondingCurveFields, program=LAUNCHPAD):
    """Per-coin bonding curve. PDA [b"bonding-curve", mint] (launchpad).

    Holds the curve's real SOL as lamports above its rent-exempt minimum.
    """


class Pool(PoolFields, program=POOL):
    """Constant-product pool of a migrated coin. PDA [b"pool", mint] (pool program).

    Base reserve sits in the base vault (ATA of the pool PDA); the quote
    reserve is native SOL held as lamports by this account above its
    rent-exempt minimum."""


LOCK_FIELDS = tuple(f"{f}_locked" for f in GM.CONTENT_FIELDS)
CHANGED_FIELDS = tuple(f"changed_{f}" for f in GM.CONTENT_FIELDS)


def _mask(obj, names) -> int:
    return sum(1 << i for i, f in enumerate(names) if getattr(obj, f))


class Governance(GovernanceFields, program=LAUNCHPAD):
    """Metadata governance of one coin. PDA [b"governance", mint] (launchpad),
    created by create_coin with the Global governance params."""

    @property
    def locked_mask(self) -> int:
        return _mask(self, LOCK_FIELDS)

    def lock(self, mask: int) -> None:
        for i, f in enumerate(LOCK_FIELDS):
            if mask >> i & 1:
                setattr(self, f, True)

    def proposal_bond_level(self, now: int) -> int:
        """The bond level a proposal created at `now` faces (the stored level, decayed)."""
        return GM.bond_level_now(self.bond_level, self.bond_level_at, now)

    def proposal_bond(self, now: int) -> int:
        """The bond a proposal created at `now` must lock, base units (create_proposal's rule)."""
        return GM.required_bond(self.total_supply, self.proposal_bond_bps, self.proposal_bond_level(now))

    def digest_of(self, field: str) -> bytes:
        """The committed digest of uri-borne `field` (GM.URI_FIELDS)."""
        return bytes(self.content_digests[GM.URI_FIELDS.index(field)])

    def set_params(self, params: GovernanceParams) -> None:
        """Copy the per-coin settings of `params` (all but the mutability window, which sets mutable_until)."""
        for name in GM.GovernanceParams.__dataclass_fields__:
            if name != "mutability_window_seconds":
                setattr(self, name, getattr(params, name))


class Proposal(ProposalFields, program=LAUNCHPAD):
    """One governance proposal. PDA [b"proposal", governance, index u64 LE] (launchpad).
    Locked tokens (bond and votes) sit in its vault = ATA(owner = proposal PDA, mint)."""

    @property
    def changed_mask(self) -> int:
        return _mask(self, CHANGED_FIELDS)

    def set_changed_mask(self, mask: int) -> None:
        for i, f in enumerate(CHANGED_FIELDS):
            setattr(self, f, bool(mask >> i & 1))


class VoteReceipt(VoteReceiptFields, program=LAUNCHPAD):
    """One wallet's vote on one proposal. PDA [b"vote", proposal, voter] (launchpad)."""


ACCOUNT_TYPES = {cls.DISCRIMINATOR: cls for cls in (Global, BondingCurve, Pool, Governance, Proposal, VoteReceipt)}


def decode_account(data: bytes):
    """Decode any of our accounts by its discriminator."""
    cls = ACCOUNT_TYPES.get(bytes(data[:8]))
    if cls is None:
        raise LayoutError("unknown account discriminator")
    return cls.decode(data)


def decode_owned(cls, account, owner: Pubkey):
    """`cls.decode(account.data)` when the account (anything with .owner and .data) exists,
    belongs to `owner` and decodes; else None."""
    if account is None or account.owner != owner:
        return None
    try:
        return cls.decode(account.data)
    except (ValueError, struct.error):  # LayoutError is a ValueError
        return None


# ---- SPL Token (no discriminator; standard layouts) ----


def _sized(cls, data: bytes) -> bytes:
    data = bytes(data)
    if len(data) < cls.SIZE:
        raise LayoutError(f"{cls.__name__}: short data")
    return data


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
    def decode(cls, data: bytes) -> SplMint:
        data = _sized(cls, data)
        ma_tag, ma, supply, decimals, init, fa_tag, fa = struct.unpack_from("<I32sQB?I32s", data)
        return cls(_pk(ma) if ma_tag else None, supply, decimals, init, _pk(fa) if fa_tag else None)

    def encode(self) -> bytes:
        return struct.pack(
            "<I32sQB?I32s",
            1 if self.mint_authority else 0,
            bytes(self.mint_authority) if self.mint_authority else bytes(32),
            self.supply,
            self.decimals,
            self.is_initialized,
            1 if self.freeze_authority else 0,
            bytes(self.freeze_authority) if self.freeze_authority else bytes(32),
        )


@dataclass
class SplTokenAccount:
    """SPL Token / Token-2022 account: the classic 165 bytes (only the fields we use are
    decoded), which a Token-2022 account extends (account type at 165, then extensions:
    170 bytes for our ATAs with ImmutableOwner)."""

    mint: Pubkey
    owner: Pubkey
    amount: int
    state: int = 1  # 0 uninitialized, 1 initialized, 2 frozen

    SIZE: ClassVar[int] = 165

    @classmethod
    def decode(cls, data: bytes) -> SplTokenAccount:
        data = _sized(cls, data)
        mint, owner, amount = struct.unpack_from("<32s32sQ", data)
        return cls(_pk(mint), _pk(owner), amount, data[108])

    def encode(self) -> bytes:
        out = bytearray(self.SIZE)
        struct.pack_into("<32s32sQ", out, 0, bytes(self.mint), bytes(self.owner), self.amount)
        out[108] = self.state
        return bytes(out)


def token_account_amount(data: bytes) -> int:
    """Amount of an SPL Token / Token-2022 account (bytes 64..72)."""
    return SplTokenAccount.decode(data).amount


# ---- Token-2022 TokenMetadata (the coin's name, symbol and uri live on its mint) ----

TOKEN_2022_ACCOUNT_TYPE_OFFSET = 165  # after the classic layout (a mint is padded to it)
ACCOUNT_TYPE_MINT = 1
EXTENSION_TOKEN_METADATA = 19
_STRING, _U32 = PRIMITIVES["string"], PRIMITIVES["u32"]  # Borsh, as the interface's state is


@dataclass
class TokenMetadata:
    """The TokenMetadata extension (TLV type 19) of a Token-2022 mint."""

    update_authority: Pubkey | None
    mint: Pubkey
    name: str
    symbol: str
    uri: str
    additional_metadata: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_mint(cls, data: bytes) -> TokenMetadata:
        """Read it from a Token-2022 mint account's data; LayoutError when absent or malformed."""
        data = bytes(data)
        if len(data) <= TOKEN_2022_ACCOUNT_TYPE_OFFSET or data[TOKEN_2022_ACCOUNT_TYPE_OFFSET] != ACCOUNT_TYPE_MINT:
            raise LayoutError("not a Token-2022 mint with extensions")
        at = TOKEN_2022_ACCOUNT_TYPE_OFFSET + 1
        while at + 4 <= len(data):
            kind, length = struct.unpack_from("<HH", data, at)
            body = data[at + 4 : at + 4 + length]
            if len(body) != length:
                raise LayoutError("truncated TLV entry")
            if kind == EXTENSION_TOKEN_METADATA:
                return cls._decode(body)
            if kind == 0:  # uninitialized: the rest is padding
                break
            at += 4 + length
        raise LayoutError("mint has no TokenMetadata")

    @classmethod
    def _decode(cls, body: bytes) -> TokenMetadata:
        if len(body) < 64:
            raise LayoutError("short TokenMetadata")
        authority, mint = body[:32], body[32:64]
        name, at = _STRING.read(body, 64, "TokenMetadata.name")
        symbol, at = _STRING.read(body, at, "TokenMetadata.symbol")
        uri, at = _STRING.read(body, at, "TokenMetadata.uri")
        count, at = _U32.read(body, at, "TokenMetadata.additional_metadata")
        extra = []
        for i in range(count):
            key, at = _STRING.read(body, at, f"TokenMetadata.additional_metadata[{i}]")
            value, at = _STRING.read(body, at, f"TokenMetadata.additional_metadata[{i}]")
            extra.append((key, value))
        return cls(None if authority == bytes(32) else _pk(authority), _pk(mint), name, symbol, uri, tuple(extra))


def token_metadata_of(account, mint: Pubkey) -> TokenMetadata | None:
    """The TokenMetadata of `mint`'s account (anything with .owner and .data) when it is a
    Token-2022 mint carrying it for itself; else None."""
    from .programs import TOKEN_2022_PROGRAM_ID

    if account is None or account.owner != TOKEN_2022_PROGRAM_ID:
        return None
    try:
        meta = TokenMetadata.from_mint(account.data)
    except (ValueError, struct.error):
        return None
    return meta if meta.mint == mint else None
