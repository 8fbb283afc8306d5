"""The status of a transaction by signature, and the bundle records it reads. The service's records
answer only their owner (docs/writes.md, "Transaction lifecycle": "Status endpoint").
"""

from __future__ import annotations

from typing import Any

from solders.pubkey import Pubkey
from solders.signature import Signature

from partner.chain import ports
from partner.chain.errors import spec_code_for_transaction_error
from partner.chain.rpc import LOOKUP, BlockEngine, Rpc
from partner.core import clock
from partner.core.errors import ApiError
from partner.core.settings import get_settings
from partner.store import bundles, txrecords
from partner.store.bundles import bundle_pk

MAX_SIGNATURE_CHARS = 88
BUNDLE_RECORD_DAYS = 7
INFLIGHT = {"Landed": "processed", "Failed": "failed", "Pending": "pending", "Invalid": "invalid"}
NOT_LANDED = ("failed", "invalid")  # Jito: Failed, or Invalid (dropped, or older than its 5-minute look-back)
# An engine's `Invalid` (an id it does not hold) is taken as final only this long after the send:
# a block engine may not have registered a bundle it has just accepted.
INVALID_SETTLE_SECONDS = 8.0


def invalid_is_final(record: dict[str, Any] | None) -> bool:
    """Whether the bundle of `record` was sent `INVALID_SETTLE_SECONDS` ago (a record written
    before `sent_at` was kept: long ago)."""
    sent_at = (record or {}).get("sent_at")
    return sent_at is None or clock.now() - float(sent_at) >= INVALID_SETTLE_SECONDS


def parse_signature(text: str) -> Signature:
    """A transaction signature: base58 of exactly 64 bytes, else 400 invalid_input."""
    try:
        if len(text) > MAX_SIGNATURE_CHARS:
            raise ValueError
        return Signature.from_string(text)
    except ValueError as exc:
        raise ApiError(
            "invalid_input", "signature must be the base58 encoding of 64 bytes.", field="signature"
        ) from exc


def bundle_keys(signature: str) -> dict[str, list[str]]:
    """The bundle and transaction records to read with the access token (nothing for a path value
    that is not a signature: empty or over-long keys are not even valid DynamoDB keys; it is
    answered 400 after admission)."""
    try:
        parse_signature(signature)
    except ApiError:
        return {}
    return {get_settings().counters_table: [bundle_pk(signature)], **txrecords.keys(signature)}


def record_bundle(bundle_id: str, signatures: list[str], *, last_valid_block_height: int | None = None) -> None:
    """Remember that `signatures` were sent together as bundle `bundle_id` (one record per
    signature, so any of them finds the bundle). `last_valid_block_height` of the bundle's
    blockhash lets the status tell an expired bundle from a pending one."""
    now = clock.now_int()
    bundles.record(
        bundle_id,
        signatures,
        now=now,
        expires_at=now + BUNDLE_RECORD_DAYS * 86_400,
        last_valid_block_height=last_valid_block_height,
    )


def _bundle_status(engine: BlockEngine, bundle_id: str, found: dict[str, Any] | None) -> str:
    """The bundle's status: the commitment of its landed transaction (`found`, the signature's
    status: a bundle lands only whole and without errors), else the engine's in-flight status
    (`pending` while Jito says Pending; one block-engine call, its rate limit being 1 a second)."""
    if found is not None and found.get("err") is None:
        return str(found.get("confirmationStatus") or "processed")
    inflight = engine.inflight_statuses([bundle_id])[0] or {}
    return INFLIGHT.get(str(inflight.get("status")), "pending")


def program_ids(rpc: Rpc, signature: Signature) -> list[Pubkey] | None:
    """Top-level program ids of a landed transaction (to map Custom(1) of System vs Token), read
    at `confirmed` (getTransaction takes no lower); None until it is confirmed."""
    found = rpc.call(
        "getTransaction",
        [str(signature), {"encoding": "json", "maxSupportedTransactionVersion": 0, "commitment": LOOKUP}],
    )
    if not found:
        return None
    message = found["transaction"]["message"]
    keys = message["accountKeys"]
    return [Pubkey.from_string(keys[i["programIdIndex"]]) for i in message["instructions"]]


def status_of(
    signature: Signature,
    rpc: Rpc,
    engine: BlockEngine,
    record: dict[str, Any] | None,
    sent: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """`record` is the bundle record, `sent` the transaction record (either may be None)."""
    text = str(signature)
    out: dict[str, Any] = {"signature": text, "status": "not_found", "slot": None, "error": None, "bundle": None}
    alone = sent if record is None else None  # a bundle's expiry is read off its own record below
    if alone is not None and alone.get("status") == "expired":
        out["status"], out["error"] = "expired", "tx_expired"
        return out
    # the height before the status: a transaction unknown at a height past its expiry never lands
    height = rpc.block_height() if alone is not None and alone.get("status") == "sent" else None
    found = rpc.signature_statuses([signature])[0]
    bundle_status = None
    if record is not None:
        bundle_status = _bundle_status(engine, record["bundle_id"], found)
        out["bundle"] = {
            "bundleId": record["bundle_id"],
            "signatures": list(record["signatures"]),
            "status": bundle_status,
        }
    if found is not None:
        out["slot"] = found.get("slot")
        if found.get("err") is not None:
            out["status"] = "failed"
            out["error"] = spec_code_for_transaction_error(found["err"], program_ids(rpc, signature)) or "tx_failed"
        else:
            out["status"] = found.get("confirmationStatus") or "processed"
    elif record is not None:
        expiry = record.get("last_valid_block_height")
        if bundle_status == "failed":
            out["status"], out["error"] = "failed", "tx_failed"
        elif expiry is not None and rpc.block_height() > int(expiry):
            out["status"], out["error"] = "expired", "tx_expired"  # as a lone send's, and the webhook's
        elif bundle_status == "invalid" and invalid_is_final(record):  # dropped by the engine: it never lands
            out["status"], out["error"] = "failed", "tx_failed"
        else:
            out["status"] = "pending"
    elif alone is not None and height is not None and height > int(alone["last_valid_block_height"]):
        out["status"], out["error"] = "expired", "tx_expired"
    return out


def owned(sent: dict[str, Any] | None, client_id: str, user_id: str) -> bool:
    """Whether the transaction record `sent` is of a send by this client and user."""
    return sent is not None and sent.get("client_id") == client_id and sent.get("user_id") == user_id


def lookup(text: str, read: dict[str, dict[str, Any]], client_id: str, user_id: str) -> dict[str, Any]:
    """The status answer for a signature string from the path, for the caller `client_id`/`user_id`;
    `read` holds what the admission batch fetched (the transaction and bundle records, when there
    are); records of another caller's send are left out, as if there were none.

    `status` is the chain's commitment (`processed`, `confirmed`, `finalized`), `failed` when it
    landed with an error (`error` = the mapped spec code), `pending` when this service sent it in
    a bundle that has not landed yet, `expired` (`error` = `tx_expired`) when this service sent
    it, alone or in a bundle, and its blockhash expired before it landed (the transaction record
    says so, or the block height is past the recorded `lastValidBlockHeight`), and `not_found` when neither the
    chain nor the service knows it. `bundle` describes the bundle the signature was sent in, if any.
    """
    signature = parse_signature(text)
    settings = get_settings()
    sent = read.get(text)
    if not owned(sent, client_id, user_id):
        return status_of(signature, ports.current().rpc(), BlockEngine(settings.block_engine_url), None, None)
    return status_of(
        signature, ports.current().rpc(), BlockEngine(settings.block_engine_url), read.get(bundle_pk(text)), sent
    )
