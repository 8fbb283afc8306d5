"""Lambda's Invoke API for the template's functions, served by the gateway.

moto cannot run the functions, so a function that invokes another (the tracker invokes itself once per
group of index partitions) has its lambda client pointed here (`AWS_ENDPOINT_URL_LAMBDA`, set by
devstack.run): `POST /2015-03-31/functions/{FunctionName}/invocations` runs the named template function
in the devstack's own function processes (`Gateway.call`). The name is what Lambda takes: a function's
name, its ARN, either with a `:qualifier` (the alias or version is ignored: the devstack has one
copy of each function). A function is known by its logical id (the name in the devstack's contexts and
ARNs) and by its template `FunctionName` (`${AWS::StackName}` matches any stack name).

Only a request signed as the AWS SDK signs Lambda's (SigV4, service `lambda`, us-east-1) by a key of
`credentials` runs anything (devstack.run: the keys it gives the functions), checked with the platform
routes' verifier (devstack.sigv4), refused as Lambda refuses it: 403 `MissingAuthenticationTokenException`
(no signature), `IncompleteSignatureException`, `UnrecognizedClientException` (an unknown key),
`InvalidSignatureException` (a wrong secret, another service's scope, a changed body). A browser's
request (an `Origin` or `Sec-Fetch-*` header: a page's `fetch`, even `no-cors`) is refused first, 403
`AccessDeniedException`: no web page can run a function of the devstack.

`X-Amz-Invocation-Type: Event`: 202 at once, and the function runs on a thread of its own; at most its
ReservedConcurrentExecutions (else `ASYNC_CONCURRENCY`) run at once, the others wait their turn, as
Lambda's queue of asynchronous events. `RequestResponse` (the default): 200 with the function's result,
or with `X-Amz-Function-Error: Unhandled` when it raised. A payload that is not JSON: 400
`InvalidRequestContentException`. An unknown function: 404 ResourceNotFoundException. `DryRun`: 204
once all of these checks passed, and nothing runs.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

from . import sigv4
from .cfn import Function
from .events import REGION
from .workers import FunctionError, FunctionTimeout

PREFIX = "/2015-03-31/functions/"
ASYNC_CONCURRENCY = 10  # asynchronous invocations of one function at once without a reserved concurrency
ASYNC_MAX_BYTES = 262_144  # Lambda's asynchronous invoke payload quota (256 KB)
SERVICE = "lambda"  # the SigV4 scope's service
BROWSER_HEADERS = ("origin", "sec-fetch-site", "sec-fetch-mode", "sec-fetch-dest")  # sent by browsers only


def function_name(path_name: str) -> str:
    """The function's name out of Invoke's FunctionName (name, ARN, partial ARN; maybe qualified)."""
    name = unquote(path_name)
    if name.startswith("arn:"):
        return name.split(":")[6]
    parts = name.split(":")
    if len(parts) >= 3 and parts[-2] == "function":  # 123456789012:function:name
        return parts[-1]
    if len(parts) >= 3 and parts[-3] == "function":  # 123456789012:function:name:qualifier
        return parts[-2]
    return parts[0]


def _json(status: int, payload: Any, error_type: str | None = None) -> tuple[int, list[tuple[str, str]], bytes]:
    headers = [("Content-Type", "application/json")]
    if error_type:
        headers.append(("x-amzn-ErrorType", error_type))
    return status, headers, json.dumps(payload).encode()


class Invoker:
    """The Invoke route over a gateway's functions (`routes()` for `Gateway.extra_routes`)."""

    def __init__(
        self,
        gateway: Any,
        parameters: Mapping[str, Any] | None = None,
        credentials: Mapping[str, tuple[str, str]] | None = None,
    ) -> None:
        """`credentials`: access key id -> (secret access key, principal ARN) of the callers allowed to
        invoke; none: every request is refused."""
        self.gateway = gateway
        self.parameters = dict(parameters or {})
        self.credentials: dict[str, tuple[str, str]] = dict(credentials or {})
        self._slots: dict[str, threading.Semaphore] = {}
        self._guard = threading.Lock()
        self.threads: list[threading.Thread] = []  # the asynchronous invocations (tests join them)

    def routes(self) -> dict[tuple[str, str], Any]:
        return {("POST", PREFIX + "*"): self.handle}

    def find(self, name: str) -> Function | None:
        for fn in self.gateway.template.functions():
            if name == fn.logical_id or _named(fn, name):
                return fn
        return None

    def refusal(self, request: Any) -> tuple[int, list[tuple[str, str]], bytes] | None:
        """Lambda's answer to a browser's request or to one not signed by a key of `credentials`; None: go on."""
        sent = {name.lower() for name, _ in request.headers}
        if any(name in sent for name in BROWSER_HEADERS):
            message = (
                "The devstack's Lambda Invoke API refuses requests from a browser (Origin or Sec-Fetch-* "
                "header): invoke with an AWS SDK, signed with the devstack's credentials."
            )
            return _json(403, {"Type": "User", "Message": message}, "AccessDeniedException")
        received = sigv4.Received(
            request.method, request.raw_path or request.path, request.query_string, request.headers, request.body
        )
        checked = sigv4.verify(received, request.header("Host") or "", self.credentials, REGION, service=SERVICE)
        if isinstance(checked, sigv4.Refusal):
            return _json(checked.status, {"message": checked.message}, checked.error_type)
        return None

    def handle(self, request: Any) -> tuple[int, list[tuple[str, str]], bytes]:
        refused = self.refusal(request)
        if refused is not None:
            return refused
        segments = request.path[len(PREFIX) :].split("/")
        if len(segments) != 2 or segments[1] != "invocations":
            return _json(404, {"Type": "User", "message": "Unknown operation"}, "UnknownOperationException")
        name = function_name(segments[0])
        fn = self.find(name)
        if fn is None:
            message = f"Function not found: {name}"
            return _json(404, {"Type": "User", "Message": message}, "ResourceNotFoundException")
        kind = request.header("X-Amz-Invocation-Type") or "RequestResponse"
        if kind == "Event" and len(request.body or b"") > ASYNC_MAX_BYTES:  # refused before it is read
            message = f"Request must be smaller than {ASYNC_MAX_BYTES} bytes for the InvokeAsync operation"
            return _json(413, {"Type": "User", "message": message}, "RequestEntityTooLargeException")
        try:
            event = json.loads(request.body or b"{}")
        except ValueError as exc:  # not JSON, or not UTF-8
            message = f"Could not parse request body into json: Could not parse payload into json: {exc}"
            return _json(400, {"Type": "User", "message": message}, "InvalidRequestContentException")
        if kind == "DryRun":
            return 204, [], b""
        if kind == "Event":
            self._start(fn, event)
            return 202, [], b""
        return self._run(fn, event)

    def _run(self, fn: Function, event: Any) -> tuple[int, list[tuple[str, str]], bytes]:
        try:
            result = self.gateway.call(fn, event)
        except Exception as exc:  # the function raised or timed out: Lambda answers 200 with the error
            kind = exc.error_type if isinstance(exc, FunctionTimeout) else type(exc).__name__
            status, headers, body = _json(200, {"errorMessage": str(exc), "errorType": kind})
            return status, [*headers, ("X-Amz-Function-Error", "Unhandled")], body
        return _json(200, result)

    def _slot(self, fn: Function) -> threading.Semaphore:
        with self._guard:
            found = self._slots.get(fn.logical_id)
            if found is None:
                reserved = fn.properties.get("ReservedConcurrentExecutions")
                if reserved is not None:
                    reserved = self.gateway.template.resolve(reserved, parameters=self.parameters, strict=False)
                found = self._slots[fn.logical_id] = threading.Semaphore(int(reserved or ASYNC_CONCURRENCY))
            return found

    def _start(self, fn: Function, event: Any) -> None:
        slot = self._slot(fn)

        def run() -> None:
            with slot:
                try:
                    self.gateway.call(fn, event)
                except Exception as exc:  # Lambda logs it (and would retry); shown here
                    shown = str(exc) if isinstance(exc, FunctionError) else repr(exc)
                    print(f"devstack.lambdas: {fn.logical_id} (asynchronous) raised: {shown}", file=sys.stderr)

        thread = threading.Thread(target=run, name=f"devstack-async-{fn.logical_id}", daemon=True)
        with self._guard:
            self.threads = [t for t in self.threads if t.is_alive()] + [thread]
        thread.start()

    def join(self, timeout: float = 60.0) -> None:
        """Wait for the asynchronous invocations started so far."""
        with self._guard:
            threads = list(self.threads)
        for thread in threads:
            thread.join(timeout)


def _named(fn: Function, name: str) -> bool:
    """Whether `name` is the function's template FunctionName (any value in place of a ${...})."""
    given = fn.properties.get("FunctionName")
    text = given.get("Fn::Sub") if isinstance(given, dict) else given
    if not isinstance(text, str):
        return False
    pattern = ".+".join(re.escape(part) for part in re.split(r"\$\{[^}]+\}", text))
    return re.fullmatch(pattern, name) is not None
