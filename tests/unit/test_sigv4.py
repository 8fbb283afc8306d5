"""partner.store.sigv4 signs exactly as botocore's own SigV4Auth would, header for header; the
layer's DynamoDB and KMS clients sign with it (and S3 with botocore), retries are signed anew, and
what it does not handle is signed by botocore."""

from __future__ import annotations

import datetime
import time

import botocore.auth
import botocore.retries.standard
import pytest
from botocore.awsrequest import AWSRequest, AWSResponse
from botocore.credentials import Credentials, ReadOnlyCredentials
from hypothesis import given, settings
from hypothesis import strategies as st

from partner.store import sigv4

SIGNED = ("Authorization", "X-Amz-Date", "X-Amz-Security-Token")

header_names = st.from_regex(r"[A-Za-z][A-Za-z0-9-]{0,20}", fullmatch=True).filter(
    lambda n: n.lower() not in {"authorization", "x-amz-date", "x-amz-security-token", "date", "x-amz-content-sha256"}
)
header_values = st.from_regex(r"[ \t]{0,2}[!-~]([!-~ \t]{0,30}[!-~])?[ \t]{0,2}", fullmatch=True)
segments = st.sampled_from(["", ".", "..", "a", "b c", "~x", "%41", "é", "k=v", "_-."])
query_pairs = st.lists(st.tuples(st.sampled_from(["a", "B", "x-y", "z"]), st.sampled_from(["", "1", "v%20w", "ab"])))


def _request(method: str, url: str, headers: dict[str, str], body: bytes) -> AWSRequest:
    return AWSRequest(method=method, url=url, headers=dict(headers), data=body)


def _botocore(request: AWSRequest, creds: Credentials, service: str, region: str, when: time.struct_time) -> None:
    moment = datetime.datetime(*when[:6])
    original = botocore.auth.get_current_datetime
    botocore.auth.get_current_datetime = lambda *a, **k: moment
    try:
        botocore.auth.SigV4Auth(creds, service, region).add_auth(request)
    finally:
        botocore.auth.get_current_datetime = original


@settings(max_examples=300, deadline=None)
@given(
    method=st.sampled_from(["GET", "POST", "put", "DELETE"]),
    scheme=st.sampled_from(["http", "https"]),
    host=st.sampled_from(["dynamodb.us-east-1.amazonaws.com", "LocalHost", "127.0.0.1", "[::1]", "kms.eu-west-1.api"]),
    port=st.sampled_from([None, 80, 443, 4566, 8000]),
    path=st.lists(segments, max_size=5),
    query=query_pairs,
    headers=st.dictionaries(header_names, header_values, max_size=6),
    body=st.binary(max_size=300),
    token=st.sampled_from([None, "", "FwoGZXIvYXdzEJr//////////token+/="]),
    secret=st.text(
        alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/", min_size=1, max_size=40
    ),
    service=st.sampled_from(["dynamodb", "kms"]),
    region=st.sampled_from(["us-east-1", "eu-west-1", "ap-southeast-2"]),
    when=st.integers(min_value=1_600_000_000, max_value=2_200_000_000),
)
def test_the_signature_is_botocores(
    method, scheme, host, port, path, query, headers, body, token, secret, service, region, when
) -> None:
    """For any request of the JSON services' shape (method, URL with path and query, headers with runs
    of white space, body, session token or none), the signed headers are the ones botocore's SigV4Auth
    sets at the same instant."""
    netloc = host if port is None else f"{host}:{port}"
    url = f"{scheme}://{netloc}/{'/'.join(path)}" + ("?" + "&".join(f"{k}={v}" for k, v in query) if query else "")
    creds = Credentials("AKIDEXAMPLE", secret, token)
    at = time.gmtime(when)
    ours, theirs = _request(method, url, headers, body), _request(method, url, headers, body)
    sigv4.Signer(creds.get_frozen_credentials).add_auth(ours, body, service, region, at)
    _botocore(theirs, creds, service, region, at)
    assert {k: ours.headers.get(k) for k in SIGNED} == {k: theirs.headers.get(k) for k in SIGNED}
    assert dict(ours.headers) == dict(theirs.headers)


def test_aws_published_example_signature() -> None:
    """AWS's documented example (the IAM ListUsers GET of the SigV4 guide, with its example keys and
    instant): the signature the guide prints."""
    creds = Credentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    request = _request(
        "GET",
        "https://iam.amazonaws.com/?Action=ListUsers&Version=2010-05-08",
        {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"},
        b"",
    )
    sigv4.Signer(creds.get_frozen_credentials).add_auth(
        request, b"", "iam", "us-east-1", time.strptime("20150830T123600Z", "%Y%m%dT%H%M%SZ")
    )
    assert request.headers["Authorization"] == (
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, "
        "SignedHeaders=content-type;host;x-amz-date, "
        "Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7"
    )


def test_a_new_secret_signs_with_a_new_key() -> None:
    """The derived key is kept per secret and day: rotated credentials sign with their own."""
    keys = [ReadOnlyCredentials("AKID", "first", None)]
    signer = sigv4.Signer(lambda: keys[0])
    at = time.gmtime(1_800_000_000)
    for secret in ("first", "second", "first"):
        keys[0] = ReadOnlyCredentials("AKID", secret, None)
        ours, theirs = (_request("POST", "https://kms.us-east-1.amazonaws.com/", {}, b"{}") for _ in range(2))
        signer.add_auth(ours, b"{}", "kms", "us-east-1", at)
        _botocore(theirs, Credentials("AKID", secret), "kms", "us-east-1", at)
        assert ours.headers["Authorization"] == theirs.headers["Authorization"]


# ------------------------------------------------------------------ the layer's clients


@pytest.fixture
def clients(monkeypatch: pytest.MonkeyPatch):
    """The layer's clients with placeholder keys; every request answered here (none is sent) and kept."""
    from partner.store import aws

    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIATEST")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test-secret")
    monkeypatch.setenv("AWS_SESSION_TOKEN", "test-token")
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    aws.reset()
    sent: list[tuple[str, AWSRequest]] = []
    statuses: list[int] = []

    def answer(request=None, event_name="", **_):
        sent.append((event_name.split(".")[1], request))
        response = AWSResponse(request.url, statuses.pop(0) if statuses else 200, {}, None)
        response._content = b"{}" if "amz-json" in str(request.headers.get("Content-Type", "")) else b""
        return response

    aws.add_hook("before-send", answer)
    yield aws, sent, statuses
    aws.remove_hook("before-send", answer)
    monkeypatch.undo()
    aws.reset()


FROZEN = 1_800_000_000


@pytest.fixture
def frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    """One instant for both signers."""
    moment = datetime.datetime(*time.gmtime(FROZEN)[:6])
    gmtime = time.gmtime
    monkeypatch.setattr(botocore.auth, "get_current_datetime", lambda *a, **k: moment)
    monkeypatch.setattr(sigv4.time, "gmtime", lambda secs=None: gmtime(FROZEN if secs is None else secs))


def _plain(aws, name: str):
    """The same client as the layer's, signed by botocore alone."""
    made = aws._session.client(name, config=aws._config(name))
    for event_name, handler in aws.HOOKS:
        made.meta.events.register(event_name, handler)
    return made


def _as_sent(request) -> dict[str, str]:
    headers = {k: v.decode() if isinstance(v, bytes) else v for k, v in request.headers.items()}
    headers.pop("amz-sdk-invocation-id")  # a fresh id per call, not signed
    headers.pop("User-Agent")  # not signed; its feature ids name what the call did first (loaded credentials)
    return headers


CALLS = [
    ("dynamodb", "get_item", {"TableName": "t", "Key": {"pk": {"S": "a"}}}),
    (
        "dynamodb",
        "update_item",
        {
            "TableName": "t",
            "Key": {"pk": {"S": "a"}},
            "UpdateExpression": "SET n = :v",
            "ExpressionAttributeValues": {":v": {"N": "1"}},
        },
    ),
    ("kms", "decrypt", {"CiphertextBlob": b"sealed"}),
]


@pytest.mark.parametrize(("name", "operation", "params"), CALLS)
def test_dynamodb_and_kms_requests_are_signed_by_the_lean_signer(
    clients, frozen, monkeypatch: pytest.MonkeyPatch, name, operation, params
) -> None:
    """A DynamoDB or KMS call goes out signed by partner.store.sigv4 (botocore's SigV4Auth never runs
    for it), with every header botocore's own signer gives the same call at the same instant."""
    aws, sent, _ = clients
    ran: list[str] = []
    real = botocore.auth.SigV4Auth.add_auth
    monkeypatch.setattr(botocore.auth.SigV4Auth, "add_auth", lambda self, r: ran.append("botocore") or real(self, r))
    getattr(aws.client(name), operation)(**params)
    assert ran == []
    getattr(_plain(aws, name), operation)(**params)
    assert ran == ["botocore"]
    ours, theirs = (_as_sent(request) for _, request in sent)
    assert ours["Authorization"].startswith(f"AWS4-HMAC-SHA256 Credential=AKIATEST/20270115/us-east-1/{name}/")
    assert ours == theirs


def test_s3_is_signed_by_botocore(clients, monkeypatch: pytest.MonkeyPatch) -> None:
    """S3 (its payload hash header, its presigned POSTs) keeps botocore's signer."""
    aws, sent, _ = clients
    ran: list[str] = []
    real = botocore.auth.S3SigV4Auth.add_auth
    monkeypatch.setattr(
        botocore.auth.S3SigV4Auth, "add_auth", lambda self, request: ran.append("s3") or real(self, request)
    )
    aws.s3().put_object(Bucket="b", Key="k", Body=b"x")
    assert ran == ["s3"] and sent[0][1].headers["X-Amz-Content-SHA256"]


def test_a_retried_request_is_signed_anew(clients, monkeypatch: pytest.MonkeyPatch) -> None:
    """botocore re-creates a request for each attempt: the retry is signed again, at its own instant
    (one Authorization, for its own X-Amz-Date), as botocore signs it."""
    aws, sent, statuses = clients
    instants = iter([FROZEN, FROZEN + 7, FROZEN, FROZEN + 7])
    gmtime = time.gmtime
    monkeypatch.setattr(sigv4.time, "gmtime", lambda secs=None: gmtime(next(instants) if secs is None else secs))
    moments = iter([datetime.datetime(*gmtime(t)[:6]) for t in (FROZEN, FROZEN + 7)])
    monkeypatch.setattr(botocore.auth, "get_current_datetime", lambda *a, **k: next(moments))
    monkeypatch.setattr(botocore.retries.standard.ExponentialBackoff, "delay_amount", lambda self, context: 0)
    for made in (aws.dynamodb(), _plain(aws, "dynamodb")):
        statuses.extend([500, 200])
        made.get_item(TableName="t", Key={"pk": {"S": "a"}})
    assert len(sent) == 4
    ours, theirs = [_as_sent(r) for _, r in sent[:2]], [_as_sent(r) for _, r in sent[2:]]
    assert [h["X-Amz-Date"] for h in ours] == ["20270115T080000Z", "20270115T080007Z"]
    assert [h["amz-sdk-request"] for h in ours] == ["attempt=1; max=4", "attempt=2; max=4"]
    assert ours == theirs


def test_what_it_does_not_handle_is_signed_by_botocore() -> None:
    """A request with query parameters in `params` (not the JSON services' shape) is signed by botocore's
    SigV4Auth, as it would have been."""
    creds = Credentials("AKID", "secret", None)
    ran: list[str] = []
    real = botocore.auth.SigV4Auth.add_auth
    botocore.auth.SigV4Auth.add_auth = lambda self, request: ran.append("botocore") or real(self, request)
    try:
        request = AWSRequest(method="GET", url="https://kms.us-east-1.amazonaws.com/", params={"a": "1"}, data=b"")
        request.context[sigv4.CONTEXT_KEY] = ("kms", "us-east-1")
        sigv4.Signer(creds.get_frozen_credentials).sign(request)
    finally:
        botocore.auth.SigV4Auth.add_auth = real
    assert ran == ["botocore"] and request.headers["Authorization"].startswith("AWS4-HMAC-SHA256 Credential=AKID/")
