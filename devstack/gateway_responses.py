"""API Gateway's own answers (gateway responses), rendered from the template as AWS renders them.

    responses = template.gateway_responses()
    status, headers, body = render(responses, GatewayError.of("THROTTLED"), context)

`render` says which response a type gets and how its template is filled.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["BUILTIN", "DEFAULT_TEMPLATE", "GatewayError", "render", "substitute"]

# type -> (status API Gateway sends, $context.error.message, x-amzn-ErrorType)
BUILTIN: dict[str, tuple[int, str, str]] = {
    "MISSING_AUTHENTICATION_TOKEN": (403, "Missing Authentication Token", "MissingAuthenticationTokenException"),
    "THROTTLED": (429, "Too Many Requests", "TooManyRequestsException"),
    "REQUEST_TOO_LARGE": (413, "Request Too Long", "BadRequestException"),
    "INTEGRATION_TIMEOUT": (504, "Endpoint request timed out", "InternalServerErrorException"),
    # a failed invoke (the function raised, timed out on its own, answered a malformed or
    # oversized proxy result): 502 Internal server error
    "INTEGRATION_FAILURE": (502, "Internal server error", "InternalServerErrorException"),
}
DEFAULT_TEMPLATE = '{"message":$context.error.messageString}'

_VARIABLE = re.compile(r"\$(?:\{context\.([A-Za-z0-9_.]+)\}|context\.([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*))")


@dataclass(frozen=True)
class GatewayError:
    """One answer API Gateway gives itself: its gateway response type, status and message."""

    type: str
    status: int
    message: str
    error_type: str

    @classmethod
    def of(cls, kind: str) -> GatewayError:
        status, message, error_type = BUILTIN[kind]
        return cls(kind, status, message, error_type)


def substitute(template: str, variables: Mapping[str, Any]) -> str:
    """``$context.X`` variables replaced by ``variables["X"]`` (unknown: empty)."""

    def replace(match: re.Match[str]) -> str:
        value = variables.get(match.group(1) or match.group(2))
        return "" if value is None else str(value)

    return _VARIABLE.sub(replace, template)


def _header_value(
    expression: str, request_headers: list[tuple[str, str]], query: Mapping[str, list[str]]
) -> str | None:
    expression = expression.strip()
    if len(expression) >= 2 and expression[0] == expression[-1] == "'":
        return expression[1:-1]
    if expression.startswith("method.request.header."):
        name = expression[len("method.request.header.") :].lower()
        found = None
        for k, v in request_headers:
            if k.lower() == name:
                found = v
        return found
    if expression.startswith("method.request.querystring."):
        values = query.get(expression[len("method.request.querystring.") :])
        return values[-1] if values else None
    return None


def render(
    responses: Mapping[str, Mapping[str, Any]],
    error: GatewayError,
    context: Mapping[str, Any],
    *,
    request_headers: list[tuple[str, str]] | None = None,
    query: Mapping[str, list[str]] | None = None,
) -> tuple[int, list[tuple[str, str]], bytes]:
    """(status, headers, body) of the gateway response for ``error``.

    ``responses`` is ``Template.gateway_responses()``; ``context`` the request's
    ``$context`` variables (``requestId``, ``httpMethod``, ...), to which the error's own
    (``error.message``, ``error.messageString``, ``error.responseType``) are added.

    When API Gateway answers a request itself (no route, stage throttle, a payload over a
    quota, an integration timeout or a failed invoke) it sends the gateway response of that
    type: the one the API defines (``GatewayResponses`` in template.yaml, read by
    ``Template.gateway_responses``), else the API's ``DEFAULT_4XX`` / ``DEFAULT_5XX``, else
    API Gateway's built-in default, ``{"message":$context.error.messageString}`` with the
    type's own status.

    Templates are not VTL: ``$context.NAME`` / ``${context.NAME}`` variables are substituted
    (``error.message``, ``error.messageString`` (quoted JSON string), ``error.responseType``,
    ``requestId``, ``httpMethod``, ``path``, ``resourcePath``, ``stage``, ``identity.sourceIp``,
    ...), an unknown variable becoming empty. Header values are static (``'text'``) or
    ``method.request.header.NAME`` / ``method.request.querystring.NAME``; others are left out.
    """
    default = responses.get("DEFAULT_4XX" if error.status < 500 else "DEFAULT_5XX")
    spec = responses.get(error.type) or default or {}
    status = spec.get("StatusCode") or (default or {}).get("StatusCode") or error.status
    variables = {
        **context,
        "error.message": error.message,
        "error.messageString": json.dumps(error.message),
        "error.responseType": error.type,
    }
    templates = spec.get("Templates") or {}
    template = templates.get("application/json") or next(iter(templates.values()), None) or DEFAULT_TEMPLATE
    headers: list[tuple[str, str]] = [("Content-Type", "application/json")]
    for name, expression in (spec.get("Headers") or {}).items():
        value = _header_value(expression, request_headers or [], query or {})
        if value is None:
            continue
        if name.lower() == "content-type":
            headers = [h for h in headers if h[0].lower() != "content-type"]
        headers.append((name, value))
    headers.append(("x-amzn-ErrorType", error.error_type))
    if context.get("requestId"):
        headers.append(("x-amzn-RequestId", str(context["requestId"])))
    return int(status), headers, substitute(template, variables).encode("utf-8")
