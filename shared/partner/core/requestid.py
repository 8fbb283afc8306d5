"""The id of the request being served: API Gateway's `requestContext.requestId`.

API Gateway gives every request its own id (a UUID); the function's entry binds it with the request
(partner.core.request), so domain code can name the request without seeing the event (the memo that
makes each request's transaction unique, `partner.chain.unique`).
"""

from __future__ import annotations

from typing import Any

from partner.core import request


def begin(event: dict[str, Any]) -> None:
    """Bind the request `event` (its id: None when it carries none)."""
    request.begin(event)


def current() -> str | None:
    return request.current().request_id
