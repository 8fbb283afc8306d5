"""The OpenAPI 3.1 document of the Partner API. Each route declares itself once, on its decorator in
functions/*/app.py (summary, tags, security, `responses=`: partner.edge.apidoc); this merges the
functions' own resolvers with Powertools' OpenAPIMerge and adds only what no one route can say: the
document's description, servers, tags and security schemes, the shared Error components, the bodies
a function parses itself, and the webhooks.

    python -m tools.openapi            # writes docs/openapi.json and the SDKs' error catalogues
    python -m tools.openapi --check    # exit 1 when either is stale
"""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "docs" / "openapi.json"
SDK_CODES = Path("sdk/src/partner_sdk/codes.py")  # under ROOT
TS_CODES = Path("sdks/typescript/src/generated/errors.ts")  # under ROOT
if str(ROOT / "shared") not in sys.path:  # pragma: no cover - the dev .pth normally does this
    sys.path.insert(0, str(ROOT / "shared"))

from aws_lambda_powertools.event_handler.openapi import OpenAPIMerge  # noqa: E402 (after sys.path)
from aws_lambda_powertools.event_handler.openapi.models import (  # noqa: E402 (after sys.path)
    HTTPBase,
    HTTPBearer,
    OAuth2,
    OAuthFlowAuthorizationCode,
    OAuthFlows,
    Server,
    ServerVariable,
    Tag,
)
from pydantic import BaseModel  # noqa: E402 (after sys.path)

from partner.core import scopes  # noqa: E402 (after sys.path)
from partner.core.errors import CATALOGUE  # noqa: E402 (after sys.path)
from partner.edge import apidoc  # noqa: E402 (after sys.path)
from partner.edge import responses as schemas  # noqa: E402 (after sys.path)

TITLE = "Partner API"
VERSION = "1.0.0"
AUTH_URL = "{auth_url}"
BASE_URL = "{base_url}"
JSON_TYPE = apidoc.JSON_TYPE
# the components of every route's error answers
SHARED: dict[str, type[BaseModel]] = {"Error": schemas.Error, "RateLimited": schemas.BucketRefusal}
POWERTOOLS = ("HTTPValidationError", "ValidationError", "ResponseValidationError")
# the document's tags, in the order a reader meets them (each route names its own)
TAGS = (
    "OAuth",
    "Account",
    "Profile",
    "Governance reads",
    "Trades",
    "Governance writes",
    "Coins",
    "Transactions",
    "Health",
)
# GET on these is GET governance/{mint} with a malformed mint (404): template.yaml routes them, the
# document describes them in that route's description
FIXED_PATH_GETS = {("get", f"/partner/v1/governance/{f}") for f in apidoc.FIXED_GOVERNANCE}
_resolvers: dict[str, Any] = {}


def resolvers() -> dict[str, Any]:
    """Each function's resolver (`app` of functions/<name>/app.py; the scheduled functions have none),
    imported once."""
    if not _resolvers:
        for app_py in sorted((ROOT / "functions").glob("*/app.py")):
            spec = importlib.util.spec_from_file_location(f"openapi_fn_{app_py.parent.name}", app_py)
            assert spec and spec.loader
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            if getattr(module, "app", None) is not None:
                _resolvers[app_py.parent.name] = module.app
    return _resolvers


def _security_schemes(auth_url: str) -> dict[str, Any]:
    return {
        "oauth2": OAuth2(
            description="Authorization code flow with PKCE (S256). Access tokens `app_at_...`.",
            flows=OAuthFlows(
                authorizationCode=OAuthFlowAuthorizationCode(
                    authorizationUrl=f"{auth_url}/oauth/authorize",
                    tokenUrl="/oauth/token",
                    refreshUrl="/oauth/token",
                    scopes=dict(scopes.DESCRIPTIONS),
                )
            ),
        ),
        "bearerAuth": HTTPBearer(bearerFormat="app_at_", description="`Authorization: Bearer <ACCESS_TOKEN>`."),
        "clientBasic": HTTPBase(scheme="basic", description="username client_id, password the API key."),
    }


DESCRIPTION = """Trading, governance and coin launch on behalf of a connected user.

Amounts are integer strings in base units (SOL in lamports, tokens 1e6 units per token);
addresses are Base58 public keys. Every error is the Error object: match on `error`.
A returned status is never proof of landing. Writes are idempotent only under an
`Idempotency-Key` header: without one, resending a write can execute it twice.

What API Gateway answers itself is the Error object too: 404 not_found (no such route or
method), 429 rate_limit_exceeded with `retry-after` (the stage throttle),
413 payload_too_large (a request over 10 MB, or a multipart image over 4 MiB: send those
with POST /partner/v1/uploads), 504 gateway_timeout (no answer within 29 s; a write may
still land: check it before resending), 502 internal (the function failed), any other 4xx
request_rejected and any other 5xx internal."""


def generate(auth_url: str = AUTH_URL, base_url: str = BASE_URL) -> dict[str, Any]:
    """The OpenAPI document as a dict (deterministic): the functions' resolvers merged (the platform
    API's routes are docs/openapi-platform.json's), then `_post_process`."""
    servers = [
        Server(
            url=base_url,
            description="API host (not yet final)",
            variables={"base_url": ServerVariable(default="http://127.0.0.1:3000")},
        )
        if base_url == BASE_URL
        else Server(url=base_url)
    ]
    security_schemes = _security_schemes(auth_url)
    merge = OpenAPIMerge(
        title=TITLE,
        version=VERSION,
        description=DESCRIPTION,
        servers=servers,
        tags=[Tag(name=t) for t in TAGS],
        security_schemes=security_schemes,
        on_conflict="error",
    )
    documents = []
    for app in resolvers().values():
        schema = app.get_openapi_schema(security_schemes=security_schemes).model_dump(
            mode="json", by_alias=True, exclude_none=True
        )
        schema["paths"] = {p: item for p, item in schema["paths"].items() if not p.startswith("/platform/")}
        if schema["paths"]:
            documents.append(schema)
            merge.add_schema(schema)
    merge.add_schema({"components": {"schemas": named_models(documents)}})
    return _post_process(json.loads(merge.get_openapi_json_schema()))


def named_models(documents: list[dict[str, Any]]) -> dict[str, Any]:
    """The schemas of the models the routes name (`apidoc.ref`: the responses, the bodies a function
    parses itself) and no signature brought, with the models they refer to: from partner.edge.responses,
    or the request model classes the routes gave (`apidoc.MODELS`)."""
    have = {name for doc in documents for name in doc.get("components", {}).get("schemas", {})}
    named = {name for doc in documents for name in re.findall(r'#/components/schemas/(\w+)"', json.dumps(doc["paths"]))}
    out: dict[str, Any] = {}
    for name in sorted(named - have - set(SHARED)):
        model = apidoc.MODELS.get(name) or getattr(schemas, name)
        schema = model.model_json_schema(ref_template=apidoc.REF)
        out.update(schema.pop("$defs", {}))
        out[name] = schema
    for name in apidoc.MULTIPART_FORMS:
        out[name]["properties"]["image"] = {"anyOf": [dict(apidoc.IMAGE), {"type": "null"}], "title": "Image"}
    return out


def _add_parameters(operation: dict[str, Any], given: list[dict[str, Any]]) -> None:
    """The parameters a function reads itself (`apidoc.reads`) after those of its signature: query ones
    where Powertools puts parameters (before the body), a header (Idempotency-Key) last."""
    if not given:
        return
    parameters = operation.pop("parameters", []) + given
    if all(p["in"] == "header" for p in given):
        operation["parameters"] = parameters
        return
    items = list(operation.items())
    operation.clear()
    for key, value in items:
        if key in ("requestBody", "responses") and "parameters" not in operation:
            operation["parameters"] = parameters
        operation[key] = value


def _post_process(doc: dict[str, Any]) -> dict[str, Any]:
    components = doc.setdefault("components", {}).setdefault("schemas", {})
    for name, model in SHARED.items():
        components[name] = model.model_json_schema(ref_template=apidoc.REF)
    for item in doc["paths"].values():
        for operation in item.values():
            _add_parameters(operation, operation.pop(apidoc.PARAMETERS, []))
            responses = operation["responses"]
            if "HTTPValidationError" in json.dumps(responses.get("422", {})):
                del responses["422"]  # Powertools' own validation error: the API never answers it
    for _ in range(3):  # Powertools' validation components, where nothing refers to them
        used = json.dumps(doc["paths"]) + json.dumps({k: v for k, v in components.items() if k not in POWERTOOLS})
        for name in POWERTOOLS:
            if f'#/components/schemas/{name}"' not in used:
                components.pop(name, None)
    doc["components"]["schemas"] = dict(sorted(components.items()))
    # grouped as the tags are (a path's first operation's), each group in the functions' order
    first_tag = {path: TAGS.index(next(iter(item.values()))["tags"][0]) for path, item in doc["paths"].items()}
    doc["paths"] = dict(sorted(doc["paths"].items(), key=lambda entry: first_tag[entry[0]]))
    _add_webhooks(doc)
    return doc


WEBHOOK_HEADERS = {
    "webhook-id": "The event id (also the body's `id`); the same on every retry.",
    "webhook-timestamp": "Unix seconds of this attempt; reject one more than 5 minutes from now.",
    "webhook-signature": "`v1,<base64 HMAC-SHA256(key, webhook-id + '.' + webhook-timestamp + '.' + body)>`, "
    "key = the base64-decoded part of the `whsec_` secret (Standard Webhooks).",
}
WEBHOOK_EVENTS = {
    "transaction.confirmed": "A transaction the service sent reached `confirmed`.",
    "transaction.finalized": "It reached `finalized` (after `transaction.confirmed`).",
    "transaction.failed": "It landed with an error (`data.error`: the mapped spec code), or its launch bundle "
    "failed (`tx_failed`).",
    "transaction.expired": "Its blockhash expired before it landed (`data.error`: tx_expired): safe to rebuild.",
}


def _add_webhooks(doc: dict[str, Any]) -> None:
    """OpenAPI 3.1 `webhooks`: the signed events POSTed to a client's registered URL."""
    components = doc["components"]["schemas"]
    for model in (schemas.WebhookEventData, schemas.WebhookEvent):
        components[model.__name__] = model.model_json_schema(ref_template="#/components/schemas/{model}")
        components[model.__name__].pop("$defs", None)
    doc["components"]["schemas"] = dict(sorted(components.items()))
    parameters = [
        {"name": name, "in": "header", "required": True, "description": text, "schema": {"type": "string"}}
        for name, text in WEBHOOK_HEADERS.items()
    ]
    doc["webhooks"] = {
        event: {
            "post": {
                "operationId": event.replace(".", "_"),
                "summary": summary,
                "tags": ["Webhooks"],
                "description": "Registered per client with `partnerctl client webhook set CLIENT_ID URL` (https; a "
                "development client may use http on localhost). Delivered at least once: answer 2xx; "
                "anything else or no answer within 5 s is retried with exponential backoff for 24 "
                "hours.",
                "parameters": parameters,
                "requestBody": {
                    "required": True,
                    "content": {
                        JSON_TYPE: {
                            "schema": {
                                "allOf": [
                                    {"$ref": "#/components/schemas/WebhookEvent"},
                                    {"properties": {"type": {"const": event}}},
                                ]
                            }
                        }
                    },
                },
                "responses": {"200": {"description": "Received (any 2xx)."}},
            }
        }
        for event, summary in WEBHOOK_EVENTS.items()
    }


def render(doc: dict[str, Any] | None = None) -> str:
    return json.dumps(doc if doc is not None else generate(), indent=2, sort_keys=False) + "\n"


def render_sdk_codes() -> str:
    """The SDK's `codes.py`: each error code of partner.core.errors and its family."""
    rows = "".join(f'    "{code}": "{entry[3]}",\n' for code, entry in CATALOGUE.items())
    return (
        '"""Each error code of the API and its family (partner.core.errors), for `errors.family`.\n'
        'Generated by `make openapi` (tools/openapi.py): do not edit."""\n\n'
        f"FAMILY = {{\n{rows}}}\n"
    )


_NOT_EXTRA = {"action", "retryable", "headers", "error_description"}
# the spec's conventions when a raise site passes a variable: lamports are decimal strings
_STRING_FIELDS = ("Lamports", "field", "signature", "bundleId", "mint")


def _extra_type(node: ast.expr, name: str) -> str:
    if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return "string"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "str":
        return "string"
    if (isinstance(node, ast.Constant) and isinstance(node.value, int)) or name.endswith("Seconds"):
        return "number"
    return "string" if name.endswith(_STRING_FIELDS) else "unknown"


def error_extras() -> dict[str, dict[str, str]]:
    """The code-specific fields of each error code: the keywords of every `ApiError("<code>", ...)`
    raised in shared/partner (code -> field -> TypeScript type; "unknown" when it varies)."""
    found: dict[str, dict[str, str]] = {}
    for path in sorted((ROOT / "shared" / "partner").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "ApiError"):
                continue
            if not (node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value in CATALOGUE):
                continue
            fields = found.setdefault(node.args[0].value, {})
            for kw in node.keywords:
                if kw.arg is None or kw.arg in _NOT_EXTRA:
                    continue
                kind = _extra_type(kw.value, kw.arg)
                fields[kw.arg] = kind if fields.get(kw.arg, kind) == kind else "unknown"
    return found


def render_ts_codes() -> str:
    """The TypeScript SDK's `errors.ts`: every code with its status, family and retryable default, and
    `ApiErrorBody`, a union discriminated on `error` with each code's own fields typed."""
    extras = error_extras()
    rows = "".join(
        f'  {code}: {{ status: {status}, family: "{fam}", retryable: {str(retry).lower()} }},\n'
        for code, (status, _msg, retry, fam) in CATALOGUE.items()
    )
    members = []
    for code in CATALOGUE:
        fields = "".join(f" readonly {name}?: {kind};" for name, kind in sorted(extras.get(code, {}).items()))
        members.append(f'  | (ErrorCommon & {{ readonly error: "{code}";{fields} }})\n')
    return (
        "// Every error code of the API (partner.core.errors) and the fields each one carries (the\n"
        "// keywords of its raise sites in shared/partner). Generated by `make openapi`\n"
        "// (tools/openapi.py): do not edit.\n\n"
        f"export const CATALOGUE = {{\n{rows}}} as const;\n\n"
        "export type ErrorCode = keyof typeof CATALOGUE;\n"
        'export type ErrorFamily = (typeof CATALOGUE)[ErrorCode]["family"];\n\n'
        "/** The fields every Error object may carry. */\n"
        "export interface ErrorCommon {\n"
        "  readonly message?: string | null;\n"
        "  readonly action?: string | null;\n"
        "  readonly retryable?: boolean | null;\n"
        "  readonly error_description?: string | null;\n"
        "}\n\n"
        "/** An Error object of a known code: narrow it with `switch (body.error)`. */\n"
        f"export type ApiErrorBody =\n{''.join(members)};\n"
    )


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    outputs = {OUTPUT: render(), ROOT / SDK_CODES: render_sdk_codes(), ROOT / TS_CODES: render_ts_codes()}
    if "--check" in args:
        stale = [path for path, text in outputs.items() if (path.read_text() if path.exists() else "") != text]
        for path in stale:
            print(f"{path.relative_to(ROOT)} is stale: run `python -m tools.openapi`", file=sys.stderr)
        return 1 if stale else 0
    for path, text in outputs.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
