"""The OpenAPI 3.1 document of the Partner API, generated from the pydantic models the functions
validate with: every route of template.yaml is declared once (`OPERATIONS`) on a Powertools resolver,
then a small post-processing step adds what Powertools cannot express.

    python -m tools.openapi            # writes docs/openapi.json and the SDKs' error catalogues
    python -m tools.openapi --check    # exit 1 when either is stale
"""

from __future__ import annotations

import ast
import inspect
import json
import sys
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, get_args

from pydantic import Field

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "docs" / "openapi.json"
SDK_CODES = Path("sdk/src/partner_sdk/codes.py")  # under ROOT
TS_CODES = Path("sdks/typescript/src/generated/errors.ts")  # under ROOT
if str(ROOT / "shared") not in sys.path:  # pragma: no cover - the dev .pth normally does this
    sys.path.insert(0, str(ROOT / "shared"))

from aws_lambda_powertools.event_handler import APIGatewayRestResolver  # noqa: E402 (after sys.path)
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
from aws_lambda_powertools.event_handler.openapi.params import Body, Query  # noqa: E402 (after sys.path)
from aws_lambda_powertools.event_handler.openapi.params import Path as PathParam  # noqa: E402 (after sys.path)

from partner.core import errors, scopes  # noqa: E402 (after sys.path)
from partner.core.errors import CATALOGUE  # noqa: E402 (after sys.path)
from partner.edge import responses as schemas  # noqa: E402 (after sys.path)
from partner.edge.responses import Profile  # noqa: E402 (after sys.path)
from partner.features import models, trading, uploads  # noqa: E402 (after sys.path)
from partner.features.governance import content, writes  # noqa: E402 (after sys.path)
from partner.features.launch import form as launch_form  # noqa: E402 (after sys.path)

TITLE = "Partner API"
VERSION = "1.0.0"
AUTH_URL = "{auth_url}"
BASE_URL = "{base_url}"
ERROR_REF = "#/components/schemas/Error"
RATE_LIMITED_REF = "#/components/schemas/RateLimited"
MULTIPART = "multipart/form-data"
FORM = "application/x-www-form-urlencoded"
JSON_TYPE = "application/json"
IMAGE_TYPES = "image/png, image/jpeg, image/webp, image/gif"
POWERTOOLS = ("HTTPValidationError", "ValidationError", "ResponseValidationError")
PATH_PARAMS = {
    "mint": PathParam(description="Token mint. Not checked for Base58: a malformed value is 404."),
    "proposal": PathParam(description="Proposal account. A malformed value yields an empty list."),
    "signature": PathParam(
        pattern=models.SIGNATURE_PATTERN, description="Base58 transaction signature (64 bytes); else 400 invalid_input."
    ),
}

# ------------------------------------------------------------------ request models

IMAGE = {
    "type": "string",
    "format": "binary",
    "contentMediaType": "image/*",
    "description": "PNG, JPEG, WebP or GIF; at most 5 MiB.",
}
UpdateContentForm = content.UpdateContentFields
CoinCreateForm = launch_form.CoinCreateForm

# ------------------------------------------------------------------ error codes per operation

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
GOVERNANCE = errors.family("governance")
GOVERNANCE_WRITE = WRITE + GOVERNANCE
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

# ------------------------------------------------------------------ operations


@dataclass(frozen=True)
class Operation:
    method: str
    path: str  # OpenAPI style: /partner/v1/governance/{mint}
    operation_id: str
    summary: str
    tag: str
    response: Any  # pydantic model, or None for a non-JSON success
    errors: tuple[str, ...]
    scope: str | tuple[str, ...] | None = None  # partner scope (a tuple: any one); "" = a valid token, no scope;
    # None = no bearer token
    client_auth: bool = False  # HTTP Basic client credentials (or body fields)
    body: Any = None
    media_type: str = JSON_TYPE
    query: dict[str, tuple[Any, Any]] = field(default_factory=dict)  # name -> (type, Query(...))
    description: str = ""
    status: int = 200
    per_endpoint_limit: bool = True  # the bucket's 429 without an `error` code

    @property
    def keyed(self) -> bool:
        """A write: takes an Idempotency-Key (every POST /partner/v1 route but the quote and uploads)."""
        return (
            self.method == "POST"
            and self.path.startswith("/partner/v1/")
            and self.response not in (schemas.QuoteResponse, schemas.UploadResponse)
        )


# GET on these answers 404 governance_not_found (the function of GET governance/{mint}): on
# API Gateway a fixed resource wins over {mint}, so template.yaml routes GET on each to it.
FIXED_GOVERNANCE = ("votes", "proposals", "metadata", "bonds")
FIXED_PATH_GETS = {("get", f"/partner/v1/governance/{f}") for f in FIXED_GOVERNANCE}
BIG_IMAGES = (
    "A multipart body reaches the function base64-encoded inside an event of at most 6,291,456 "
    "bytes (Lambda's quota), so a direct image part carries images up to 4 MiB. A bigger request "
    "answers API Gateway's 413 payload_too_large: upload images over 4 MiB with POST "
    "/partner/v1/uploads and send `imageUploadId` instead of the `image` part."
)


def _ops() -> list[Operation]:
    P = "/partner/v1"
    gv = "governance:vote"
    gp = "governance:propose"
    return [
        Operation(
            "GET",
            "/oauth/authorize",
            "oauthAuthorize",
            "Consent screen (browser redirect)",
            "OAuth",
            None,
            AUTHORIZE,
            query={
                "client_id": (str, Query(description="The client's ID.")),
                "redirect_uri": (str, Query(description="Exactly the client's registered redirect URI.")),
                "response_type": (typing.Literal["code"], Query()),
                "scope": (str, Query(description="Space-separated scopes: " + " ".join(scopes.ALL))),
                "code_challenge": (
                    str,
                    Query(pattern=r"^[A-Za-z0-9_-]{43}$", description="base64url SHA-256 of the PKCE verifier."),
                ),
                "code_challenge_method": (typing.Literal["S256"], Query()),
                "state": (str | None, Query(max_length=512, description="Returned unchanged.")),
            },
            description="Served on `{auth_url}`. Answers the sign-in or consent page (HTML); errors are "
            "HTML, or the Error object with `Accept: application/json`.",
        ),
        Operation(
            "POST",
            "/oauth/authorize",
            "oauthAuthorizeDecide",
            "Consent decision (posted by the page)",
            "OAuth",
            None,
            AUTHORIZE,
            body=schemas.ConsentDecision,
            media_type=FORM,
            status=302,
            description="Posted by the consent page with the platform session cookie; redirects to the "
            "client's redirect URI with `code` (or `error=access_denied`) and `state`.",
        ),
        Operation(
            "GET",
            "/account/apps",
            "accountApps",
            "The user's connected apps (browser page)",
            "Account",
            None,
            ("internal",),
            query={"done": (str | None, Query(description="`limits` or `disconnected`: the notice after a change."))},
            description="Served on `{auth_url}` behind the platform session cookie (added): every "
            "app with a live grant, its scopes, connected and last-used times, today's spend "
            "against its daily limit, and forms to change the limits or disconnect.",
        ),
        Operation(
            "POST",
            "/account/apps",
            "accountAppsChange",
            "Change an app's limits or disconnect it (posted by the page)",
            "Account",
            None,
            ("invalid_request", "internal"),
            body=schemas.AppsChange,
            media_type=FORM,
            status=303,
            description="Posted by /account/apps with the platform session cookie; redirects (303) back to "
            "the page. A limit above the app's cap, a missing session or a bad CSRF token: 400 "
            "(HTML, or the Error object with `Accept: application/json`). Sends the client's "
            "webhook `grant.updated` or `grant.revoked`.",
        ),
        Operation(
            "GET",
            "/account/signin",
            "accountSignin",
            "Sign in through the platform's OpenID provider (browser redirect)",
            "Account",
            None,
            ("internal",),
            status=302,
            query={
                "next": (
                    str | None,
                    Query(
                        description="Where to come back to: `oauth/authorize?...` or "
                        "`account/apps` (anything else: `account/apps`)."
                    ),
                )
            },
            description="Served on `{auth_url}` (added). The consent page and /account/apps send a "
            "visitor without a session here; it redirects to the platform's OpenID provider "
            "(authorization code, PKCE S256, `state` bound to the browser by the `app_signin` "
            "cookie, `nonce`).",
        ),
        Operation(
            "GET",
            "/account/signin/callback",
            "accountSigninCallback",
            "The provider's redirect back (browser)",
            "Account",
            None,
            ("invalid_request", "access_denied", "invalid_grant", "invalid_token", "internal"),
            status=302,
            query={"code": (str | None, Query()), "state": (str | None, Query()), "error": (str | None, Query())},
            description="The redirect URI registered with the platform's provider (added). Checks "
            "`state` against the `app_signin` cookie, exchanges the code, verifies the ID token "
            "(JWKS signature, algorithm, iss, aud, exp, iat, nonce), maps `sub` to the user, sets "
            "the `app_session` cookie and redirects to the original page. Every refusal is an "
            "HTML error page and no session (502 `temporarily_unavailable` when the provider "
            "cannot be reached).",
        ),
        Operation(
            "POST",
            "/oauth/token",
            "oauthToken",
            "Issue tokens (authorization_code or refresh_token)",
            "OAuth",
            schemas.TokenResponse,
            TOKEN,
            client_auth=True,
            body=Annotated[
                schemas.AuthorizationCodeGrant | schemas.RefreshTokenGrant, Field(discriminator="grant_type")
            ],
            media_type=FORM,
            description="Client authentication by HTTP Basic (client_id, API key) or body fields client_id "
            "and client_secret. Also accepts `application/json` (string values). Responses "
            "carry `cache-control: no-store` and `pragma: no-cache`.",
        ),
        Operation(
            "POST",
            "/oauth/revoke",
            "oauthRevoke",
            "Revoke a token (RFC 7009)",
            "OAuth",
            schemas.RevokeResponse,
            OAUTH_CLIENT,
            client_auth=True,
            body=schemas.RevokeRequest,
            media_type=FORM,
            description="Unknown or foreign tokens are ignored. Also accepts `application/json` (string values).",
        ),
        Operation(
            "GET",
            f"{P}/me",
            "getMe",
            "The connected user's profile",
            "Profile",
            Profile,
            AUTH + ("insufficient_scope",),
            scope="profile:read",
        ),
        Operation(
            "GET",
            f"{P}/governance/{{mint}}",
            "getGovernance",
            "A token's governance, proposals and the viewer's votes",
            "Governance reads",
            schemas.GovernanceView,
            AUTH + ("governance_not_found", "rpc_unavailable"),
            scope="",
            description="A malformed mint yields 404 governance_not_found, not 400. So do the fixed "
            "paths beside `{mint}`: GET on "
            + ", ".join(f"`{P}/governance/{f}`" for f in FIXED_GOVERNANCE)
            + " answers 404 governance_not_found.",
        ),
        Operation(
            "GET",
            f"{P}/governance/proposals/{{proposal}}/votes",
            "listProposalVotes",
            "A proposal's votes",
            "Governance reads",
            schemas.VotesList,
            AUTH + ("rpc_unavailable",),
            scope="",
            query={
                "limit": (
                    str | None,
                    Query(
                        description="Default 50, at most 200; anything that is not a "
                        "positive integer is treated as 50; never 400."
                    ),
                )
            },
            description="Largest stake first. A malformed proposal address yields an empty array.",
        ),
        Operation(
            "POST",
            f"{P}/trades/buy",
            "tradeBuy",
            "Buy: spend up to maxSolIn",
            "Trades",
            schemas.TradeResponse,
            TRADE,
            scope="trade:execute",
            body=trading.BuyRequest,
        ),
        Operation(
            "POST",
            f"{P}/trades/buy-exact-out",
            "tradeBuyExactOut",
            "Buy exactly tokensOut",
            "Trades",
            schemas.TradeResponse,
            TRADE,
            scope="trade:execute",
            body=trading.BuyExactOutRequest,
        ),
        Operation(
            "POST",
            f"{P}/trades/sell",
            "tradeSell",
            "Sell tokensIn",
            "Trades",
            schemas.TradeResponse,
            TRADE,
            scope="trade:execute",
            body=trading.SellRequest,
        ),
        Operation(
            "POST",
            f"{P}/trades/quote",
            "tradeQuote",
            "Quote a trade: nothing signed, sent or counted",
            "Trades",
            schemas.QuoteResponse,
            QUOTE,
            scope="trade:execute",
            body=trading.QuoteRequest,
            description="The read bucket (300/min per token); no delegation needed. The amounts come from "
            "the trade endpoints' own math on the state read at `contextSlot`: the same trade "
            "sent at once in explicit mode with the quote's bound (`minTokensOut`, `maxSolIn` "
            "or `minSolOut`) and the same `partnerFeeBps` moves exactly these amounts on-chain "
            "unless the venue's state changes in between.",
        ),
        Operation(
            "POST",
            f"{P}/governance/votes",
            "castVote",
            "Cast a vote",
            "Governance writes",
            schemas.GovernanceWriteResponse,
            GOVERNANCE_WRITE,
            scope=gv,
            body=writes.VoteRequest,
        ),
        Operation(
            "POST",
            f"{P}/governance/votes/cancel",
            "cancelVote",
            "Cancel an active vote",
            "Governance writes",
            schemas.GovernanceWriteResponse,
            GOVERNANCE_WRITE,
            scope=gv,
            body=writes.CancelVoteRequest,
        ),
        Operation(
            "POST",
            f"{P}/governance/votes/withdraw",
            "withdrawVote",
            "Withdraw a vote's locked tokens",
            "Governance writes",
            schemas.GovernanceWriteResponse,
            GOVERNANCE_WRITE,
            scope=gv,
            body=writes.WithdrawVoteRequest,
        ),
        Operation(
            "POST",
            f"{P}/governance/proposals/settle",
            "settleProposal",
            "Settle a closed proposal",
            "Governance writes",
            schemas.GovernanceWriteResponse,
            GOVERNANCE_WRITE,
            scope=gv,
            body=writes.SettleRequest,
        ),
        Operation(
            "POST",
            f"{P}/governance/proposals/update-content",
            "proposeUpdateContent",
            "Propose a metadata change",
            "Governance writes",
            schemas.UpdateContentResponse,
            UPDATE_CONTENT,
            scope=gp,
            body=UpdateContentForm,
            media_type=MULTIPART,
            description=BIG_IMAGES,
        ),
        Operation(
            "POST",
            f"{P}/governance/proposals/extend-mutability",
            "proposeExtendMutability",
            "Propose extending the mutable window",
            "Governance writes",
            schemas.GovernanceWriteResponse,
            GOVERNANCE_WRITE,
            scope=gp,
            body=writes.ExtendMutabilityRequest,
        ),
        Operation(
            "POST",
            f"{P}/governance/proposals/finalize-metadata",
            "proposeFinalizeMetadata",
            "Propose locking metadata permanently",
            "Governance writes",
            schemas.GovernanceWriteResponse,
            GOVERNANCE_WRITE,
            scope=gp,
            body=writes.FinalizeMetadataRequest,
        ),
        Operation(
            "POST",
            f"{P}/governance/metadata/finalize-expired",
            "finalizeExpiredMetadata",
            "Record a lapsed mutability window",
            "Governance writes",
            schemas.GovernanceWriteResponse,
            GOVERNANCE_WRITE,
            scope=gp,
            body=writes.FinalizeExpiredRequest,
        ),
        Operation(
            "POST",
            f"{P}/governance/bonds/withdraw",
            "withdrawProposalBond",
            "Withdraw a proposal bond",
            "Governance writes",
            schemas.GovernanceWriteResponse,
            GOVERNANCE_WRITE,
            scope=gp,
            body=writes.BondWithdrawRequest,
        ),
        Operation(
            "POST",
            f"{P}/coins/create",
            "createCoin",
            "Launch a coin, optionally with a first buy",
            "Coins",
            schemas.CoinCreateResponse,
            COIN_CREATE,
            scope="coin:create",
            body=CoinCreateForm,
            media_type=MULTIPART,
            description=BIG_IMAGES,
        ),
        Operation(
            "POST",
            f"{P}/uploads",
            "createUpload",
            "Stage an image for coins/create or update-content",
            "Coins",
            schemas.UploadResponse,
            AUTH + ("insufficient_scope", "invalid_input"),
            scope=uploads.ROUTE.scope,
            body=uploads.UploadRequest,
            description="Added (not in the spec). Scope `coin:create` or `governance:propose` (either "
            "one); its own bucket, 30/min per access token, plus the tier budget; no "
            "delegation. Answers an S3 presigned POST for one image of at most contentLength "
            "bytes (at most 5 MiB), valid 15 minutes: the way to send images too big for a "
            "direct multipart body (API Gateway hands a multipart body to Lambda "
            "base64-encoded, and Lambda takes at most 6 MB). Then send its uploadId as "
            "`imageUploadId` in place of the `image` part.",
        ),
        Operation(
            "GET",
            f"{P}/transactions/{{signature}}/status",
            "getTransactionStatus",
            "A transaction's (or launch bundle's) status",
            "Transactions",
            schemas.TransactionStatus,
            AUTH + ("invalid_input", "rpc_unavailable"),
            scope="",
            description="`expired` (added): the service sent the transaction, alone or in a launch "
            "bundle, and its blockhash expired before it landed (`error` tx_expired), where the chain "
            "alone would say not_found.",
        ),
        Operation(
            "GET",
            f"{P}/fees/estimate",
            "getFeeEstimate",
            "Priority fee percentiles for a trade on a mint",
            "Transactions",
            schemas.FeeEstimate,
            AUTH + ("invalid_input", "rpc_unavailable"),
            scope="",
            query={"mint": (str, Query(description="The coin's mint (Base58).", pattern=models.BASE58_PATTERN))},
            description="Added (not in the spec). Percentiles of the compute-unit prices that recently "
            "landed transactions writing the mint's bonding curve or pool, as lamports for the "
            "service's compute-unit limit; amounts never below the spec minimums. Read bucket.",
        ),
        Operation(
            "GET",
            "/health",
            "getHealth",
            "Whether the API answers",
            "Health",
            schemas.Health,
            (),
            description="Added (not in the spec). No authentication, no rate-limit bucket, no data: "
            "the function reads no table, key or chain.",
            per_endpoint_limit=False,
        ),
    ]


OPERATIONS = _ops()

# ------------------------------------------------------------------ responses


def _error_schema(codes: list[str]) -> dict[str, Any]:
    return {"allOf": [{"$ref": ERROR_REF}, {"properties": {"error": {"enum": codes}}}]}


RATE_HEADERS = {
    "x-ratelimit-limit": {"description": "The endpoint bucket's requests per window.", "schema": {"type": "integer"}},
    "x-ratelimit-remaining": {"description": "Requests left in the window.", "schema": {"type": "integer"}},
    "x-ratelimit-reset": {"description": "Seconds until the window resets.", "schema": {"type": "integer"}},
}


def _responses(op: Operation) -> dict[int, Any]:
    out: dict[int, Any] = {}
    if op.status == 302:
        where = (
            "To the platform's OpenID provider, or back to the original page."
            if op.path.startswith("/account/signin")
            else "Redirect to the client's redirect URI."
        )
        out[302] = {"description": where, "headers": {"Location": {"schema": {"type": "string"}}}}
    elif op.status == 303:
        out[303] = {
            "description": "Back to the page, with its notice.",
            "headers": {"Location": {"schema": {"type": "string"}}},
        }
    elif op.response is None:
        out[200] = {
            "description": "The sign-in or consent page.",
            "content": {"text/html": {"schema": {"type": "string"}}},
        }
    else:
        out[200] = {"description": "OK", "content": {JSON_TYPE: {"model": op.response}}}
        if op.per_endpoint_limit and not op.path.startswith("/oauth"):
            out[200]["headers"] = dict(RATE_HEADERS)
    by_status: dict[int, list[str]] = {}
    for code in op.errors:
        by_status.setdefault(CATALOGUE[code][0], []).append(code)
    for status in sorted(by_status):
        codes = by_status[status]
        schema = _error_schema(codes)
        headers: dict[str, Any] = {}
        if status == 429:
            schema = {"anyOf": [schema, {"$ref": RATE_LIMITED_REF}]}
            headers["retry-after"] = {"description": "Seconds to wait.", "schema": {"type": "integer"}}
        if status == 401 and op.client_auth:
            headers["WWW-Authenticate"] = {"schema": {"type": "string"}}
        response: dict[str, Any] = {"description": ", ".join(codes), "content": {JSON_TYPE: {"schema": schema}}}
        if op.path in ("/oauth/authorize", "/account/apps", "/account/signin", "/account/signin/callback"):
            response["content"]["text/html"] = {"schema": {"type": "string"}}
        if headers:
            response["headers"] = headers
        out[status] = response
    if 429 not in out and op.per_endpoint_limit:
        out[429] = {
            "description": "Per-endpoint rate limit (no `error` code).",
            "headers": {"retry-after": {"schema": {"type": "integer"}}},
            "content": {JSON_TYPE: {"schema": {"$ref": RATE_LIMITED_REF}}},
        }
    return out


def _security(op: Operation) -> list[dict[str, list[str]]]:
    if op.client_auth:
        return [{"clientBasic": []}, {}]  # or client_id/client_secret body fields
    if op.scope is None:
        return []
    if isinstance(op.scope, tuple):  # any one of these scopes (alternatives are OR-ed requirements)
        return [*({"oauth2": [one]} for one in op.scope), {"bearerAuth": []}]
    scopes_needed = [op.scope] if op.scope else []
    return [{"oauth2": scopes_needed}, {"bearerAuth": []}]


def _handler(op: Operation) -> Any:
    params: list[inspect.Parameter] = []
    for name in _path_params(op.path):
        params.append(
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=Annotated[str, PATH_PARAMS[name]])
        )
    for name, (tp, marker) in op.query.items():
        default = None if type(None) in get_args(tp) else inspect.Parameter.empty
        params.append(
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=Annotated[tp, marker])
        )
    if op.body is not None:
        params.append(
            inspect.Parameter(
                "body", inspect.Parameter.KEYWORD_ONLY, annotation=Annotated[op.body, Body(media_type=op.media_type)]
            )
        )

    def handler(**_kwargs: Any) -> Any:  # pragma: no cover - never invoked: the document only
        raise NotImplementedError

    handler.__name__ = op.operation_id
    handler.__doc__ = op.description or None
    signature = inspect.Signature(params, return_annotation=op.response or inspect.Signature.empty)
    handler.__signature__ = signature  # type: ignore[attr-defined]  # inspect.signature reads it
    return handler


def _path_params(path: str) -> list[str]:
    return [part[1:-1] for part in path.split("/") if part.startswith("{") and part.endswith("}")]


def build_resolver() -> APIGatewayRestResolver:
    app = APIGatewayRestResolver(enable_validation=True)
    for op in OPERATIONS:
        route_path = "/".join(f"<{p[1:-1]}>" if p.startswith("{") else p for p in op.path.split("/"))
        app.route(
            route_path,
            op.method,
            summary=op.summary,
            description=op.description or None,
            responses=_responses(op),
            tags=[op.tag],
            operation_id=op.operation_id,
            security=_security(op),
        )(_handler(op))
    return app


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
    """The OpenAPI document as a dict (deterministic)."""
    app = build_resolver()
    servers = [
        Server(
            url=base_url,
            description="API host (not yet final)",
            variables={"base_url": ServerVariable(default="http://127.0.0.1:3000")},
        )
        if base_url == BASE_URL
        else Server(url=base_url)
    ]
    raw = app.get_openapi_json_schema(
        title=TITLE,
        version=VERSION,
        description=DESCRIPTION,
        servers=servers,
        tags=[Tag(name=t) for t in dict.fromkeys(op.tag for op in OPERATIONS)],
        security_schemes=_security_schemes(auth_url),
    )
    return _post_process(json.loads(raw))


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
REPLAYED_HEADER = {
    "description": "`true` when this is the stored answer of an earlier request with the same Idempotency-Key.",
    "schema": {"type": "string", "enum": ["true"]},
}


def _post_process(doc: dict[str, Any]) -> dict[str, Any]:
    components = doc.setdefault("components", {}).setdefault("schemas", {})
    components["Error"] = schemas.Error.model_json_schema(ref_template="#/components/schemas/{model}")
    components["RateLimited"] = schemas.RateLimited.model_json_schema(ref_template="#/components/schemas/{model}")
    by_key = {(op.method.lower(), op.path): op for op in OPERATIONS}
    for path, item in doc["paths"].items():
        for method, operation in item.items():
            op = by_key[(method, path)]
            responses = operation["responses"]
            if "422" in responses and not any(CATALOGUE[c][0] == 422 for c in op.errors):
                del responses["422"]  # Powertools' own validation error: the API never answers it
            body = operation.get("requestBody", {}).get("content", {})
            if op.client_auth and FORM in body:
                body[JSON_TYPE] = body[FORM]
            if MULTIPART in body:
                body[MULTIPART]["encoding"] = {"image": {"contentType": IMAGE_TYPES}}
                form = components[body[MULTIPART]["schema"]["$ref"].rsplit("/", 1)[1]]
                form["properties"]["image"] = {"anyOf": [dict(IMAGE), {"type": "null"}], "title": "Image"}
            if "requestBody" in operation:
                operation["requestBody"]["required"] = True
            if op.keyed:
                operation.setdefault("parameters", []).append(IDEMPOTENCY_PARAMETER)
                for status, response in responses.items():
                    if status != "429":
                        response.setdefault("headers", {})["idempotent-replayed"] = REPLAYED_HEADER
                responses["409"]["description"] += ". idempotency_key_in_use carries retry-after."
                responses["409"].setdefault("headers", {})["retry-after"] = {
                    "description": "idempotency_key_in_use: seconds to wait before sending again.",
                    "schema": {"type": "integer"},
                }
    for _ in range(3):  # Powertools' validation components, where nothing refers to them
        used = json.dumps(doc["paths"]) + json.dumps({k: v for k, v in components.items() if k not in POWERTOOLS})
        for name in POWERTOOLS:
            if f'#/components/schemas/{name}"' not in used:
                components.pop(name, None)
    doc["components"]["schemas"] = dict(sorted(components.items()))
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
