"""Atomic counters: rate-limit windows, daily volume, and the event lists of the failed-authentication
lockout.

Each counter is one item updated with a single conditional UpdateItem, so concurrent
Lambdas never overshoot a limit. TTL only cleans up expired windows.
"""

from __future__ import annotations

from dataclasses import dataclass

from partner.core import parallel
from partner.core.settings import get_settings
from partner.store import ddb


@dataclass(frozen=True)
class Hit:
    allowed: bool
    count: int  # the count after this hit (or the current count when refused)


def _table() -> str:
    return get_settings().counters_table


def _add_within(pk: str, amount: int, expires_at: int, cap: int | None = None) -> ddb.Update:
    """ADD `amount` to the window's count and set its expiry; with a `cap`, only while the total
    stays within it."""
    vals = {":n": amount, ":exp": expires_at}
    condition = None
    if cap is not None:
        condition, vals[":room"] = "attribute_not_exists(#c) OR #c <= :room", cap - amount
    return ddb.Update(_table(), pk, "ADD #c :n SET expires_at = :exp", condition, {"#c": "count"}, vals)


def hit(pk: str, limit: int, expires_at: int) -> Hit:
    """Take one unit from a fixed window of `limit`; refuse at the limit without counting."""
    out = ddb.update(_add_within(pk, 1, expires_at, limit), return_values="UPDATED_NEW")
    if out is None:
        return Hit(False, limit)
    return Hit(True, int(out["count"]))


def unhit(pk: str) -> None:
    """Give back one unit `hit` took (unconditional; the window's item exists)."""
    release(pk, 1)


def read(pk: str) -> int:
    item = ddb.get(_table(), pk)
    return int(item.get("count", 0)) if item else 0


def add(pk: str, amount: int, expires_at: int) -> int:
    out = ddb.update(_add_within(pk, amount, expires_at), return_values="UPDATED_NEW")
    assert out is not None
    return int(out["count"])


def reserve(pk: str, amount: int, cap: int, expires_at: int) -> tuple[bool, int]:
    """Add `amount` if the total stays within `cap`. Returns (reserved, total).

    Reserving nothing (`amount` <= 0) changes nothing and always succeeds (no write; the total is
    not read, -1). An `ADD` of 0 leaves the item as it was, so DynamoDB returns no updated
    attribute to read the total from."""
    if amount <= 0:
        return True, -1
    if amount > cap:
        return False, read(pk)
    done, item = ddb.update_or_current(_add_within(pk, amount, expires_at, cap), return_values="UPDATED_NEW")
    return done, int((item or {}).get("count", 0))


def release(pk: str, amount: int) -> None:
    if amount <= 0:  # nothing was reserved
        return
    ddb.update(ddb.Update(_table(), pk, "ADD #c :n", names={"#c": "count"}, vals={":n": -amount}))


# ------------------------------------------------------------------ event lists (the lockout)
# One item holds the timestamps (ms) of a key's recent events in `ev`, in the order they were
# appended. Appending is one unconditional UpdateItem (list_append), so concurrent events are
# never lost; `trims` versions the removal of expired entries, so two trims never both remove.


def events(pk: str) -> list[int]:
    item = ddb.get(_table(), pk)
    return [int(t) for t in (item or {}).get("ev", [])]


def append_event(pk: str, stamp_ms: int, expires_at: int) -> tuple[list[int], int]:
    """Append one event; returns (every stored event, the trim version), from the same call."""
    out = ddb.update(
        ddb.Update(
            _table(),
            pk,
            "SET ev = list_append(if_not_exists(ev, :empty), :one), expires_at = :exp",
            vals={":empty": [], ":one": [stamp_ms], ":exp": expires_at},
        ),
        return_values="ALL_NEW",
    )
    assert out is not None
    return [int(t) for t in out.get("ev", [])], int(out.get("trims", 0))


def drop_events(pk: str, indexes: list[int], trims: int) -> bool:
    """Remove the entries at `indexes` if no other trim ran since version `trims` (appends only
    add at the end, so the indexes still point at the same entries); False if one did."""
    removes = ", ".join(f"ev[{i}]" for i in indexes)
    if trims:
        condition, vals = "trims = :v", {":v": trims, ":next": trims + 1}
    else:
        condition, vals = "attribute_not_exists(trims)", {":next": 1}
    return ddb.applied(ddb.Update(_table(), pk, f"REMOVE {removes} SET trims = :next", condition=condition, vals=vals))


def reserve_all(amount: int, caps: list[tuple[str, int | None]], expires_at: int) -> tuple[int, int] | None:
    """Add `amount` to every counter of `caps` ([(pk, cap)]) if each stays within its cap,
    all or none. None when reserved; else (index of the first counter that refused, its count then).

    The capped counters: one conditional UpdateItem each, in order, the widest first (the client's
    day before a grant's), so that a later one, which only ever counts what already passed the
    earlier, refuses only on its own cap. A counter with cap None has no cap that could refuse (a
    grant's day whose user set no lower limit: it counts part of what the client's day counts,
    under the same cap); it is added unconditionally at once, beside the first, on
    `partner.core.parallel`'s pool (the reservation is then one call's time). Those taken
    are given back (a compensating release) when any refuses or fails.
    Never one transaction over them: a transaction conflicts with every other on the same item,
    so a busy client's day counter would cancel most of its concurrent trades, while single-item
    conditional updates on one item serialize without conflict. Each update is conditional, so
    no counter ever passes its cap. What this gives up near a cap: between a reservation and its
    compensation, a counter holds volume that is then given back, so a concurrent trade may be
    refused although it would have fitted a moment later (a refusal, never an overshoot); a
    process that dies in that moment leaves its reservation counted for the day (the
    conservative direction)."""
    counted = [pk for pk, cap in caps if cap is None] if amount > 0 else []
    adding = [parallel.submit(add, pk, amount, expires_at) for pk in counted]
    taken: list[str] = []
    refused: tuple[int, int] | None = None
    failure: BaseException | None = None
    try:
        for i, (pk, cap) in enumerate(caps):
            if cap is None:
                continue
            reserved, total = reserve(pk, amount, cap, expires_at)
            if not reserved:
                refused = (i, total)
                break
            taken.append(pk)
    except BaseException as exc:  # raised below, once what was added is known
        failure = exc
    for pk, future in zip(counted, adding, strict=True):
        try:
            future.result()
            taken.append(pk)
        except BaseException as exc:
            failure = failure or exc
    if failure is not None or refused is not None:
        release_all(taken, amount)
        if failure is not None and refused is None:
            raise failure
    return refused


def release_all(pks: list[str], amount: int) -> None:
    """Give back a reservation of `reserve_all` (one unconditional update per counter)."""
    for pk in pks:
        release(pk, amount)
