"""One transaction per request: every trade and governance write carries an SPL Memo
`partner:<request id>`, so two identical requests never build byte-identical transactions
(docs/writes.md, "Writes: unique transactions and Idempotency-Key").
"""

from __future__ import annotations

import secrets

from solders.instruction import Instruction
from solders.pubkey import Pubkey

from partner.core import requestid

MEMO_PROGRAM_ID = Pubkey.from_string("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr")
MEMO_PREFIX = "partner:"
MAX_REQUEST_ID = 64  # API Gateway's ids are 36-character UUIDs; anything longer is not one


def memo(text: str) -> Instruction:
    """An SPL Memo v2 instruction without signer accounts."""
    return Instruction(MEMO_PROGRAM_ID, text.encode(), [])


def request_memo() -> Instruction:
    """The memo that makes this request's transaction unique: `partner:<request id>`."""
    request_id = requestid.current()
    if request_id is None or len(request_id) > MAX_REQUEST_ID or not request_id.isascii():
        request_id = secrets.token_hex(16)
    return memo(MEMO_PREFIX + request_id)
