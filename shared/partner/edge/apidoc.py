"""What a route's decorator says of it in the OpenAPI document, in Powertools' own keywords
(`responses=`, `security=`, `openapi_extensions=`): each functions/*/app.py declares its route once,
and tools/openapi.py merges the functions' resolvers into docs/openapi.json. Nothing here runs on a
request: Powertools reads these only when it builds a schema. Models are named (`"TradeResponse"`, a
class of partner.edge.responses) rather than imported, so no function loads the documentation's models:
tools/openapi.py adds their schemas.

    @app.post(path, bucket="trade", scope="trade:execute", summary=..., operation_id=..., tags=[...],
              **apidoc.write("TradeResponse", apidoc.TRADE))

A bearer route's `security=` comes from its admission (`bucket=`, `scope=`: partner.edge.http), so its
scope is written once; the OAuth routes name theirs (`CLIENT_BASIC`).
"""

from __future__ import annotations

from typing import Any

from partner.core import errors
from partner.core.answers import JSON as JSON_TYPE
from partner.core.errors import CATALOGUE

ERROR_REF = "#/components/schemas/Error"
RATE_LIMITED_REF = "#/components/schemas/RateLimited"
REF = "#/components/schemas/{model}"
MULTIPART = "multipart/form-data"
FORM = "application/x-www-form-urlencoded"
HTML = {"text/html": {"schema": {"type": "string"}}}
IMAGE_TYPES = "image/png, image/jpeg, image/webp, image/gif"
IMAGE = {
    "type": "string",
    "format": "binary",
    "contentMediaType": "image/*",
    "description": "PNG, JPEG, WebP or GIF; at most 5 MiB.",
}
# GET on these answers 404 governance_not_found (the function of GET governance/{mint}): on
# API Gateway a fixed resource wins over {mint}, so template.yaml routes GET on each to it.
FIXED_GOVERNANCE = ("votes", "proposals", "metadata", "bonds")
BIG_IMAGES = (
    "A multipart body reaches the function base64-encoded inside an event of at most 6,291,456 "
    "bytes (Lambda's quota), so a direct image part carries images up to 4 MiB. A bigger request "
    "answers API Gateway's 413 payload_too_large: upload images over 4 MiB with POST "
    "/partner/v1/uploads and send `imageUploadId` instead of the `image` part."
)

# ------------------------------------------------------------------ error codes per kind of route

AUTH = ("invalid_token", "rate_limit_exceeded", "internal")
WRITE = AUTH + (
    "insufficient_scope",
    "delegation_missing",
    "invalid_input",
    "invalid_wallet",
    "insufficient_sol",
    "rpc_unavailable",
    "wallet_sign_failed",
    "tx_expired",
    "tx_failed",
    "tx_too_large",
    "idempotency_key_reused",
    "idempotency_key_in_use",
)
QUOTE = AUTH + (
    "insufficient_scope",
    "invalid_input",
    "invalid_wallet",
    "invalid_partner_fee",
    "partner_fee_not_configured",
    "migration_pending",
    "pool_not_open",
    "insufficient_liquidity",
    "curve_complete",
    "math_overflow",
    "rpc_unavailable",
)
TRADE = WRITE + tuple(code for f in ("trading", "caps", "venue") for code in errors.family(f) if code not in WRITE)
GOVERNANCE_WRITE = WRITE + errors.family("governance")
CONTENT_FIELDS = errors.family("content")
MULTIPART_CODES = ("invalid_multipart", "invalid_image_type", "payload_too_large", "pinning_unavailable")
UPDATE_CONTENT = GOVERNANCE_WRITE + MULTIPART_CODES + CONTENT_FIELDS
COIN_CREATE = (
    WRITE
    + MULTIPART_CODES
    + CONTENT_FIELDS
    + ("image_required", "deploy_cooldown_active", "launch_identity_limit_reached", "math_overflow")
)
OAUTH_CLIENT = ("invalid_request", "invalid_client", "too_many_failed_attempts", "internal")
TOKEN = OAUTH_CLIENT + ("unsupported_grant_type", "invalid_grant", "invalid_scope")
AUTHORIZE = (
    "invalid_request",
    "unknown_client",
    "invalid_redirect_uri",
    "invalid_scope",
    "scope_not_allowed",
    "internal",
)

# ------------------------------------------------------------------ security

CLIENT_BASIC: list[dict[str, list[str]]] = [
    {"clientBasic": []},
    {},
]  # HTTP Basic, or client_id/client_secret body fields


def bearer(scope: str | tuple[str, ...] = "") -> list[dict[str, list[str]]]:
    """A bearer access token with `scope` (a tuple: any one of them; "": any valid token)."""
    alternatives = scope if isinstance(scope, tuple) else (scope,)
    return [*({"oauth2": [one] if one else []} for one in alternatives), {"bearerAuth": []}]


# ------------------------------------------------------------------ responses

RATE_HEADERS = {
    "x-ratelimit-limit": {"description": "The endpoint bucket's requests per window.", "schema": {"type": "integer"}},
    "x-ratelimit-remaining": {"description": "Requests left in the window.", "schema": {"type": "integer"}},
    "x-ratelimit-reset": {"description": "Seconds until the window resets.", "schema": {"type": "integer"}},
}
REPLAYED_HEADER = {
    "description": "`true` when this is the stored answer of an earlier request with the same Idempotency-Key.",
    "schema": {"type": "string", "enum": ["true"]},
}
LOCATION = {"Location": {"schema": {"type": "string"}}}


def ref(model: Any) -> dict[str, str]:
    """A schema naming `model`: a class of partner.edge.responses by its name, or a request model class
    (kept in MODELS for tools/openapi.py)."""
    if not isinstance(model, str):
        MODELS[model.__name__] = model
        model = model.__name__
    return {"$ref": REF.format(model=model)}


def responses(
    model: str | None,
    codes: tuple[str, ...],
    *,
    success: dict[int, Any] | None = None,
    keyed: bool = False,
    client_auth: bool = False,
    page: bool = False,
) -> dict[int, Any]:
    """A route's answers: 200 with `model` (or `success`, e.g. a redirect), then each error status with
    its codes (the Error object; HTML too when `page`). A route with a rate-limit bucket (any that
    answers an error: /health has neither) answers a per-endpoint 429 and, with a JSON `model` and a
    bearer token, `x-ratelimit-*` on 200.
    `keyed`: a write under an Idempotency-Key (`idempotent-replayed` on its stored answers);
    `client_auth`: client credentials, so its 401 carries `WWW-Authenticate`."""
    out: dict[int, Any] = dict(success or {})
    bucket = bool(codes)
    if model is not None:
        out[200] = {"description": "OK", "content": {JSON_TYPE: {"schema": ref(model)}}}
        if bucket and not client_auth:
            out[200]["headers"] = dict(RATE_HEADERS)
    by_status: dict[int, list[str]] = {}
    for code in codes:
        by_status.setdefault(CATALOGUE[code][0], []).append(code)
    for status in sorted(by_status):
        schema: dict[str, Any] = {
            "allOf": [{"$ref": ERROR_REF}, {"properties": {"error": {"enum": by_status[status]}}}]
        }
        headers: dict[str, Any] = {}
        if status == 429:
            schema = {"anyOf": [schema, {"$ref": RATE_LIMITED_REF}]}
            headers["retry-after"] = {"description": "Seconds to wait.", "schema": {"type": "integer"}}
        if status == 401 and client_auth:
            headers["WWW-Authenticate"] = {"schema": {"type": "string"}}
        description = ", ".join(by_status[status]) + (
            ". idempotency_key_in_use carries retry-after." if status == 409 and keyed else ""
        )
        response: dict[str, Any] = {"description": description, "content": {JSON_TYPE: {"schema": schema}}}
        if page:
            response["content"].update(HTML)
        if headers:
            response["headers"] = headers
        out[status] = response
    if 429 not in out and bucket:
        out[429] = {
            "description": "Per-endpoint rate limit (no `error` code).",
            "headers": {"retry-after": {"schema": {"type": "integer"}}},
            "content": {JSON_TYPE: {"schema": {"$ref": RATE_LIMITED_REF}}},
        }
    if keyed:
        for status, answer in out.items():
            if status != 429:
                answer.setdefault("headers", {})["idempotent-replayed"] = REPLAYED_HEADER
        if 409 in out:
            out[409]["headers"]["retry-after"] = {
                "description": "idempotency_key_in_use: seconds to wait before sending again.",
                "schema": {"type": "integer"},
            }
    return out


def page(description: str = "The sign-in or consent page.") -> dict[int, Any]:
    return {200: {"description": description, "content": dict(HTML)}}


def redirect(status: int, description: str) -> dict[int, Any]:
    return {status: {"description": description, "headers": dict(LOCATION)}}


# ------------------------------------------------------------------ what a route reads from the event itself
# (its function parses the query or the body, so Powertools sees no parameter to describe)

IDEMPOTENCY_PARAMETER = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[\\x20-\\x7E]{1,255}$"},
    "description": "1 to 255 printable ASCII characters, scoped to the client and the user, kept 24 hours. "
    "The first request claims the key; its answer (success or any error after admission and "
    "validation) is stored and a later request with the same key and the same request (method, "
    "path, canonical body) gets it again byte for byte with `idempotent-replayed: true`: nothing "
    "is built, signed, sent or counted again. Another request under a used key: 422 "
    "idempotency_key_reused; while the first still runs: 409 idempotency_key_in_use. 401, 429 "
    "(the launch cooldown too), 403 insufficient_scope and 400 answers are not stored and leave "
    "the key unused. Without the "
    "header every request is its own write.",
}

# the request models a route names (`ref`) whose function does not take them: name -> class
MODELS: dict[str, Any] = {}
MULTIPART_FORMS: set[str] = set()  # their `image` part is a file, not the model's field


def query(name: str, description: str | None = None, *, required: bool = True, **schema: Any) -> dict[str, Any]:
    """A query parameter its function reads itself, a string (`schema`: more JSON Schema keywords of it:
    `pattern`, `maxLength`, `const`), as Powertools writes one."""
    value: dict[str, Any] = {"type": "string", **schema}
    if not required:
        value = {"anyOf": [value, {"type": "null"}]}
    value["title"] = name.replace("_", " ").title()
    out: dict[str, Any] = {}
    if description is not None:
        out["description"] = value["description"] = description
    out.update({"required": required, "schema": value, "name": name, "in": "query"})
    return out


def one_of(discriminator: str, **models: str) -> dict[str, Any]:
    """A body that is one of `models` (value of `discriminator` -> model name)."""
    return {
        "oneOf": [ref(name) for name in models.values()],
        "title": "Body",
        "discriminator": {
            "propertyName": discriminator,
            "mapping": {value: ref(name)["$ref"] for value, name in models.items()},
        },
    }


def body(schema: Any, *media_types: str, multipart_image: bool = False) -> dict[str, Any]:
    """A request body its function parses itself: a model (`ref`) or a schema (`one_of`), in each of
    `media_types` (`multipart_image`: its `image` part is a file, PNG, JPEG, WebP or GIF)."""
    if not isinstance(schema, dict):
        schema = ref(schema)
    if multipart_image:
        MULTIPART_FORMS.add(schema["$ref"].rsplit("/", 1)[1])
    content: dict[str, Any] = {}
    for media in media_types:
        content[media] = {"schema": dict(schema)}
        if multipart_image:
            content[media]["encoding"] = {"image": {"contentType": IMAGE_TYPES}}
    return {"content": content, "required": True}


# Powertools writes an operation's `parameters` from its function's signature, over any given in
# `openapi_extensions`: what a function reads itself goes under this key, and tools/openapi.py appends it
PARAMETERS = "x-parameters"


def reads(*parameters: dict[str, Any], request_body: dict[str, Any] | None = None) -> dict[str, Any]:
    """`openapi_extensions` of a route whose function reads these `parameters` (`query`) or this body
    (`body`) from the event itself."""
    out: dict[str, Any] = {PARAMETERS: list(parameters)} if parameters else {}
    if request_body is not None:
        out["requestBody"] = request_body
    return out


def keyed(request_body: dict[str, Any] | None = None) -> dict[str, Any]:
    """`openapi_extensions` of a write that takes an Idempotency-Key (and, when its function parses the
    body itself, that body)."""
    return reads(IDEMPOTENCY_PARAMETER, request_body=request_body)


def write(model: str, codes: tuple[str, ...], request_body: dict[str, Any] | None = None) -> dict[str, Any]:
    """A write's decorator keywords under an Idempotency-Key, said once: its answers (`responses`,
    `keyed`: `idempotent-replayed` on them) and the header itself (`openapi_extensions`, `keyed`).
    `@app.post(path, ..., **apidoc.write("TradeResponse", apidoc.TRADE))`"""
    return {"responses": responses(model, codes, keyed=True), "openapi_extensions": keyed(request_body)}
