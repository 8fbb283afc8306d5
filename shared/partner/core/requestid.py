"""The id of the request being served: API Gateway's `requestContext.requestId`.

API Gateway gives every request its own id (a UUID); `partner.edge.http.entry` binds it at the start
of each invocation, so domain code can name the request without seeing the event (the memo that
makes each request's transaction unique, `partner.chain.unique`).
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

_current: ContextVar[str | None] = ContextVar("partner_request_id", default=None)


def begin(event: dict[str, Any]) -> None:
    """Bind the id of the request `event` carries (None when it carries none)."""
    request_id = (event.get("requestContext") or {}).get("requestId")
    _current.set(request_id if isinstance(request_id, str) and request_id else None)


def current() -> str | None:
    return _current.get()
