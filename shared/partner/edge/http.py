"""The functions' resolver and Lambda handler: routes declared in Powertools' own decorator style
(functions/trades_buy/app.py is one). Exceptions become answers in partner.edge.errors, the one
exception mapper.
"""

from __future__ import annotations

import functools
import inspect
import json
import re
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from aws_lambda_powertools.event_handler.middlewares import NextMiddleware
from aws_lambda_powertools.event_handler.middlewares.openapi_validation import (
    OpenAPIRequestValidationMiddleware,
    OpenAPIResponseValidationMiddleware,
)
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError
from pydantic import BaseModel

from partner.core import bodies, lazy, observability, request, snapshot
from partner.core.answers import JSON
from partner.core.answers import html as html
from partner.core.answers import json_response as json_response
from partner.core.bodies import MAX_JSON_BODY, content_type
from partner.core.bodies import RepeatedKey as RepeatedKey
from partner.core.bodies import body_text as body_text
from partner.core.bodies import header as header
from partner.core.bodies import loads as loads
from partner.core.bodies import parse_params as parse_params
from partner.core.bodies import single_params as single_params
from partner.core.errors import ApiError
from partner.edge import apidoc, errors
from partner.store import ratelimit
from partner.store.ratelimit import BucketState

# a function whose routes take no bearer token (OAuth, the account pages, the platform API) never admits
# one, and a read-only function writes nothing under an Idempotency-Key: deferred at init, executed
# before the snapshot (partner.core.lazy), so no function imports them on a request
if TYPE_CHECKING:  # the checker reads them as the modules they are
    from partner.edge import access, idempotency
else:
    access = lazy.module("partner.edge.access")
    idempotency = lazy.module("partner.edge.idempotency")

logger = observability.logger  # structured JSON, redacting, correlation id = API Gateway request id

# Two years, every subdomain; no `preload` while the API host is not final (spec, Versioning).
HSTS = "max-age=63072000; includeSubDomains"
PARTNER_PREFIX = "/partner/v1/"


def set_bucket(state: BucketState) -> None:
    """The request's rate-limit bucket, for its `x-ratelimit-*` headers (`entry`)."""
    request.current().bucket = state


_ROUTE_PARAM = re.compile(r"<(\w+)>")


class Resolver(APIGatewayRestResolver):
    """Powertools' REST resolver, routing a request as API Gateway already did: an event whose `resource`
    is a route's template (`/partner/v1/governance/{mint}`) runs that route with API Gateway's
    `pathParameters` (decoded once; any character, `/` too, or empty), not with what Powertools' pattern
    finds in `path` (still percent-encoded: `%41` is not `A`; no `/`, no empty value: a malformed
    parameter would answer a generic 404 before the route could give the spec's answer). Any other
    event (no template: tests, static routes) is matched on its path, as Powertools does."""

    def _resolve(self):  # Powertools' ResponseBuilder
        event = self.current_event
        resource = event.resource if "resource" in event.raw_event else None
        if resource and "{" in resource:
            method = event.http_method.upper()
            for route in self._dynamic_routes:
                if route.method == method and _ROUTE_PARAM.sub(r"{\1}", route.path) == resource:
                    self.append_context(_route=route, _path=self._remove_prefix(event.path))
                    return self._call_route(route, _given_values(event, _ROUTE_PARAM.findall(route.path)))
        return super()._resolve()

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.declared: list[Declared] = []  # every route, as its decorator declared it (`warm`, `entry`)

    # A route's admission in its decorator, beside its path, with Powertools' own options:
    # `@app.post(path, bucket=, scope=[, also=, special=])` (`requires`) or `@app.post(path, ip_bucket=)`
    # (`ip_bucket`, the OAuth routes').
    def get(self, rule: str, *args: Any, **kwargs: Any) -> Callable[[Callable], Callable]:  # type: ignore[override]  # adds the admission keywords
        return self._admitted("get", rule, args, kwargs)

    def post(self, rule: str, *args: Any, **kwargs: Any) -> Callable[[Callable], Callable]:  # type: ignore[override]  # adds the admission keywords
        return self._admitted("post", rule, args, kwargs)

    def put(self, rule: str, *args: Any, **kwargs: Any) -> Callable[[Callable], Callable]:  # type: ignore[override]  # adds the admission keywords
        return self._admitted("put", rule, args, kwargs)

    def _admitted(self, method: str, rule: str, args: tuple, kwargs: dict[str, Any]) -> Callable[[Callable], Callable]:
        admission = {name: kwargs.pop(name) for name in ("bucket", "scope", "also", "special") if name in kwargs}
        by_ip = kwargs.pop("ip_bucket", None)
        if "bucket" in admission:  # a bearer route: the document's security is its admission's scope
            kwargs.setdefault("security", apidoc.bearer(admission.get("scope") or ""))

        def decorate(fn: Callable) -> Callable:
            if admission:
                fn = requires(**admission)(fn)
            if by_ip is not None:
                fn = ip_bucket(by_ip)(fn)
            options = dict(kwargs)
            marks = {"special": getattr(fn, "special", None), "page": getattr(fn, "page", None)}
            # Powertools runs its request validation before every route middleware: each route turns the
            # resolver's validation off for itself (`enable_validation=False`) and runs Powertools' own two
            # validation middlewares after its edge, in the order the resolver would
            options["middlewares"] = [
                _edge_middleware(getattr(fn, "edge", None), marks, rule),
                _request_validation(),
                *options.get("middlewares", ()),
                OpenAPIResponseValidationMiddleware(),
            ]
            options["enable_validation"] = False
            registered = _unless_dry(fn)
            getattr(APIGatewayRestResolver, method)(self, rule, *args, **options)(registered)
            self.declared.append(Declared(method.upper(), rule, fn, getattr(fn, "bucket", None)))
            return registered

        return decorate

    @property
    def principal(self) -> Any:
        """The caller `requires` admitted (partner.edge.access.Principal)."""
        return self.context["principal"]

    def write(self, action: Callable[..., Any], request: Any, *, digest: Callable[[], str] | None = None) -> Response:
        """`action(principal, request)` -> 200 JSON, under the request's Idempotency-Key if it has one
        (`write_once`). `digest`: the request's canonical digest (default: its JSON body's)."""
        principal = self.principal
        if digest is None:
            text = self.context["text"]
            digest = lambda: idempotency.json_digest(text)  # noqa: E731 - read only under a key
        return write_once(self.current_event.raw_event, principal, digest, lambda: action(principal, request))

    def write_form(
        self, read: Callable[[Any, Any], tuple[Any, Callable[[], str]]], action: Callable[..., Any]
    ) -> Response:
        """A multipart write: `read(principal, event)` -> (the form, its canonical digest), then `write`."""
        form, digest = read(self.principal, self.current_event)
        return self.write(action, form, digest=digest)


def make_app(*, oauth: bool = False, no_store: bool = False) -> Resolver:
    """A resolver with the API's answers (partner.edge.errors; `oauth`, `no_store`: the OAuth endpoints')
    and the routes' `edge` (admission, the body pre-check) ahead of Powertools' validation (`Resolver`).
    Its routes are warmed before the snapshot (`warm`)."""
    app = Resolver(enable_validation=True, json_body_deserializer=_parsed_body)
    snapshot.before_snapshot(lambda: warm(app))
    errors.install(app, oauth=oauth, no_store=no_store)
    return app


@dataclass(frozen=True)
class Declared:
    """A route as its decorator declared it: method, Powertools' rule (`<name>` parameters), the route
    function (with its marks: `bucket`, `scope`, `edge`, `special`, `page`), its rate-limit bucket."""

    method: str
    rule: str
    fn: Callable
    bucket: str | None


def _given_values(event: Any, names: list[str]) -> dict[str, str]:
    """The route's parameters as API Gateway gave them (`pathParameters`, decoded once; absent: "")."""
    given = event.path_parameters or {}
    return {name: str(given.get(name) or "") for name in names}


def _edge_middleware(
    edge: Callable[[APIGatewayRestResolver], None] | None, marks: dict[str, Any], rule: str
) -> Callable:
    """A route middleware (Powertools' documented `(app, next_middleware)` form): the route's marks into
    the request's context (`special` for `errors.invalid_input`, `page` for `errors.page_limited`) and
    its path parameters (`partner_path`), then its edge, unless the request is a dry one (`warm`)."""
    names = _ROUTE_PARAM.findall(rule)
    pattern = re.compile(_ROUTE_PARAM.sub(r"(?P<\1>[^/]+)", re.escape(rule).replace(r"\<", "<").replace(r"\>", ">")))

    def admission(app: APIGatewayRestResolver, next_middleware: Callable) -> Any:
        app.append_context(**{f"partner_{name}": value for name, value in marks.items()})
        event = app.current_event
        if names and "{" in str(event.get("resource") or ""):  # API Gateway's, as `Resolver` routes it
            app.append_context(partner_path=_given_values(event, names))
        elif names and (found := pattern.fullmatch(event.path.rstrip("/") or "/")):
            app.append_context(partner_path=found.groupdict())
        if edge is not None and not request.current().dry:
            edge(app)
        return next_middleware(app)

    return admission


def _request_validation() -> Callable:
    """Powertools' request validation middleware; on a dry request (`warm`) an invalid request goes on
    to the route all the same (which answers 204 without running), so the whole stack is warmed."""
    validate = OpenAPIRequestValidationMiddleware()

    def validation(app: APIGatewayRestResolver, next_middleware: NextMiddleware) -> Any:
        if not request.current().dry:
            return validate(app, next_middleware)
        try:
            return validate(app, next_middleware)
        except RequestValidationError:
            return next_middleware(app)

    return validation


def _unless_dry(fn: Callable) -> Callable:
    """`fn` as registered: a dry request (`warm`) gets a 204 without running it."""

    @functools.wraps(fn)
    def route(*args: Any, **kwargs: Any) -> Any:
        if request.current().dry:
            return Response(status_code=204, content_type=None, body="")
        return fn(*args, **kwargs)

    # Powertools resolves a string annotation in the globals of the function it is given: this wrapper's
    # are not `fn`'s, so it is given `fn`'s signature with its annotations evaluated where `fn` was written
    try:
        route.__signature__ = inspect.signature(fn, eval_str=True)  # type: ignore[attr-defined]  # read by inspect
    except NameError:  # a name only the declaring function's locals hold: as Powertools would see it
        pass
    return route


def _parsed_body(text: str) -> Any:
    """Powertools' `json_body` of the request: the object the pre-check (`json_body`) parsed from this
    very text, else `json.loads` (a route without the pre-check: as Powertools parses it)."""
    parsed = request.current().body
    if parsed is not None and parsed[0] is text:
        return parsed[1]
    return json.loads(text)


def warm(app: Resolver) -> None:
    """One dry request per declared route, through `app.resolve`: Powertools builds and caches what it
    builds on a route's first request (its middleware stack, the validation's dependant and type
    adapters, the inspection of each middleware and of the route function) before the SnapStart
    snapshot, so no restored copy pays for it. A dry request runs no edge (no token, no bucket, nothing
    read or written) and no route function (answers 204, its parameters valid or not)."""
    for route in app.declared:
        names = _ROUTE_PARAM.findall(route.rule)
        path = _ROUTE_PARAM.sub("dry", route.rule)
        event = {
            "httpMethod": route.method,
            "path": path,
            "resource": _ROUTE_PARAM.sub(r"{\1}", route.rule),
            "pathParameters": {name: "dry" for name in names} or None,
            "headers": {},
            "multiValueHeaders": {},
            "queryStringParameters": None,
            "multiValueQueryStringParameters": None,
            "requestContext": {"requestId": "dry", "identity": {"sourceIp": "127.0.0.1"}},
            "body": None,
            "isBase64Encoded": False,
        }
        token = request.begin(event, dry=True)
        try:
            app.resolve(event, None)  # type: ignore[arg-type]  # no Lambda context before the snapshot
        finally:
            request.end(token)


def before_validation(edge: Callable[[APIGatewayRestResolver], None], special: dict[str, str] | None = None):
    """Mark a route function: `edge(app)` runs before Powertools validates its parameters (admission,
    the body pre-check); `special` maps a body field to its own error code."""

    def mark(fn: Callable) -> Callable:
        fn.edge, fn.special = edge, special  # type: ignore[attr-defined]  # marks on a plain function
        return fn

    return mark


def _takes_model(fn: Callable) -> bool:
    hints = typing.get_type_hints(fn)
    types = [hints.get(name) for name in inspect.signature(fn).parameters]
    return any(inspect.isclass(tp) and issubclass(tp, BaseModel) for tp in types)


def requires(
    *,
    bucket: str,
    scope: str | tuple[str, ...] | None = None,
    also: Callable[..., Any] | dict[str, list[str]] | None = None,
    special: dict[str, str] | None = None,
):
    """A /partner/v1 route's admission (partner.edge.access: token, `bucket`, tier, `scope`; a tuple: any
    one of them), then, when the route takes a pydantic body, the JSON pre-check (`json_body`), before
    Powertools validates the body (`special`: a field's own error code). `also`: extra items to read
    with the token (`access.authenticate`); on a route with path parameters, a function of them.
    Route functions have no return annotation: Powertools would validate the (already serialized)
    body against it."""
    route = access.Route(bucket=bucket, scope=scope)

    def mark(fn: Callable) -> Callable:
        checks_json = _takes_model(fn)

        def edge(app: APIGatewayRestResolver) -> None:
            extra = also
            args = app.context.get("partner_path") or {}
            if callable(also) and args:
                extra = also(**args)
            app.append_context(principal=access.admit(app.current_event.headers, route, set_bucket, extra))
            if checks_json:
                app.append_context(text=json_body(app))

        fn.bucket, fn.scope = bucket, scope  # type: ignore[attr-defined]  # marks on a plain function
        return before_validation(edge, special)(fn)

    return mark


def ip_bucket(bucket: str):
    """An OAuth route's rate limit: `bucket`, keyed on the caller's IP address."""

    def edge(app: APIGatewayRestResolver) -> None:
        set_bucket(ratelimit.take(bucket, source_ip(app.current_event.raw_event)))

    def mark(fn: Callable) -> Callable:
        fn.bucket = bucket  # type: ignore[attr-defined]  # a mark on a plain function
        return before_validation(edge)(fn)

    return mark


def _bucket_of(app: Resolver) -> str | None:
    """The one rate-limit bucket the app's routes declare (`requires`, `ip_bucket`), or None."""
    buckets: set[str] = {route.bucket for route in app.declared if route.bucket}
    if len(buckets) > 1:
        raise ValueError(f"one function, one bucket: {sorted(buckets)}")
    return buckets.pop() if buckets else None


def entry(app: Resolver) -> Callable[[dict, Any], dict]:
    """The Lambda handler for `app`: resolve, then add the bucket's `x-ratelimit-*` headers, HSTS and
    `Cache-Control: no-store`; logs, metrics, trace."""
    bucket = _bucket_of(app)

    def lambda_handler(event: dict, context: Any) -> dict:
        request.begin(event)  # this request's context: its id, repeated headers, outcome, bucket
        answered = request.current()
        answered.bucket = ratelimit.untouched(bucket) if bucket else None
        response = app.resolve(event, context)
        multi = dict(response.get("multiValueHeaders") or {})
        state: BucketState | None = answered.bucket
        if state is not None:
            for name, value in state.headers().items():
                multi[name] = [value]
        secure_headers(multi, str(event.get("path") or ""))
        response["multiValueHeaders"] = multi
        return response

    return observability.instrument_api(lambda_handler, lambda: request.current().code)


def secure_headers(multi: dict[str, list[str]], path: str) -> None:
    """Add HSTS to every answer and `Cache-Control: no-store` to every /partner/v1 answer (all
    statuses: answers carry user data, errors and 429s too), unless the answer set its own."""
    present = {name.lower() for name in multi}
    if "strict-transport-security" not in present:
        multi["Strict-Transport-Security"] = [HSTS]
    if path.startswith(PARTNER_PREFIX) and "cache-control" not in present:
        multi["Cache-Control"] = ["no-store"]


# ---------------------------------------------------------------- request helpers


def source_ip(event: dict) -> str:
    return ((event.get("requestContext") or {}).get("identity") or {}).get("sourceIp") or "unknown"


def write_once(event: dict, principal, body_digest: Callable[[], str], action: Callable[[], Any]) -> Response:
    """Run a write (`action()` -> the 200 body) under the request's Idempotency-Key, if it has one.

    Without the header this is exactly `json_response(200, action())`, errors raised as before.
    With it (checked here: 400 invalid_input, not stored): claim the key, then replay the stored
    answer, or run and store what the write answers (partner.edge.idempotency): an answer that invites a
    retry before anything was sent (5xx, 429, retryable 4xx) releases the key instead, and once
    something may be in flight the stored answer says `retryable: false`.
    """
    key = bodies.idempotency_key(event.get("headers"), event.get("multiValueHeaders"))
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
        context = request.current()
        outer, context.sends = context.sends, idempotency.ClaimSends(got)  # what presend records
        try:
            response = json_response(200, action())
        except ApiError as exc:
            if got.sent:  # the send started: it may be in flight; this answer is stored and final
                exc.retryable = False
            retry_invited = not got.sent and (exc.retryable or exc.status >= 500 or exc.status == 429)
            response = errors.api_error(exc)
        except Exception as exc:  # answered as the resolver would
            retry_invited = not got.sent
            response = errors.unexpected(exc, retryable=not got.sent)
        finally:
            context.sends = outer
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
            request.current().code = json.loads(stored.body).get("error") or "error"
        except (ValueError, AttributeError):
            request.current().code = "error"
    return Response(status_code=stored.status, content_type=None, body=stored.body, headers=headers)


def json_body(app: APIGatewayRestResolver) -> str:
    """The pre-check of a JSON body, before Powertools parses it: one Content-Type, application/json, at
    most 64 KiB of UTF-8 text, nested at most `MAX_JSON_DEPTH` deep, no key repeated, an object; else 400
    invalid_input. The parsed object is the event's `json_body` (what Powertools validates, `_parsed_body`);
    returns the text."""
    event = app.current_event
    text = body_text(event, "invalid_input") or ""
    ctype = (content_type(event.headers, "invalid_input") or "").split(";")[0].strip().lower()
    if ctype != JSON:
        raise ApiError("invalid_input", "Content-Type must be application/json.")
    if len(text.encode()) > MAX_JSON_BODY:
        raise ApiError("invalid_input", "The JSON body is over 64 KiB.")
    data = bodies.loads_body(text, "invalid_input")
    if not isinstance(data, dict):
        raise ApiError("invalid_input", "The body must be a JSON object.")
    # what Powertools' `json_body` answers (`_parsed_body`): parsed once, depth-bounded
    request.current().body = (text, data)
    headers = event.raw_event.get("headers") or {}
    for name in [n for n in headers if n.lower() == "content-type"]:  # Powertools matches it case-sensitively
        headers[name] = headers[name].strip().lower()
    return text
