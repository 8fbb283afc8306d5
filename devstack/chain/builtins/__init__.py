"""Built-in programs of the devstack chain (system, SPL token, ATA, compute budget, memo)."""

from __future__ import annotations

from .. import constants as C
from ..runtime import Processor
from . import ata, compute_budget, memo, system, token

BUILTIN_PROGRAMS: dict = {
    C.SYSTEM_PROGRAM_ID: system.process,
    C.COMPUTE_BUDGET_PROGRAM_ID: compute_budget.process,
    C.TOKEN_PROGRAM_ID: token.process,
    C.ASSOCIATED_TOKEN_PROGRAM_ID: ata.process,
    C.MEMO_V1_PROGRAM_ID: memo.process_v1,
    C.MEMO_V2_PROGRAM_ID: memo.process_v2,
}

__all__ = ["BUILTIN_PROGRAMS", "Processor"]
