"""API Gateway REST (v1) Lambda proxy events and Lambda context objects, for the devstack gateway and
for tests that call handlers directly:

    event = api_event(ApiRequest("GET", "/partner/v1/governance/Mint111", resource="/partner/v1/governance/{mint}",
                                 headers={"Authorization": "Bearer app_at_..."}, query={"limit": "10"}))
    response = app.lambda_handler(event, lambda_context("GovernanceFunction"))
"""

from __future__ import annotations

import base64
import functools
import json
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote

__all__ = [
    "ApiRequest",
    "ApiStage",
    "api_event",
    "lambda_context",
    "LambdaContext",
    "is_binary_media_type",
    "match_path",
    "project_binary_media_types",
    "DEFAULT_STAGE",
    "DEFAULT_API_ID",
    "ACCOUNT_ID",
    "REGION",
]

ACCOUNT_ID = "123456789012"
REGION = "us-east-1"
DEFAULT_STAGE = "api"
DEFAULT_API_ID = "devstack01"

_PROJECT_TEMPLATE = Path(__file__).resolve().parent.parent / "template.yaml"

HeadersIn = Mapping[str, Any] | Iterable[tuple[str, str]] | None
QueryIn = str | Mapping[str, Any] | Iterable[tuple[str, str]] | None
BodyIn = str | bytes | Mapping[str, Any] | list | None


@functools.lru_cache(maxsize=8)
def _template_binary_media_types(path: str, mtime: float) -> tuple[str, ...]:
    from .cfn import load_template

    return tuple(load_template(path).binary_media_types())


def project_binary_media_types(template_path: str | Path | None = None) -> list[str]:
    """BinaryMediaTypes of the project's (or the given) template's REST API, ``~1`` unescaped."""
    path = Path(template_path) if template_path is not None else _PROJECT_TEMPLATE
    try:
        return list(_template_binary_media_types(str(path), path.stat().st_mtime))
    except OSError:
        return []


def _media_type(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


def is_binary_media_type(content_type: str | None, binary_media_types: Sequence[str]) -> bool:
    """Whether ``content_type`` matches one of API Gateway's BinaryMediaTypes
    (``~1`` escapes and ``type/*`` / ``*/*`` wildcards understood)."""
    mt = _media_type(content_type)
    if not mt:
        return False
    main, _, sub = mt.partition("/")
    for pattern in binary_media_types:
        p = _media_type(str(pattern).replace("~1", "/"))
        pmain, _, psub = p.partition("/")
        if (pmain in ("*", main)) and (psub in ("*", sub)):
            return True
    return False


def name_value_pairs(values: Mapping[str, Any] | Iterable[tuple[str, str]] | None) -> list[tuple[str, str]]:
    """(name, value) pairs of a mapping (a list value: the name repeated) or of pairs."""
    if values is None:
        return []
    if isinstance(values, Mapping):
        pairs: list[tuple[str, str]] = []
        for k, v in values.items():
            if isinstance(v, (list, tuple)):
                pairs.extend((str(k), str(x)) for x in v)
            else:
                pairs.append((str(k), str(v)))
        return pairs
    return [(str(k), str(v)) for k, v in values]


def _query_pairs(query: QueryIn) -> list[tuple[str, str]]:
    if isinstance(query, str):
        return parse_qsl(query.lstrip("?"), keep_blank_values=True)
    return name_value_pairs(query)


def _single_and_multi(pairs: list[tuple[str, str]]) -> tuple[dict[str, str] | None, dict[str, list[str]] | None]:
    if not pairs:
        return None, None
    single: dict[str, str] = {}
    multi: dict[str, list[str]] = {}
    for k, v in pairs:
        single[k] = v  # API Gateway keeps the last value in the single-value map
        multi.setdefault(k, []).append(v)
    return single, multi


def _get_header(pairs: list[tuple[str, str]], name: str) -> str | None:
    found = None
    for k, v in pairs:
        if k.lower() == name.lower():
            found = v
    return found


def match_path(template: str, path: str) -> dict[str, str] | None:
    """Match ``path`` against a resource path template (``/a/{b}/c``, ``/x/{proxy+}``);
    returns the (URL-decoded) path parameters or None if it does not match."""
    tsegs = [s for s in template.strip("/").split("/")] if template.strip("/") else []
    psegs = [s for s in path.strip("/").split("/")] if path.strip("/") else []
    params: dict[str, str] = {}
    for i, t in enumerate(tsegs):
        if t.startswith("{") and t.endswith("+}"):
            rest = psegs[i:]
            if not rest or any(s == "" for s in rest):
                return None
            params[t[1:-2]] = unquote("/".join(rest))
            return params
        if i >= len(psegs):
            return None
        seg = psegs[i]
        if t.startswith("{") and t.endswith("}"):
            if seg == "":
                return None
            params[t[1:-1]] = unquote(seg)
        elif unquote(seg) != t:
            return None
    if len(psegs) != len(tsegs):
        return None
    return params


@dataclass(frozen=True)
class ApiRequest:
    """A request as an API Gateway REST API received it.

    * ``headers``: dict (a list value = repeated header) or list of (name, value); names keep their case.
    * ``query``: raw query string, dict (list value = repeated key) or list of pairs; default: what
      follows ``?`` in ``path``.
    * ``body``: str, bytes, None, or a dict/list (JSON-encoded, adding ``Content-Type:
      application/json`` if no Content-Type was given).
    * ``path``: as received, percent-encoding kept (as REST APIs deliver it).
    * ``resource``: the route's path template; default ``path``. When given without ``path_params``
      the parameters are taken from matching ``path``.
    * ``request_id``, ``request_time_epoch_ms``: what API Gateway assigns (default: new, now).
    """

    method: str
    path: str
    headers: HeadersIn = None
    query: QueryIn = None
    body: BodyIn = None
    source_ip: str = "127.0.0.1"
    resource: str | None = None
    path_params: Mapping[str, str] | None = None
    protocol: str = "HTTP/1.1"
    request_id: str | None = None
    request_time_epoch_ms: int | None = None


@dataclass(frozen=True)
class ApiStage:
    """The REST API stage that receives a request; ``binary_media_types`` None: the project
    template's BinaryMediaTypes."""

    stage: str = DEFAULT_STAGE
    api_id: str = DEFAULT_API_ID
    binary_media_types: Sequence[str] | None = None


def api_event(request: ApiRequest, stage: ApiStage | None = None) -> dict[str, Any]:
    """An API Gateway REST API (v1) Lambda proxy integration event for ``request``.

    ``headers``/``multiValueHeaders`` (and the query's two maps) are None when empty;
    ``queryStringParameters`` keeps the last value of a repeated key. When the Content-Type
    matches the stage's binary media types the body is base64 and ``isBase64Encoded`` is true,
    as API Gateway does.
    """
    stage = stage or ApiStage()
    method = request.method.upper()
    header_pairs = name_value_pairs(request.headers)
    body = request.body
    if body is not None and not isinstance(body, (str, bytes, bytearray)):
        body = json.dumps(body)
        if _get_header(header_pairs, "content-type") is None:
            header_pairs.append(("Content-Type", "application/json"))
    binary_media_types = stage.binary_media_types
    if binary_media_types is None:
        binary_media_types = project_binary_media_types()
    path, query = request.path, request.query
    if "?" in path and query is None:
        path, _, query = path.partition("?")
    path = path or "/"  # REST APIs deliver `path` as received (still percent-encoded)
    resource = request.resource if request.resource is not None else unquote(path)
    path_params = request.path_params
    if path_params is None and "{" in resource:
        path_params = match_path(resource, path)
    body_out, is_b64 = _event_body(body, _get_header(header_pairs, "content-type"), binary_media_types)
    single_h, multi_h = _single_and_multi(header_pairs)
    single_q, multi_q = _single_and_multi(_query_pairs(query))
    return {
        "resource": resource,
        "path": path,
        "httpMethod": method,
        "headers": single_h,
        "multiValueHeaders": multi_h,
        "queryStringParameters": single_q,
        "multiValueQueryStringParameters": multi_q,
        "pathParameters": dict(path_params) if path_params else None,
        "stageVariables": None,
        "requestContext": _request_context(request, stage, resource, path, header_pairs),
        "body": body_out,
        "isBase64Encoded": is_b64,
    }


def _event_body(
    body: str | bytes | bytearray | None, content_type: str | None, binary_media_types: Sequence[str]
) -> tuple[str | None, bool]:
    """The event's ``body`` and ``isBase64Encoded``."""
    if body is None or len(body) == 0:
        return None, False
    if is_binary_media_type(content_type, binary_media_types):
        raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)
        return base64.b64encode(raw).decode("ascii"), True
    if isinstance(body, (bytes, bytearray)):
        return bytes(body).decode("utf-8", errors="replace"), False
    return body, False


def _request_context(
    request: ApiRequest, stage: ApiStage, resource: str, path: str, header_pairs: list[tuple[str, str]]
) -> dict[str, Any]:
    method = request.method.upper()
    now_ms = request.request_time_epoch_ms
    if now_ms is None:
        now_ms = int(time.time() * 1000)
    host = _get_header(header_pairs, "host") or f"{stage.api_id}.execute-api.{REGION}.amazonaws.com"
    return {
        "resourceId": uuid.uuid5(uuid.NAMESPACE_URL, f"{method} {resource}").hex[:6],
        "resourcePath": resource,
        "httpMethod": method,
        "extendedRequestId": base64.b64encode(uuid.uuid4().bytes[:12]).decode("ascii"),
        "requestTime": datetime.fromtimestamp(now_ms / 1000, tz=UTC).strftime("%d/%b/%Y:%H:%M:%S +0000"),
        "path": f"/{stage.stage}{path}",
        "accountId": ACCOUNT_ID,
        "protocol": request.protocol,
        "stage": stage.stage,
        "domainPrefix": host.split(".", 1)[0],
        "requestTimeEpoch": now_ms,
        "requestId": request.request_id or str(uuid.uuid4()),
        "identity": {
            "cognitoIdentityPoolId": None,
            "accountId": None,
            "cognitoIdentityId": None,
            "caller": None,
            "sourceIp": request.source_ip,
            "principalOrgId": None,
            "accessKey": None,
            "cognitoAuthenticationType": None,
            "cognitoAuthenticationProvider": None,
            "userArn": None,
            "userAgent": _get_header(header_pairs, "user-agent"),
            "user": None,
        },
        "domainName": host,
        "apiId": stage.api_id,
    }


class LambdaContext:
    """The attributes and method of the Python runtime's Lambda context object."""

    def __init__(
        self,
        function_name: str,
        *,
        memory_limit_in_mb: int = 512,
        timeout_seconds: float = 29,
        aws_request_id: str | None = None,
        function_version: str = "$LATEST",
    ) -> None:
        self.function_name = function_name
        self.function_version = function_version
        self.invoked_function_arn = f"arn:aws:lambda:{REGION}:{ACCOUNT_ID}:function:{function_name}"
        self.memory_limit_in_mb = int(memory_limit_in_mb)
        self.aws_request_id = aws_request_id or str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{function_name}"
        self.log_stream_name = f"{datetime.now(UTC):%Y/%m/%d}/[{function_version}]{uuid.uuid4().hex}"
        self.identity = None
        self.client_context = None
        self.tenant_id = None
        self._deadline = time.monotonic() + float(timeout_seconds)

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))

    def __repr__(self) -> str:
        return f"LambdaContext(function_name={self.function_name!r}, aws_request_id={self.aws_request_id!r})"


def lambda_context(
    name: str,
    *,
    memory_limit_in_mb: int = 512,
    timeout_seconds: float = 29,
    aws_request_id: str | None = None,
) -> LambdaContext:
    """A Lambda context for function ``name`` (defaults match template Globals)."""
    return LambdaContext(
        name,
        memory_limit_in_mb=memory_limit_in_mb,
        timeout_seconds=timeout_seconds,
        aws_request_id=aws_request_id,
    )
