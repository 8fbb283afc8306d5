"""A local stand-in for API Gateway (REST, Lambda proxy integration): serves every ``Type: Api`` route
of template.yaml by calling its function's handler with an API Gateway proxy event
(``devstack.events.api_event``), no kinder than API Gateway and Lambda (docs/architecture.md,
"What the devstack enforces").
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from . import limits
from .cfn import Function, Template, load_template
from .events import ApiRequest, ApiStage, api_event, lambda_context, name_value_pairs
from .gateway_responses import GatewayError, render
from .httpserver import HttpRequest, HttpServer, ReadTimeouts
from .workers import FunctionError, Pool

__all__ = [
    "GatewayError",
    "Request",
    "Route",
    "Gateway",
    "GatewayHandle",
    "start_gateway",
]

HEALTH_PATH = "/_devstack/health"

Response = tuple[int, Any, bytes]  # status, headers (dict or list of pairs), body
ExtraRoute = Callable[["Request"], tuple[int, Any, Any]]


@dataclass
class Request:
    """What an extra route sees of an HTTP request."""

    method: str
    path: str  # URL-decoded path, without the query string
    query_string: str  # raw, without "?"
    headers: list[tuple[str, str]]  # as received, case preserved, repeats kept
    body: bytes
    source_ip: str
    source_port: int = 0
    raw_path: str = ""  # path as received (still percent-encoded)

    def header(self, name: str, default: str | None = None) -> str | None:
        found = default
        for k, v in self.headers:
            if k.lower() == name.lower():
                found = v
        return found

    @property
    def query(self) -> dict[str, list[str]]:
        return parse_qs(self.query_string, keep_blank_values=True)

    def form(self) -> dict[str, list[str]]:
        """An application/x-www-form-urlencoded body, parsed."""
        return parse_qs(self.body.decode("utf-8", errors="replace"), keep_blank_values=True)

    def json(self) -> Any:
        return json.loads(self.body or b"null")


@dataclass
class Route:
    method: str  # upper case, or ANY
    path: str  # resource path template
    function: Function
    rest_api_id: Any = None
    binary_media_types: list[str] = field(default_factory=list)
    stage: str = "api"
    timeout_ms: int = limits.INTEGRATION_TIMEOUT_MS  # the event's TimeoutInMillis, else API Gateway's 29 s
    authorizer: str | None = None  # AWS_IAM: SigV4 checked before the function runs (devstack.sigv4)

    @property
    def specificity(self) -> tuple[int, ...]:
        """Lower sorts first: literal segments beat {param}, which beats {proxy+}."""
        key = []
        for seg in self.path.strip("/").split("/"):
            if seg.startswith("{") and seg.endswith("+}"):
                key.append(2)
            elif seg.startswith("{") and seg.endswith("}"):
                key.append(1)
            else:
                key.append(0)
        return tuple(key)


def _json_response(status: int, payload: Any, extra_headers: list[tuple[str, str]] | None = None) -> Response:
    headers = [("Content-Type", "application/json")] + list(extra_headers or [])
    return status, headers, json.dumps(payload).encode()


def _segments(path: str, *, decode: bool = False) -> list[str]:
    stripped = path.strip("/")
    if not stripped:
        return []
    return [unquote(seg) for seg in stripped.split("/")] if decode else stripped.split("/")


def _params(resource: tuple[str, ...], raw: list[str]) -> dict[str, str]:
    """Path parameters from the raw (still percent-encoded) segments, each decoded once: API
    Gateway REST splits the path on its literal ``/`` and hands the function each parameter
    URL-decoded, so ``a%2Fb`` in a ``{param}`` segment is ``a/b`` and ``a%252Fb`` is ``a%2Fb``."""
    params: dict[str, str] = {}
    for i, name in enumerate(resource):
        if name.startswith("{") and name.endswith("+}"):
            params[name[1:-2]] = unquote("/".join(raw[i:]))
        elif name.startswith("{") and name.endswith("}"):
            params[name[1:-1]] = unquote(raw[i])
    return params


class _TokenBucket:
    """API Gateway's throttle: ``burst`` tokens, refilled at ``rate`` per second."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = float(rate), float(burst)
        self.tokens = float(burst)
        self.updated = time.monotonic()
        self.lock = threading.Lock()

    def take(self) -> bool:
        with self.lock:
            now = time.monotonic()
            self.tokens = min(self.burst, self.tokens + (now - self.updated) * self.rate)
            self.updated = now
            if self.tokens >= 1:
                self.tokens -= 1
                return True
            return False


class Gateway:
    """Routing and invocation, independent of the socket server."""

    def __init__(
        self,
        template: Template | str | Path,
        *,
        extra_routes: dict[tuple[str, str], ExtraRoute] | None = None,
        parameters: Mapping[str, Any] | None = None,
        log: bool = True,
        forwarded_headers: bool = True,
    ) -> None:
        self.template = template if isinstance(template, Template) else load_template(template)
        self.extra_routes: dict[tuple[str, str], ExtraRoute] = extra_routes if extra_routes is not None else {}
        self.log_requests = log
        self.forwarded_headers = forwarded_headers
        self.routes: list[Route] = []
        for fn in self.template.functions():
            for ev in fn.api_events:
                self.routes.append(
                    Route(
                        method=ev.method,
                        path=ev.path,
                        function=fn,
                        rest_api_id=ev.rest_api_id,
                        binary_media_types=self.template.binary_media_types(ev.rest_api_id),
                        stage=self.template.stage_name(ev.rest_api_id, parameters),
                        timeout_ms=ev.timeout_in_millis or limits.INTEGRATION_TIMEOUT_MS,
                        authorizer=ev.authorizer,
                    )
                )
        # API Gateway's resource tree: every route path and each of its prefixes is a resource
        self.resources: set[tuple[str, ...]] = {()}
        for route in self.routes:
            segments = _segments(route.path)
            self.resources.update(tuple(segments[:i]) for i in range(len(segments) + 1))
        self.stage = self.template.stage_name(None, parameters)
        self.gateway_responses = self.template.gateway_responses()
        # the stage's method throttle (MethodSettings /* *): one bucket per method and resource
        self.stage_throttle: tuple[float, float] | None = self.template.method_throttle(None, parameters)
        self._buckets: dict[tuple[str, str], _TokenBucket] = {}
        self._buckets_guard = threading.Lock()
        # Tests only: the integration timeout in milliseconds, over every route's own
        # (TimeoutInMillis, else limits.INTEGRATION_TIMEOUT_MS). None: the template's.
        self.integration_timeout_ms: int | None = None
        # The HTTP server's read deadlines (devstack.httpserver: Apache mod_reqtimeout's defaults);
        # tests shorten them.
        self.read_timeouts = ReadTimeouts()
        # AWS_IAM routes: access key id -> (secret access key, principal ARN) of the callers IAM
        # would allow (the devstack's platform credentials); empty: every signed request is refused
        self.iam_credentials: dict[str, tuple[str, str]] = {}
        # the functions' own processes (start_gateway); None: handlers run in this process (tests)
        self.pool: Pool | None = None
        self._modules: dict[str, ModuleType] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()

    # -- code loading ----------------------------------------------------

    def add_code_paths(self) -> list[str]:
        """Put the template's layer folders (``shared/``: package ``partner``) on sys.path."""
        added = []
        dirs = self.template.layer_dirs()
        shared = self.template.base_dir / "shared"
        if shared.is_dir() and shared not in dirs:
            dirs.insert(0, shared)
        for d in reversed(dirs):
            s = str(d)
            if s not in sys.path:
                sys.path.insert(0, s)
                added.append(s)
        return added

    def handler_for(self, fn: Function) -> Callable[[dict, Any], Any]:
        """Import the function's module (once, as ``fn_<LogicalId>``) and return its handler."""
        module = self._modules.get(fn.logical_id)
        if module is None:
            with self._locks_guard:
                lock = self._locks.setdefault(fn.logical_id, threading.Lock())
            with lock:
                module = self._modules.get(fn.logical_id)
                if module is None:
                    module = self._import(fn)
                    self._modules[fn.logical_id] = module
        return getattr(module, fn.handler_function)

    @staticmethod
    def _import(fn: Function) -> ModuleType:
        name = f"fn_{fn.logical_id}"
        path = fn.module_path
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(name, None)
            raise
        return module

    # -- routing ---------------------------------------------------------

    def match(self, method: str, path: str) -> tuple[Route | None, dict[str, str], list[str]]:
        """(route, path params, methods of the resource) as API Gateway selects them: walk the
        resource tree one segment at a time, a literal child before ``{param}`` before
        ``{proxy+}``, never backing up; then the method on that resource, else ANY. route None:
        no such resource, or no such method on it (both MISSING_AUTHENTICATION_TOKEN).

        ``path`` is the path as received, still percent-encoded: segments are split on its
        literal ``/`` only, compared with the resource tree decoded once, and each ``{param}``
        is decoded once (``_params``)."""
        raw = _segments(path)  # `path` as received: an encoded slash (%2F) does not split a segment
        resource = self._resource_for([unquote(seg) for seg in raw], raw)
        if resource is None:
            return None, {}, []
        on_resource = [r for r in self.routes if tuple(_segments(r.path)) == resource]
        params = _params(resource, raw)
        for wanted in (method, "ANY"):
            for r in on_resource:
                if r.method == wanted:
                    return r, params, []
        return None, {}, sorted({r.method for r in on_resource})

    def _resource_for(self, segments: list[str], raw: list[str]) -> tuple[str, ...] | None:
        current: tuple[str, ...] = ()
        for i, seg in enumerate(segments):
            if raw[i] == "":
                return None
            children = [r[-1] for r in self.resources if len(r) == len(current) + 1 and r[:-1] == current]
            if seg in children:
                current = current + (seg,)
                continue
            param = next((c for c in children if c.startswith("{") and not c.endswith("+}")), None)
            if param is not None:
                current = current + (param,)
                continue
            proxy = next((c for c in children if c.endswith("+}")), None)
            if proxy is not None:
                return current + (proxy,)
            return None
        return current if current in self.resources else None

    def _extra_route(self, method: str, path: str) -> ExtraRoute | None:
        """The extra route for the path: its exact key, else a key ending in `*` that prefixes it."""
        for (m, p), fn in list(self.extra_routes.items()):
            matches = p == path or (p.endswith("*") and path.startswith(p[:-1]))
            if matches and m.upper() in (method, "ANY", "*"):
                return fn
        return None

    # -- handling --------------------------------------------------------

    def handle(self, request: Request, *, server_port: int = 0) -> Response:
        method = request.method.upper()
        if method == "GET" and request.path == HEALTH_PATH:
            return _json_response(200, {"ok": True})
        extra = self._extra_route(method, request.path)
        if extra is not None:
            try:
                status, headers, body = extra(request)
            except Exception:  # shown, then 500
                traceback.print_exc(file=sys.stderr)
                return _json_response(500, {"error": "internal_error", "message": "devstack route failed"})
            if isinstance(body, str):
                body = body.encode()
            return int(status), name_value_pairs(headers or None), bytes(body or b"")

        route, params, _ = self.match(method, request.raw_path or request.path)
        if route is None:  # no resource, or no such method on it: API Gateway's 403 unless customized
            return self.gateway_error(GatewayError.of("MISSING_AUTHENTICATION_TOKEN"), request)
        if not self._admit(route):
            return self.gateway_error(GatewayError.of("THROTTLED"), request, route)
        caller = None
        if route.authorizer == "AWS_IAM":
            from devstack import sigv4
            from devstack.events import REGION

            received = sigv4.Received(
                method, request.raw_path or request.path, request.query_string, request.headers, request.body
            )
            checked = sigv4.verify(received, request.header("Host") or "", self.iam_credentials, REGION)
            if isinstance(checked, sigv4.Refusal):
                return self.gateway_error(
                    GatewayError(checked.type, checked.status, checked.message, checked.error_type), request, route
                )
            caller = checked
        return self.invoke(route, params, request, server_port=server_port, caller=caller)

    def gateway_error(
        self, error: GatewayError, request: Request, route: Route | None = None, request_id: str | None = None
    ) -> Response:
        """The template's gateway response for ``error`` (see ``devstack.gateway_responses``)."""
        now = time.time()
        context = {
            "requestId": request_id or str(uuid.uuid4()),
            "httpMethod": request.method.upper(),
            "path": f"/{route.stage if route else self.stage}{request.raw_path or request.path}",
            "resourcePath": route.path if route else "",
            "stage": route.stage if route else self.stage,
            "identity.sourceIp": request.source_ip,
            "identity.userAgent": request.header("User-Agent") or "",
            "domainName": request.header("Host") or "",
            "requestTimeEpoch": int(now * 1000),
            "requestTime": datetime.fromtimestamp(now, tz=UTC).strftime("%d/%b/%Y:%H:%M:%S +0000"),
        }
        return render(self.gateway_responses, error, context, request_headers=request.headers, query=request.query)

    def _admit(self, route: Route) -> bool:
        """The stage throttle (template MethodSettings, or ``stage_throttle`` set by a test)."""
        throttle = self.stage_throttle
        if throttle is None:
            return True
        key = (route.method, route.path)
        with self._buckets_guard:
            bucket = self._buckets.get(key)
            if bucket is None or (bucket.rate, bucket.burst) != (float(throttle[0]), float(throttle[1])):
                bucket = self._buckets[key] = _TokenBucket(*throttle)
        return bucket.take()

    def build_event(self, route: Route, params: dict[str, str], request: Request, *, server_port: int = 0) -> dict:
        headers = list(request.headers)
        if self.forwarded_headers:
            xff = request.header("X-Forwarded-For")
            headers = [(k, v) for k, v in headers if k.lower() != "x-forwarded-for"]
            headers.append(("X-Forwarded-For", f"{xff}, {request.source_ip}" if xff else request.source_ip))
            if request.header("X-Forwarded-Port") is None:
                headers.append(("X-Forwarded-Port", str(server_port)))
            if request.header("X-Forwarded-Proto") is None:
                headers.append(("X-Forwarded-Proto", "http"))
            if request.header("X-Amzn-Trace-Id") is None:
                headers.append(("X-Amzn-Trace-Id", f"Root=1-{int(time.time()):08x}-{uuid.uuid4().hex[:24]}"))
        return api_event(
            ApiRequest(
                request.method,
                request.raw_path or request.path,
                headers=headers,
                query=request.query_string or None,
                body=request.body if request.body else None,
                source_ip=request.source_ip,
                resource=route.path,
                path_params=params or None,
                protocol="HTTP/1.1",
            ),
            ApiStage(stage=route.stage, binary_media_types=route.binary_media_types),
        )

    def invoke(
        self, route: Route, params: dict[str, str], request: Request, *, server_port: int = 0, caller: Any = None
    ) -> Response:
        fn = route.function
        event = self.build_event(route, params, request, server_port=server_port)
        if caller is not None:  # what API Gateway's IAM authorization puts in the identity
            from devstack.events import ACCOUNT_ID

            event["requestContext"]["identity"].update(
                {
                    "accessKey": caller.access_key,
                    "accountId": ACCOUNT_ID,
                    "caller": caller.access_key,
                    "user": caller.access_key,
                    "userArn": caller.user_arn,
                }
            )
        request_id = event["requestContext"]["requestId"]
        where = f"{fn.logical_id}: on {request.method} {request.path}"
        timeout_ms = self.integration_timeout_ms if self.integration_timeout_ms is not None else route.timeout_ms
        kind, result = self._outcome(fn, event, timeout_ms, where)
        if kind == "result":
            response = self._answer(fn, result)
            if response is not None:
                response[1].append(("x-amzn-RequestId", request_id))
                return response
            kind = "INTEGRATION_FAILURE"
        return self.gateway_error(GatewayError.of(kind), request, route, request_id)

    def call(self, fn: Function, event: dict[str, Any]) -> Any:
        """Run the function on the event: in a process of its own when the gateway has a pool of them
        (``start_gateway``, ``devstack.workers``), else in this process (``handler_for``)."""
        if self.pool is not None:
            return self.pool.invoke(fn, event)
        context = lambda_context(fn.logical_id, memory_limit_in_mb=fn.memory_size, timeout_seconds=fn.timeout)
        return self.handler_for(fn)(event, context)

    def _outcome(self, fn: Function, event: dict[str, Any], timeout_ms: int, where: str) -> tuple[str, Any]:
        """("result", the function's result), or the gateway error's kind (its cause printed)."""
        # Lambda's synchronous request payload quota, on the event JSON the function receives
        size = len(json.dumps(event, separators=(",", ":")).encode("utf-8"))
        if size > limits.LAMBDA_MAX_REQUEST_BYTES:
            print(
                f"devstack.gateway: {fn.logical_id}: {size} byte payload is too large for the RequestResponse "
                f"invocation type (limit {limits.LAMBDA_MAX_REQUEST_BYTES} bytes)",
                file=sys.stderr,
            )
            return "REQUEST_TOO_LARGE", None
        outcome: dict[str, Any] = {}

        def run() -> None:
            try:
                outcome["result"] = self.call(fn, event)
            except BaseException as exc:  # a failed invoke; shown below
                outcome["error"] = exc

        # the function runs on after API Gateway stops waiting, as a Lambda does until its own timeout
        worker = threading.Thread(target=run, name=f"devstack-invoke-{fn.logical_id}", daemon=True)
        worker.start()
        worker.join(timeout_ms / 1000)
        if worker.is_alive():
            print(f"devstack.gateway: {where}: no answer within {timeout_ms} ms", file=sys.stderr)
            return "INTEGRATION_TIMEOUT", None
        if "error" in outcome:
            exc = outcome["error"]
            print(f"devstack.gateway: {where}: the function raised:", file=sys.stderr)
            if isinstance(exc, FunctionError):  # raised in its own process: the traceback as text
                print(str(exc), file=sys.stderr)
            else:
                traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
            return "INTEGRATION_FAILURE", None
        return "result", outcome.get("result")

    def _answer(self, fn: Function, result: Any) -> Response | None:
        """The HTTP response for a function's result; None (its cause printed) when Lambda would refuse it."""
        try:
            size = len(json.dumps(result, separators=(",", ":")).encode("utf-8"))
        except (TypeError, ValueError) as exc:
            print(f"devstack.gateway: {fn.logical_id}: result is not JSON: {exc}", file=sys.stderr)
            return None
        if size > limits.LAMBDA_MAX_RESPONSE_BYTES:  # Function.ResponseSizeTooLarge
            print(
                f"devstack.gateway: {fn.logical_id}: response payload of {size} bytes is over Lambda's "
                f"{limits.LAMBDA_MAX_RESPONSE_BYTES}",
                file=sys.stderr,
            )
            return None
        try:
            status, headers, body = self.proxy_response(result)
        except ValueError as exc:
            print(f"devstack.gateway: {fn.logical_id}: malformed Lambda proxy response: {exc}", file=sys.stderr)
            return None
        if not any(k.lower() == "content-type" for k, _ in headers):
            headers.append(("Content-Type", "application/json"))
        return status, headers, body

    @staticmethod
    def proxy_response(result: Any) -> Response:
        """Turn a Lambda proxy result into (status, header pairs, body bytes)."""
        import base64

        if not isinstance(result, Mapping):
            raise ValueError(f"result is {type(result).__name__}, not an object")
        try:
            status = int(result.get("statusCode", 200))
        except (TypeError, ValueError):
            raise ValueError(f"statusCode {result.get('statusCode')!r}") from None
        multi = result.get("multiValueHeaders") or {}
        single = result.get("headers") or {}
        if not isinstance(multi, Mapping) or not isinstance(single, Mapping):
            raise ValueError("headers / multiValueHeaders must be objects")
        headers: list[tuple[str, str]] = []
        for k, values in multi.items():
            if not isinstance(values, (list, tuple)):
                raise ValueError(f"multiValueHeaders[{k!r}] is not a list")
            headers.extend((str(k), str(v)) for v in values)
        for k, v in single.items():
            if k not in multi:  # multiValueHeaders win for the same name
                headers.append((str(k), "" if v is None else str(v)))
        body = result.get("body")
        if body is None:
            data = b""
        elif not isinstance(body, str):
            raise ValueError(f"body is {type(body).__name__}, not a string")
        elif result.get("isBase64Encoded"):
            data = base64.b64decode(body)
        else:
            data = body.encode("utf-8")
        return status, headers, data


# --------------------------------------------------------------------------- HTTP server


def _redacted(target: str) -> str:
    """The request target for the access log: each query value replaced by ``REDACTED`` (a query
    carries tokens, ``?access_token=app_at_...``, and codes; the log must not)."""
    path, sep, query = target.partition("?")
    if not sep:
        return path
    names = [part.split("=", 1)[0] for part in query.split("&") if part]
    return path + "?" + "&".join(f"{name}=REDACTED" for name in names)


def _unsafe_header(name: str, value: str) -> bool:
    """A response header that would split the response (CR, LF or NUL in it)."""
    return any(c in name or c in value for c in "\r\n\0")


class _GatewayApp:
    """The gateway behind the HTTP server (``devstack.httpserver``)."""

    max_body = limits.API_GATEWAY_MAX_REQUEST_BYTES

    def __init__(self, gateway: Gateway) -> None:
        self.gateway = gateway
        self.port = 0  # set once the server is bound

    @property
    def read_timeouts(self) -> ReadTimeouts:
        return self.gateway.read_timeouts

    @staticmethod
    def _request(received: HttpRequest) -> tuple[Request, str]:
        raw = received.target or "/"
        if raw.startswith(("http://", "https://")):
            parts = urlsplit(raw)
            raw = parts.path + (f"?{parts.query}" if parts.query else "")
        raw_path, _, query = raw.partition("?")
        raw_path = raw_path or "/"
        request = Request(
            method=(received.method or "GET").upper(),
            path=unquote(raw_path),
            query_string=query,
            headers=list(received.headers),
            body=received.body,
            source_ip=received.client[0],
            source_port=int(received.client[1]) if len(received.client) > 1 else 0,
            raw_path=raw_path,
        )
        return request, raw

    def refuse(self, status: int, message: str, received: HttpRequest) -> Response:
        """The server's own refusals: API Gateway's for a body over its quota and for a method no
        route has, else the template's DEFAULT_4XX (framing, 408, 414, 431, 505)."""
        request, _ = self._request(received)
        if status == 413:
            error = GatewayError.of("REQUEST_TOO_LARGE")
        elif status == 501:
            error = GatewayError.of("MISSING_AUTHENTICATION_TOKEN")
        else:
            error = GatewayError("DEFAULT_4XX", status, message, "BadRequestException")
        out_status, headers, data = self.gateway.gateway_error(error, request)
        if self.gateway.log_requests:  # not the target: its query string may carry a token
            sys.stderr.write(f"devstack.gateway: {request.source_ip} refused -> {out_status}\n")
        return out_status, headers + [("Connection", "close")], data

    def handle(self, received: HttpRequest) -> Response:
        started = time.monotonic()
        request, raw = self._request(received)
        try:
            status, headers, data = self.gateway.handle(request, server_port=self.port)
            bad = [k for k, v in headers if _unsafe_header(str(k), str(v))]
            if bad:
                print(
                    f"devstack.gateway: refused a response header with CR/LF/NUL ({', '.join(bad)}) on "
                    f"{request.method} {request.raw_path}",
                    file=sys.stderr,
                )
                status, headers, data = self.gateway.gateway_error(GatewayError.of("INTEGRATION_FAILURE"), request)
        except Exception:  # a devstack bug, not a handler error
            traceback.print_exc(file=sys.stderr)
            status, headers, data = _json_response(
                500, {"error": "internal_error", "message": "devstack gateway failed"}
            )
        if self.gateway.log_requests:
            ms = (time.monotonic() - started) * 1000
            sys.stderr.write(
                f"devstack.gateway: {request.source_ip} {request.method} {_redacted(raw)} -> {status} ({ms:.0f} ms)\n"
            )
        return status, [(str(k), str(v)) for k, v in headers], data


@dataclass
class GatewayHandle:
    server: HttpServer
    thread: threading.Thread
    gateway: Gateway
    host: str
    port: int
    _saved_env: dict[str, str | None] = field(default_factory=dict, repr=False)
    _added_paths: list[str] = field(default_factory=list, repr=False)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def extra_routes(self) -> dict[tuple[str, str], ExtraRoute]:
        return self.gateway.extra_routes

    @property
    def routes(self) -> list[tuple[str, str, str]]:
        """(method, path template, function logical id) for every template route."""
        return [(r.method, r.path, r.function.logical_id) for r in self.gateway.routes]

    def stop(self, restore_environment: bool = True) -> None:
        """Stop serving; by default put back the environment variables start_gateway set."""
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)
        if self.gateway.pool is not None:
            self.gateway.pool.close()
        if restore_environment:
            for k, v in self._saved_env.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
            self._saved_env.clear()

    def __enter__(self) -> GatewayHandle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def start_gateway(
    template_path: Template | str | Path,
    env: Mapping[str, str] | None = None,
    port: int = 3000,
    *,
    extra_routes: dict[tuple[str, str], ExtraRoute] | None = None,
    parameters: Mapping[str, Any] | None = None,
    log: bool = True,
) -> GatewayHandle:
    """Serve the template's Api routes on ``127.0.0.1:port`` (``port=0``: any free port)
    from a background thread.

    ``env`` (the functions' resolved environment plus ``aws_env(...)``) is put
    into ``os.environ``; the template's layer folders (``shared/``) go on ``sys.path``.
    Each function runs in processes of its own (``devstack.workers``), started on its
    first request with this path and the environment of that moment.

        handle = start_gateway("template.yaml", env, port=3000,
                               extra_routes={("GET", "/docs"): docs_page})
        handle.url; handle.stop()

    ``extra_routes`` values are ``callable(request: Request) -> (status, headers, body)``
    with headers a dict or a list of (name, value) pairs and body bytes (or str).
    A path ending in ``*`` matches every path it prefixes (devstack.lambdas' Invoke route).
    They are checked before template routes; the dict is kept by reference, so
    routes added to ``handle.extra_routes`` later are served too.
    """
    gateway = Gateway(template_path, extra_routes=extra_routes, parameters=parameters, log=log)
    saved: dict[str, str | None] = {}
    for k, v in (env or {}).items():
        saved.setdefault(k, os.environ.get(k))
        os.environ[k] = str(v)
    added = gateway.add_code_paths()
    gateway.pool = Pool().start()
    app = _GatewayApp(gateway)
    server = HttpServer(("127.0.0.1", port), app, server_name="devstack-gateway")
    bound_host, bound_port = server.server_address[:2]
    app.port = int(bound_port)
    thread = threading.Thread(target=server.serve_forever, name=f"devstack-gateway-{bound_port}", daemon=True)
    thread.start()
    return GatewayHandle(
        server=server,
        thread=thread,
        gateway=gateway,
        host=str(bound_host),
        port=int(bound_port),
        _saved_env=saved,
        _added_paths=added,
    )
