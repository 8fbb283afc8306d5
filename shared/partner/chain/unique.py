"""One transaction per request: every partner write carries a memo with a per-wallet sequence number.

Two requests of one user with the same body could otherwise build byte-identical transactions
(same fee payer, blockhash and instructions; ed25519 signatures are deterministic), and the
network takes the second for the first (`AlreadyProcessed`) although it never ran.

Guarantee: before building, the write takes the next number of its wallet's counter with one
atomic `ADD` (counters table, `TXN#<wallet>`) and puts `partner:<n>` in an SPL Memo instruction
(v2, no accounts: it only logs the text). Within one wallet two requests never get the same
number; writes of different wallets differ by their fee payer. Identical transactions also need
the same recent blockhash, which is valid for 150 slots (about a minute), while the counter lives
a day after its last use (TTL): when TTL lets it restart, every transaction built from its old
numbers is long expired. So the bytes, hence the signatures, of two requests always differ.

Coin launches need no memo: each signs with a fresh mint keypair (and its first buy names that
mint), which keeps them clear of the 1232-byte limit too.
"""

from __future__ import annotations

from solders.instruction import Instruction
from solders.pubkey import Pubkey

from partner import clock
from partner.settings import get_settings
from partner.store import ddb

MEMO_PROGRAM_ID = Pubkey.from_string("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr")
COUNTER_TTL_SECONDS = 24 * 3600
MEMO_PREFIX = "partner:"


def memo(text: str) -> Instruction:
    """An SPL Memo v2 instruction without signer accounts."""
    return Instruction(MEMO_PROGRAM_ID, text.encode(), [])


def next_number(wallet: Pubkey | str) -> int:
    """The wallet's next transaction number (atomic; strictly increasing while the counter lives)."""
    out = ddb.update(get_settings().counters_table, f"TXN#{wallet}", "ADD n :one SET expires_at = :exp",
                     vals={":one": 1, ":exp": int(clock.now()) + COUNTER_TTL_SECONDS}, return_values="UPDATED_NEW")
    assert out is not None
    return int(out["n"])


def request_memo(wallet: Pubkey | str) -> Instruction:
    """The memo that makes this request's transaction unique."""
    return memo(f"{MEMO_PREFIX}{next_number(wallet)}")
