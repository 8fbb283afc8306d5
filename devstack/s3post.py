"""The devstack's S3 checks, as S3 makes them, in front of moto: a browser upload (POST Object with a
POST policy) against its policy, and every other call for a valid SigV4 signature.

    app = PostPolicyCheck(moto_app, {"<access key id>": "<secret access key>"})

The checks, their order and what is not modelled: docs/devstack.md, "What the devstack enforces".
"""

from __future__ import annotations

import base64
import binascii
import calendar
import hashlib
import hmac
import io
import json
import re
import secrets
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

__all__ = ["PostPolicyCheck", "PolicyError", "check", "check_signed", "sigv4_signature"]

_BUCKET_PATH = re.compile(r"^/([^/]+)/?$")
_EXPIRATION = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.\d+)?Z$")
_SIGV4_FIELDS = ("x-amz-algorithm", "x-amz-credential", "x-amz-date", "x-amz-signature")
_SIGV2_FIELDS = ("awsaccesskeyid", "signature")
_AUTH_PARTS = re.compile(r"(Credential|SignedHeaders|Signature)=([^,\s]*)")
_QUERY_AUTH = (
    "X-Amz-Algorithm",
    "X-Amz-Credential",
    "X-Amz-Date",
    "X-Amz-Expires",
    "X-Amz-SignedHeaders",
    "X-Amz-Signature",
)
_AMZ_DATE = re.compile(r"\d{8}T\d{6}Z")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_PAYLOAD_KINDS = (  # what x-amz-content-sha256 may say instead of the body's digest
    "UNSIGNED-PAYLOAD",
    "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
    "STREAMING-AWS4-HMAC-SHA256-PAYLOAD",
    "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER",
    "STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD",
    "STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD-TRAILER",
)
_NOT_IN_POLICY = ("x-amz-signature", "file", "policy")
_REASONS = {400: "Bad Request", 403: "Forbidden"}
_DENIED = "Invalid according to Policy: "


class PolicyError(Exception):
    """One of S3's refusals: its status, error code, message and extra elements."""

    def __init__(self, status: int, code: str, message: str, **extra: Any) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message, self.extra = status, code, message, extra

    def xml(self, request_id: str, host_id: str) -> bytes:
        elements = [
            ("Code", self.code),
            ("Message", self.message),
            *self.extra.items(),
            ("RequestId", request_id),
            ("HostId", host_id),
        ]
        inner = "".join(f"<{name}>{escape(str(value))}</{name}>" for name, value in elements)
        return f'<?xml version="1.0" encoding="UTF-8"?>\n<Error>{inner}</Error>'.encode()


def _now() -> float:
    """The clock tests move (the moto server runs in their process); under `partnerctl dev warp` S3's
    own, the wall clock: botocore signs presigned POSTs with it, the service's expiry follows the warp."""
    from devstack.workers import WarpedClock
    from partner.chain import ports
    from partner.core import clock

    return time.time() if isinstance(ports.current().clock, WarpedClock) else clock.now()


def _hmac(key: bytes, message: str) -> bytes:
    return hmac.new(key, message.encode("utf-8"), hashlib.sha256).digest()


def sigv4_signature(secret: str, date: str, region: str, service: str, policy: str) -> str:
    """SigV4 for a POST: hex HMAC-SHA256 of the base64 policy under the derived signing key."""
    key = _hmac(_hmac(_hmac(_hmac(("AWS4" + secret).encode("utf-8"), date), region), service), "aws4_request")
    return hmac.new(key, policy.encode("utf-8"), hashlib.sha256).hexdigest()


def _invalid_argument(message: str, name: str, value: str) -> PolicyError:
    return PolicyError(400, "InvalidArgument", message, ArgumentName=name, ArgumentValue=value)


def _missing(name: str) -> PolicyError:
    return _invalid_argument(
        f"Bucket POST must contain a field named '{name}'.  If it is specified, please check the order of the fields.",
        name,
        "",
    )


def _authenticate(form: Mapping[str, str], credentials: Mapping[str, str]) -> str | None:
    """The policy the form is signed with (None: an anonymous form), or the refusal."""
    v4 = [name for name in _SIGV4_FIELDS if name in form]
    if not v4 and any(name in form for name in _SIGV2_FIELDS):
        # SigV2: buckets created after June 24, 2020 (every bucket of this stack) accept SigV4 only
        raise PolicyError(
            400,
            "InvalidRequest",
            "The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.",
        )
    if not v4 and "policy" not in form:
        return None
    for name in (*_SIGV4_FIELDS, "policy"):
        if name not in form:
            raise _missing("-".join(part.capitalize() for part in name.split("-")))
    policy, provided = form["policy"], form["x-amz-signature"]
    scope = form["x-amz-credential"].split("/")
    access_key = scope[0]
    _known(access_key, credentials)
    if (
        form["x-amz-algorithm"] != "AWS4-HMAC-SHA256"
        or len(scope) != 5
        or scope[4] != "aws4_request"
        or not hmac.compare_digest(
            sigv4_signature(credentials[access_key], scope[1], scope[2], scope[3], policy), provided
        )
    ):
        raise _mismatch(access_key, provided, policy)
    return policy


def _mismatch(access_key: str, provided: str, string_to_sign: str, canonical: str | None = None) -> PolicyError:
    """S3's ``SignatureDoesNotMatch``, with what it signed (and its canonical request, for a call)."""
    shown = {}
    if canonical is not None:
        shown = {"CanonicalRequest": canonical, "CanonicalRequestBytes": canonical.encode("utf-8").hex(" ")}
    return PolicyError(
        403,
        "SignatureDoesNotMatch",
        "The request signature we calculated does not match the "
        "signature you provided. Check your key and signing method.",
        AWSAccessKeyId=access_key,
        StringToSign=string_to_sign,
        SignatureProvided=provided,
        StringToSignBytes=string_to_sign.encode("utf-8").hex(" "),
        **shown,
    )


def _known(access_key: str, credentials: Mapping[str, str]) -> None:
    if access_key not in credentials:
        raise PolicyError(
            403,
            "InvalidAccessKeyId",
            "The AWS Access Key Id you provided does not exist in our records.",
            AWSAccessKeyId=access_key,
        )


def _header(environ: Mapping[str, Any], name: str) -> str | None:
    key = name.upper().replace("-", "_")
    value = environ.get(key if key in ("CONTENT_TYPE", "CONTENT_LENGTH") else "HTTP_" + key)
    return None if value is None else str(value)


def _malformed(reason: str) -> PolicyError:
    return PolicyError(400, "AuthorizationHeaderMalformed", "The authorization header is malformed; " + reason)


def _iso(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


@dataclass(frozen=True)
class _Call:
    """A signed call's claim: its credential scope, date, signed headers, signature and, for a presigned
    URL, its ``X-Amz-Expires``."""

    scope: list[str]
    amz_date: str
    signed: str
    provided: str
    expires: int | None = None


def _header_auth(environ: Mapping[str, Any], authorization: str, credentials: Mapping[str, str]) -> _Call:
    """The parts of an ``Authorization: AWS4-HMAC-SHA256 ...`` call, or S3's refusal of its form."""
    parts = dict(_AUTH_PARTS.findall(authorization))
    credential = parts.get("Credential", "")
    _known(credential.split("/", 1)[0], credentials)
    if len(parts) != 3:
        raise _malformed(
            "the authorization header requires three components: Credential, SignedHeaders, and Signature."
        )
    scope = credential.split("/")
    if len(scope) != 5 or scope[4] != "aws4_request":
        raise _malformed('the Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request".')
    amz_date = _header(environ, "x-amz-date") or ""
    if not _AMZ_DATE.fullmatch(amz_date):
        raise PolicyError(403, "AccessDenied", "AWS authentication requires a valid Date or x-amz-date header")
    if scope[1] != amz_date[:8]:
        raise _malformed("Invalid credential date. Date is not the same as X-Amz-Date.")
    content = _header(environ, "x-amz-content-sha256")
    if scope[3] == "s3" and content is None:
        raise PolicyError(400, "InvalidRequest", "Missing required header for this request: x-amz-content-sha256")
    if scope[3] == "s3" and content not in _PAYLOAD_KINDS and not _SHA256.fullmatch(content or ""):
        raise PolicyError(
            400,
            "InvalidArgument",
            f"x-amz-content-sha256 must be {', '.join(_PAYLOAD_KINDS)} or a valid sha256 value.",
            ArgumentName="x-amz-content-sha256",
            ArgumentValue=content,
        )
    return _Call(scope, amz_date, parts["SignedHeaders"], parts["Signature"])


def _query_auth(query: Mapping[str, list[str]], credentials: Mapping[str, str]) -> _Call:
    """The parts of a presigned URL's call, or S3's refusal of its form or of its age."""
    values = {name: (query.get(name) or [""])[0] for name in _QUERY_AUTH}
    if not all(values.values()) or values["X-Amz-Algorithm"] != "AWS4-HMAC-SHA256":
        raise PolicyError(
            400,
            "AuthorizationQueryParametersError",
            "Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, "
            "X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.",
        )
    scope = values["X-Amz-Credential"].split("/")
    _known(scope[0], credentials)
    if len(scope) != 5 or scope[4] != "aws4_request" or not _AMZ_DATE.fullmatch(values["X-Amz-Date"]):
        raise PolicyError(
            400,
            "AuthorizationQueryParametersError",
            'Error parsing the X-Amz-Credential parameter; the Credential is mal-formed; expecting "<YOUR-AKID>/'
            'YYYYMMDD/REGION/SERVICE/aws4_request".',
        )
    expires = values["X-Amz-Expires"]
    if not re.fullmatch(r"-?\d{1,12}", expires):
        raise PolicyError(400, "AuthorizationQueryParametersError", "X-Amz-Expires should be a number")
    if int(expires) < 0:
        raise PolicyError(400, "AuthorizationQueryParametersError", "X-Amz-Expires must be non-negative")
    if int(expires) > 604800:
        raise PolicyError(
            400,
            "AuthorizationQueryParametersError",
            "X-Amz-Expires must be less than a week (in seconds) that is 604800",
        )
    return _Call(scope, values["X-Amz-Date"], values["X-Amz-SignedHeaders"], values["X-Amz-Signature"], int(expires))


def check_signed(environ: Mapping[str, Any], credentials: Mapping[str, str], body: bytes, now: float) -> None:
    """Raise S3's refusal of a call that is not signed with a key of ``credentials``, or return. The
    signature is recomputed over the request as received (``devstack.sigv4.sign``) and `body`, the
    request's body; a presigned URL is refused once ``X-Amz-Date`` + ``X-Amz-Expires`` is past `now`.

    Refusals, in S3's order: the header's three parts and its credential scope -> 400
    ``AuthorizationHeaderMalformed``; no ``X-Amz-Date`` -> 403 ``AccessDenied``; an S3 call without
    ``X-Amz-Content-SHA256`` -> 400 ``InvalidRequest``, or with a value neither a hex SHA-256 nor one
    of S3's -> 400 ``InvalidArgument``; a presigned URL without one of its six parameters, or with an
    ``X-Amz-Expires`` outside 0-604800 -> 400 ``AuthorizationQueryParametersError``; then the
    signature, the expiry and the body's SHA-256."""
    from urllib.parse import parse_qs

    if environ.get("REQUEST_METHOD") == "OPTIONS":
        return  # a CORS preflight: S3 answers it unsigned
    query_string = str(environ.get("QUERY_STRING") or "")
    call = _claim(environ, parse_qs(query_string, keep_blank_values=True), credentials)
    _check_signature(environ, call, credentials, body)
    if call.expires is not None:
        _check_expiry(call.amz_date, call.expires, now)
        return
    _check_payload(environ, call, body)


def _claim(environ: Mapping[str, Any], query: Mapping[str, list[str]], credentials: Mapping[str, str]) -> _Call:
    """What the call says it is signed with, in the header or in the presigned URL's query."""
    authorization = str(environ.get("HTTP_AUTHORIZATION") or "")
    if authorization.startswith("AWS4-HMAC-SHA256 "):
        return _header_auth(environ, authorization, credentials)
    if any(name in query for name in ("X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Signature")):
        return _query_auth(query, credentials)
    if authorization.startswith("AWS ") or "AWSAccessKeyId" in query or "Signature" in query:
        raise PolicyError(
            400,
            "InvalidRequest",
            "The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.",
        )
    raise PolicyError(403, "AccessDenied", "Access Denied")


def _check_signature(environ: Mapping[str, Any], call: _Call, credentials: Mapping[str, str], body: bytes) -> None:
    """The signature recomputed over the request as received, against the one the call gives."""
    from urllib.parse import quote, urlsplit

    from .sigv4 import Received, sign

    access_key, _, region, service, _ = call.scope
    raw = str(environ.get("RAW_URI") or environ.get("REQUEST_URI") or "")
    path = urlsplit(raw).path if raw else quote(str(environ.get("PATH_INFO") or "/").encode("latin-1"), safe="/~")
    headers = [(name, value) for name in call.signed.split(";") if (value := _header(environ, name)) is not None]
    received = Received(
        str(environ.get("REQUEST_METHOD") or "GET"), path, str(environ.get("QUERY_STRING") or ""), headers, body
    )
    key = (access_key, credentials[access_key])
    expected = sign(received, key, call.amz_date, region, service, presigned=call.expires is not None)
    if not hmac.compare_digest(expected.signature.encode(), call.provided.encode("utf-8", "replace")):
        raise _mismatch(access_key, call.provided, expected.string_to_sign, expected.canonical_request)


def _check_expiry(amz_date: str, expires: int, now: float) -> None:
    expires_at = calendar.timegm(time.strptime(amz_date, "%Y%m%dT%H%M%SZ")) + expires
    if now > expires_at:
        raise PolicyError(
            403,
            "AccessDenied",
            "Request has expired",
            **{"X-Amz-Expires": expires, "Expires": _iso(expires_at), "ServerTime": _iso(now)},
        )


def _check_payload(environ: Mapping[str, Any], call: _Call, body: bytes) -> None:
    """An S3 call's body against the SHA-256 its ``X-Amz-Content-SHA256`` gives, when it gives one."""
    content = _header(environ, "x-amz-content-sha256") or ""
    if call.scope[3] == "s3" and _SHA256.fullmatch(content):
        digest = hashlib.sha256(body).hexdigest()
        if content != digest:
            raise PolicyError(
                400,
                "XAmzContentSHA256Mismatch",
                "The provided 'x-amz-content-sha256' header does not match what was computed.",
                ClientComputedContentSHA256=content,
                S3ComputedContentSHA256=digest,
            )


def _document(policy: str) -> dict[str, Any]:
    try:
        document = json.loads(base64.b64decode(policy, validate=True).decode("utf-8"))
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise PolicyError(400, "InvalidPolicyDocument", "Invalid Policy: Invalid JSON.") from None
    if not isinstance(document, dict):
        raise PolicyError(400, "InvalidPolicyDocument", "Invalid Policy: Invalid JSON.")
    if "expiration" not in document:
        raise PolicyError(400, "InvalidPolicyDocument", "Invalid Policy: Policy missing expiration.")
    if not isinstance(document.get("conditions"), list):
        raise PolicyError(400, "InvalidPolicyDocument", "Invalid Policy: Policy missing conditions.")
    return document


def _expires(expiration: Any) -> float:
    match = _EXPIRATION.match(expiration) if isinstance(expiration, str) else None
    if not match:
        raise PolicyError(400, "InvalidPolicyDocument", f"Invalid Policy: Invalid 'expiration' value: '{expiration}'")
    return float(calendar.timegm(time.strptime(match.group(1), "%Y-%m-%dT%H:%M:%S")))


def _failed(condition: Any) -> PolicyError:
    return PolicyError(403, "AccessDenied", _DENIED + "Policy Condition failed: " + json.dumps(condition))


def check(
    bucket: str, fields: list[tuple[str, str]], file: tuple[str, int] | None, credentials: Mapping[str, str], now: float
) -> None:
    """Raise S3's refusal of this browser upload, or return: `fields` as sent (name, value) before the
    file, `file` (its filename, its size) or None."""
    form = {name.lower(): value for name, value in reversed(fields)}  # the first of a repeated field
    if not form.get("key"):
        raise _missing("key")
    if file is None:
        raise _invalid_argument("POST requires exactly one file upload per request.", "file", "0")
    policy = _authenticate(form, credentials)
    if policy is None:
        raise PolicyError(403, "AccessDenied", "Access Denied")
    document = _document(policy)
    if now > _expires(document["expiration"]):
        raise PolicyError(403, "AccessDenied", _DENIED + "Policy expired.")

    filename, size = file
    values = {**form, "bucket": bucket, "key": form["key"].replace("${filename}", filename)}
    covered: set[str] = set()
    ranges: list[tuple[int, int]] = []
    for condition in document["conditions"]:
        if isinstance(condition, dict):
            covered.add(_check_simple(condition, values))
        elif not isinstance(condition, list) or len(condition) != 3 or not isinstance(condition[0], str):
            raise _failed(condition)
        elif condition[0].lower() == "content-length-range":
            ranges.append(_length_range(condition))
        else:
            covered.add(_check_match(condition, values))
    _check_extra_fields(fields, covered)
    for low, high in ranges:
        _check_size(size, low, high)


def _check_simple(condition: dict[str, Any], values: Mapping[str, str]) -> str:
    """A simple condition ``{"name": value}``: the field it covers, or S3's refusal."""
    if len(condition) != 1:
        raise PolicyError(
            400,
            "InvalidPolicyDocument",
            "Invalid Policy: Invalid Simple-Condition: Simple-Conditions must have exactly one property specified.",
        )
    ((name, want),) = condition.items()
    if values.get(name.lower()) != want:
        raise _failed(["eq", "$" + name, want])
    return name.lower()


def _length_range(condition: list[Any]) -> tuple[int, int]:
    _, low, high = condition
    if not all(isinstance(bound, int) and not isinstance(bound, bool) for bound in (low, high)):
        raise _failed(condition)
    return low, high


def _check_match(condition: list[Any], values: Mapping[str, str]) -> str:
    """An ``eq`` or ``starts-with`` condition: the field it covers, or S3's refusal."""
    op, subject, want = condition[0].lower(), condition[1], condition[2]
    if (
        op not in ("eq", "starts-with")
        or not isinstance(subject, str)
        or not subject.startswith("$")
        or not isinstance(want, str)
    ):
        raise _failed(condition)
    name = subject[1:].lower()
    got = values.get(name)
    if op == "eq":
        holds = got == want
    elif name == "content-type":  # a list of types: each must start with the prefix
        holds = want == "" or (got is not None and all(part.strip().startswith(want) for part in got.split(",")))
    else:
        holds = want == "" or (got is not None and got.startswith(want))
    if not holds:
        raise _failed(condition)
    return name


def _check_extra_fields(fields: list[tuple[str, str]], covered: set[str]) -> None:
    extra = [
        name
        for name, _ in fields
        if name.lower() not in covered
        and name.lower() not in _NOT_IN_POLICY
        and not name.lower().startswith("x-ignore-")
    ]
    if extra:
        raise PolicyError(403, "AccessDenied", _DENIED + "Extra input fields: " + ", ".join(dict.fromkeys(extra)))


def _check_size(size: int, low: int, high: int) -> None:
    if size < low:
        raise PolicyError(
            400,
            "EntityTooSmall",
            "Your proposed upload is smaller than the minimum allowed size",
            ProposedSize=size,
            MinSizeAllowed=low,
        )
    if size > high:
        raise PolicyError(
            400,
            "EntityTooLarge",
            "Your proposed upload exceeds the maximum allowed size",
            ProposedSize=size,
            MaxSizeAllowed=high,
        )


def _parse(body: bytes, boundary: bytes) -> tuple[list[tuple[str, str]], tuple[str, int] | None]:
    """The fields before the part named `file`, and that part's (filename, size); parts after it are
    ignored, as S3 ignores them."""
    from werkzeug.sansio.multipart import NEED_DATA, Data, Epilogue, Field, File, MultipartDecoder

    decoder = MultipartDecoder(boundary)
    decoder.receive_data(body)
    decoder.receive_data(None)
    fields: list[tuple[str, str]] = []
    current: tuple[str, str] | None = None  # (name, filename) of the part being read
    chunks: list[bytes] = []
    while True:
        event = decoder.next_event()
        if event is NEED_DATA or isinstance(event, Epilogue):
            return fields, None
        if isinstance(event, (Field, File)):
            current, chunks = (event.name, getattr(event, "filename", "") or ""), []
        elif isinstance(event, Data) and current is not None:
            chunks.append(event.data)
            if not event.more_data:
                name, filename = current
                data = b"".join(chunks)
                if name.lower() == "file":
                    return fields, (filename, len(data))
                fields.append((name, data.decode("utf-8", "replace")))
                current = None


class PostPolicyCheck:
    """WSGI middleware: S3's checks of a browser upload in front of `app` (moto)."""

    def __init__(self, app: Callable[..., Iterable[bytes]], credentials: Mapping[str, str]) -> None:
        self.app, self.credentials = app, dict(credentials)

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        from werkzeug.http import parse_options_header
        from werkzeug.wsgi import get_input_stream

        # read once, to check (its digest, a form's fields), and handed to moto as it came
        body = get_input_stream(environ).read()
        environ["wsgi.input"], environ["CONTENT_LENGTH"] = io.BytesIO(body), str(len(body))
        environ.pop("HTTP_TRANSFER_ENCODING", None)
        environ["wsgi.input_terminated"] = False
        mimetype, options = parse_options_header(environ.get("CONTENT_TYPE", ""))
        match = _BUCKET_PATH.match(environ.get("PATH_INFO", ""))
        if (
            environ.get("REQUEST_METHOD") != "POST"
            or mimetype != "multipart/form-data"
            or not match
            or environ.get("QUERY_STRING")
        ):
            try:
                check_signed(environ, self.credentials, body, _now())
            except PolicyError as refused:
                return self._refuse(refused, start_response)
            return self.app(environ, start_response)
        try:
            boundary = options.get("boundary", "").encode("latin-1")
            if not boundary:
                raise PolicyError(
                    400, "MalformedPOSTRequest", "The body of your POST request is not well-formed multipart/form-data."
                )
            try:
                fields, file = _parse(body, boundary)
            except ValueError:
                raise PolicyError(
                    400, "MalformedPOSTRequest", "The body of your POST request is not well-formed multipart/form-data."
                ) from None
            check(match.group(1), fields, file, self.credentials, _now())
        except PolicyError as refused:
            return self._refuse(refused, start_response)
        return self.app(environ, start_response)

    @staticmethod
    def _refuse(refused: PolicyError, start_response: Callable[..., Any]) -> list[bytes]:
        """S3's XML error document for `refused`."""
        request_id = secrets.token_hex(8).upper()
        host_id = base64.b64encode(secrets.token_bytes(48)).decode()
        payload = refused.xml(request_id, host_id)
        start_response(
            f"{refused.status} {_REASONS.get(refused.status, '')}".rstrip(),
            [
                ("Content-Type", "application/xml"),
                ("Content-Length", str(len(payload))),
                ("x-amz-request-id", request_id),
                ("x-amz-id-2", host_id),
            ],
        )
        return [payload]
