"""programs/sdk, driven through the sdk_smoke fixture program in LiteSVM (deployed through
BPF Loader Upgradeable): entrypoint parsing, logging, wide math, PDAs, System and
Token-2022 CPIs (metadata pointer, mint, TokenMetadata, ATA, MintTo, TransferChecked),
account readers, sysvars, panics."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from solders.keypair import Keypair
from solders.pubkey import Pubkey

from tests.programs.svm import ATA_PROGRAM, SYSTEM, TOKEN_2022, Svm, ata, borsh_str, ix
from tests.programs.token2022 import decode_mint

U64 = 2**64 - 1


@pytest.fixture(scope="module")
def env():
    s = Svm()
    return s, s.deploy("sdk_smoke")


def test_entrypoint_logs_and_program_id(env):
    s, pid = env
    o = s.send(ix(pid, b"\0", [(s.payer.pubkey(), True, True)]))
    assert o.ok
    assert "Program log: smoke: hello" in o.logs
    assert f"Program log: accounts=1 id={pid}" in o.logs


def _wide(s, pid, a, b, c):
    o = s.send(ix(pid, b"\1" + struct.pack("<QQQ", a, b, c), []))
    assert o.ok, o.logs
    d = o.return_data

    def opt(off):
        return struct.unpack_from("<Q", d, off + 1)[0] if d[off] else None

    hi, lo = struct.unpack_from("<QQ", d, 18)
    return opt(0), opt(9), (hi << 64) | lo, opt(34), struct.unpack_from("<Q", d, 43)[0]


def _expect(a, b, c):
    prod = a * b
    floor = prod // c if c and prod // c <= U64 else None
    ceil = -(-prod // c) if c and -(-prod // c) <= U64 else None
    div = None
    if c and a < c:
        div = (((a << 64) | b) // c, ((a << 64) | b) % c)
    return floor, ceil, prod, div


def _check_wide(env, a: int, b: int, c: int) -> None:
    """The program's wide math on (a, b, c) is Python's."""
    s, pid = env
    floor, ceil, prod, q, r = _wide(s, pid, a, b, c)
    e_floor, e_ceil, e_prod, e_div = _expect(a, b, c)
    assert (floor, ceil, prod) == (e_floor, e_ceil, e_prod)
    assert (q, r) == (e_div if e_div else (None, 0))


@pytest.mark.parametrize(
    "a,b,c",
    [
        (10, 20, 7),
        (U64, U64, U64),
        (U64, U64, 1),
        (U64, 2, 3),
        (0, U64, 5),
        (1, 1, 0),
        (2**63, 2, 2**64 - 1),
        (U64 - 1, U64, U64),
    ],
)
def test_wide_math_edges(env, a, b, c):
    _check_wide(env, a, b, c)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, U64), st.integers(0, U64), st.integers(0, U64))
def test_wide_math_matches_python(env, a, b, c):
    _check_wide(env, a, b, c)


def test_pda_creation_and_no_reinitialisation(env):
    s, pid = env
    payer = s.funded()
    pda = Pubkey.find_program_address([b"smoke", bytes(payer.pubkey())], pid)[0]
    accounts = [(payer.pubkey(), True, True), (pda, False, True), (SYSTEM, False, False)]
    assert s.send(ix(pid, b"\2", accounts), payer).ok
    acc = s.account(pda)
    assert acc.owner == pid and bytes(acc.data) == b"SMOKE\0\0\0" + bytes(payer.pubkey())
    assert acc.lamports == s.svm.minimum_balance_for_rent_exemption(40)
    again = s.send(ix(pid, b"\2", accounts), payer)
    assert not again.ok and again.custom == 6001
    assert bytes(s.account(pda).data) == b"SMOKE\0\0\0" + bytes(payer.pubkey())


def test_pda_prefunded_address_is_still_created(env):
    """Someone sends lamports to the PDA first (CreateAccount would fail): top up, allocate, assign."""
    s, pid = env
    payer = s.funded()
    pda = Pubkey.find_program_address([b"smoke", bytes(payer.pubkey())], pid)[0]
    s.svm.airdrop(pda, 1000)
    assert s.send(ix(pid, b"\2", [(payer.pubkey(), True, True), (pda, False, True), (SYSTEM, False, False)]), payer).ok
    assert s.account(pda).owner == pid and s.account(pda).lamports == s.svm.minimum_balance_for_rent_exemption(40)


def test_pda_wrong_address_refused(env):
    s, pid = env
    payer = s.funded()
    other = Pubkey.find_program_address([b"smoke", bytes(Keypair().pubkey())], pid)[0]
    o = s.send(ix(pid, b"\2", [(payer.pubkey(), True, True), (other, False, True), (SYSTEM, False, False)]), payer)
    assert not o.ok and o.custom == 6002
    assert s.account(other) is None


def _new_mint(s, pid, name="Coin", symbol="CN", uri="https://x/1.json"):
    mint = Keypair()
    auth = Pubkey.find_program_address([b"auth"], pid)[0]
    o = s.send(
        ix(
            pid,
            b"\3" + borsh_str(name) + borsh_str(symbol) + borsh_str(uri),
            [
                (s.payer.pubkey(), True, True),
                (mint.pubkey(), True, True),
                (auth, False, False),
                (SYSTEM, False, False),
                (TOKEN_2022, False, False),
            ],
        ),
        mint,
    )
    assert o.ok, o.logs
    return mint.pubkey(), auth


def test_token2022_mint_with_metadata_update_and_lock(env):
    s, pid = env
    mint, auth = _new_mint(s, pid)
    acc = s.account(mint)
    assert acc.owner == TOKEN_2022
    data = bytes(acc.data)
    assert data[44] == 6 and data[165] == 1  # decimals, AccountType::Mint
    md = decode_mint(data).metadata
    assert (md.update_authority, md.name, md.symbol, md.uri) == (auth, "Coin", "CN", "https://x/1.json")
    upd = [(mint, False, True), (auth, False, False), (TOKEN_2022, False, False)]
    assert s.send(ix(pid, b"\4\2" + borsh_str("https://x/2.json"), upd)).ok
    assert decode_mint(s.data(mint)).metadata.uri == "https://x/2.json"
    assert s.send(ix(pid, b"\5", upd)).ok
    assert decode_mint(s.data(mint)).metadata.update_authority is None
    locked = s.send(ix(pid, b"\4\0" + borsh_str("Other"), upd))
    assert not locked.ok and locked.custom == 901952961  # ImmutableMetadata
    assert decode_mint(s.data(mint)).metadata.name == "Coin"


def test_ata_mint_to_and_transfer_checked(env):
    s, pid = env
    mint, auth = _new_mint(s, pid)
    w1, w2 = s.funded(), s.funded()
    a1, a2 = ata(w1.pubkey(), mint), ata(w2.pubkey(), mint)

    def mint_to(w, a, amount):
        return s.send(
            ix(
                pid,
                b"\6" + struct.pack("<Q", amount),
                [
                    (s.payer.pubkey(), True, True),
                    (a, False, True),
                    (w.pubkey(), False, False),
                    (mint, False, True),
                    (SYSTEM, False, False),
                    (TOKEN_2022, False, False),
                    (ATA_PROGRAM, False, False),
                    (auth, False, False),
                ],
            )
        )

    o = mint_to(w1, a1, 1000)
    assert o.ok and struct.unpack("<Q", o.return_data)[0] == 1000
    assert mint_to(w1, a1, 1).ok  # idempotent ATA creation
    assert mint_to(w2, a2, 0).ok

    def xfer(amount, signer=w1):
        return s.send(
            ix(
                pid,
                b"\7" + struct.pack("<Q", amount),
                [
                    (a1, False, True),
                    (mint, False, False),
                    (a2, False, True),
                    (signer.pubkey(), True, False),
                    (TOKEN_2022, False, False),
                ],
            ),
            signer,
        )

    o = xfer(300)
    assert o.ok and struct.unpack("<Q", o.return_data)[0] == 300
    assert struct.unpack_from("<Q", s.data(a1), 64)[0] == 701
    assert not xfer(5000).ok  # more than held: Token-2022 refuses
    assert not xfer(1, signer=w2).ok  # not the owner
    assert struct.unpack_from("<Q", s.data(a2), 64)[0] == 300
    # the same account twice (a duplicate mutable account) is refused by the program
    o = s.send(
        ix(
            pid,
            b"\7" + struct.pack("<Q", 1),
            [
                (a1, False, True),
                (mint, False, False),
                (a1, False, True),
                (w1.pubkey(), True, False),
                (TOKEN_2022, False, False),
            ],
        ),
        w1,
    )
    assert not o.ok and o.custom == 6002


def test_sysvars(env):
    s, pid = env
    o = s.send(ix(pid, b"\x08", []))
    slot, ts, rent0 = struct.unpack("<QqQ", o.return_data)
    clock = s.svm.get_clock()
    assert (slot, ts) == (clock.slot, clock.unix_timestamp)
    assert rent0 == s.svm.minimum_balance_for_rent_exemption(0)


def test_overflow_panics_with_location(env):
    s, pid = env
    o = s.send(ix(pid, b"\x09" + struct.pack("<Q", 2**64 - 1), []))
    assert not o.ok and "ProgramFailedToComplete" in str(o.err)
    assert any("SBF program Panicked in ./tests/programs/fixtures/sdk_smoke/src/lib.rs" in line for line in o.logs)
    assert s.send(ix(pid, b"\x09" + struct.pack("<Q", 41), [])).return_data == struct.pack("<Q", 42)


def test_short_instruction_data_refused(env):
    s, pid = env
    o = s.send(ix(pid, b"\1" + bytes(5), []))
    assert not o.ok and "InvalidInstructionData" in str(o.err)
