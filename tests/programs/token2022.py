"""A decoder of Token-2022 mints and token accounts written from the published layouts
(spl-token-2022: `state.rs` Mint / Account, `extension/mod.rs` TLV and AccountType,
`extension/metadata_pointer`, and spl-token-metadata-interface `state.rs` TokenMetadata),
not from the project's IDL, so the tests check the program against the standard. What it reads
is the service's own record (partner.chain.layouts.TokenMetadata), so the two readers compare directly.

Mint: 82 bytes (COption<Pubkey> mint_authority, u64 supply, u8 decimals, bool
is_initialized, COption<Pubkey> freeze_authority); with extensions the account is padded to
165 bytes, then one AccountType byte (1 = Mint, 2 = Account), then TLV entries
(u16 type, u16 length, value). Types: 7 ImmutableOwner, 18 MetadataPointer
(authority: OptionalNonZeroPubkey, metadata_address: OptionalNonZeroPubkey),
19 TokenMetadata (Borsh: update_authority OptionalNonZeroPubkey, mint Pubkey, name,
symbol, uri: String, additional_metadata: Vec<(String, String)>).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from solders.pubkey import Pubkey

from partner.chain.layouts import TokenMetadata

TOKEN_2022 = Pubkey.from_string("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb")
MINT_LEN = 82
ACCOUNT_LEN = 165
ACCOUNT_TYPE_MINT, ACCOUNT_TYPE_ACCOUNT = 1, 2
EXT_IMMUTABLE_OWNER, EXT_METADATA_POINTER, EXT_TOKEN_METADATA = 7, 18, 19
ZERO = bytes(32)


def _opt_nonzero(raw: bytes) -> Pubkey | None:
    return None if raw == ZERO else Pubkey.from_bytes(raw)


def _coption(data: bytes, at: int) -> Pubkey | None:
    (tag,) = struct.unpack_from("<I", data, at)
    return Pubkey.from_bytes(data[at + 4 : at + 36]) if tag else None


def extensions(data: bytes, account_type: int) -> dict[int, bytes]:
    """TLV entries of a Token-2022 account of `account_type` (empty without extensions)."""
    if len(data) <= ACCOUNT_LEN:
        return {}
    assert data[ACCOUNT_LEN] == account_type, f"account type {data[ACCOUNT_LEN]} != {account_type}"
    if account_type == ACCOUNT_TYPE_MINT:
        assert data[MINT_LEN:ACCOUNT_LEN] == bytes(ACCOUNT_LEN - MINT_LEN), "mint padding not zero"
    out, at = {}, ACCOUNT_LEN + 1
    while at + 4 <= len(data):
        ty, n = struct.unpack_from("<HH", data, at)
        if ty == 0:
            break
        out[ty] = bytes(data[at + 4 : at + 4 + n])
        assert len(out[ty]) == n, "truncated TLV entry"
        at += 4 + n
    return out


def _string(v: bytes, at: int) -> tuple[str, int]:
    (n,) = struct.unpack_from("<I", v, at)
    return v[at + 4 : at + 4 + n].decode("utf-8"), at + 4 + n


def decode_token_metadata(v: bytes) -> TokenMetadata:
    authority, mint = _opt_nonzero(v[:32]), Pubkey.from_bytes(v[32:64])
    name, at = _string(v, 64)
    symbol, at = _string(v, at)
    uri, at = _string(v, at)
    (count,) = struct.unpack_from("<I", v, at)
    at += 4
    extra = []
    for _ in range(count):
        k, at = _string(v, at)
        val, at = _string(v, at)
        extra.append((k, val))
    assert at == len(v), "trailing bytes in TokenMetadata"
    return TokenMetadata(authority, mint, name, symbol, uri, tuple(extra))


@dataclass
class Mint:
    mint_authority: Pubkey | None
    supply: int
    decimals: int
    is_initialized: bool
    freeze_authority: Pubkey | None
    metadata_pointer_authority: Pubkey | None
    metadata_address: Pubkey | None
    metadata: TokenMetadata | None


def decode_mint(data: bytes) -> Mint:
    data = bytes(data)
    (supply,) = struct.unpack_from("<Q", data, 36)
    ext = extensions(data, ACCOUNT_TYPE_MINT)
    ptr = ext.get(EXT_METADATA_POINTER)
    md = ext.get(EXT_TOKEN_METADATA)
    return Mint(
        _coption(data, 0),
        supply,
        data[44],
        bool(data[45]),
        _coption(data, 46),
        _opt_nonzero(ptr[:32]) if ptr else None,
        _opt_nonzero(ptr[32:64]) if ptr else None,
        decode_token_metadata(md) if md else None,
    )


@dataclass
class TokenAccount:
    mint: Pubkey
    owner: Pubkey
    amount: int
    state: int
    extensions: dict[int, bytes]


def decode_account(data: bytes) -> TokenAccount:
    data = bytes(data)
    mint, owner = Pubkey.from_bytes(data[:32]), Pubkey.from_bytes(data[32:64])
    (amount,) = struct.unpack_from("<Q", data, 64)
    return TokenAccount(mint, owner, amount, data[108], extensions(data, ACCOUNT_TYPE_ACCOUNT))
