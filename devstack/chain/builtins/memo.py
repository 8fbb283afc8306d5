"""SPL Memo v1 and v2."""

from __future__ import annotations

import json

from ..runtime import InstructionFailure, InvokeContext


def _text(ctx: InvokeContext) -> str:
    try:
        return bytes(ctx.data).decode("utf-8")
    except UnicodeDecodeError as e:
        ctx.log(f"Invalid UTF-8, from byte {e.start}")
        raise InstructionFailure("InvalidInstructionData") from e


def process_v1(ctx: InvokeContext) -> None:
    _text(ctx)


def process_v2(ctx: InvokeContext) -> None:
    missing = False
    for acct in ctx.accounts:
        if acct.is_signer:
            ctx.log(f"Signed by {acct.pubkey}")
        else:
            missing = True
    if missing:
        ctx.log("Missing required signature")
        raise InstructionFailure("MissingRequiredSignature")
    text = _text(ctx)
    ctx.log(f"Memo (len {len(ctx.data)}): {json.dumps(text, ensure_ascii=False)}")
