"""Program error table: complete, one spec code per error, every code in the spec."""

import pathlib
import re

import pytest

from partner.chain import errors as E
from partner.chain import programs as P
from testkit.helpers import catalogue_section

# Error codes of the spec's error tables the programs can map to: Trading, Validation, Infrastructure.
SPEC_CODES = {
    *catalogue_section("invalid_partner_fee", "math_overflow"),
    *catalogue_section("invalid_input", "launch_identity_limit_reached"),
    *catalogue_section("rpc_unavailable", "tx_too_large"),
}
SPEC_FILE = pathlib.Path("/work/shared/spec/partner-api.md")


def test_every_error_numbered_and_mapped():
    codes = [int(c) for c in E.ProgramErrorCode]
    assert codes == sorted(codes) and len(set(codes)) == len(codes)
    assert all(6000 <= c < 6050 for c in codes)  # 6050+ reserved (launch fee, governance 6100+)
    assert set(E.PROGRAM_ERRORS) == set(codes)
    for c in codes:
        assert E.spec_code_for_program_error(c) in SPEC_CODES


def test_required_trading_codes_present():
    mapped = {E.spec_code_for_program_error(c) for c in E.ProgramErrorCode}
    for code in (
        "slippage_exceeded",
        "curve_complete",
        "buy_limit_exceeded",
        "same_slot_trading_blocked",
        "math_overflow",
        "insufficient_liquidity",
        "insufficient_sol",
        "insufficient_tokens",
        "pool_not_open",
        "migration_pending",
        "invalid_input",
        "missing_sell_token_account",
    ):
        assert code in mapped


@pytest.mark.skipif(not SPEC_FILE.exists(), reason="spec not available")
def test_codes_appear_in_spec_tables():
    text = SPEC_FILE.read_text()
    table_codes = set(re.findall(r"^\|\s*\d{3}\s*\|\s*`([a-z_]+)`", text, re.M))
    for c in E.ProgramErrorCode:
        assert E.spec_code_for_program_error(c) in table_codes


def test_instruction_error_mapping():
    f = E.spec_code_for_transaction_error
    assert f(None) is None
    assert f({"InstructionError": [3, {"Custom": 6001}]}) == "slippage_exceeded"
    assert f({"InstructionError": [3, {"Custom": 6005}]}) == "same_slot_trading_blocked"
    assert f({"InstructionError": [0, {"Custom": 6999}]}) == "tx_failed"
    ids = [P.COMPUTE_BUDGET_PROGRAM_ID, P.COMPUTE_BUDGET_PROGRAM_ID, P.SYSTEM_PROGRAM_ID, P.LAUNCHPAD_PROGRAM_ID]
    assert f({"InstructionError": [2, {"Custom": 1}]}, ids) == "insufficient_sol"
    assert f({"InstructionError": [3, {"Custom": 6002}]}, [str(i) for i in ids]) == "curve_complete"
    assert f({"InstructionError": [0, {"Custom": 1}]}, [P.TOKEN_PROGRAM_ID]) == "insufficient_tokens"
    assert f({"InstructionError": [0, {"Custom": 1}]}, [P.TOKEN_2022_PROGRAM_ID]) == "insufficient_tokens"
    assert f({"InstructionError": [0, {"Custom": 0}]}, [P.TOKEN_PROGRAM_ID]) == "tx_failed"
    assert f({"InstructionError": [0, {"Custom": 1}]}) == "tx_failed"  # unknown program: ambiguous
    assert f({"InstructionError": [1, "InvalidAccountData"]}) == "tx_failed"
    assert f("InsufficientFundsForFee") == "insufficient_sol"
    assert f("BlockhashNotFound") == "tx_expired"
    assert f({"InsufficientFundsForRent": {"account_index": 0}}) == "insufficient_sol"
    assert E.spec_code_for_custom_error(6010, P.POOL_PROGRAM_ID) == "pool_not_open"
    assert E.spec_code_for_custom_error(6010, P.SYSTEM_PROGRAM_ID) == "tx_failed"
