"""One transaction per request: every partner write carries a memo naming its request.

Two requests of one user with the same body could otherwise build byte-identical transactions
(same fee payer, blockhash and instructions; ed25519 signatures are deterministic), and the
network takes the second for the first (`AlreadyProcessed`) although it never ran.

Guarantee: each trade and governance write puts `partner:<request id>` in an SPL Memo instruction
(v2, no accounts: it only logs the text). The request id is API Gateway's
`requestContext.requestId`, which API Gateway assigns uniquely to every request (bound by
`partner.edge.http.entry`, see `partner.core.requestid`), so two requests never carry the same memo and
their transactions' bytes, hence signatures, always differ. A caller outside a request (a script,
a test calling the domain directly) gets 128 random bits from `secrets` instead. It costs no
call, and the memo ties each transaction on-chain to its request's log line (the logs'
correlation id is the same request id).

Coin launches need no memo: each signs with a fresh mint keypair (and its first buy names that
mint), which keeps them clear of the 1232-byte limit too.
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
