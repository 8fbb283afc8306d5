"""`Idempotency-Key` on every /partner/v1 write: a retry gets the first answer, never a second send.

Claim, replay, takeover and the stored answer: docs/writes.md, "Writes: unique transactions
and Idempotency-Key".
"""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from partner.core import clock, lazy
from partner.core.errors import ApiError
from partner.core.settings import get_settings
from partner.store import idempotency_keys as keys

# only the answer to a retried write that sent transactions asks the chain (a function that sends none,
# such as uploads_create, never does): deferred at init, executed before the snapshot (partner.core.lazy)
if TYPE_CHECKING:  # the checker reads them as the modules they are
    import solders.signature as solders_signature

    from partner.chain import ports
else:
    ports = lazy.module("partner.chain.ports")
    solders_signature = lazy.module("solders.signature")

if TYPE_CHECKING:
    from partner.core.principal import Principal
    from partner.store.txrecords import Outgoing

REPLAYED_HEADER = "idempotent-replayed"
RETENTION_SECONDS = 24 * 3600
LEASE_SECONDS = 60
IN_USE_RETRY_AFTER = 1
_STORED_HEADERS_SKIP = ("x-ratelimit-",)


@dataclass(frozen=True)
class Stored:
    """An answer as it was given: replayed byte for byte."""

    status: int
    body: str
    headers: dict[str, str]


@dataclass
class Claim:
    pk: str
    owner: str
    recovery: Stored | None = None  # set when a takeover found signatures: answer this, run nothing
    sent: bool = False  # presend finished: from here on something may be in flight (`sending`)


# ------------------------------------------------------------------ the header and the fingerprint


def json_digest(body: str | bytes | None) -> str:
    """The canonical JSON body: parsed, then serialized with sorted keys and no spaces."""
    data = json.loads(body or "null")
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def fingerprint(method: str, route: str, body_digest: str) -> str:
    return hashlib.sha256(f"{method.upper()}\n{route}\n{body_digest}".encode()).hexdigest()


def claim_pk(principal: Principal, key: str) -> str:
    return f"IDEM#{principal.client.client_id}#{principal.user.user_id}#{hashlib.sha256(key.encode()).hexdigest()}"


# ------------------------------------------------------------------ claim


def _table() -> str:
    table = get_settings().idempotency_table
    if not table:
        raise ApiError("internal", "Idempotency keys are not configured on this deployment.", retryable=False)
    return table


def _holder(c: Claim) -> keys.Holder:
    return keys.Holder(_table(), c.pk, c.owner)


def _in_use() -> ApiError:
    return ApiError(
        "idempotency_key_in_use",
        headers={"retry-after": str(IN_USE_RETRY_AFTER)},
        retryAfterSeconds=IN_USE_RETRY_AFTER,
        action="Wait retry-after, then send the same request with the same key again.",
    )


def claim(principal: Principal, key: str, fp: str) -> Claim | Stored:
    """Claim `key` for this request: a Claim to run under, or the stored answer to replay."""
    table, pk = _table(), claim_pk(principal, key)
    for _ in range(3):  # a claim that expires or changes hands between two reads: look again
        now = int(clock.now())
        owner = secrets.token_hex(16)
        holder = keys.Holder(table, pk, owner)
        ok, current = keys.claim(
            holder, fp=fp, now=now, lease_until=now + LEASE_SECONDS, expires_at=now + RETENTION_SECONDS
        )
        if ok:
            return Claim(pk, owner)
        if current is None:
            continue
        if current.get("fp") != fp:
            raise ApiError("idempotency_key_reused", action="Use a new Idempotency-Key for a different request.")
        if current.get("state") == "done":
            return Stored(int(current["status"]), current["body"], dict(current.get("hdrs") or {}))
        if int(current.get("lease_until", 0)) > now:
            raise _in_use()
        taken = _take_over(holder, current, now)
        if taken is not None:
            return taken
    raise _in_use()


def _take_over(holder: keys.Holder, current: dict[str, Any], now: int) -> Claim | None:
    """The lease ran out: the first invocation is gone. Take the claim (None: someone else did)."""
    if not keys.take_over(holder, old_owner=current.get("owner", ""), lease_until=now + LEASE_SECONDS):
        return None
    taken = Claim(holder.pk, holder.owner)
    signatures = list(current.get("signatures") or [])
    if signatures:  # the first invocation may have sent these: answer with them, send nothing
        taken.recovery = recovered_answer(
            signatures, int(current.get("lvbh", 0)), current.get("kind"), current.get("mint")
        )
    return taken


TRADE_KINDS = ("buy", "buy_exact_out", "sell")


def recovered_answer(
    signatures: list[str], last_valid_block_height: int, kind: str | None = None, mint: str | None = None
) -> Stored:
    """What a takeover answers for a send whose answer was lost, from what the chain says now:

    - a trade that landed without error -> the 200 the trade would have answered (its body is
      the signature, the mint and `submitted`, all known), byte for byte;
    - every transaction unseen and its blockhash expired: it never landed and never will ->
      422 tx_expired (rebuild and send again, under a new key);
    - one landed with an error -> 422 tx_failed with the chain's error;
    - otherwise (pending; a landed governance write or launch, whose full answer is not known here;
      or the chain cannot tell now) -> the ambiguous 502 rpc_unavailable a timeout after sending
      answers, with the signature(s) to reconcile.
    """
    ids = (
        {"signature": signatures[0]} if len(signatures) == 1 else {"signature": signatures[0], "signatures": signatures}
    )
    statuses: list[dict[str, Any] | None] | None = None
    expired = False
    try:
        chain = ports.current().rpc(timeout=5.0)
        statuses = chain.signature_statuses([solders_signature.Signature.from_string(s) for s in signatures])
        if all(s is None for s in statuses):
            expired = chain.block_height() > last_valid_block_height
    except Exception:  # the chain cannot tell now: the ambiguous answer below
        statuses = None
    landed = statuses is not None and all(s is not None and s.get("err") is None for s in statuses)
    if landed and kind in TRADE_KINDS and mint:
        return _json_answer(200, {"signature": signatures[0], "mint": mint, "status": "submitted"}, {})
    if statuses is not None and expired:
        error = ApiError(
            "tx_expired",
            "An earlier attempt with this Idempotency-Key sent this transaction; it expired without landing.",
            **ids,
            retryable=False,  # stored: final
            action="Nothing landed. Send the write again under a new Idempotency-Key.",
        )
    elif statuses is not None and any(s is not None and s.get("err") is not None for s in statuses):
        failed = next(s for s in statuses if s is not None and s.get("err") is not None)
        error = ApiError(
            "tx_failed",
            "An earlier attempt with this Idempotency-Key sent this transaction; it failed on-chain.",
            **ids,
            chainError=failed["err"],
        )
    else:
        error = ApiError(
            "rpc_unavailable",
            "An earlier attempt with this Idempotency-Key sent this transaction "
            "and its answer was lost; it may have landed.",
            **ids,
            action="Check the signature's status before resending.",
        )
    return _json_answer(error.status, error.body(), error.headers)


def _json_answer(status: int, body: Any, headers: dict[str, str]) -> Stored:
    """What `http.json_response(status, body, headers)` answers, as stored (http imports this module)."""
    return Stored(
        status,
        json.dumps(body, separators=(",", ":")),
        stored_headers({**headers, "Content-Type": headers.get("Content-Type", "application/json")}),
    )


# ------------------------------------------------------------------ while running


@dataclass(frozen=True)
class ClaimSends:
    """What a write under claim `claim` records before it sends (partner.core.request.Sends): the edge puts
    it on the request's context (`http.write_once`), partner.send.presend calls it."""

    claim: Claim

    def record(self, outgoing: Outgoing) -> None:
        """Put the signatures on the claim before they are sent. Only while the claim is still this
        invocation's; otherwise nothing may be sent."""
        ok = keys.record_send(
            _holder(self.claim),
            now=int(clock.now()),
            signatures=list(outgoing.signatures),
            last_valid_block_height=outgoing.last_valid_block_height,
            kind=outgoing.kind,
            mint=outgoing.mint or "",
        )
        if not ok:
            raise ApiError("internal", "This request's Idempotency-Key claim ran out before sending; nothing was sent.")

    def started(self) -> None:
        """Everything is durable and the send starts now; from here on the write may be in flight, so its
        answer is stored and final."""
        self.claim.sent = True


def stored_headers(headers: dict[str, Any] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in (headers or {}).items():
        if name.lower().startswith(_STORED_HEADERS_SKIP):
            continue
        out[name] = ", ".join(value) if isinstance(value, list) else str(value)
    return out


def release(c: Claim) -> None:
    """Give the key back unused (nothing was sent, and the answer invites a retry: a 5xx, a 429, a
    retryable 4xx): the item expires now, so the next request with the key claims it afresh."""
    keys.release(_holder(c))


def finish(c: Claim, answer: Stored) -> bool:
    """Store the final answer (only while the claim is this invocation's)."""
    return keys.finish(_holder(c), now=int(clock.now()), status=answer.status, body=answer.body, headers=answer.headers)
