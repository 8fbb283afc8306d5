"""Idempotency-Key claims: one item per client, user and key in the idempotency table. A claim is
held by an `owner` (one invocation) under a lease; it records what was sent, then the answer.
Every write is conditional on the owner, so an invocation whose lease was taken over writes nothing."""

from __future__ import annotations

from typing import Any, NamedTuple

from partner.store import ddb


class Holder(NamedTuple):
    """A claim's item (its table and key) and the invocation that holds it or asks for it."""

    table: str
    pk: str
    owner: str

    def held(
        self, expression: str, vals: dict[str, Any], condition: str = "#o = :me", names: dict[str, str] | None = None
    ) -> ddb.Update:
        """`expression` on the claim, on `condition`: that this owner (#o = :me) still holds it."""
        names, vals = {"#o": "owner", **(names or {})}, {":me": self.owner, **vals}
        return ddb.Update(self.table, self.pk, expression, condition, names, vals)


def claim(
    holder: Holder, *, fp: str, now: int, lease_until: int, expires_at: int
) -> tuple[bool, dict[str, Any] | None]:
    """Claim a new or expired key for `holder.owner`: (True, _) when taken, else (False, the item as it is)."""
    table, pk, owner = holder
    return ddb.update_or_current(
        ddb.Update(
            table,
            pk,
            "SET fp = :fp, #s = :running, #o = :owner, lease_until = :lease, expires_at = :exp, created_at = :now "
            "REMOVE signatures, lvbh, kind, mint, #st, body, hdrs",
            condition="attribute_not_exists(pk) OR expires_at <= :now",
            names={"#s": "state", "#o": "owner", "#st": "status"},
            vals={
                ":fp": fp,
                ":running": "running",
                ":owner": owner,
                ":lease": lease_until,
                ":exp": expires_at,
                ":now": now,
            },
        )
    )


def take_over(holder: Holder, *, old_owner: str, lease_until: int) -> bool:
    """Take a running claim whose lease ran out from `old_owner` (False: someone else did)."""
    table, pk, owner = holder
    ok, _ = ddb.update_or_current(
        ddb.Update(
            table,
            pk,
            "SET #o = :owner, lease_until = :lease",
            condition="#o = :old AND #s = :running",
            names={"#o": "owner", "#s": "state"},
            vals={":owner": owner, ":old": old_owner, ":running": "running", ":lease": lease_until},
        )
    )
    return ok


def record_send(
    holder: Holder, *, now: int, signatures: list[str], last_valid_block_height: int, kind: str, mint: str
) -> bool:
    """Put the signatures about to be sent on the claim, while `holder.owner` still holds its lease."""
    sent = {":sigs": signatures, ":lvbh": last_valid_block_height, ":kind": kind, ":mint": mint, ":now": now}
    expression = "SET signatures = :sigs, lvbh = :lvbh, kind = :kind, mint = :mint"
    return ddb.applied(holder.held(expression, sent, "#o = :me AND lease_until > :now"))


def release(holder: Holder) -> None:
    """Expire the claim now (the next request with the key claims it afresh)."""
    ddb.update(holder.held("SET expires_at = :gone REMOVE lease_until", {":gone": 0}))


def finish(holder: Holder, *, now: int, status: int, body: str, headers: dict[str, str]) -> bool:
    """Store the final answer, while `holder.owner` holds the claim."""
    answer = {":done": "done", ":status": status, ":body": body, ":hdrs": headers, ":now": now}
    expression = "SET #s = :done, #st = :status, body = :body, hdrs = :hdrs, done_at = :now REMOVE lease_until"
    return ddb.applied(holder.held(expression, answer, names={"#s": "state", "#st": "status"}))
