"""Account layouts: fixed byte strings (docs/onchain.md) and round-trips."""

import hashlib
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from solders.pubkey import Pubkey

from partner.chain import layouts as L

A = Pubkey(bytes([1] * 32))
B = Pubkey(bytes([2] * 32))
C = Pubkey(bytes([3] * 32))
D = Pubkey(bytes([4] * 32))


@pytest.mark.parametrize(
    "cls,hexdisc,size",
    [
        (L.Global, "a7e8e8b1c86c727f", 245),
        (L.BondingCurve, "17b7f83760d8ac60", 195),
        (L.Pool, "f19a6d0411b16dbc", 235),
        (L.Governance, "128f580d49d92f31", 342),
        (L.Proposal, "1a5ebdbb74883521", 595),
        (L.VoteReceipt, "6814ccfc2d5425c3", 125),
    ],
)
def test_discriminators_and_sizes(cls, hexdisc, size):
    assert cls.DISCRIMINATOR.hex() == hexdisc
    assert hashlib.sha256(f"account:{cls.NAME}".encode()).digest()[:8].hex() == hexdisc
    assert cls.SIZE == size


DEVSTACK_GLOBAL = dict(
    protocol_fee_bps=100,
    wallet_cap_bps=10_000,
    pool_open_delay_seconds=2,
    initial_virtual_token_reserves=1_073_000_000 * 10**6,
    initial_virtual_sol_reserves=30 * 10**9,
    initial_real_token_reserves=793_100_000 * 10**6,
    token_total_supply=10**15,
)


def test_global_golden():
    g = L.Global(admin=A, fee_recipient=B, bump=254, **DEVSTACK_GLOBAL)
    raw = g.encode()
    assert raw.hex() == (
        "a7e8e8b1c86c727f"
        "fe" + "01" * 32 + "02" * 32 + "6400"
        "1027"
        "0200000000000000"
        "0010d847e3cf0300"
        "00ac23fc06000000"
        "0078c5fb51d10200"
        "0080c6a47e8d0300" + "00" * 128
    )
    assert L.Global.decode(raw) == g
    assert g.protocol_fee_bps == 100 and g.wallet_cap_bps == 10_000


def test_bonding_curve_golden():
    c = L.BondingCurve(
        B,
        A,
        1_073_000_000_000_000,
        30_000_000_000,
        793_100_000_000_000,
        0,
        10**15,
        False,
        False,
        255,
        42,
        1_700_000_000,
    )
    raw = c.encode()
    assert raw.hex() == (
        "17b7f83760d8ac60" + "02" * 32 + "01" * 32 + "0010d847e3cf0300"
        "00ac23fc06000000"
        "0078c5fb51d10200"
        "0000000000000000"
        "0080c6a47e8d0300"
        "00"
        "00"
        "ff"
        "2a00000000000000"
        "00f1536500000000" + "00" * 64
    )
    assert L.BondingCurve.decode(raw) == c
    # offsets documented in docs/onchain.md
    assert struct.unpack_from("<Q", raw, 72)[0] == c.virtual_token_reserves
    assert struct.unpack_from("<Q", raw, 96)[0] == c.real_sol_reserves
    assert raw[112] == 0 and raw[113] == 0 and raw[114] == 255
    bad = bytearray(raw)
    bad[112] = 2
    with pytest.raises(L.LayoutError):
        L.BondingCurve.decode(bytes(bad))


def _t22_mint(metadata: bytes | None, *, extra: bytes = b"") -> bytes:
    """A Token-2022 mint: the 82-byte classic mint, padding to 165, account type 1 (mint),
    a MetadataPointer (TLV 18) and, when given, a TokenMetadata (TLV 19)."""
    classic = L.SplMint(None, 10**15, 6).encode()
    out = classic + bytes(165 - len(classic)) + b"\x01"
    out += struct.pack("<HH", 18, 64) + bytes(A) + bytes(B) + extra
    if metadata is not None:
        out += struct.pack("<HH", 19, len(metadata)) + metadata
    return out


def _tm(authority: bytes, mint: bytes, *texts: bytes) -> bytes:
    return authority + mint + b"".join(struct.pack("<I", len(t)) + t for t in texts) + struct.pack("<I", 0)


def test_token_metadata_golden():
    raw = _t22_mint(_tm(bytes(A), bytes(B), b"Test Coin", b"TEST", b"ipfs://bafy"))
    m = L.TokenMetadata.from_mint(raw)
    assert m == L.TokenMetadata(A, B, "Test Coin", "TEST", "ipfs://bafy")
    # no update authority (finalized): 32 zero bytes
    assert L.TokenMetadata.from_mint(_t22_mint(_tm(bytes(32), bytes(B), b"x", b"y", b""))).update_authority is None
    # additional_metadata: Vec<(String, String)> after the uri
    pair = struct.pack("<I", 1) + b"".join(struct.pack("<I", len(t)) + t for t in (b"k", b"v"))
    body = _tm(bytes(A), bytes(B), b"N", b"S", b"U")[:-4] + pair
    assert L.TokenMetadata.from_mint(_t22_mint(body)).additional_metadata == (("k", "v"),)


def test_token_metadata_rejects():
    with pytest.raises(L.LayoutError):  # classic SPL mint: no extensions
        L.TokenMetadata.from_mint(L.SplMint(None, 1, 6).encode())
    with pytest.raises(L.LayoutError):  # a token account (account type 2)
        L.TokenMetadata.from_mint(bytes(165) + b"\x02" + struct.pack("<HH", 7, 0))
    with pytest.raises(L.LayoutError):  # pointer only
        L.TokenMetadata.from_mint(_t22_mint(None))
    with pytest.raises(L.LayoutError):  # truncated strings
        L.TokenMetadata.from_mint(_t22_mint(bytes(64) + struct.pack("<I", 99) + b"abc"))
    with pytest.raises(L.LayoutError):  # not UTF-8
        L.TokenMetadata.from_mint(_t22_mint(_tm(bytes(A), bytes(B), b"\xff", b"y", b"z")))
    with pytest.raises(L.LayoutError):  # no additional_metadata count after the uri
        L.TokenMetadata.from_mint(_t22_mint(_tm(bytes(A), bytes(B), b"x", b"y", b"z")[:-4]))
    with pytest.raises(L.LayoutError):  # a pair it announces and does not hold
        L.TokenMetadata.from_mint(_t22_mint(_tm(bytes(A), bytes(B), b"x", b"y", b"z")[:-4] + struct.pack("<I", 1)))


def test_token_metadata_of_checks_owner_and_mint():
    from types import SimpleNamespace

    from partner.chain import programs as P

    raw = _t22_mint(_tm(bytes(A), bytes(B), b"N", b"S", b"U"))
    assert L.token_metadata_of(SimpleNamespace(owner=P.TOKEN_2022_PROGRAM_ID, data=raw), B).name == "N"
    assert L.token_metadata_of(SimpleNamespace(owner=P.TOKEN_PROGRAM_ID, data=raw), B) is None
    assert L.token_metadata_of(SimpleNamespace(owner=P.TOKEN_2022_PROGRAM_ID, data=raw), C) is None
    assert L.token_metadata_of(None, B) is None


def test_pool_golden():
    p = L.Pool(B, C, A, D, 206_900_000_000_000, 85_000_000_000, 100, 1_700_000_002, 99, 252)
    raw = p.encode()
    assert raw.hex() == (
        "f19a6d0411b16dbc" + "02" * 32 + "03" * 32 + "01" * 32 + "04" * 32 + "000801a92cbc0000"
        "001265ca13000000"
        "6400"
        "02f1536500000000"
        "6300000000000000"
        "fc" + "00" * 64
    )
    assert L.Pool.decode(raw) == p


def test_wrong_discriminator_and_short_data():
    raw = L.Pool(B, C, A, D, 1, 2).encode()
    with pytest.raises(L.LayoutError):
        L.BondingCurve.decode(raw + bytes(100))
    with pytest.raises(L.LayoutError):
        L.Pool.decode(raw[:-1])
    assert isinstance(L.decode_account(raw), L.Pool)
    with pytest.raises(L.LayoutError):
        L.decode_account(bytes(300))


def test_decode_accepts_trailing_bytes():
    raw = L.Pool(B, C, A, D, 1, 2).encode()
    assert L.Pool.decode(raw + b"\x00" * 10).base_reserve == 1


u64 = st.integers(0, 2**64 - 1)
i64 = st.integers(-(2**63), 2**63 - 1)
keys = st.binary(min_size=32, max_size=32).map(Pubkey)


@settings(max_examples=200, deadline=None)
@given(keys, keys, u64, u64, u64, u64, u64, st.booleans(), st.booleans(), st.integers(0, 255), u64, i64)
def test_curve_roundtrip(m, c, a, b, d, e, f, comp, mig, bump, slot, ts):
    x = L.BondingCurve(m, c, a, b, d, e, f, comp, mig, bump, slot, ts)
    assert L.BondingCurve.decode(x.encode()) == x


@settings(max_examples=200, deadline=None)
@given(keys, keys, st.text(max_size=32), st.text(max_size=10), st.text(max_size=200), st.binary(max_size=40))
def test_token_metadata_roundtrip(authority, mint, name, sym, uri, extra):
    raw = _t22_mint(_tm(bytes(authority), bytes(mint), name.encode(), sym.encode(), uri.encode()), extra=b"")
    m = L.TokenMetadata.from_mint(raw + extra)
    assert (m.mint, m.name, m.symbol, m.uri) == (mint, name, sym, uri)


@settings(max_examples=200, deadline=None)
@given(keys, keys, keys, keys, u64, u64, st.integers(0, 65535), i64, u64, st.integers(0, 255))
def test_pool_roundtrip(a, b, c, d, e, f, g, h, i, j):
    x = L.Pool(a, b, c, d, e, f, g, h, i, j)
    assert L.Pool.decode(x.encode()) == x


@settings(max_examples=100, deadline=None)
@given(keys, keys, st.integers(0, 65535), st.integers(0, 65535), i64, u64, u64, u64, u64, st.integers(0, 255))
def test_global_roundtrip(a, b, c, d, e, f, g, h, i, j):
    x = L.Global(
        admin=a,
        fee_recipient=b,
        protocol_fee_bps=c,
        wallet_cap_bps=d,
        pool_open_delay_seconds=e,
        initial_virtual_token_reserves=f,
        initial_virtual_sol_reserves=g,
        initial_real_token_reserves=h,
        token_total_supply=i,
        bump=j,
    )
    assert L.Global.decode(x.encode()) == x


def test_spl_layouts():
    from solders.token.state import Mint, TokenAccount, TokenAccountState

    mint = L.SplMint(A, 10**15, 6, True, None)
    sd = Mint.from_bytes(mint.encode())
    assert sd.mint_authority == A and sd.supply == 10**15 and sd.decimals == 6 and sd.freeze_authority is None
    assert L.SplMint.decode(mint.encode()) == mint
    ta = L.SplTokenAccount(B, A, 123)
    sd = TokenAccount.from_bytes(ta.encode())
    assert sd.mint == B and sd.owner == A and sd.amount == 123 and sd.state == TokenAccountState.Initialized
    assert L.token_account_amount(ta.encode()) == 123
