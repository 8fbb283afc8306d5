"""The answers every floor may build: a JSON answer and a web page with the pages' security headers
(Powertools' `Response`). partner.edge.errors maps exceptions onto them.
"""

from __future__ import annotations

import json
from typing import Any

from aws_lambda_powertools.event_handler import Response

JSON = "application/json"
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
PAGE_HEADERS = {
    **NO_STORE,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
}


def json_response(status: int, body: Any, headers: dict[str, str] | None = None) -> Response:
    return Response(
        status_code=status,
        content_type=JSON,
        body=json.dumps(body, separators=(",", ":")),
        headers=headers or {},
    )


def html(status: int, body: str, headers: dict[str, str] | None = None) -> Response:
    """A web page, with the pages' security headers."""
    return Response(
        status_code=status,
        content_type="text/html; charset=utf-8",
        body=body,
        headers={**PAGE_HEADERS, **(headers or {})},
    )
