"""The request being served, in one place: a `RequestContext` the function's entry sets at the start of
each invocation (`partner.edge.http.entry`, `begin`) and anything below reads (`current`).

It holds what used to travel through four hidden channels: the request id (`partner.core.requestid`),
the headers it repeats, the error code it was answered with and its rate-limit bucket (the response's
`x-ratelimit-*` headers), and what a write must record before it sends (`sends`, set by the edge's
Idempotency-Key handling: partner.edge.http.write_once). A context variable, so each thread (the
devstack's) and each pool task (partner.core.parallel runs it in the caller's context) sees its own.
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from dataclasses import dataclass
from typing import Any, Protocol


class Sends(Protocol):
    """What a write records before anything reaches the network (partner.send.presend)."""

    def record(self, outgoing: Any) -> None:
        """Make the signatures of `outgoing` (partner.store.txrecords.Outgoing) durable before the send."""

    def started(self) -> None:
        """Everything is durable and the send starts now: from here on the write may be in flight."""


@dataclass
class RequestContext:
    request_id: str | None = None  # API Gateway's requestContext.requestId
    repeated: frozenset[str] = frozenset()  # lower-case names of the headers sent more than once
    code: str | None = None  # the error code answered (metrics); None: success
    bucket: Any = None  # the rate-limit bucket's state (partner.store.ratelimit.BucketState), for its headers
    sends: Sends | None = None  # set while a write runs under an Idempotency-Key claim
    body: tuple[str, Any] | None = None  # the JSON pre-check's (text, parsed object)
    dry: bool = False  # a warm-up request before the SnapStart snapshot (partner.edge.http.warm)


_current: ContextVar[RequestContext | None] = ContextVar("partner_request", default=None)


def repeated_in(event: dict[str, Any]) -> frozenset[str]:
    """The lower-case names of the headers `event` carries more than once: several values in
    `multiValueHeaders`, or one name under two spellings (`Authorization`, `authorization`).
    API Gateway keeps the last value of a repeated header in `headers`: a reader of a header that must
    come once (Authorization, Content-Type) refuses the request (`repeated`) instead."""
    counts: dict[str, int] = {}
    for name, values in (event.get("multiValueHeaders") or {}).items():
        counts[name.lower()] = counts.get(name.lower(), 0) + (len(values) if isinstance(values, list) else 1)
    names = {name for name, count in counts.items() if count > 1}
    seen: set[str] = set()
    for name in event.get("headers") or {}:
        (names if name.lower() in seen else seen).add(name.lower())
    return frozenset(names)


def begin(event: dict[str, Any], *, dry: bool = False) -> Token:
    """A fresh context for the request `event` (every invocation, before anything reads it)."""
    request_id = (event.get("requestContext") or {}).get("requestId")
    return _current.set(
        RequestContext(
            request_id=request_id if isinstance(request_id, str) and request_id else None,
            repeated=repeated_in(event),
            dry=dry,
        )
    )


def end(token: Token) -> None:
    """Back to the context before `begin` (a warm-up's requests)."""
    _current.reset(token)


def current() -> RequestContext:
    """The request being served (outside any: a fresh, empty one, kept for this context)."""
    found = _current.get()
    if found is None:
        found = RequestContext()
        _current.set(found)
    return found


def repeated(name: str) -> bool:
    """Whether the request being served carried header `name` more than once."""
    return name.lower() in current().repeated
