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


def s3_signed(method: str, path: str, body: bytes = b"", secret: str = "testing", trailer: bool = False, **headers):
    """The headers botocore's S3 signer (S3SigV4Auth) sends with this request to the werkzeug test
    client's host; `trailer`: the streaming checksum trailer's STREAMING-UNSIGNED-PAYLOAD-TRAILER."""
    from botocore.auth import S3SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    request = AWSRequest(method=method, url=f"http://localhost{path}", data=body, headers=headers)
    if trailer:
        request.context["checksum"] = {"request_algorithm": {"in": "trailer", "name": "x-amz-checksum-crc32"}}
    S3SigV4Auth(Credentials("testing", secret), "s3", "us-east-1").add_auth(request)
    return dict(request.headers.items())


def test_only_form_posts_to_a_bucket_are_checked_and_their_body_reaches_moto(ports):
    seen = []

    def moto(environ, start_response):
        seen.append((environ["REQUEST_METHOD"], environ["PATH_INFO"], environ["wsgi.input"].read()))
        return Response("ok", 200)(environ, start_response)

    http = Client(PostPolicyCheck(moto, KEYS))
    signed_delete = s3_signed("POST", "/b?delete", b"<Delete/>", **{"Content-Type": "application/xml"})
    assert http.post("/b?delete", data=b"<Delete/>", headers=signed_delete).status_code == 200
    assert http.put("/b/k", data=b"x", headers=s3_signed("PUT", "/b/k", b"x")).status_code == 200
    # multipart upload API, not a form
    form = b'--x\r\nContent-Disposition: form-data; name="f"\r\n\r\nx\r\n--x--\r\n'
    multipart = s3_signed("POST", "/b/k?uploads", form, **{"Content-Type": "multipart/form-data; boundary=x"})
    assert http.post("/b/k?uploads", data=form, headers=multipart).status_code == 200
    refused = http.post("/b", data={"key": "k", "file": (io.BytesIO(b"x"), "a.png")})
    assert refused.status_code == 403 and b"<Code>AccessDenied</Code><Message>Access Denied</Message>" in refused.data
    assert len(seen) == 3
    fields = [("key", "k"), *signed([{"bucket": "b"}, {"key": "k"}])]
    data = {**dict(fields), "file": (io.BytesIO(b"the bytes"), "a.png")}
    ports.install(clock=lambda: NOW)
    passed = http.post("/b", data=data)
    assert passed.status_code == 200 and seen[-1][0:2] == ("POST", "/b") and b"the bytes" in seen[-1][2]


def test_a_header_signature_is_recomputed_as_s3_recomputes_it():
    """Right key id, wrong signature: refused before moto sees it. The signature covers what botocore's
    S3 signer signs (method, path as sent, query, the signed headers, X-Amz-Content-SHA256 literally);
    a body that is not the one hashed there is refused too."""
    seen = []

    def moto(environ, start_response):
        seen.append(environ["wsgi.input"].read())
        return Response("ok", 200)(environ, start_response)

    http = Client(PostPolicyCheck(moto, KEYS))

    def error(response) -> tuple[int, str]:
        return response.status_code, response.text.split("<Code>", 1)[1].split("</Code>", 1)[0]

    headers = s3_signed("PUT", "/b/k", b"x", **{"Content-Type": "image/png"})
    forged = {**headers, "Authorization": headers["Authorization"].rsplit("=", 1)[0] + "=" + "0" * 64}
    refused = http.put("/b/k", data=b"x", headers=forged)
    assert error(refused) == (403, "SignatureDoesNotMatch") and "<CanonicalRequest>PUT\n/b/k\n" in refused.text
    assert error(http.put("/b/k", data=b"x", headers=s3_signed("PUT", "/b/k", b"x", secret="other"))) == (
        403,
        "SignatureDoesNotMatch",
    )
    for path in ("/b/other", "/b/k?acl"):  # another key, another query
        assert error(http.put(path, data=b"x", headers=headers)) == (403, "SignatureDoesNotMatch")
    assert error(http.post("/b/k", data=b"x", headers=headers)) == (403, "SignatureDoesNotMatch")  # the method
    assert error(http.put("/b/k", data=b"x", headers={**headers, "Content-Type": "text/html"})) == (
        403,
        "SignatureDoesNotMatch",
    )
    assert error(http.put("/b/k", data=b"y", headers=headers)) == (400, "XAmzContentSHA256Mismatch")
    # only the form of one: the reproduction, and with the header S3 requires
    date = headers["X-Amz-Date"]
    bare = f"AWS4-HMAC-SHA256 Credential=testing/{date[:8]}/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date"
    zeros = {"Authorization": bare + ", Signature=" + "0" * 64, "X-Amz-Date": date}
    assert error(http.get("/b", headers=zeros)) == (400, "InvalidRequest")
    empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    zeros = {
        "Authorization": bare.replace("host;", "host;x-amz-content-sha256;") + ", Signature=" + "0" * 64,
        "X-Amz-Date": date,
        "X-Amz-Content-SHA256": empty,
    }
    assert error(http.get("/b", headers=zeros)) == (403, "SignatureDoesNotMatch")
    assert error(http.get("/b", headers={**zeros, "Authorization": "AWS4-HMAC-SHA256 Credential=testing/x"})) == (
        400,
        "AuthorizationHeaderMalformed",
    )
    assert error(http.get("/b", headers={k: v for k, v in zeros.items() if k != "X-Amz-Date"})) == (
        403,
        "AccessDenied",
    )
    assert seen == []
    assert http.put("/b/k", data=b"x", headers=headers).status_code == 200 and seen == [b"x"]
    # the streaming checksum trailer botocore may send: signed over the literal value, the aws-chunked
    # body handed to moto as it came
    chunked = b"1\r\nx\r\n0\r\nx-amz-checksum-crc32:jHNlIQ==\r\n\r\n"
    trailer = s3_signed(
        "PUT",
        "/b/k",
        chunked,
        trailer=True,
        **{"Content-Encoding": "aws-chunked", "X-Amz-Trailer": "x-amz-checksum-crc32"},
    )
    assert trailer["X-Amz-Content-SHA256"] == "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
    assert http.put("/b/k", data=chunked, headers=trailer).status_code == 200 and seen[-1] == chunked


# --------------------------------------------------------------------------- anonymous calls


@pytest.fixture(scope="module")
def s3_server():
    """moto behind the devstack's S3 front, with one private bucket holding one object."""
    from testkit.helpers import moto_s3

    with moto_s3("staging") as (moto, s3):
        s3.put_object(Bucket="staging", Key="uploads/upl_seen", Body=b"kept")
        yield moto, s3


def s3_v4(moto):
    """A client that presigns with SigV4 (botocore's default presigns with SigV2)."""
    import boto3
    from botocore.config import Config

    return boto3.client(
        "s3",
        endpoint_url=moto.url,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=Config(signature_version="s3v4"),
    )


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
    url = s3_v4(moto).generate_presigned_url("get_object", Params={"Bucket": "staging", "Key": "uploads/upl_seen"})
    assert "X-Amz-Signature=" in url
    fetched = httpx.get(url)
    assert fetched.status_code == 200 and fetched.content == b"kept"
    # a SigV2 presigned URL (AWSAccessKeyId, Signature): SigV4 only, as for every bucket since June 2020
    v2 = s3.generate_presigned_url("get_object", Params={"Bucket": "staging", "Key": "uploads/upl_seen"})
    if "AWSAccessKeyId=" in v2:
        assert s3_error(httpx.get(v2)) == (400, "InvalidRequest")
    # the calls the service, the pin server and the tests make, with keys that need encoding
    odd = "uploads/a b+c~!'(é).png"
    s3.put_object(Bucket="staging", Key=odd, Body=io.BytesIO(b"odd"), ContentType="image/png")
    assert s3.head_object(Bucket="staging", Key=odd)["ContentLength"] == 3
    assert s3.get_object(Bucket="staging", Key=odd)["Body"].read() == b"odd"
    listed = s3.list_objects_v2(Bucket="staging", Prefix="uploads/a b", MaxKeys=5)
    assert [o["Key"] for o in listed["Contents"]] == [odd]
    s3.upload_fileobj(io.BytesIO(b"f" * 70_000), "staging", "uploads/upl_file")
    assert s3.head_object(Bucket="staging", Key="uploads/upl_file")["ContentLength"] == 70_000
    put = s3_v4(moto).generate_presigned_url("put_object", Params={"Bucket": "staging", "Key": "uploads/upl_put"})
    assert httpx.put(put, content=b"presigned").status_code == 200
    assert s3.get_object(Bucket="staging", Key="uploads/upl_put")["Body"].read() == b"presigned"
    for key in ("uploads/upl_signed", odd, "uploads/upl_file", "uploads/upl_put"):
        s3.delete_object(Bucket="staging", Key=key)
    assert _keys(s3) == ["uploads/upl_seen"]


def _keys(s3) -> list[str]:
    return [o["Key"] for o in s3.list_objects_v2(Bucket="staging").get("Contents", [])]


def test_a_forged_signature_is_refused_and_stores_nothing(s3_server):
    """The devstack's own key id with a signature it did not make: S3 recomputes the signature, and so
    does the devstack (it checked only the header's form and key id)."""
    import datetime as dt
    import hashlib

    import boto3
    import httpx
    from botocore.exceptions import ClientError

    moto, s3 = s3_server
    date = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    body = b"<html>forged</html>"
    for method, path, content in (("GET", "/staging", b""), ("PUT", "/staging/uploads/upl_forged", body)):
        digest = empty if not content else hashlib.sha256(content).hexdigest()
        forged = httpx.request(
            method,
            f"{moto.url}{path}",
            content=content,
            headers={
                "Authorization": f"AWS4-HMAC-SHA256 Credential=testing/{date[:8]}/us-east-1/s3/aws4_request, "
                "SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=" + "0" * 64,
                "X-Amz-Date": date,
                "X-Amz-Content-SHA256": digest,
            },
        )
        assert s3_error(forged) == (403, "SignatureDoesNotMatch") and "upl_seen" not in forged.text.split("<Canon")[0]
    wrong = boto3.client(
        "s3",
        endpoint_url=moto.url,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="not-the-secret",
    )
    for call in (
        lambda: wrong.list_objects_v2(Bucket="staging"),
        lambda: wrong.put_object(Bucket="staging", Key="uploads/upl_forged", Body=body),
        lambda: wrong.delete_object(Bucket="staging", Key="uploads/upl_seen"),
    ):
        with pytest.raises(ClientError) as refused:
            call()
        assert refused.value.response["Error"]["Code"] == "SignatureDoesNotMatch"
    # every service behind the same server: DynamoDB too
    ddb = dict(endpoint_url=moto.url, region_name="us-east-1", aws_access_key_id="testing")
    with pytest.raises(ClientError) as refused:
        boto3.client("dynamodb", aws_secret_access_key="not-the-secret", **ddb).list_tables()
    assert refused.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403
    assert "TableNames" in boto3.client("dynamodb", aws_secret_access_key="testing", **ddb).list_tables()
    assert _keys(s3) == ["uploads/upl_seen"]


def test_a_tampered_or_expired_presigned_url_is_refused(s3_server, ports):
    import httpx

    moto, s3 = s3_server
    get = s3_v4(moto).generate_presigned_url(
        "get_object", Params={"Bucket": "staging", "Key": "uploads/upl_seen"}, ExpiresIn=60
    )
    assert httpx.get(get).content == b"kept"
    for tampered in (
        get.replace("uploads/upl_seen", "uploads/upl_other"),
        get.replace("X-Amz-Expires=60", "X-Amz-Expires=6000"),
        get[:-4] + ("0000" if not get.endswith("0000") else "1111"),
    ):
        assert s3_error(httpx.get(tampered)) == (403, "SignatureDoesNotMatch")
    put = s3_v4(moto).generate_presigned_url(
        "put_object", Params={"Bucket": "staging", "Key": "uploads/upl_presigned"}, ExpiresIn=60
    )
    moved = put.replace("uploads/upl_presigned", "uploads/upl_elsewhere")
    assert s3_error(httpx.put(moved, content=b"<html>x</html>")) == (403, "SignatureDoesNotMatch")
    incomplete = put.replace("X-Amz-SignedHeaders=host&", "")
    assert s3_error(httpx.put(incomplete, content=b"x")) == (400, "AuthorizationQueryParametersError")
    assert _keys(s3) == ["uploads/upl_seen"]
    # past X-Amz-Date + X-Amz-Expires, on the clock the devstack's S3 reads (tests move it)
    signed_at = calendar.timegm(time.strptime(get.split("X-Amz-Date=")[1][:16], "%Y%m%dT%H%M%SZ"))
    ports.install(clock=lambda: signed_at + 61)
    expired = httpx.get(get)
    assert s3_error(expired) == (403, "AccessDenied") and "<Message>Request has expired</Message>" in expired.text
    assert "<X-Amz-Expires>60</X-Amz-Expires>" in expired.text
    ports.install(clock=lambda: signed_at + 60)
    assert httpx.get(get).content == b"kept"
