"""Which headers the request being served carried more than once.

API Gateway keeps the last value of a repeated header in the event's `headers` and every value
in `multiValueHeaders`. `partner.edge.http.entry` notes the repeated names at the start of each
invocation (`begin`), so a reader of a header that must come once (Authorization, Content-Type)
refuses the request (`repeated`) instead of reading "the last one wins".
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

_repeated: ContextVar[frozenset[str]] = ContextVar("partner_repeated_headers", default=frozenset())


def repeated_in(event: dict[str, Any]) -> frozenset[str]:
    """The lower-case names of the headers `event` carries more than once: several values in
    `multiValueHeaders`, or one name under two spellings (`Authorization`, `authorization`)."""
    counts: dict[str, int] = {}
    for name, values in (event.get("multiValueHeaders") or {}).items():
        counts[name.lower()] = counts.get(name.lower(), 0) + (len(values) if isinstance(values, list) else 1)
    names = {name for name, count in counts.items() if count > 1}
    seen: set[str] = set()
    for name in event.get("headers") or {}:
        (names if name.lower() in seen else seen).add(name.lower())
    return frozenset(names)


def begin(event: dict[str, Any]) -> None:
    """Note the repeated headers of the request `event` (every invocation, before anything reads one)."""
    _repeated.set(repeated_in(event))


def repeated(name: str) -> bool:
    """Whether the request being served carried header `name` more than once."""
    return name.lower() in _repeated.get()
