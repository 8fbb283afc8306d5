"""API Gateway's IAM authorization (`AWS_IAM`), as the devstack gateway applies it: a route whose event
says `Auth: Authorizer: AWS_IAM` answers only requests signed with SigV4 for `execute-api` by the
devstack's platform credentials, recomputed with botocore's own signer. `sign` is the recomputation
itself, shared with the devstack's S3 front (`devstack.s3post`), which checks every signed call to moto.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from urllib.parse import unquote

from botocore.auth import S3SigV4Auth, S3SigV4QueryAuth, SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

SERVICE = "execute-api"
MAX_SKEW_SECONDS = 300
# a key id as AWS spells it, or as the devstack's functions are given it (`testing`, devstack.aws)
_AUTH = re.compile(
    r"AWS4-HMAC-SHA256 Credential=([A-Za-z0-9]{1,128})/(\d{8})/([a-z0-9-]+)/([a-z0-9-]+)/aws4_request,\s*"
    r"SignedHeaders=([a-z0-9;-]+),\s*Signature=([0-9a-f]{64})"
)


@dataclass(frozen=True)
class Signed:
    """What the signer computed: S3 shows the first two when the signature does not match."""

    canonical_request: str
    string_to_sign: str
    signature: str


@dataclass(frozen=True)
class Received:
    """A request as the server received it: the method, the path and query string as sent, the
    headers (name, value) and the body."""

    method: str
    raw_path: str
    query_string: str
    headers: Sequence[tuple[str, str]]
    body: bytes


def sign(
    request: Received, key: tuple[str, str], amz_date: str, region: str, service: str, presigned: bool = False
) -> Signed:
    """botocore's SigV4 over a request as received: `raw_path` and `query_string` as sent (the query is
    decoded and encoded again, as AWS canonicalizes it; a presigned URL's `X-Amz-Signature` left out),
    `headers` exactly the signed ones, `host` among them (lower-case names, values as received), `key`
    (access key id, secret). `s3` signs as S3 does (S3SigV4Auth: the path is not encoded again, the
    `X-Amz-Content-SHA256` header is the payload hash literally, `UNSIGNED-PAYLOAD` or `STREAMING-*`
    included; a presigned URL: S3SigV4QueryAuth, `UNSIGNED-PAYLOAD`); any other service signs the
    body's SHA-256 over the normalized, encoded-again path."""
    if service == "s3":
        signer_class: type[SigV4Auth] = S3SigV4QueryAuth if presigned else S3SigV4Auth
    else:
        signer_class = SigV4Auth
    pairs = [part.partition("=") for part in request.query_string.split("&") if part]
    params = [(unquote(k), unquote(v)) for k, _, v in pairs if not (presigned and k == "X-Amz-Signature")]
    host = dict(request.headers).get("host", "")
    aws_request = AWSRequest(method=request.method.upper(), url=f"https://{host}{request.raw_path}", data=request.body)
    for name, value in request.headers:
        aws_request.headers[name] = value
    aws_request.params = params
    aws_request.context["timestamp"] = amz_date
    signer = signer_class(Credentials(*key), service, region)
    canonical = signer.canonical_request(aws_request)
    string_to_sign = signer.string_to_sign(aws_request, canonical)
    return Signed(canonical, string_to_sign, signer.signature(string_to_sign, aws_request))


@dataclass(frozen=True)
class Refusal:
    """API Gateway's own answer: the gateway response type, status, message and x-amzn-ErrorType."""

    type: str
    status: int
    message: str
    error_type: str


MISSING = Refusal(
    "MISSING_AUTHENTICATION_TOKEN", 403, "Missing Authentication Token", "MissingAuthenticationTokenException"
)
INCOMPLETE = Refusal(
    "DEFAULT_4XX",
    403,
    "Authorization header requires 'Credential' parameter. Authorization "
    "header requires 'Signature' parameter. Authorization header requires 'SignedHeaders' "
    "parameter. Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' "
    "header.",
    "IncompleteSignatureException",
)
UNRECOGNIZED = Refusal(
    "DEFAULT_4XX", 403, "The security token included in the request is invalid.", "UnrecognizedClientException"
)


def _invalid(message: str) -> Refusal:
    return Refusal("INVALID_SIGNATURE", 403, message, "InvalidSignatureException")


@dataclass(frozen=True)
class Caller:
    """Who signed: what API Gateway puts in `requestContext.identity`."""

    access_key: str
    user_arn: str


Keys = Mapping[str, tuple[str, str]]  # access key id -> (secret access key, the principal's ARN)


def verify(
    request: Received, host: str, credentials: Keys, region: str, now: float | None = None, service: str = SERVICE
) -> Caller | Refusal:
    """`credentials`: access key id -> (secret access key, the principal's ARN); `service`: the scope's
    service (API Gateway's `execute-api`; Lambda's Invoke, devstack.lambdas: `lambda`).

    What API Gateway answers itself on each failure:

    * no `Authorization` header: `MISSING_AUTHENTICATION_TOKEN` (403 "Missing Authentication Token";
      this template renders it as its 404);
    * an `Authorization` that is not SigV4 (a partner's `Bearer app_at_...`): 403
      `IncompleteSignatureException` (the API's DEFAULT_4XX);
    * an unknown access key: 403 `UnrecognizedClientException` (DEFAULT_4XX);
    * a wrong signature, another service or region in the scope, or a date more than 5 minutes off:
      `INVALID_SIGNATURE` (403).
    """
    values: dict[str, list[str]] = {}
    for name, value in request.headers:
        values.setdefault(name.lower(), []).append(value)
    authorization = values.get("authorization")
    if not authorization:
        return MISSING
    match = _AUTH.fullmatch(authorization[-1].strip())
    amz_date = (values.get("x-amz-date") or [""])[-1]
    if match is None or not amz_date:
        return INCOMPLETE
    key_id, day, scope_region, scope_service, signed, signature = match.groups()
    if key_id not in credentials:
        return UNRECOGNIZED
    if scope_region != region or scope_service != service:
        return _invalid(f"Credential should be scoped to a valid region and to the service '{service}'.")
    try:
        signed_at = datetime.strptime(amz_date, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    except ValueError:
        return INCOMPLETE
    if day != amz_date[:8]:
        return _invalid("Credential should be scoped to the date of X-Amz-Date.")
    if abs((now if now is not None else time.time()) - signed_at.timestamp()) > MAX_SKEW_SECONDS:
        return _invalid(f"Signature expired: {amz_date} is not within 5 minutes of the server's time.")
    names = signed.split(";")
    if "host" not in names or any(n not in values for n in names if n != "host"):
        return _invalid("The request signature we calculated does not match the signature you provided.")
    digest = hashlib.sha256(request.body).hexdigest()
    sent = values.get("x-amz-content-sha256")
    declared = sent[-1] if sent else None
    if declared is not None and declared != digest:
        return _invalid("The request body does not match its X-Amz-Content-Sha256.")
    # botocore's signer over the very headers the caller signed (their values as received)
    signed_headers = {n: ",".join(v.strip() for v in values[n]) for n in names if n != "host"}
    signed_headers["host"] = (values.get("host") or [host])[-1]
    secret, arn = credentials[key_id]
    expected = sign(replace(request, headers=list(signed_headers.items())), (key_id, secret), amz_date, region, service)
    if not hmac.compare_digest(expected.signature, signature):
        return _invalid(
            "The request signature we calculated does not match the signature you provided. Check "
            "your AWS Secret Access Key and signing method."
        )
    return Caller(key_id, arn)
