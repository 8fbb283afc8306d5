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
    # 6100-6199: metadata governance, see GovernanceErrorCode.


class GovernanceErrorCode(IntEnum):
    """Metadata governance errors of the launchpad program (6100-6199).
    Each maps to exactly one code of the spec's Governance error table."""
    GovernanceNotFound = 6100
    AlreadyVoted = 6101
    InvalidVoteAmount = 6102
    MissingVoteTokenAccount = 6103
    VoteNotActive = 6104
    VoteAlreadyWithdrawn = 6105
    VoteReceiptNotFound = 6106
    ProposalClosed = 6107
    ProposalStillOpen = 6108
    ProposalAlreadySettled = 6109
    ProposalNotSettled = 6110
    ProposalNotFound = 6111
    InvalidProposal = 6112
    ActiveProposalExists = 6113
    InsufficientProposalBond = 6114
    MissingProposalTokenAccount = 6115
    NoProposalBond = 6116
    ProposalBondAlreadyWithdrawn = 6117
    ProposalWindowClosing = 6118
    GovernanceFinalized = 6119
    MetadataNotMutable = 6120
    MetadataStillMutable = 6121
    ContentFieldLocked = 6122
    NoMetadataChanges = 6123
    StaleContentRevision = 6124
    MutabilityExpired = 6125
    MutabilityAlreadyExtended = 6126
    MutabilityExtensionExceedsCap = 6127
    InvalidVoteDuration = 6128
    VoteDurationExceedsWindow = 6129


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

_G = GovernanceErrorCode
GOVERNANCE_ERRORS: dict[int, tuple[str, str]] = {
    _G.GovernanceNotFound: ("governance_not_found", "token has no governance"),
    _G.AlreadyVoted: ("already_voted", "active vote exists on this proposal"),
    _G.InvalidVoteAmount: ("invalid_vote_amount", "vote amount is 0 or above the balance"),
    _G.MissingVoteTokenAccount: ("missing_vote_token_account", "voter holds none of the token"),
    _G.VoteNotActive: ("vote_not_active", "the vote was cancelled"),
    _G.VoteAlreadyWithdrawn: ("vote_already_withdrawn", "tokens already reclaimed"),
    _G.VoteReceiptNotFound: ("vote_receipt_not_found", "no vote from this wallet on this proposal"),
    _G.ProposalClosed: ("proposal_closed", "voting ended"),
    _G.ProposalStillOpen: ("proposal_still_open", "voting still open; cannot settle yet"),
    _G.ProposalAlreadySettled: ("proposal_already_settled", "proposal already settled"),
    _G.ProposalNotSettled: ("proposal_not_settled", "withdrawal needs settlement"),
    _G.ProposalNotFound: ("proposal_not_found", "unknown proposal"),
    _G.InvalidProposal: ("invalid_proposal", "proposal account unreadable or of another governance"),
    _G.ActiveProposalExists: ("active_proposal_exists", "one active proposal per governance"),
    _G.InsufficientProposalBond: ("insufficient_proposal_bond", "proposer cannot cover the bond"),
    _G.MissingProposalTokenAccount: ("missing_proposal_token_account", "proposer holds none of the token"),
    _G.NoProposalBond: ("no_proposal_bond", "proposal has no bond"),
    _G.ProposalBondAlreadyWithdrawn: ("proposal_bond_already_withdrawn", "bond already reclaimed"),
    _G.ProposalWindowClosing: ("proposal_window_closing", "not enough time before metadata locks"),
    _G.GovernanceFinalized: ("governance_finalized", "metadata locked forever"),
    _G.MetadataNotMutable: ("metadata_not_mutable", "metadata can no longer change"),
    _G.MetadataStillMutable: ("metadata_still_mutable", "mutability window not yet expired"),
    _G.ContentFieldLocked: ("content_field_locked", "a changed field is permanently locked"),
    _G.NoMetadataChanges: ("no_metadata_changes", "nothing differs from on-chain state"),
    _G.StaleContentRevision: ("stale_content_revision", "metadata changed during authoring"),
    _G.MutabilityExpired: ("mutability_expired", "mutability window closed"),
    _G.MutabilityAlreadyExtended: ("mutability_already_extended", "window already extended once"),
    _G.MutabilityExtensionExceedsCap: ("mutability_extension_exceeds_cap", "extension over the cap"),
    _G.InvalidVoteDuration: ("invalid_vote_duration", "vote duration outside the allowed bounds"),
    _G.VoteDurationExceedsWindow: ("vote_duration_exceeds_window", "voting would end after the mutable window"),
}
# spec code -> governance error (one to one)
GOVERNANCE_CODE_FOR_SPEC: dict[str, GovernanceErrorCode] = {
    spec: GovernanceErrorCode(code) for code, (spec, _) in GOVERNANCE_ERRORS.items()}

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
    entry = PROGRAM_ERRORS.get(int(code)) or GOVERNANCE_ERRORS.get(int(code))
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
    entry = PROGRAM_ERRORS.get(int(code)) or GOVERNANCE_ERRORS.get(int(code))
    return entry[1] if entry else f"custom program error {code}"
