"""devstack.sigv4: API Gateway's IAM (SigV4) check, against requests signed by botocore as any AWS SDK
signs them."""

from __future__ import annotations

import datetime as dt

import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from devstack import sigv4

KEYS = {"AKIAPLATFORMTEST0001": ("platform-secret", "arn:aws:iam::123456789012:role/platform-backend")}
HOST = "127.0.0.1:3000"


def _signed(
    method="PUT",
    path="/platform/v1/users/alice%7C1/delegation",
    query="",
    body=b'{"tradingEnabled":true}',
    key=("AKIAPLATFORMTEST0001", "platform-secret"),
    service="execute-api",
    region="us-east-1",
    at: dt.datetime | None = None,
):
    url = f"http://{HOST}{path}" + (f"?{query}" if query else "")
    request = AWSRequest(method=method, url=url, data=body, headers={"Content-Type": "application/json"})
    signer = SigV4Auth(Credentials(*key), service, region)
    if at is not None:  # botocore's clock, as the SDK reads it
        import botocore.auth

        real = botocore.auth.get_current_datetime
        botocore.auth.get_current_datetime = lambda: at.replace(tzinfo=None)
        try:
            signer.add_auth(request)
        finally:
            botocore.auth.get_current_datetime = real
    else:
        signer.add_auth(request)
    return list(request.headers.items()), body, path, query


def _verify(headers, body, path, query, now=None, method="PUT"):
    return sigv4.verify(sigv4.Received(method, path, query, headers, body), HOST, KEYS, "us-east-1", now=now)


def test_a_request_signed_by_botocore_verifies_and_names_the_caller():
    caller = _verify(*_signed())
    assert caller == sigv4.Caller("AKIAPLATFORMTEST0001", "arn:aws:iam::123456789012:role/platform-backend")
    assert isinstance(
        _verify(*_signed(method="GET", path="/platform/v1/users/a", query="x=1&y=%2F", body=b""), method="GET"),
        sigv4.Caller,
    )


def test_every_part_of_the_request_is_covered():
    headers, body, path, query = _signed()
    assert _verify(headers, b'{"tradingEnabled":false}', path, query).type == "INVALID_SIGNATURE"  # the body
    assert _verify(headers, body, "/platform/v1/users/bob/delegation", query).type == "INVALID_SIGNATURE"  # the path
    assert _verify(headers, body, path, "x=1").type == "INVALID_SIGNATURE"  # the query
    assert _verify(headers, body, path, query, method="POST").type == "INVALID_SIGNATURE"  # the method
    moved = [(k, "example.com" if k.lower() == "host" else v) for k, v in headers] + [("Host", "example.com")]
    assert _verify(moved, body, path, query).type == "INVALID_SIGNATURE"  # another host


@pytest.mark.parametrize("minutes, ok", [(-4, True), (4, True), (-6, False), (6, False)])
def test_a_signature_more_than_five_minutes_off_is_refused(minutes, ok):
    now = dt.datetime(2026, 11, 25, 12, 0, tzinfo=dt.UTC)
    headers, body, path, query = _signed(at=now + dt.timedelta(minutes=minutes))
    result = _verify(headers, body, path, query, now=now.timestamp())
    assert (
        isinstance(result, sigv4.Caller) if ok else (result.type == "INVALID_SIGNATURE" and "expired" in result.message)
    )


def test_missing_incomplete_unknown_and_mis_scoped():
    headers, body, path, query = _signed()
    without = [(k, v) for k, v in headers if k.lower() != "authorization"]
    assert _verify(without, body, path, query) is sigv4.MISSING
    assert _verify(without + [("Authorization", "Bearer app_at_x")], body, path, query) is sigv4.INCOMPLETE
    assert _verify(*_signed(key=("AKIAUNKNOWN000000000", "x"))) is sigv4.UNRECOGNIZED
    assert _verify(*_signed(service="s3")).type == "INVALID_SIGNATURE"
    assert _verify(*_signed(region="eu-west-1")).type == "INVALID_SIGNATURE"
    assert _verify(*_signed(key=("AKIAPLATFORMTEST0001", "wrong"))).type == "INVALID_SIGNATURE"
