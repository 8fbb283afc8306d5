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

from partner.edge import idempotency
from partner.edge.access import Principal
from partner.store import txrecords
from partner.store.txrecords import Outgoing


def before_send(principal: Principal, outgoing: Outgoing) -> None:
    """Make `outgoing` durable for `principal`'s request before it is sent."""
    idempotency.record_send(outgoing)
    txrecords.record(principal, outgoing)
    idempotency.sending()
