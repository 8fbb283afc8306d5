"""Waiting, bounded, for a signature to reach a commitment."""

from __future__ import annotations

import time

from solders.signature import Signature

from partner.chain.rpc import Rpc

ORDER = {"processed": 0, "confirmed": 1, "finalized": 2}


def wait_for(
    rpc: Rpc,
    signature: Signature,
    *,
    commitment: str = "processed",
    timeout: float = 20.0,
    last_valid_block_height: int | None = None,
    poll: float = 0.2,
) -> dict | None:
    """The signature's status once it reaches `commitment` (err may be set), or None when it
    expired (block height past `last_valid_block_height`) or the wait ran out."""
    deadline = time.monotonic() + timeout
    while True:
        status = rpc.signature_statuses([signature])[0]
        if status is not None:
            level = status.get("confirmationStatus") or "processed"
            if status.get("err") is not None or ORDER.get(level, 0) >= ORDER[commitment]:
                return status
        if last_valid_block_height is not None and rpc.block_height() > last_valid_block_height:
            status = rpc.signature_statuses([signature])[0]
            return status
        if time.monotonic() >= deadline:
            return None
        time.sleep(poll)
