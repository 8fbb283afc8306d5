"""A small API Gateway (REST, proxy integration) resolver: routes, exception handlers, responses.

What the functions used of Powertools' `APIGatewayRestResolver`, with the same behaviour:
routes `"/path/<param>"` matched against the event's `path` (trailing slashes ignored,
parameters `[-._~()'!*:@,;=+&$%<> \\[\\]{}|^\\w]+`), exception handlers looked up along
the exception's MRO, a `not_found` handler, and the proxy response (`statusCode`, `body`,
`isBase64Encoded`, `multiValueHeaders` with `Content-Type` from `content_type`).
`app.current_event` is per thread, so the devstack's threaded gateway needs no patching.

Why not Powertools': importing `aws_lambda_powertools.event_handler` runs its package
`__init__`, which imports every resolver (AppSync, Bedrock agents, VPC Lattice, ...) and
asyncio, none of which a function uses: 30-60 ms of every cold start (docs/benchmarks.md).
"""

from __future__ import annotations

import base64
import re
import threading
from collections.abc import Callable, Mapping
from typing import Any

_SAFE_URI = "-._~()'!*:@,;=+&$"  # RFC 3986 (as Powertools matches them)
_UNSAFE_URI = r"%<> \[\]{}|^"
_PARAM = re.compile(r"<(\w+)>")


class Response:
    """An HTTP response; `content_type` becomes the `Content-Type` header unless `headers` has one."""

    def __init__(self, status_code: int, content_type: str | None = None, body: str | bytes | None = None,
                 headers: Mapping[str, str | list[str]] | None = None) -> None:
        self.status_code = status_code
        self.body = body
        self.headers: dict[str, str | list[str]] = dict(headers) if headers else {}
        if content_type:
            self.headers.setdefault("Content-Type", content_type)

    def proxy(self) -> dict[str, Any]:
        body, encoded = self.body, False
        if isinstance(body, bytes):
            body, encoded = base64.b64encode(body).decode(), True
        multi: dict[str, list[str]] = {}
        for name, value in self.headers.items():
            if value is None:
                continue
            multi.setdefault(name, []).extend([value] if isinstance(value, str) else value)
        return {"statusCode": self.status_code, "body": body, "isBase64Encoded": encoded, "multiValueHeaders": multi}


class Headers(dict):
    """Request headers with lower-cased names; `get` is case-insensitive."""

    def __init__(self, data: Mapping[str, str] | None = None) -> None:
        super().__init__((k.lower(), v) for k, v in (data or {}).items())

    def get(self, key: str, default: Any = None) -> Any:
        return super().get(key.lower(), default)


class Event:
    """The API Gateway proxy event of the request being served."""

    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw_event = raw

    @property
    def headers(self) -> Headers:
        return Headers(self.raw_event.get("headers"))

    @property
    def path(self) -> str:
        return self.raw_event["path"]

    @property
    def http_method(self) -> str:
        return self.raw_event["httpMethod"]

    @property
    def body(self) -> str | None:
        return self.raw_event.get("body")

    @property
    def decoded_body(self) -> str | None:
        body = self.body
        if self.raw_event.get("isBase64Encoded") and body:
            return base64.b64decode(body.encode()).decode()
        return body

    @property
    def query_string_parameters(self) -> dict[str, str]:
        return self.raw_event.get("queryStringParameters") or {}

    @property
    def multi_value_query_string_parameters(self) -> dict[str, list[str]]:
        return self.raw_event.get("multiValueQueryStringParameters") or {}

    def get_query_string_value(self, name: str, default_value: str | None = None) -> str | None:
        return self.query_string_parameters.get(name, default_value)


class App:
    """Routes of one function. `resolve(event, context)` answers an API Gateway proxy event."""

    def __init__(self) -> None:
        self._routes: list[tuple[str, re.Pattern[str], Callable[..., Response]]] = []
        self._handlers: dict[type[BaseException], Callable[[Any], Response]] = {}
        self._not_found: Callable[[Any], Response] | None = None
        self._local = threading.local()

    @property
    def current_event(self) -> Event:
        return self._local.event

    def route(self, rule: str, method: str) -> Callable[[Callable[..., Response]], Callable[..., Response]]:
        rule = rule.rstrip("/")
        # matched with fullmatch: `$` would also match before a trailing newline
        pattern = re.compile(_PARAM.sub(rf"(?P<\1>[{_SAFE_URI}{_UNSAFE_URI}\\w]+)", rule) + "/*")

        def register(fn: Callable[..., Response]) -> Callable[..., Response]:
            self._routes.append((method.upper(), pattern, fn))
            return fn

        return register

    def get(self, rule: str) -> Callable[[Callable[..., Response]], Callable[..., Response]]:
        return self.route(rule, "GET")

    def post(self, rule: str) -> Callable[[Callable[..., Response]], Callable[..., Response]]:
        return self.route(rule, "POST")

    def exception_handler(self, exc_type: type[BaseException]) -> Callable[[Callable[[Any], Response]],
                                                                           Callable[[Any], Response]]:
        def register(fn: Callable[[Any], Response]) -> Callable[[Any], Response]:
            self._handlers[exc_type] = fn
            return fn

        return register

    def not_found(self, fn: Callable[[Any], Response]) -> Callable[[Any], Response]:
        self._not_found = fn
        return fn

    def resolve(self, event: dict[str, Any], context: Any = None) -> dict[str, Any]:
        self._local.event = Event(event)
        self._local.context = context
        try:
            return self._call().proxy()
        finally:
            self._local.event = None

    def _call(self) -> Response:
        event = self.current_event
        method, path = event.http_method.upper(), event.path
        try:
            for route_method, pattern, fn in self._routes:
                if route_method == method:
                    match = pattern.fullmatch(path)
                    if match:
                        return fn(**match.groupdict())
            if self._not_found is None:
                return Response(404, "application/json", '{"statusCode":404,"message":"Not found"}')
            return self._not_found(LookupError(path))
        except Exception as exc:
            for cls in type(exc).__mro__:
                handler = self._handlers.get(cls)
                if handler is not None:
                    return handler(exc)
            raise
