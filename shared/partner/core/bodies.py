"""Reading a request: its headers (one value each, or refused), its body as text, a JSON body parsed with
bounds, form and JSON parameters, the Idempotency-Key header. What the edge (partner.edge.http) and the
features that read their own forms (OAuth, the multipart forms) share; errors are ApiErrors.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qsl

from partner.core.answers import JSON
from partner.core.errors import ApiError
from partner.core.request import repeated

MAX_JSON_BODY = 64 * 1024
MAX_JSON_DEPTH = 64  # request bodies are flat; json.loads recurses once per level
IDEMPOTENCY_KEY = "Idempotency-Key"
MAX_IDEMPOTENCY_KEY = 255
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(r"[\[\]{}]")


class TooDeep(ValueError):
    """A JSON text nested deeper than `MAX_JSON_DEPTH`."""


class RepeatedKey(ValueError):
    """A JSON object that names one key twice (after unescaping: "a" and "\\u0061" are one key)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise RepeatedKey(f"repeats the key {json.dumps(key[:40])}")
        out[key] = value
    return out


def loads(text: str, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """`json.loads`, refusing (TooDeep) a text nested deeper than `max_depth` before parsing it, so
    no depth reaches the parser's recursion limit (a RecursionError), and (RepeatedKey) an object
    at any depth that repeats a key. Brackets inside strings do not count; a text with at most
    `max_depth` brackets in all is parsed at once."""
    if text.count("[") + text.count("{") > max_depth:
        depth = 0
        for bracket in _BRACKET.findall(_JSON_STRING.sub("", text)):
            depth += 1 if bracket in "[{" else -1
            if depth > max_depth:
                raise TooDeep(f"nested deeper than {max_depth} levels")
    return json.loads(text, object_pairs_hook=_unique_keys)


def loads_body(text: str, code: str) -> Any:
    """`loads` of a request body; too deep, a repeated key or not JSON at all is 400 `code`
    (`invalid_input`, or OAuth's `invalid_request`)."""
    try:
        return loads(text)
    except TooDeep as exc:
        raise ApiError(code, f"The JSON body is {exc}.") from exc
    except RepeatedKey as exc:
        raise ApiError(code, f"The JSON body {exc}.") from exc
    except ValueError as exc:
        raise ApiError(code, "The body is not valid JSON.") from exc


def body_text(event: Any, code: str) -> str | None:
    """The request body as text (`event`: Powertools' event); a base64 body that does not decode, or
    bytes that are not UTF-8, is 400 `code` (`invalid_input`, or OAuth's `invalid_request`)."""
    try:
        return event.decoded_body
    except ValueError as exc:  # binascii.Error, UnicodeDecodeError
        raise ApiError(code, "The request body is not UTF-8 text.") from exc


def header(event_headers: dict[str, str] | None, name: str) -> str | None:
    lname = name.lower()
    for key, value in (event_headers or {}).items():
        if key.lower() == lname:
            return value
    return None


def content_type(event_headers: dict[str, str] | None, code: str) -> str | None:
    """The request's Content-Type; sent more than once: 400 `code` (`invalid_input`, or `invalid_request`)."""
    if repeated("content-type"):
        raise ApiError(code, "Send one Content-Type header.")
    return header(event_headers, "content-type")


def single_params(pairs: list[tuple[str, str]]) -> dict[str, str]:
    """Name -> value; a repeated parameter is invalid_request (RFC 6749 section 3.1)."""
    out: dict[str, str] = {}
    for key, value in pairs:
        if key in out:
            raise ApiError("invalid_request", f"Parameter {key[:40]} is repeated.")
        out[key] = value
    return out


def parse_params(body: str | None, content_type: str | None, *, allow_json: bool = True) -> dict[str, str]:
    """Form or JSON parameters; a repeated Content-Type header, or a repeated or non-string parameter,
    is invalid_request."""
    if repeated("content-type"):
        raise ApiError("invalid_request", "Send one Content-Type header.")
    ctype = (content_type or "").split(";")[0].strip().lower()
    text = body or ""
    if len(text.encode()) > MAX_JSON_BODY:
        raise ApiError("invalid_request", "The request body is over 64 KiB.")
    if ctype == "application/x-www-form-urlencoded":
        return single_params(parse_qsl(text, keep_blank_values=True, strict_parsing=False))
    if ctype == JSON and allow_json:
        data = loads_body(text or "null", "invalid_request")
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            raise ApiError("invalid_request", "The body must be a JSON object of string values.")
        return data
    raise ApiError(
        "invalid_request",
        "Content-Type must be application/x-www-form-urlencoded" + (" or application/json." if allow_json else "."),
    )


def idempotency_key(headers: dict[str, str] | None, multi: dict[str, list[str]] | None = None) -> str | None:
    """The request's key, None without the header; a malformed or repeated one is 400 invalid_input."""
    values = [v for name, vs in (multi or {}).items() if name.lower() == IDEMPOTENCY_KEY.lower() for v in (vs or [])]
    if len(values) > 1:
        raise ApiError("invalid_input", "Send one Idempotency-Key header.", field=IDEMPOTENCY_KEY)
    value = (
        values[0]
        if values
        else next((v for n, v in (headers or {}).items() if n.lower() == IDEMPOTENCY_KEY.lower()), None)
    )
    if value is None:
        return None
    if not 1 <= len(value) <= MAX_IDEMPOTENCY_KEY or not all(" " <= ch <= "~" for ch in value):
        raise ApiError(
            "invalid_input", "Idempotency-Key must be 1 to 255 printable ASCII characters.", field=IDEMPOTENCY_KEY
        )
    return value
