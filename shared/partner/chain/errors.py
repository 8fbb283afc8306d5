"""Program error numbers of the launchpad and pool programs and their mapping
to the spec's error codes, from the programs' IDLs (each error's msg is
"<spec code>: <message>"). Both programs share one numbering (Anchor-style
custom codes from 6000); see docs/onchain.md "Errors".
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from solders.pubkey import Pubkey

from .idl_types import GovernanceErrorCode, ProgramErrorCode
from .idls import LAUNCHPAD
from .programs import (
    LAUNCHPAD_PROGRAM_ID,
    POOL_PROGRAM_ID,
    SYSTEM_PROGRAM_ID,
    TOKEN_2022_PROGRAM_ID,
    TOKEN_PROGRAM_ID,
)


def _errors(lo: int, hi: int) -> list[tuple[int, str, str, str]]:
    return [e for e in LAUNCHPAD.errors if lo <= e[0] < hi]


# 6000-6049 trading, 6050-6099 reserved (launch fee / identity bypass), shared by both programs:
# ProgramErrorCode. 6100-6199: metadata governance of the launchpad program, each mapping to exactly
# one code of the spec's Governance error table: GovernanceErrorCode. Both generated from the IDL.

# code -> (spec error code, message), from the IDL's "<spec code>: <message>"
PROGRAM_ERRORS: dict[int, tuple[str, str]] = {
    ProgramErrorCode(code): (spec, msg) for code, _, spec, msg in _errors(6000, 6100)
}
GOVERNANCE_ERRORS: dict[int, tuple[str, str]] = {
    GovernanceErrorCode(code): (spec, msg) for code, _, spec, msg in _errors(6100, 6200)
}
# spec code -> governance error (one to one)
GOVERNANCE_CODE_FOR_SPEC: dict[str, GovernanceErrorCode] = {
    spec: GovernanceErrorCode(code) for code, (spec, _) in GOVERNANCE_ERRORS.items()
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


def spec_code_for_program_error(code: int) -> str | None:
    """Spec error code of one of our program errors (None if not ours)."""
    entry = PROGRAM_ERRORS.get(int(code)) or GOVERNANCE_ERRORS.get(int(code))
    return entry[0] if entry else None


def _program_id(program_ids: Iterable[Any] | None, index: int) -> Pubkey | None:
    if program_ids is None:
        return None
    ids = list(program_ids)
    if not 0 <= index < len(ids):
        return None
    pid = ids[index]
    return pid if isinstance(pid, Pubkey) else Pubkey.from_string(str(pid))


def spec_code_for_custom_error(custom: int, program_id: Pubkey | None = None) -> str:
    """Map `Custom(n)` raised at an instruction of `program_id` to a spec code.

    CPI failures surface at the calling instruction's index with the inner
    program's code; our programs pre-check balances, so a code below 6000 at
    one of our instructions is treated as the failing CPI's code (1 -> SOL for
    buys is indistinguishable from 1 -> tokens; we report the token one only
    for the token program, the SOL one for the system program).
    """
    if program_id == SYSTEM_PROGRAM_ID:
        return "insufficient_sol" if custom == SYSTEM_ERROR_RESULT_WITH_NEGATIVE_LAMPORTS else FALLBACK_CODE
    if program_id in (TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID):
        return "insufficient_tokens" if custom == TOKEN_ERROR_INSUFFICIENT_FUNDS else FALLBACK_CODE
    if program_id is None or program_id in (LAUNCHPAD_PROGRAM_ID, POOL_PROGRAM_ID):
        mapped = spec_code_for_program_error(custom)
        if mapped:
            return mapped
    return FALLBACK_CODE


def spec_code_for_transaction_error(err: Any, program_ids: Iterable[Any] | None = None) -> str | None:
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
    entry = PROGRAM_ERRORS.get(int(code)) or GOVERNANCE_ERRORS.get(int(code))
    return entry[1] if entry else f"custom program error {code}"
