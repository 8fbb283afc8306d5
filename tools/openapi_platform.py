"""The OpenAPI 3.1 document of the platform API (`/platform/v1/*`), a document of its own beside the
partners' docs/openapi.json: the platform's back end is its only caller (IAM, SigV4; API Gateway
refuses any other caller, partner tokens included), and the partner SDKs are generated from the
partners' document, which stays as it is. Swagger UI shows it at /docs/platform on the devstack.

    python -m tools.openapi_platform            # writes docs/openapi-platform.json
    python -m tools.openapi_platform --check    # exit 1 when it is stale
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "docs" / "openapi-platform.json"
JSON_TYPE = "application/json"
USER_REF = "#/components/schemas/PlatformUser"
ERROR_REF = "#/components/schemas/Error"

DESCRIPTION = """The platform's back end manages users, their delegated wallets and their delegation,
keyed on the subject (`sub`) of the platform's OpenID provider. **IAM only**: every request is signed
with AWS Signature Version 4 (service `execute-api`) by a principal the stage's resource policy allows
(docs/operations.md); API Gateway answers 403 to anything else before a function runs, partner
access tokens included. Swagger UI cannot sign SigV4: call it with an AWS SDK or `curl --aws-sigv4`.
On the devstack the credentials are PLATFORM_ACCESS_KEY_ID / PLATFORM_SECRET_ACCESS_KEY in
.devstack/env.json (region us-east-1). Every call is idempotent."""

SIGV4 = {
    "type": "apiKey",
    "name": "Authorization",
    "in": "header",
    "description": "AWS Signature Version 4 (`AWS4-HMAC-SHA256 Credential=.../execute-api/aws4_request, ...`), "
    "with `X-Amz-Date` (and `X-Amz-Security-Token` for temporary credentials). IAM only.",
    "x-amazon-apigateway-authtype": "awsSigv4",
}

USER = {
    "type": "object",
    "required": ["userId", "sub", "twitterHandle", "wallet", "tradingEnabled"],
    "properties": {
        "userId": {"type": "string"},
        "sub": {"type": "string", "description": "The provider's subject."},
        "twitterHandle": {"type": ["string", "null"]},
        "wallet": {"type": ["string", "null"], "description": "Base58 public key; null until provisioned."},
        "tradingEnabled": {"type": "boolean", "description": "Delegation (1-click trading)."},
    },
}

ERROR = {
    "type": "object",
    "required": ["error", "message"],
    "properties": {
        "error": {"type": "string", "description": "The code: match on it."},
        "message": {"type": "string"},
        "field": {"type": "string", "description": "The request field at fault, when there is one."},
    },
}

SUB = {
    "name": "sub",
    "in": "path",
    "required": True,
    "description": "The provider's subject: 1 to 255 printable ASCII characters without spaces.",
    "schema": {"type": "string", "pattern": "^[\\x21-\\x7e]{1,255}$"},
}


def _body(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    schema = {"type": "object", "additionalProperties": False, "properties": properties}
    if required:
        schema["required"] = required
    return {"required": bool(required), "content": {JSON_TYPE: {"schema": schema}}}


def _answer(description: str, ref: str) -> dict[str, Any]:
    return {"description": description, "content": {JSON_TYPE: {"schema": {"$ref": ref}}}}


# (method, path, operationId, summary, request body or None, error statuses -> description)
OPERATIONS: list[tuple[str, str, str, str, dict[str, Any] | None, dict[str, str]]] = [
    (
        "get",
        "/platform/v1/users/{sub}",
        "platformUserRead",
        "A user by the provider's subject",
        None,
        {"400": "invalid_input (`sub`)", "404": "not_found: no user is linked to this sub"},
    ),
    (
        "put",
        "/platform/v1/users/{sub}",
        "platformUserUpsert",
        "Create or update the user linked to the provider's subject (no wallet yet, delegation off)",
        _body({"twitterHandle": {"type": ["string", "null"], "pattern": "^@?[A-Za-z0-9_]{1,15}$"}}, []),
        {"400": "invalid_input: `sub`, `twitterHandle`, an unknown field or a body that is not a JSON object"},
    ),
    (
        "post",
        "/platform/v1/users/{sub}/wallet",
        "platformUserWallet",
        "Provision the user's delegated wallet (KMS-sealed): created on the first call, the same one after",
        None,
        {"400": "invalid_input (`sub`)", "404": "not_found: no user is linked to this sub"},
    ),
    (
        "put",
        "/platform/v1/users/{sub}/delegation",
        "platformUserDelegation",
        "Turn the user's 1-click trading on or off (on needs a provisioned wallet)",
        _body({"tradingEnabled": {"type": "boolean"}}, ["tradingEnabled"]),
        {"400": "invalid_input (`sub`, `tradingEnabled`)", "404": "not_found: no user is linked to this sub"},
    ),
]


def generate() -> dict[str, Any]:
    """The document as a dict (deterministic)."""
    paths: dict[str, dict[str, Any]] = {}
    for method, path, operation_id, summary, body, errors in OPERATIONS:
        responses: dict[str, Any] = {"200": _answer("The user as it is now.", USER_REF)}
        for status, text in errors.items():
            responses[status] = _answer(text, ERROR_REF)
        responses["403"] = {"description": "Not signed with SigV4 by an allowed IAM principal (API Gateway)."}
        operation: dict[str, Any] = {
            "tags": ["Platform (IAM only)"],
            "summary": summary,
            "operationId": operation_id,
            "parameters": [SUB],
            "responses": responses,
            "security": [{"sigv4": []}],
        }
        if body is not None:
            operation["requestBody"] = body
        paths.setdefault(path, {})[method] = operation
    return {
        "openapi": "3.1.0",
        "info": {"title": "Platform API (IAM only)", "version": "1.0.0", "description": DESCRIPTION},
        "servers": [{"url": "{base_url}", "variables": {"base_url": {"default": "http://127.0.0.1:3000"}}}],
        "tags": [{"name": "Platform (IAM only)", "description": "SigV4 by the platform's IAM principal only."}],
        "paths": paths,
        "components": {
            "schemas": {"PlatformUser": USER, "Error": ERROR},
            "securitySchemes": {"sigv4": SIGV4},
        },
        "security": [{"sigv4": []}],
    }


def render() -> str:
    return json.dumps(generate(), indent=2) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    text = render()
    if "--check" in args:
        if (OUTPUT.read_text() if OUTPUT.exists() else "") != text:
            print(f"{OUTPUT.relative_to(ROOT)} is stale: run `python -m tools.openapi_platform`", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text)
    print(f"wrote {OUTPUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
