"""devstack/s3post.py: S3's checks of a browser upload (POST policy), in front of moto. The presigned
POST of the uploads endpoint, end to end, is in tests/integration/test_uploads.py; here the checks
themselves, on forms signed as boto3 and S3 sign them."""

from __future__ import annotations

import base64
import calendar
import io
import json
import time

import pytest
from werkzeug.test import Client
from werkzeug.wrappers import Response

from devstack.s3post import PolicyError, PostPolicyCheck, check, sigv4_signature

KEYS = {"testing": "testing"}
NOW = float(calendar.timegm((2030, 1, 2, 3, 4, 5, 0, 0, 0)))
CREDENTIAL = "testing/20300102/us-east-1/s3/aws4_request"


def signed(
    conditions: list, expiration: str = "2030-01-02T03:19:05Z", secret: str = "testing"
) -> list[tuple[str, str]]:
    """A SigV4 form (as S3 expects it) for a policy with these conditions (the x-amz-* ones added)."""
    sigv4 = [
        {"x-amz-algorithm": "AWS4-HMAC-SHA256"},
        {"x-amz-credential": CREDENTIAL},
        {"x-amz-date": "20300102T030405Z"},
    ]
    policy = base64.b64encode(
        json.dumps({"expiration": expiration, "conditions": conditions + sigv4}).encode()
    ).decode()
    return [
        ("x-amz-algorithm", "AWS4-HMAC-SHA256"),
        ("x-amz-credential", CREDENTIAL),
        ("x-amz-date", "20300102T030405Z"),
        ("policy", policy),
        ("x-amz-signature", sigv4_signature(secret, "20300102", "us-east-1", "s3", policy)),
    ]


def refusal(bucket, fields, file=("a.png", 10), now=NOW) -> PolicyError:
    with pytest.raises(PolicyError) as caught:
        check(bucket, fields, file, KEYS, now)
    return caught.value


def test_the_signature_is_botocores_sigv4_post_signature():
    import boto3
    from botocore.config import Config

    s3 = boto3.client(
        "s3",
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        endpoint_url="http://127.0.0.1:9",
        config=Config(signature_version="s3v4"),
    )
    post = s3.generate_presigned_post(
        "bucket",
        "uploads/x",
        Fields={"Content-Type": "image/png"},
        Conditions=[{"Content-Type": "image/png"}, ["content-length-range", 1, 10]],
    )
    fields = post["fields"]
    _, date, region, service, _ = fields["x-amz-credential"].split("/")
    assert sigv4_signature("testing", date, region, service, fields["policy"]) == fields["x-amz-signature"]
    check("bucket", list(fields.items()), ("a.png", 10), KEYS, time.time())  # holds: nothing raised
    assert refusal("bucket", list(fields.items()), ("a.png", 11), time.time()).code == "EntityTooLarge"
    assert refusal("bucket", list(fields.items()), ("a.png", 10), time.time() + 3601).message == (
        "Invalid according to Policy: Policy expired."
    )


def test_starts_with_filename_and_case_insensitive_names():
    fields = [
        ("Key", "user/eric/${filename}"),
        ("content-type", "image/png, image/gif"),
        ("X-Ignore-Me", "1"),
        *signed([{"bucket": "b"}, ["starts-with", "$key", "user/eric/"], ["starts-with", "$Content-Type", "image/"]]),
    ]
    check("b", fields, ("a.png", 10), KEYS, NOW)
    wrong = refusal("b", [("key", "user/bob/a"), *fields[1:]])
    assert wrong.status == 403 and wrong.code == "AccessDenied"
    assert (
        wrong.message == 'Invalid according to Policy: Policy Condition failed: ["starts-with", "$key", "user/eric/"]'
    )
    listed = refusal("b", [fields[0], ("content-type", "image/png, text/html"), *fields[2:]])
    assert listed.message.endswith('["starts-with", "$Content-Type", "image/"]')
    anything = signed([{"bucket": "b"}, ["starts-with", "$key", ""]])
    check("b", [("key", "anything"), *anything], ("a", 1), KEYS, NOW)


def test_exact_conditions_and_the_bucket():
    fields = [("key", "k"), ("acl", "private"), *signed([{"bucket": "b"}, ["eq", "$key", "k"], {"acl": "private"}])]
    check("b", fields, ("a", 1), KEYS, NOW)
    assert refusal("other", fields).message.endswith('Policy Condition failed: ["eq", "$bucket", "b"]')
    assert refusal("b", [("key", "k"), ("acl", "public-read"), *fields[2:]]).message.endswith(
        'Policy Condition failed: ["eq", "$acl", "private"]'
    )


def test_malformed_conditions_and_documents():
    assert refusal("b", [("key", "k"), *signed([{"bucket": "b"}, ["eq", "key", "k"]])]).message.endswith(
        'Policy Condition failed: ["eq", "key", "k"]'
    )
    assert refusal("b", [("key", "k"), *signed([{"bucket": "b", "key": "k"}])]).code == "InvalidPolicyDocument"
    assert refusal("b", [("key", "k"), *signed([["content-length-range", "1", "10"]])]).code == "AccessDenied"
    garbage = base64.b64encode(b"not json").decode()
    form = [
        ("key", "k"),
        ("x-amz-algorithm", "AWS4-HMAC-SHA256"),
        ("x-amz-credential", CREDENTIAL),
        ("x-amz-date", "20300102T030405Z"),
        ("policy", garbage),
        ("x-amz-signature", sigv4_signature("testing", "20300102", "us-east-1", "s3", garbage)),
    ]
    bad = refusal("b", form)
    assert (bad.status, bad.code, bad.message) == (400, "InvalidPolicyDocument", "Invalid Policy: Invalid JSON.")


def test_unknown_key_wrong_secret_and_missing_signature_fields():
    fields = [("key", "k"), *signed([{"bucket": "b"}, {"key": "k"}], secret="not-the-secret")]
    mismatch = refusal("b", fields)
    assert (mismatch.status, mismatch.code) == (403, "SignatureDoesNotMatch")
    assert mismatch.extra["StringToSignBytes"] == dict(fields)["policy"].encode().hex(" ")
    unknown = [(n, v.replace("testing/", "AKIAOTHER/") if n == "x-amz-credential" else v) for n, v in fields]
    other = refusal("b", unknown)
    assert (other.status, other.code, other.extra["AWSAccessKeyId"]) == (403, "InvalidAccessKeyId", "AKIAOTHER")
    missing = refusal("b", [f for f in fields if f[0] != "x-amz-date"])
    assert (missing.status, missing.code, missing.extra["ArgumentName"]) == (400, "InvalidArgument", "X-Amz-Date")


def test_only_form_posts_to_a_bucket_are_checked_and_their_body_reaches_moto(ports):
    seen = []

    def moto(environ, start_response):
        seen.append((environ["REQUEST_METHOD"], environ["PATH_INFO"], environ["wsgi.input"].read()))
        return Response("ok", 200)(environ, start_response)

    http = Client(PostPolicyCheck(moto, KEYS))
    auth = {"Authorization": f"AWS4-HMAC-SHA256 Credential={CREDENTIAL}, SignedHeaders=host, Signature=ab"}
    assert http.post("/b?delete", data=b"<Delete/>", content_type="application/xml", headers=auth).status_code == 200
    assert http.put("/b/k", data=b"x", headers=auth).status_code == 200
    # multipart upload API, not a form
    assert http.post("/b/k?uploads", data={"f": "x"}, headers=auth).status_code == 200
    refused = http.post("/b", data={"key": "k", "file": (io.BytesIO(b"x"), "a.png")})
    assert refused.status_code == 403 and b"<Code>AccessDenied</Code><Message>Access Denied</Message>" in refused.data
    assert len(seen) == 3
    fields = [("key", "k"), *signed([{"bucket": "b"}, {"key": "k"}])]
    data = {**dict(fields), "file": (io.BytesIO(b"the bytes"), "a.png")}
    ports.install(clock=lambda: NOW)
    passed = http.post("/b", data=data)
    assert passed.status_code == 200 and seen[-1][0:2] == ("POST", "/b") and b"the bytes" in seen[-1][2]


# --------------------------------------------------------------------------- anonymous calls


@pytest.fixture(scope="module")
def s3_server():
    """moto behind the devstack's S3 front, with one private bucket holding one object."""
    import boto3

    from devstack.aws import TEST_CREDENTIALS, start_moto

    moto = start_moto(port=0)
    s3 = boto3.client(
        "s3",
        endpoint_url=moto.url,
        region_name="us-east-1",
        aws_access_key_id=TEST_CREDENTIALS["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=TEST_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
    )
    s3.create_bucket(Bucket="staging")
    s3.put_object(Bucket="staging", Key="uploads/upl_seen", Body=b"kept")
    yield moto, s3
    moto.stop()


def s3_error(response) -> tuple[int, str]:
    assert response.headers["content-type"] == "application/xml", response.text
    code = response.text.split("<Code>", 1)[1].split("</Code>", 1)[0]
    return response.status_code, code


def test_an_anonymous_call_is_refused_as_s3_refuses_it(s3_server):
    import httpx

    moto, s3 = s3_server
    listed = httpx.get(f"{moto.url}/staging")
    assert s3_error(listed) == (403, "AccessDenied") and "upl_seen" not in listed.text
    assert s3_error(httpx.get(f"{moto.url}/staging?list-type=2&prefix=uploads/")) == (403, "AccessDenied")
    assert s3_error(httpx.get(f"{moto.url}/staging/uploads/upl_seen")) == (403, "AccessDenied")
    put = httpx.put(
        f"{moto.url}/staging/uploads/upl_anonymous",
        content=b"<html>no policy</html>",
        headers={"Content-Type": "text/html"},
    )
    assert s3_error(put) == (403, "AccessDenied")
    assert s3_error(httpx.delete(f"{moto.url}/staging/uploads/upl_seen")) == (403, "AccessDenied")
    assert s3_error(httpx.get(f"{moto.url}/")) == (403, "AccessDenied")  # ListBuckets
    # SigV2 and unknown keys, as S3 answers them
    assert s3_error(httpx.get(f"{moto.url}/staging", headers={"Authorization": "AWS testing:c2ln"})) == (
        400,
        "InvalidRequest",
    )
    other = httpx.get(
        f"{moto.url}/staging",
        headers={
            "Authorization": "AWS4-HMAC-SHA256 Credential=AKIAOTHER/20300102/us-east-1/s3/aws4_request, "
            "SignedHeaders=host, Signature=00"
        },
    )
    assert s3_error(other) == (403, "InvalidAccessKeyId")
    # nothing was stored or removed
    keys = [o["Key"] for o in s3.list_objects_v2(Bucket="staging").get("Contents", [])]
    assert keys == ["uploads/upl_seen"]


def test_signed_and_presigned_calls_still_pass(s3_server):
    import httpx

    moto, s3 = s3_server
    s3.put_object(Bucket="staging", Key="uploads/upl_signed", Body=b"signed")
    assert s3.get_object(Bucket="staging", Key="uploads/upl_signed")["Body"].read() == b"signed"
    import boto3
    from botocore.config import Config

    v4 = boto3.client(
        "s3",
        endpoint_url=moto.url,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=Config(signature_version="s3v4"),
    )
    url = v4.generate_presigned_url("get_object", Params={"Bucket": "staging", "Key": "uploads/upl_seen"})
    assert "X-Amz-Signature=" in url
    fetched = httpx.get(url)
    assert fetched.status_code == 200 and fetched.content == b"kept"
    # a SigV2 presigned URL (AWSAccessKeyId, Signature): SigV4 only, as for every bucket since June 2020
    v2 = s3.generate_presigned_url("get_object", Params={"Bucket": "staging", "Key": "uploads/upl_seen"})
    if "AWSAccessKeyId=" in v2:
        assert s3_error(httpx.get(v2)) == (400, "InvalidRequest")
    s3.delete_object(Bucket="staging", Key="uploads/upl_signed")
