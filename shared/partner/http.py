"""The one place that turns domain results and errors into API Gateway responses.

Each function builds its resolver with `make_app()` and exposes `entry(app, bucket)` as
its handler. Every response of a route that has a rate-limit bucket carries the bucket's
`x-ratelimit-*` headers; errors become the spec's Error object.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl

from partner import observability, ratelimit, requestid
from partner.errors import ApiError, RateLimited
from partner.ratelimit import BucketState
from partner.router import App, Response

logger = observability.logger  # structured JSON, redacting, correlation id = API Gateway request id
_local = threading.local()

MAX_JSON_BODY = 64 * 1024
JSON = "application/json"


def set_bucket(state: BucketState) -> None:
    _local.bucket = state


def json_response(status: int, body: Any, headers: dict[str, str] | None = None) -> Response:
    return Response(
        status_code=status,
        content_type=JSON,
        body=json.dumps(body, separators=(",", ":")),
        headers=headers or {},
    )


def error_response(exc: ApiError) -> Response:
    _local.code = exc.code
    return json_response(exc.status, exc.body(), exc.headers)


def _rate_limited(exc: RateLimited) -> Response:
    _local.code = "rate_limited"
    _local.bucket = BucketState(exc.limit, 0, exc.retry_after)
    return json_response(
        429,
        {"message": "Too many requests to this endpoint; wait for the window to reset.",
         "retryAfterSeconds": exc.retry_after},
        {"retry-after": str(exc.retry_after)},
    )


def _api_error(exc: ApiError) -> Response:
    if exc.status >= 500:
        logger.warning("request failed", extra={"error": exc.code})
    return error_response(exc)


def _unexpected(exc: Exception) -> Response:
    logger.exception("unhandled error", extra={"error_type": type(exc).__name__})
    return error_response(ApiError("internal"))


def make_app() -> App:
    app = App()
    app.exception_handler(ApiError)(_api_error)

    @app.exception_handler(RateLimited)
    def _limited(exc: RateLimited) -> Response:
        return _rate_limited(exc)

    @app.not_found
    def _not_found(_exc: Exception) -> Response:
        return error_response(ApiError("not_found"))

    app.exception_handler(Exception)(_unexpected)
    return app


def entry(app: App, bucket: str | None = None) -> Callable[[dict, Any], dict]:
    """The Lambda handler for `app`: resolve, then add the bucket's headers; logs, metrics, trace."""

    def lambda_handler(event: dict, context: Any) -> dict:
        requestid.begin(event)
        _local.code = None
        _local.bucket = ratelimit.untouched(bucket) if bucket else None
        response = app.resolve(event, context)
        state: BucketState | None = getattr(_local, "bucket", None)
        if state is not None:
            multi = response.setdefault("multiValueHeaders", {}) or {}
            for name, value in state.headers().items():
                multi[name] = [value]
            response["multiValueHeaders"] = multi
        return response

    return observability.instrument_api(lambda_handler, lambda: getattr(_local, "code", None))


# ---------------------------------------------------------------- request helpers

def header(event_headers: dict[str, str] | None, name: str) -> str | None:
    lname = name.lower()
    for key, value in (event_headers or {}).items():
        if key.lower() == lname:
            return value
    return None


def source_ip(event: dict) -> str:
    return ((event.get("requestContext") or {}).get("identity") or {}).get("sourceIp") or "unknown"


def single_params(pairs: list[tuple[str, str]]) -> dict[str, str]:
    """Name -> value; a repeated parameter is invalid_request (RFC 6749 section 3.1)."""
    out: dict[str, str] = {}
    for key, value in pairs:
        if key in out:
            raise ApiError("invalid_request", f"Parameter {key[:40]} is repeated.")
        out[key] = value
    return out


def parse_params(body: str | None, content_type: str | None, *, allow_json: bool = True) -> dict[str, str]:
    """Form or JSON parameters; a repeated or non-string parameter is invalid_request."""
    ctype = (content_type or "").split(";")[0].strip().lower()
    text = body or ""
    if len(text.encode()) > MAX_JSON_BODY:
        raise ApiError("invalid_request", "The request body is over 64 KiB.")
    if ctype == "application/x-www-form-urlencoded":
        return single_params(parse_qsl(text, keep_blank_values=True, strict_parsing=False))
    if ctype == JSON and allow_json:
        try:
            data = json.loads(text or "null")
        except ValueError as exc:
            raise ApiError("invalid_request", "The body is not valid JSON.") from exc
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            raise ApiError("invalid_request", "The body must be a JSON object of string values.")
        return data
    raise ApiError(
        "invalid_request",
        "Content-Type must be application/x-www-form-urlencoded" + (" or application/json." if allow_json else "."),
    )


def write_once(event: dict, principal, body_digest: Callable[[], str], action: Callable[[], Any]) -> Response:
    """Run a write (`action()` -> the 200 body) under the request's Idempotency-Key, if it has one.

    Without the header this is exactly `json_response(200, action())`, errors raised as before.
    With it (checked here: 400 invalid_input, not stored): claim the key, then replay the stored
    answer, or run and store whatever the write answers (partner.idempotency).
    """
    from partner import idempotency

    key = idempotency.key_from(event.get("headers"), event.get("multiValueHeaders"))
    if key is None:
        return json_response(200, action())
    route = event.get("resource") or event.get("path") or ""
    got = idempotency.claim(principal, key, idempotency.fingerprint(event.get("httpMethod") or "POST", route,
                                                                    body_digest()))
    if isinstance(got, idempotency.Stored):
        return _stored_response(got, replayed=True)
    if got.recovery is not None:
        answer, response = got.recovery, _stored_response(got.recovery, replayed=False)
    else:
        token = idempotency.activate(got)
        try:
            response = json_response(200, action())
        except ApiError as exc:
            response = _api_error(exc)
        except Exception as exc:  # noqa: BLE001 - answered (and stored) as the resolver would
            response = _unexpected(exc)
        finally:
            idempotency.deactivate(token)
        answer = idempotency.Stored(response.status_code, response.body, idempotency.stored_headers(response.headers))
    try:
        if answer.status == 429:  # a rate limit builds nothing: the key stays unused
            idempotency.release(got)
        elif not idempotency.finish(got, answer):
            logger.warning("idempotency claim lost before its answer was stored")
    except ApiError:
        logger.warning("idempotency answer not stored", extra={"error": "internal"})
    return response


def _stored_response(stored, *, replayed: bool) -> Response:
    headers = dict(stored.headers)
    if replayed:
        headers["idempotent-replayed"] = "true"
    if stored.status >= 400:
        try:
            _local.code = json.loads(stored.body).get("error") or "error"
        except (ValueError, AttributeError):
            _local.code = "error"
    return Response(status_code=stored.status, content_type=None, body=stored.body, headers=headers)


def write_endpoint(method_path: str, bucket: str, scope: str | tuple[str, ...], model: type, action,
                   special: dict[str, str] | None = None, *, keyed: bool = True):
    """A /partner/v1 JSON POST: admit -> parse `model` -> `action(principal, request)` -> 200 JSON,
    under the request's Idempotency-Key when `keyed` (every write; not the quote, which writes nothing)."""
    from partner import access, idempotency
    from partner.inputs import parse_json

    route = access.Route(bucket=bucket, scope=scope)
    app = make_app()

    @app.post(method_path)
    def _write() -> Response:
        event = app.current_event
        principal = access.admit(event.headers, route, set_bucket)
        request = parse_json(event.decoded_body, header(event.headers, "content-type"), model, special)
        if not keyed:
            return json_response(200, action(principal, request))
        return write_once(event.raw_event, principal, lambda: idempotency.json_digest(event.decoded_body),
                          lambda: action(principal, request))

    return app, entry(app, bucket)
