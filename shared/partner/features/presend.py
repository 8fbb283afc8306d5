"""The one step every partner write takes after signing and before anything reaches the network.

Each send path (trades, governance writes, coin launches) calls `before_send` with what it is
about to send, once it holds the signed transaction(s) and before the first byte goes out.
What must be durable before a send is written here, so that a send whose answer never comes
(an ambiguous timeout: the transaction may or may not land) is still on record:

- the signature(s), on the request's idempotency claim when the request carries an
  `Idempotency-Key` (a retry after a crash answers with them instead of sending again);
- the transaction record that the tracker follows to finality and webhooks report on.

A failure here is a failure before sending: nothing went out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from partner.edge import idempotency
from partner.store import txrecords

if TYPE_CHECKING:
    from partner.edge.access import Principal

# What the service sends, by kind (the transaction record's `kind`).
KINDS = frozenset({
    "buy", "buy_exact_out", "sell",
    "vote", "vote_cancel", "vote_withdraw", "settle",
    "propose_update_content", "propose_extend_mutability", "propose_finalize_metadata",
    "finalize_expired", "bond_withdraw",
    "coin_create",
})


@dataclass(frozen=True)
class Outgoing:
    """One transaction about to be sent, or the transactions of one bundle (in bundle order)."""

    kind: str
    signatures: tuple[str, ...]
    mint: str | None
    wallet: str
    last_valid_block_height: int

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown transaction kind {self.kind!r}")
        if not self.signatures:
            raise ValueError("an outgoing send has at least one signature")


def before_send(principal: Principal, outgoing: Outgoing) -> None:
    """Make `outgoing` durable for `principal`'s request before it is sent."""
    idempotency.record_send(outgoing)
    txrecords.record(principal, outgoing)
    idempotency.sending()
