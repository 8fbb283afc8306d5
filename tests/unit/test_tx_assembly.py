"""partner.chain.tx.assemble: instruction order, the priority fee actually charged, the
optional partner fee, the tip, and the 1232-byte packet limit.

The charged priority fee is computed with the devstack chain's compute-budget reading
(``devstack.chain.svm.compute_budget``, the limit and price it bills with as agave derives
them), not with the service's helper.
"""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from solders.hash import Hash
from solders.instruction import AccountMeta, Instruction
from solders.keypair import Keypair
from solders.pubkey import Pubkey
from solders.transaction import Transaction

from devstack.chain.svm import compute_budget, priority_fee
from partner.chain import programs as P
from partner.chain.tx import (
    BASE_FEE_PER_SIGNATURE,
    PACKET_DATA_SIZE,
    TIP_ACCOUNTS,
    Trailer,
    WriteFees,
    assemble,
    network_fee,
    sign,
)
from partner.core.errors import ApiError
from partner.store.wallets import KeypairSigner

PAYER = Keypair()
BLOCKHASH = Hash.new_unique()
PROGRAM = Pubkey.new_unique()
BUDGET = [P.COMPUTE_BUDGET_PROGRAM_ID] * 2  # the unit limit, then the unit price
FEES = WriteFees(priority_fee_lamports=10_000, tip_lamports=1_000_000)


def program_ix(data: bytes = b"\x01\x02\x03", extra_accounts: int = 1) -> Instruction:
    metas = [AccountMeta(PAYER.pubkey(), True, True)]
    metas += [AccountMeta(Pubkey.new_unique(), False, True) for _ in range(extra_accounts)]
    return Instruction(PROGRAM, data, metas)


def decoded(message) -> list[tuple[Pubkey, bytes, list[Pubkey]]]:
    keys = message.account_keys
    return [(keys[i.program_id_index], bytes(i.data), [keys[a] for a in i.accounts]) for i in message.instructions]


def transfer_of(data: bytes) -> int:
    assert data[:4] == struct.pack("<I", 2), "not a System Transfer"
    return struct.unpack("<Q", data[4:12])[0]


def charged_priority_fee(message) -> int:
    return priority_fee(*compute_budget(message))


def test_instruction_order_with_partner_fee():
    fee_wallet, tip_account = Pubkey.new_unique(), TIP_ACCOUNTS[3]
    message = assemble(
        PAYER.pubkey(),
        [program_ix()],
        fees=FEES,
        blockhash=BLOCKHASH,
        units=200_000,
        trailer=Trailer(partner_fee=(fee_wallet, 25_000), tip=tip_account),
    )
    ixs = decoded(message)
    assert [pid for pid, _, _ in ixs] == [*BUDGET, PROGRAM, P.SYSTEM_PROGRAM_ID, P.SYSTEM_PROGRAM_ID]
    assert ixs[0][1][0] == 2 and struct.unpack("<I", ixs[0][1][1:]) == (200_000,)  # SetComputeUnitLimit
    assert ixs[1][1][0] == 3 and len(ixs[1][1]) == 9  # SetComputeUnitPrice (u64 micro-lamports)
    assert ixs[2][1] == b"\x01\x02\x03"
    assert ixs[3][2] == [PAYER.pubkey(), fee_wallet] and transfer_of(ixs[3][1]) == 25_000  # partner fee
    assert ixs[4][2] == [PAYER.pubkey(), tip_account] and transfer_of(ixs[4][1]) == FEES.tip_lamports  # tip last
    assert message.account_keys[0] == PAYER.pubkey()
    assert message.header.num_required_signatures == 1
    assert message.recent_blockhash == BLOCKHASH


def test_several_program_instructions_keep_their_order():
    first, second = program_ix(b"\x0a"), program_ix(b"\x0b")
    message = assemble(PAYER.pubkey(), [first, second], fees=FEES, blockhash=BLOCKHASH)
    assert [data for _, data, _ in decoded(message)][2:4] == [b"\x0a", b"\x0b"]


@pytest.mark.parametrize("partner_fee", [None, "zero"])
def test_partner_fee_is_omitted_when_zero(partner_fee):
    fee_wallet = Pubkey.new_unique()
    message = assemble(
        PAYER.pubkey(),
        [program_ix()],
        fees=FEES,
        blockhash=BLOCKHASH,
        trailer=Trailer(partner_fee=(fee_wallet, 0) if partner_fee == "zero" else None),
    )
    ixs = decoded(message)
    assert [pid for pid, _, _ in ixs] == [*BUDGET, PROGRAM, P.SYSTEM_PROGRAM_ID]
    assert fee_wallet not in message.account_keys
    assert ixs[-1][2][1] in TIP_ACCOUNTS  # the one transfer left is the tip


def test_tip_goes_to_a_configured_tip_account_by_default():
    seen = set()
    for _ in range(40):
        message = assemble(PAYER.pubkey(), [program_ix()], fees=FEES, blockhash=BLOCKHASH)
        _, data, accounts = decoded(message)[-1]
        assert accounts[1] in TIP_ACCOUNTS and transfer_of(data) == FEES.tip_lamports
        seen.add(accounts[1])
    assert len(seen) > 1  # spread over the tip accounts


@pytest.mark.parametrize("fee", [1000, 1001, 1234, 9_999, 10_000, 123_457, 999_999, 10**9 + 7])
@pytest.mark.parametrize("units", [1, 3, 7, 150_001, 200_000, 999_999, 1_000_000])
def test_priority_fee_charged_equals_priority_fee_lamports(fee, units):
    message = assemble(PAYER.pubkey(), [program_ix()], fees=WriteFees(fee, 1_000_000), blockhash=BLOCKHASH, units=units)
    assert charged_priority_fee(message) == fee


@settings(max_examples=300, deadline=None)
@given(fee=st.integers(min_value=1000, max_value=10**12), units=st.integers(min_value=1, max_value=1_000_000))
def test_priority_fee_charged_equals_priority_fee_lamports_property(fee, units):
    message = assemble(PAYER.pubkey(), [program_ix()], fees=WriteFees(fee, 1_000_000), blockhash=BLOCKHASH, units=units)
    assert charged_priority_fee(message) == fee


@settings(max_examples=200, deadline=None)
@given(fee=st.integers(min_value=1000, max_value=10**12), units=st.integers(min_value=1_000_001, max_value=1_400_000))
def test_priority_fee_above_a_million_units_is_the_nearest_chargeable_amount(fee, units):
    """Above 1e6 units not every lamport amount is chargeable: the smallest one >= the fee."""
    message = assemble(PAYER.pubkey(), [program_ix()], fees=WriteFees(fee, 1_000_000), blockhash=BLOCKHASH, units=units)
    charged = charged_priority_fee(message)
    assert fee <= charged
    _, price = compute_budget(message)
    assert priority_fee(units, price - 1) < fee  # one micro-lamport less would charge too little


def test_network_fee_is_base_fee_priority_fee_and_tip():
    message = assemble(PAYER.pubkey(), [program_ix()], fees=FEES, blockhash=BLOCKHASH)
    assert network_fee(message, FEES) == BASE_FEE_PER_SIGNATURE + charged_priority_fee(message) + FEES.tip_lamports


def test_signed_transaction_verifies():
    message = assemble(PAYER.pubkey(), [program_ix()], fees=FEES, blockhash=BLOCKHASH)
    tx = sign(message, [KeypairSigner(PAYER)])
    assert tx.verify_with_results() == [True]


def test_a_missing_signer_is_internal():
    message = assemble(PAYER.pubkey(), [program_ix()], fees=FEES, blockhash=BLOCKHASH)
    with pytest.raises(ApiError) as err:
        sign(message, [KeypairSigner(Keypair())])
    assert err.value.code == "internal"


def _size(data_len: int) -> int:
    message = assemble(
        PAYER.pubkey(),
        [program_ix(b"\x00" * data_len)],
        fees=FEES,
        blockhash=BLOCKHASH,
        trailer=Trailer(tip=TIP_ACCOUNTS[0]),
    )
    return len(bytes(Transaction.new_unsigned(message)))


def test_many_instructions_are_tx_too_large():
    many = [program_ix(bytes([i]) * 16, extra_accounts=1) for i in range(40)]
    with pytest.raises(ApiError) as err:
        assemble(PAYER.pubkey(), many, fees=FEES, blockhash=BLOCKHASH)
    assert err.value.code == "tx_too_large" and err.value.status == 422
    assert err.value.retryable is False
    assert str(PACKET_DATA_SIZE) in err.value.message


def test_the_limit_is_1232_bytes_inclusive():
    # find the program data length that makes the signed transaction exactly 1232 bytes
    n = 0
    while _size(n) < PACKET_DATA_SIZE:
        n += 1
    assert _size(n) == PACKET_DATA_SIZE, "no data length lands exactly on the limit"
    at_limit = assemble(
        PAYER.pubkey(), [program_ix(b"\x00" * n)], fees=FEES, blockhash=BLOCKHASH, trailer=Trailer(tip=TIP_ACCOUNTS[0])
    )
    tx = sign(at_limit, [KeypairSigner(PAYER)])
    assert len(bytes(tx)) == PACKET_DATA_SIZE  # the signature is counted: unsigned size == signed size
    with pytest.raises(ApiError) as err:
        assemble(
            PAYER.pubkey(),
            [program_ix(b"\x00" * (n + 1))],
            fees=FEES,
            blockhash=BLOCKHASH,
            trailer=Trailer(tip=TIP_ACCOUNTS[0]),
        )
    assert err.value.code == "tx_too_large"


def test_the_partner_fee_transfer_counts_towards_the_limit():
    n = 0
    while _size(n) < PACKET_DATA_SIZE:
        n += 1
    assemble(
        PAYER.pubkey(), [program_ix(b"\x00" * n)], fees=FEES, blockhash=BLOCKHASH, trailer=Trailer(tip=TIP_ACCOUNTS[0])
    )
    with pytest.raises(ApiError) as err:
        assemble(
            PAYER.pubkey(),
            [program_ix(b"\x00" * n)],
            fees=FEES,
            blockhash=BLOCKHASH,
            trailer=Trailer(partner_fee=(Pubkey.new_unique(), 1), tip=TIP_ACCOUNTS[0]),
        )
    assert err.value.code == "tx_too_large"
