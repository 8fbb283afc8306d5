"""ComputeBudget program: parsed before execution (fees), a no-op when executed."""

from __future__ import annotations

import struct

from .. import constants as C
from ..runtime import InstructionFailure, InvokeContext


class ComputeBudgetError(Exception):
    """Transaction-level error while parsing compute budget instructions (JSON-able ``err``)."""

    def __init__(self, err):
        super().__init__(str(err))
        self.err = err


def parse_limits(program_ids: list, datas: list[bytes]) -> tuple[int, int]:
    """Return (compute unit limit, price in micro-lamports) for a message's instructions."""
    limit = price = None
    heap = loaded = None
    non_cb = 0
    for i, (pid, data) in enumerate(zip(program_ids, datas, strict=True)):
        if pid != C.COMPUTE_BUDGET_PROGRAM_ID:
            non_cb += 1
            continue
        bad = ComputeBudgetError({"InstructionError": [i, "InvalidInstructionData"]})
        if not data:
            raise bad
        tag, body = data[0], data[1:]
        if tag == 1 and len(body) == 4:
            if heap is not None:
                raise ComputeBudgetError({"DuplicateInstruction": i})
            heap = struct.unpack("<I", body)[0]
            if heap % 1024 or not (32 * 1024 <= heap <= 256 * 1024):
                raise ComputeBudgetError({"InstructionError": [i, "InvalidInstructionData"]})
        elif tag == 2 and len(body) == 4:
            if limit is not None:
                raise ComputeBudgetError({"DuplicateInstruction": i})
            limit = struct.unpack("<I", body)[0]
        elif tag == 3 and len(body) == 8:
            if price is not None:
                raise ComputeBudgetError({"DuplicateInstruction": i})
            price = struct.unpack("<Q", body)[0]
        elif tag == 4 and len(body) == 4:
            if loaded is not None:
                raise ComputeBudgetError({"DuplicateInstruction": i})
            loaded = struct.unpack("<I", body)[0]
        else:
            raise bad
    if limit is None:
        limit = C.DEFAULT_CU_PER_INSTRUCTION * non_cb
    return min(limit, C.MAX_CU_LIMIT), price or 0


def priority_fee(cu_limit: int, cu_price: int) -> int:
    return -(-cu_limit * cu_price // 1_000_000)


def process(ctx: InvokeContext) -> None:
    if not ctx.data or ctx.data[0] not in (1, 2, 3, 4):
        raise InstructionFailure("InvalidInstructionData")
