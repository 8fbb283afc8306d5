"""Golden tests of instruction encodings and account metas (docs/onchain.md)."""

import hashlib

import pytest
from solders.compute_budget import set_compute_unit_limit as sd_limit
from solders.compute_budget import set_compute_unit_price as sd_price
from solders.pubkey import Pubkey
from solders.system_program import TransferParams, transfer

from partner.chain import instructions as I
from partner.chain import programs as P
from tests.goldens import (
    CPI_PROGRAMS,
    CURVE,
    CURVE_VAULT,
    FEE,
    GLOBAL,
    GOVERNANCE,
    LAUNCHPAD,
    META,
    MINT,
    POOL,
    POOL_VAULT,
    POOLPROG,
    SYS,
    TOK,
    USER,
    USER_ATA,
    metas,
)


def test_program_ids():
    assert str(P.LAUNCHPAD_PROGRAM_ID) == LAUNCHPAD
    assert str(P.POOL_PROGRAM_ID) == POOLPROG


def test_pdas():
    assert P.global_pda() == (Pubkey.from_string(GLOBAL), 255)
    assert P.bonding_curve_pda(MINT) == (Pubkey.from_string(CURVE), 255)
    assert P.pool_pda(MINT) == (Pubkey.from_string(POOL), 255)
    assert P.governance_pda(MINT) == (Pubkey.from_string(GOVERNANCE), 255)
    assert str(P.bonding_curve_vault(MINT)) == CURVE_VAULT
    assert str(P.pool_base_vault(MINT)) == POOL_VAULT
    assert str(P.associated_token_address(USER, MINT)) == USER_ATA
    assert str(P.associated_token_address(str(USER), str(MINT))) == USER_ATA
    from spl.token.instructions import get_associated_token_address

    assert get_associated_token_address(USER, MINT, P.TOKEN_2022_PROGRAM_ID) == P.associated_token_address(USER, MINT)


@pytest.mark.parametrize(
    "name,hexdisc",
    [
        ("initialize_global", "2fe10f705633bee7"),
        ("set_params", "1beab2349302bb8d"),
        ("create_coin", "d0552225ebb66f4e"),
        ("buy", "66063d1201daebea"),
        ("buy_exact_out", "18d3742869039938"),
        ("sell", "33e685a4017f83ad"),
        ("migrate", "9beae792ec9ea21e"),
        ("initialize_pool", "5fb40aac54aee828"),
        ("swap", "f8c69e91e17587c8"),
        ("swap_exact_out", "fa49652126cf4bb8"),
    ],
)
def test_discriminators(name, hexdisc):
    assert I.instruction_discriminator(name).hex() == hexdisc
    assert hashlib.sha256(f"global:{name}".encode()).digest()[:8].hex() == hexdisc


def test_reserved_names_do_not_collide():
    discs = {I.instruction_discriminator(n) for n in I.RESERVED_INSTRUCTION_NAMES}
    used = {
        I.IX_INITIALIZE_GLOBAL,
        I.IX_SET_PARAMS,
        I.IX_CREATE_COIN,
        I.IX_BUY,
        I.IX_BUY_EXACT_OUT,
        I.IX_SELL,
        I.IX_MIGRATE,
        I.IX_INITIALIZE_POOL,
        I.IX_SWAP,
        I.IX_SWAP_EXACT_OUT,
    }
    assert len(discs) == len(I.RESERVED_INSTRUCTION_NAMES) and not discs & used


TRADE_METAS = [
    (str(USER), True, True),
    (GLOBAL, False, False),
    (str(FEE), False, True),
    (str(MINT), False, False),
    (CURVE, False, True),
    (CURVE_VAULT, False, True),
    (USER_ATA, False, True),
    *CPI_PROGRAMS,
]


def test_buy():
    ix = I.buy(USER, MINT, FEE, 10**9, 12345)
    assert ix.program_id == P.LAUNCHPAD_PROGRAM_ID
    assert bytes(ix.data).hex() == "66063d1201daebea00ca9a3b000000003930000000000000"
    assert metas(ix) == TRADE_METAS


def test_buy_exact_out():
    ix = I.buy_exact_out(USER, MINT, FEE, 5, 2**64 - 1)
    assert bytes(ix.data).hex() == "18d37428690399380500000000000000ffffffffffffffff"
    assert metas(ix) == TRADE_METAS


def test_sell():
    ix = I.sell(USER, MINT, FEE, 1_000_000, 0)
    assert bytes(ix.data).hex() == "33e685a4017f83ad40420f00000000000000000000000000"
    assert metas(ix) == TRADE_METAS


def test_amounts_outside_u64_rejected():
    with pytest.raises(ValueError):
        I.buy(USER, MINT, FEE, 2**64, 0)
    with pytest.raises(ValueError):
        I.sell(USER, MINT, FEE, -1, 0)


def test_create_coin():
    ix = I.create_coin(USER, MINT, "Test Coin", "TEST", "ipfs://bafy")
    assert bytes(ix.data).hex() == (
        "d0552225ebb66f4e090000005465737420436f696e04000000544553540b000000697066733a2f2f62616679"
        + "e3b0c44298fc1c149afbf4c8996fb924" * 5  # no document: five digests of the empty string
    )
    assert metas(ix) == [
        (str(USER), True, True),
        (str(MINT), True, True),
        (GLOBAL, False, False),
        (CURVE, False, True),
        (CURVE_VAULT, False, True),
        (META, False, True),
        *CPI_PROGRAMS,
        (GOVERNANCE, False, True),
    ]
    with pytest.raises(ValueError):
        I.create_coin(USER, MINT, "x" * 33, "T", "u")
    with pytest.raises(ValueError):
        I.create_coin(USER, MINT, "x", "T" * 11, "u")
    with pytest.raises(ValueError):
        I.create_coin(USER, MINT, "x", "T", "u" * 201)


def test_migrate():
    ix = I.migrate(USER, MINT)
    assert bytes(ix.data).hex() == "9beae792ec9ea21e"
    assert metas(ix) == [
        (str(USER), True, True),
        (GLOBAL, False, False),
        (str(MINT), False, False),
        (CURVE, False, True),
        (CURVE_VAULT, False, True),
        (POOL, False, True),
        (POOL_VAULT, False, True),
        (POOLPROG, False, False),
        *CPI_PROGRAMS,
    ]


def test_initialize_global_and_set_params():
    ix = I.initialize_global(USER, I.GlobalParams(FEE))
    assert bytes(ix.data).hex() == (
        "2fe10f705633bee7" + "03" * 32 + "6400"
        "1027"
        "0200000000000000"
        "0010d847e3cf0300"
        "00ac23fc06000000"
        "0078c5fb51d10200"
        "0080c6a47e8d0300"
    )
    program_data = "AEk9ERwtgkUwfLoNfdmUjqCiK6MGrCcRqVqqgC5UPpbi"  # the loader's PDA of the launchpad's id
    assert metas(ix) == [
        (str(USER), True, True),
        (GLOBAL, False, True),
        (SYS, False, False),
        (program_data, False, False),
    ]
    ix = I.set_params(USER, USER, FEE, 50, 250, 0)
    assert bytes(ix.data).hex() == ("1beab2349302bb8d" + "01" * 32 + "03" * 32 + "3200fa000000000000000000")
    assert metas(ix) == [(str(USER), True, False), (GLOBAL, False, True)]


def test_pool_instructions():
    swap_metas = [
        (str(USER), True, True),
        (POOL, False, True),
        (str(MINT), False, False),
        (POOL_VAULT, False, True),
        (USER_ATA, False, True),
        (str(FEE), False, True),
        *CPI_PROGRAMS,
    ]
    ix = I.swap(USER, MINT, FEE, True, 500, 7)
    assert ix.program_id == P.POOL_PROGRAM_ID
    assert bytes(ix.data).hex() == "f8c69e91e17587c801f4010000000000000700000000000000"
    assert metas(ix) == swap_metas
    ix = I.swap(USER, MINT, FEE, False, 500, 7)
    assert bytes(ix.data).hex() == "f8c69e91e17587c800f4010000000000000700000000000000"
    ix = I.swap_exact_out(USER, MINT, FEE, 1, 2)
    assert bytes(ix.data).hex() == "fa49652126cf4bb801000000000000000200000000000000"
    assert metas(ix) == swap_metas
    ix = I.initialize_pool(USER, MINT, I.PoolOpening(1, 2, 3, 100, FEE, USER))
    assert bytes(ix.data).hex() == (
        "5fb40aac54aee8280100000000000000020000000000000003000000000000006400" + "03" * 32 + "01" * 32
    )
    assert metas(ix) == [
        (str(USER), True, True),
        (CURVE, True, False),
        (str(MINT), False, False),
        (POOL, False, True),
        (POOL_VAULT, False, True),
        (CURVE_VAULT, False, True),
        *CPI_PROGRAMS,
    ]


def test_compute_budget_and_transfers():
    assert bytes(I.set_compute_unit_limit(200_000).data).hex() == "02400d0300"
    assert bytes(I.set_compute_unit_price(1000).data).hex() == "03e803000000000000"
    assert I.set_compute_unit_limit(200_000) == sd_limit(200_000)
    assert I.set_compute_unit_price(1000) == sd_price(1000)
    ix = I.tip_transfer(USER, FEE, 5)
    assert bytes(ix.data).hex() == "020000000500000000000000"
    assert ix == transfer(TransferParams(from_pubkey=USER, to_pubkey=FEE, lamports=5))
    assert I.partner_fee_transfer(USER, FEE, 5) == ix
    assert metas(ix) == [(str(USER), True, True), (str(FEE), False, True)]
    ix = I.create_associated_token_account_idempotent(USER, USER, MINT)
    assert bytes(ix.data) == b"\x01"
    assert metas(ix) == [
        (str(USER), True, True),
        (USER_ATA, False, True),
        (str(USER), False, False),
        (str(MINT), False, False),
        (SYS, False, False),
        (TOK, False, False),
    ]


@pytest.mark.parametrize(
    "fee,units,expected_micro",
    [
        (0, 200_000, 0),
        (1, 3, 1),
        (1000, 200_000, 5000),
        (1001, 200_000, 5005),
        (1, 1_000_000, 1),
        (12345, 70_000, 176_343),
        (10**9, 1_400_000, 714_285_714),
        (1, 1_400_000, 1),
    ],
)
def test_compute_budget_for_priority_fee(fee, units, expected_micro):
    u, micro = I.compute_budget_for_priority_fee(fee, units)
    assert (u, micro) == (units, expected_micro)
    charged = I.priority_fee_charged(u, micro)
    assert charged >= fee
    if units > 1_000_000 and micro:
        assert I.priority_fee_charged(u, micro - 1) < fee  # the smallest price that covers the fee
    if units <= 1_000_000:
        assert charged == fee


def test_compute_budget_for_priority_fee_property():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=500, deadline=None)
    @given(st.integers(0, 10**12), st.integers(1, 1_400_000))
    def check(fee, units):
        u, micro = I.compute_budget_for_priority_fee(fee, units)
        charged = I.priority_fee_charged(u, micro)
        assert charged >= fee
        assert micro == 0 or I.priority_fee_charged(u, micro - 1) < fee or charged == fee
        if units <= 1_000_000:
            assert charged == fee

    check()
    with pytest.raises(ValueError):
        I.compute_budget_for_priority_fee(1000, 0)
    ixs = I.compute_budget_instructions(1000, 200_000)
    assert [bytes(i.data).hex() for i in ixs] == ["02400d0300", "038813000000000000"]  # 5000 micro-lamports
