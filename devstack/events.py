"""API Gateway REST (v1) Lambda proxy events and Lambda context objects, for the devstack gateway and
for tests that call handlers directly:

    event = api_event("GET", "/partner/v1/governance/Mint111", resource="/partner/v1/governance/{mint}",
                      headers={"Authorization": "Bearer app_at_..."}, query={"limit": "10"})
    response = app.lambda_handler(event, lambda_context("GovernanceFunction"))
"""

from __future__ import annotations

import base64
import functools
import json
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote

__all__ = [
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


def _header_pairs(headers: HeadersIn) -> list[tuple[str, str]]:
    if headers is None:
        return []
    if isinstance(headers, Mapping):
        pairs: list[tuple[str, str]] = []
        for k, v in headers.items():
            if isinstance(v, (list, tuple)):
                pairs.extend((str(k), str(x)) for x in v)
            else:
                pairs.append((str(k), str(v)))
        return pairs
    return [(str(k), str(v)) for k, v in headers]


def _query_pairs(query: QueryIn) -> list[tuple[str, str]]:
    if query is None:
        return []
    if isinstance(query, str):
        return parse_qsl(query.lstrip("?"), keep_blank_values=True)
    if isinstance(query, Mapping):
        pairs: list[tuple[str, str]] = []
        for k, v in query.items():
            if isinstance(v, (list, tuple)):
                pairs.extend((str(k), str(x)) for x in v)
            else:
                pairs.append((str(k), str(v)))
        return pairs
    return [(str(k), str(v)) for k, v in query]


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


def api_event(
    method: str,
    path: str,
    *,
    headers: HeadersIn = None,
    query: QueryIn = None,
    body: str | bytes | Mapping[str, Any] | list | None = None,
    source_ip: str = "127.0.0.1",
    resource: str | None = None,
    path_params: Mapping[str, str] | None = None,
    stage: str = DEFAULT_STAGE,
    api_id: str = DEFAULT_API_ID,
    binary_media_types: Sequence[str] | None = None,
    protocol: str = "HTTP/1.1",
    request_id: str | None = None,
    request_time_epoch_ms: int | None = None,
) -> dict[str, Any]:
    """An API Gateway REST API (v1) Lambda proxy integration event.

    * ``headers``: dict (a list value = repeated header) or list of (name, value);
      names keep their case. ``headers``/``multiValueHeaders`` are None when empty.
    * ``query``: raw query string, dict (list value = repeated key) or list of pairs;
      ``queryStringParameters`` keeps the last value of a repeated key.
    * ``body``: str, bytes, None, or a dict/list (JSON-encoded, adding
      ``Content-Type: application/json`` if no Content-Type was given). When the
      Content-Type matches ``binary_media_types`` (default: the project's
      template.yaml API BinaryMediaTypes) the body is base64 and
      ``isBase64Encoded`` is true, as API Gateway does.
    * ``path``: as received, percent-encoding kept (as REST APIs deliver it).
    * ``resource``: the route's path template; default ``path``. When given
      without ``path_params`` the parameters are taken from matching ``path``.
    """
    method = method.upper()
    header_pairs = _header_pairs(headers)
    if body is not None and not isinstance(body, (str, bytes, bytearray)):
        body = json.dumps(body)
        if _get_header(header_pairs, "content-type") is None:
            header_pairs.append(("Content-Type", "application/json"))
    if binary_media_types is None:
        binary_media_types = project_binary_media_types()

    if "?" in path and query is None:
        path, _, raw_query = path.partition("?")
        query = raw_query
    query_pairs = _query_pairs(query)

    # REST APIs deliver `path` as received (still percent-encoded); pathParameters
    # and query parameters are decoded.
    path = path or "/"
    if resource is None:
        resource = unquote(path)
    if path_params is None and "{" in resource:
        path_params = match_path(resource, path)
    path_params = dict(path_params) if path_params else None

    is_b64 = False
    body_out: str | None
    if body is None or len(body) == 0:
        body_out = None
    else:
        content_type = _get_header(header_pairs, "content-type")
        if is_binary_media_type(content_type, binary_media_types):
            raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)
            body_out = base64.b64encode(raw).decode("ascii")
            is_b64 = True
        elif isinstance(body, (bytes, bytearray)):
            body_out = bytes(body).decode("utf-8", errors="replace")
        else:
            body_out = body

    single_h, multi_h = _single_and_multi(header_pairs)
    single_q, multi_q = _single_and_multi(query_pairs)

    now_ms = request_time_epoch_ms if request_time_epoch_ms is not None else int(time.time() * 1000)
    request_time = datetime.fromtimestamp(now_ms / 1000, tz=UTC).strftime("%d/%b/%Y:%H:%M:%S +0000")
    host = _get_header(header_pairs, "host") or f"{api_id}.execute-api.{REGION}.amazonaws.com"
    request_id = request_id or str(uuid.uuid4())

    return {
        "resource": resource,
        "path": path,
        "httpMethod": method,
        "headers": single_h,
        "multiValueHeaders": multi_h,
        "queryStringParameters": single_q,
        "multiValueQueryStringParameters": multi_q,
        "pathParameters": path_params,
        "stageVariables": None,
        "requestContext": {
            "resourceId": uuid.uuid5(uuid.NAMESPACE_URL, f"{method} {resource}").hex[:6],
            "resourcePath": resource,
            "httpMethod": method,
            "extendedRequestId": base64.b64encode(uuid.uuid4().bytes[:12]).decode("ascii"),
            "requestTime": request_time,
            "path": f"/{stage}{path}",
            "accountId": ACCOUNT_ID,
            "protocol": protocol,
            "stage": stage,
            "domainPrefix": host.split(".", 1)[0],
            "requestTimeEpoch": now_ms,
            "requestId": request_id,
            "identity": {
                "cognitoIdentityPoolId": None,
                "accountId": None,
                "cognitoIdentityId": None,
                "caller": None,
                "sourceIp": source_ip,
                "principalOrgId": None,
                "accessKey": None,
                "cognitoAuthenticationType": None,
                "cognitoAuthenticationProvider": None,
                "userArn": None,
                "userAgent": _get_header(header_pairs, "user-agent"),
                "user": None,
            },
            "domainName": host,
            "apiId": api_id,
        },
        "body": body_out,
        "isBase64Encoded": is_b64,
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
        region: str = REGION,
        account_id: str = ACCOUNT_ID,
        function_version: str = "$LATEST",
    ) -> None:
        self.function_name = function_name
        self.function_version = function_version
        self.invoked_function_arn = f"arn:aws:lambda:{region}:{account_id}:function:{function_name}"
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
