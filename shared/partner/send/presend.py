"""The one step every partner write takes after signing and before anything reaches the network:
`before_send` makes the signature(s) durable on the Idempotency-Key claim and writes the transaction
record, so a send whose answer never comes is still on record. A failure here is a failure before
sending: nothing went out.
"""

from __future__ import annotations

from partner.core import request
from partner.core.principal import Principal
from partner.store import txrecords
from partner.store.txrecords import Outgoing


def before_send(principal: Principal, outgoing: Outgoing) -> None:
    """Make `outgoing` durable for `principal`'s request before it is sent: on the request's
    Idempotency-Key claim when it has one (what the edge gave the request to record it, `sends`:
    partner.edge.http.write_once), and as its transaction record."""
    sends = request.current().sends
    if sends is not None:
        sends.record(outgoing)
    txrecords.record(principal, outgoing)
    if sends is not None:
        sends.started()
