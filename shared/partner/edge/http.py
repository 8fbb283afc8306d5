"""The one place that turns domain results and errors into API Gateway responses.

Each function builds its resolver with `make_app()` (Powertools' `APIGatewayRestResolver`
with `enable_validation=True`: a route's annotated pydantic body is validated before the route
runs, and `RequestValidationError` becomes the spec's `invalid_input`, `models.invalid`) and
exposes `entry(app, bucket)` as its handler. Check order (design section 2) puts admission
before input: a route's `edge` (`before_validation`) runs ahead of Powertools' validation, with
the thin body pre-check (`json_body`: Content-Type, size, UTF-8, depth, an object) that Powertools
does not make. Route functions have no return annotation: Powertools would validate the (already
serialized) body against it; responses are documented by their models (`partner.edge.responses`).
Every response of a route that has a rate-limit bucket carries the bucket's
`x-ratelimit-*` headers; errors become the spec's Error object. Every response carries
`Strict-Transport-Security`, and every /partner/v1 response `Cache-Control: no-store`
(`secure_headers`). A request body is text (`body_text`) and a JSON body is parsed with
its nesting bounded and no key repeated in any object (`loads`), so neither bytes nor depth can
end in a 500 and no duplicate is read as "the last one wins". Nor is a repeated header: API
Gateway keeps the last value in `headers` and all of them in `multiValueHeaders`; `entry` notes
which headers came more than once (`partner.edge.headers`), and the readers of Authorization and
Content-Type refuse them (`access.bearer_token`, `client_auth.credentials`, `content_type`,
`parse_params`).
"""

from __future__ import annotations

import inspect
import json
import re
import threading
from collections.abc import Callable
from typing import Annotated, Any, cast
from urllib.parse import parse_qsl

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from aws_lambda_powertools.event_handler import api_gateway as powertools_routing
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError
from aws_lambda_powertools.event_handler.openapi.params import Body

from partner.core import observability, requestid, snapshot
from partner.core.errors import ApiError, RateLimited
from partner.edge import headers as request_headers
from partner.edge import models, ratelimit
from partner.edge.ratelimit import BucketState

logger = observability.logger  # structured JSON, redacting, correlation id = API Gateway request id
_local = threading.local()
# Powertools builds a route's middleware stack on its first request, unguarded: two first requests
# at once in one process (the devstack's threads) could run a half-built stack. compile_routes
# builds every stack once, under this lock, before any request runs one.
_compiling = threading.Lock()
_compiled: set[int] = set()

MAX_JSON_BODY = 64 * 1024
MAX_JSON_DEPTH = 64  # request bodies are flat; json.loads recurses once per level
JSON = "application/json"
# Two years, every subdomain; no `preload` while the API host is not final (spec, Versioning).
HSTS = "max-age=63072000; includeSubDomains"
PARTNER_PREFIX = "/partner/v1/"
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(r"[\[\]{}]")


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
        {
            "message": "Too many requests to this endpoint; wait for the window to reset.",
            "retryAfterSeconds": exc.retry_after,
        },
        {"retry-after": str(exc.retry_after)},
    )


def _api_error(exc: ApiError) -> Response:
    if exc.status >= 500:
        logger.warning("request failed", extra={"error": exc.code})
    return error_response(exc)


def _unexpected(exc: Exception, retryable: bool = True) -> Response:
    logger.exception("unhandled error", extra={"error_type": type(exc).__name__})
    return error_response(ApiError("internal", retryable=retryable))


_ROUTE_PARAM = re.compile(r"<(\w+)>")


class Resolver(APIGatewayRestResolver):
    """Powertools' REST resolver, routing a request as API Gateway already did: an event whose `resource`
    is a route's template (`/partner/v1/governance/{mint}`) runs that route with API Gateway's
    `pathParameters` (decoded once; any character, `/` too, or empty), not with what Powertools' pattern
    finds in `path` (still percent-encoded: `%41` is not `A`; no `/`, no empty value: a malformed
    parameter would answer a generic 404 before the route could give the spec's answer). Any other
    event (no template: tests, static routes) is matched on its path, as Powertools does."""

    def _resolve(self):  # noqa: ANN202 - Powertools' ResponseBuilder
        event = self.current_event
        resource = event.resource if "resource" in event.raw_event else None
        if resource and "{" in resource:
            method = event.http_method.upper()
            for route in self._dynamic_routes:
                if route.method == method and _ROUTE_PARAM.sub(r"{\1}", route.path) == resource:
                    self.append_context(_route=route, _path=self._remove_prefix(event.path))
                    given = event.path_parameters or {}
                    values = {name: str(given.get(name) or "") for name in _ROUTE_PARAM.findall(route.path)}
                    return self._call_route(route, values)
        return super()._resolve()


def make_app() -> APIGatewayRestResolver:
    app = Resolver(enable_validation=True)
    validation = app._request_validation_middleware  # Powertools runs it first: our edge goes before it

    def edge_then_validation(app: APIGatewayRestResolver, next_middleware: Callable) -> Any:
        route = app.context.get("_route")
        edge = getattr(getattr(route, "func", None), "edge", None)
        if edge is not None:
            edge(app)
        return validation(app, next_middleware)  # type: ignore[arg-type]  # Powertools' NextMiddleware

    app._request_validation_middleware = edge_then_validation  # type: ignore[assignment]  # our edge, then it
    snapshot.before_snapshot(lambda: compile_routes(app))
    app.exception_handler(ApiError)(_api_error)

    @app.exception_handler(RequestValidationError)
    def _invalid(exc: RequestValidationError) -> Response:
        route = app.context.get("_route")
        special = getattr(getattr(route, "func", None), "special", None)
        return error_response(models.invalid(list(exc.errors()), special, skip=1))

    @app.exception_handler(RateLimited)
    def _limited(exc: RateLimited) -> Response:
        return _rate_limited(exc)

    @app.not_found
    def _not_found(_exc: Exception) -> Response:  # noqa: ARG001
        return error_response(ApiError("not_found"))

    app.exception_handler(Exception)(_unexpected)
    return app


def compile_routes(app: APIGatewayRestResolver) -> None:
    """Build what Powertools builds on a route's first request: its dependant (the pydantic fields and
    type adapters it validates with), its middleware stack, and what it inspects of each middleware and
    of the route's function (their type hints: a `Request` parameter, `Depends()`), which it caches on
    them. Before the SnapStart snapshot, so no restored copy pays for it."""
    with _compiling:
        for route in app._static_routes + app._dynamic_routes:
            route.dependant  # noqa: B018 - builds and caches it
            if not route._middleware_stack_built:
                route._build_middleware_stack(router_middlewares=app._router_middlewares, app=app)
            route.has_dependencies  # noqa: B018 - inspects and caches it
            if not route.request_param_name_checked:  # as _registered_api_adapter does on the first call
                route.request_param_name = powertools_routing._find_request_param_name(route.func)
                route.request_param_name_checked = True
            frame = route._middleware_stack
            while isinstance(frame, powertools_routing.MiddlewareFrame):  # each frame's call inspects its own
                powertools_routing._inspect_middleware(frame.current_middleware)
                frame = frame.next_middleware
        _compiled.add(id(app))


def entry(app: APIGatewayRestResolver, bucket: str | None = None) -> Callable[[dict, Any], dict]:
    """The Lambda handler for `app`: resolve, then add the bucket's headers; logs, metrics, trace."""

    def lambda_handler(event: dict, context: Any) -> dict:
        if id(app) not in _compiled:  # no snapshot ran the hook: build once, not by racing requests
            compile_routes(app)
        requestid.begin(event)
        request_headers.begin(event)
        _local.code = None
        _local.bucket = ratelimit.untouched(bucket) if bucket else None
        response = app.resolve(event, context)
        multi = dict(response.get("multiValueHeaders") or {})
        state: BucketState | None = getattr(_local, "bucket", None)
        if state is not None:
            for name, value in state.headers().items():
                multi[name] = [value]
        secure_headers(multi, str(event.get("path") or ""))
        response["multiValueHeaders"] = multi
        return response

    return observability.instrument_api(lambda_handler, lambda: getattr(_local, "code", None))


def secure_headers(multi: dict[str, list[str]], path: str) -> None:
    """Add HSTS to every answer and `Cache-Control: no-store` to every /partner/v1 answer (all
    statuses: answers carry user data, errors and 429s too), unless the answer set its own."""
    present = {name.lower() for name in multi}
    if "strict-transport-security" not in present:
        multi["Strict-Transport-Security"] = [HSTS]
    if path.startswith(PARTNER_PREFIX) and "cache-control" not in present:
        multi["Cache-Control"] = ["no-store"]


# ---------------------------------------------------------------- request helpers


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
    if request_headers.repeated("content-type"):
        raise ApiError(code, "Send one Content-Type header.")
    return header(event_headers, "content-type")


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
    """Form or JSON parameters; a repeated Content-Type header, or a repeated or non-string parameter,
    is invalid_request."""
    if request_headers.repeated("content-type"):
        raise ApiError("invalid_request", "Send one Content-Type header.")
    ctype = (content_type or "").split(";")[0].strip().lower()
    text = body or ""
    if len(text.encode()) > MAX_JSON_BODY:
        raise ApiError("invalid_request", "The request body is over 64 KiB.")
    if ctype == "application/x-www-form-urlencoded":
        return single_params(parse_qsl(text, keep_blank_values=True, strict_parsing=False))
    if ctype == JSON and allow_json:
        try:
            data = loads(text or "null")
        except TooDeep as exc:
            raise ApiError("invalid_request", f"The JSON body is {exc}.") from exc
        except RepeatedKey as exc:
            raise ApiError("invalid_request", f"The JSON body {exc}.") from exc
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
    answer, or run and store what the write answers (partner.edge.idempotency): an answer that invites a
    retry before anything was sent (5xx, 429, retryable 4xx) releases the key instead, and once
    something may be in flight the stored answer says `retryable: false`.
    """
    from partner.edge import idempotency

    key = idempotency.key_from(event.get("headers"), event.get("multiValueHeaders"))
    if key is None:
        return json_response(200, action())
    route = event.get("resource") or event.get("path") or ""
    got = idempotency.claim(
        principal, key, idempotency.fingerprint(event.get("httpMethod") or "POST", route, body_digest())
    )
    if isinstance(got, idempotency.Stored):
        return _stored_response(got, replayed=True)
    retry_invited = False  # nothing was sent and the answer invites a retry: give the key back
    if got.recovery is not None:
        answer, response = got.recovery, _stored_response(got.recovery, replayed=False)
    else:
        token = idempotency.activate(got)
        try:
            response = json_response(200, action())
        except ApiError as exc:
            if got.sent:  # the send started: it may be in flight; this answer is stored and final
                exc.retryable = False
            retry_invited = not got.sent and (exc.retryable or exc.status >= 500 or exc.status == 429)
            response = _api_error(exc)
        except Exception as exc:  # noqa: BLE001 - answered as the resolver would
            retry_invited = not got.sent
            response = _unexpected(exc, retryable=not got.sent)
        finally:
            idempotency.deactivate(token)
        answer = idempotency.Stored(
            response.status_code, cast(str, response.body), idempotency.stored_headers(response.headers)
        )
    try:
        if retry_invited:  # a retry with the same key runs the write afresh
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


def json_body(app: APIGatewayRestResolver) -> str:
    """The pre-check of a JSON body, before Powertools parses it: one Content-Type, application/json, at
    most 64 KiB of UTF-8 text, nested at most `MAX_JSON_DEPTH` deep, no key repeated, an object; else 400
    invalid_input. The parsed object is the event's `json_body` (what Powertools validates); returns the
    text."""
    event = app.current_event
    text = body_text(event, "invalid_input") or ""
    ctype = (content_type(event.headers, "invalid_input") or "").split(";")[0].strip().lower()
    if ctype != JSON:
        raise ApiError("invalid_input", "Content-Type must be application/json.")
    if len(text.encode()) > MAX_JSON_BODY:
        raise ApiError("invalid_input", "The JSON body is over 64 KiB.")
    try:
        data = loads(text)
    except TooDeep as exc:
        raise ApiError("invalid_input", f"The JSON body is {exc}.") from exc
    except RepeatedKey as exc:
        raise ApiError("invalid_input", f"The JSON body {exc}.") from exc
    except ValueError as exc:
        raise ApiError("invalid_input", "The body is not valid JSON.") from exc
    if not isinstance(data, dict):
        raise ApiError("invalid_input", "The body must be a JSON object.")
    event.__dict__["json_body"] = data  # Powertools' cached property: parsed once, depth-bounded
    headers = event.raw_event.get("headers") or {}
    for name in [n for n in headers if n.lower() == "content-type"]:  # Powertools matches it case-sensitively
        headers[name] = headers[name].strip().lower()
    return text


def before_validation(edge: Callable[[APIGatewayRestResolver], None], special: dict[str, str] | None = None):
    """Mark a route function: `edge(app)` runs before Powertools validates its parameters (admission,
    the body pre-check); `special` maps a body field to its own error code."""

    def mark(fn: Callable) -> Callable:
        fn.edge, fn.special = edge, special  # type: ignore[attr-defined]
        return fn

    return mark


def with_body(model: type) -> Callable[[Callable], Callable]:
    """Declare a route function's one parameter `body` as the JSON body `model` (what Powertools validates
    and documents), whatever the module's annotations are."""

    def declare(fn: Callable) -> Callable:
        fn.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            [inspect.Parameter("body", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Annotated[model, Body()])]
        )
        return fn

    return declare


def write_endpoint(
    method_path: str,
    bucket: str,
    scope: str | tuple[str, ...] | None,
    model: type,
    action,
    special: dict[str, str] | None = None,
    *,
    keyed: bool = True,
    **doc: Any,
):
    """A /partner/v1 JSON POST: admit -> pre-check and validate `model` (Powertools) -> `action(principal,
    request)` -> 200 JSON, under the request's Idempotency-Key when `keyed` (every write; not the quote,
    which writes nothing). `doc`: the route's OpenAPI fields (summary, responses, ...)."""
    from partner.edge import access, idempotency

    route = access.Route(bucket=bucket, scope=scope)
    app = make_app()

    def edge(app: APIGatewayRestResolver) -> None:
        app.append_context(principal=access.admit(app.current_event.headers, route, set_bucket))
        app.append_context(text=json_body(app))

    def _write(body: Any) -> Response:
        event = app.current_event
        principal, text = app.context["principal"], app.context["text"]
        if not keyed:
            return json_response(200, action(principal, body))
        return write_once(
            event.raw_event, principal, lambda: idempotency.json_digest(text), lambda: action(principal, body)
        )

    _write.__name__ = doc.get("operation_id") or "write"
    app.post(method_path, **doc)(before_validation(edge, special)(with_body(model)(_write)))
    return app, entry(app, bucket)
