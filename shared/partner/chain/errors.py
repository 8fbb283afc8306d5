"""Program error numbers of the launchpad and pool programs and their mapping
to the spec's error codes. Both programs share one numbering (Anchor-style
custom codes from 6000); see docs/onchain.md "Errors".
"""
from __future__ import annotations

from enum import IntEnum
from typing import Any, Iterable, Optional

from solders.pubkey import Pubkey

from .programs import (
    LAUNCHPAD_PROGRAM_ID,
    POOL_PROGRAM_ID,
    SYSTEM_PROGRAM_ID,
    TOKEN_PROGRAM_ID,
)


class ProgramErrorCode(IntEnum):
    InvalidInput = 6000
    SlippageExceeded = 6001
    CurveComplete = 6002
    MigrationPending = 6003
    BuyLimitExceeded = 6004
    SameSlotTradingBlocked = 6005
    MathOverflow = 6006
    InsufficientLiquidity = 6007
    InsufficientSol = 6008
    InsufficientTokens = 6009
    PoolNotOpen = 6010
    MissingSellTokenAccount = 6011
    NameEmpty = 6012
    NameTooLong = 6013
    SymbolEmpty = 6014
    SymbolTooLong = 6015
    UriTooLong = 6016
    Unauthorized = 6017
    InvalidAccount = 6018
    AlreadyInitialized = 6019
    CurveNotComplete = 6020
    AlreadyMigrated = 6021
    InvalidFeeBps = 6022
    # 6050-6099 reserved: launch fee / identity bypass.
    # 6100-6199 reserved: metadata governance (votes, proposals, bonds).


# code -> (spec error code, message)
PROGRAM_ERRORS: dict[int, tuple[str, str]] = {
    ProgramErrorCode.InvalidInput: ("invalid_input", "invalid instruction arguments"),
    ProgramErrorCode.SlippageExceeded: ("slippage_exceeded", "price moved past the slippage bound"),
    ProgramErrorCode.CurveComplete: ("curve_complete", "bonding curve is complete"),
    ProgramErrorCode.MigrationPending: ("migration_pending", "pool not created yet; migration pending"),
    ProgramErrorCode.BuyLimitExceeded: ("buy_limit_exceeded", "buy would exceed the per-wallet token cap"),
    ProgramErrorCode.SameSlotTradingBlocked: ("same_slot_trading_blocked", "trading opens on the next slot"),
    ProgramErrorCode.MathOverflow: ("math_overflow", "amount too large"),
    ProgramErrorCode.InsufficientLiquidity: ("insufficient_liquidity", "venue cannot fill at this size"),
    ProgramErrorCode.InsufficientSol: ("insufficient_sol", "not enough SOL"),
    ProgramErrorCode.InsufficientTokens: ("insufficient_tokens", "not enough tokens"),
    ProgramErrorCode.PoolNotOpen: ("pool_not_open", "pool not open yet"),
    ProgramErrorCode.MissingSellTokenAccount: ("missing_sell_token_account", "seller has no token account"),
    ProgramErrorCode.NameEmpty: ("invalid_name", "name is empty"),
    ProgramErrorCode.NameTooLong: ("name_too_long", "name over 32 bytes"),
    ProgramErrorCode.SymbolEmpty: ("invalid_symbol", "symbol is empty"),
    ProgramErrorCode.SymbolTooLong: ("symbol_too_long", "symbol over 10 bytes"),
    ProgramErrorCode.UriTooLong: ("invalid_input", "uri over 200 bytes"),
    ProgramErrorCode.Unauthorized: ("tx_failed", "signer is not the admin"),
    ProgramErrorCode.InvalidAccount: ("tx_failed", "unexpected account"),
    ProgramErrorCode.AlreadyInitialized: ("tx_failed", "account already initialized"),
    ProgramErrorCode.CurveNotComplete: ("tx_failed", "curve is not complete"),
    ProgramErrorCode.AlreadyMigrated: ("tx_failed", "curve already migrated"),
    ProgramErrorCode.InvalidFeeBps: ("invalid_input", "fee bps out of range"),
}

SYSTEM_ERROR_RESULT_WITH_NEGATIVE_LAMPORTS = 1
TOKEN_ERROR_INSUFFICIENT_FUNDS = 1

# Transaction-level errors (strings in RPC JSON) with a specific spec code.
TRANSACTION_ERRORS: dict[str, str] = {
    "InsufficientFundsForFee": "insufficient_sol",
    "InsufficientFundsForRent": "insufficient_sol",
    "AccountNotFound": "insufficient_sol",  # fee payer has never been funded
    "BlockhashNotFound": "tx_expired",
}

FALLBACK_CODE = "tx_failed"


def spec_code_for_program_error(code: int) -> Optional[str]:
    """Spec error code of one of our program errors (None if not ours)."""
    entry = PROGRAM_ERRORS.get(int(code))
    return entry[0] if entry else None


def _program_id(program_ids: Optional[Iterable[Any]], index: int) -> Optional[Pubkey]:
    if program_ids is None:
        return None
    ids = list(program_ids)
    if not 0 <= index < len(ids):
        return None
    pid = ids[index]
    return pid if isinstance(pid, Pubkey) else Pubkey.from_string(str(pid))


def spec_code_for_custom_error(custom: int, program_id: Optional[Pubkey] = None) -> str:
    """Map `Custom(n)` raised at an instruction of `program_id` to a spec code.

    CPI failures surface at the calling instruction's index with the inner
    program's code; our programs pre-check balances, so a code below 6000 at
    one of our instructions is treated as the failing CPI's code (1 -> SOL for
    buys is indistinguishable from 1 -> tokens; we report the token one only
    for the token program, the SOL one for the system program).
    """
    if program_id == SYSTEM_PROGRAM_ID:
        return "insufficient_sol" if custom == SYSTEM_ERROR_RESULT_WITH_NEGATIVE_LAMPORTS else FALLBACK_CODE
    if program_id == TOKEN_PROGRAM_ID:
        return "insufficient_tokens" if custom == TOKEN_ERROR_INSUFFICIENT_FUNDS else FALLBACK_CODE
    if program_id is None or program_id in (LAUNCHPAD_PROGRAM_ID, POOL_PROGRAM_ID):
        mapped = spec_code_for_program_error(custom)
        if mapped:
            return mapped
    return FALLBACK_CODE


def spec_code_for_transaction_error(err: Any, program_ids: Optional[Iterable[Any]] = None) -> Optional[str]:
    """Map an RPC JSON transaction error to a spec code.

    `err` is the `err` value of a signature status / simulation, e.g.
    ``{"InstructionError": [2, {"Custom": 6001}]}``, ``"InsufficientFundsForFee"``
    or None (-> None). `program_ids` optionally lists the program id of each
    top-level instruction of the transaction, to tell system from token errors.
    """
    if err is None:
        return None
    if isinstance(err, str):
        return TRANSACTION_ERRORS.get(err, FALLBACK_CODE)
    if isinstance(err, dict):
        if "InstructionError" in err:
            return spec_code_for_transaction_error(err["InstructionError"], program_ids)
        if "InsufficientFundsForRent" in err:
            return "insufficient_sol"
        return FALLBACK_CODE
    if isinstance(err, (list, tuple)) and len(err) == 2:
        index, inner = err
        program_id = _program_id(program_ids, int(index))
        if isinstance(inner, dict) and "Custom" in inner:
            return spec_code_for_custom_error(int(inner["Custom"]), program_id)
        if inner == "InsufficientFunds":
            return "insufficient_sol"
        return FALLBACK_CODE
    return FALLBACK_CODE


def error_message(code: int) -> str:
    entry = PROGRAM_ERRORS.get(int(code))
    return entry[1] if entry else f"custom program error {code}"
