"""Staged image uploads (issue 18) through the real handlers against moto (server mode), the devstack
chain and the pin server: POST /partner/v1/uploads (validation, scope, rate limit, the presigned
POST's policy), the S3 browser upload, then `imageUploadId` on coins/create and update-content:
each upload once, by its own client and user, before it expires, and only an image."""

from __future__ import annotations

import base64
import calendar
import json
import os
import time
import xml.etree.ElementTree as ET

import httpx
import pytest

from testkit.chain import airdrop, wait
from testkit.helpers import connect, invoke
from testkit.images import png
from tests.integration.test_update_content import BOND, base_fields, cat, holder, post_form
from tests.unit.test_multipart import encode

SOL = 10**9
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + os.urandom(64)
UPLOADS = "/partner/v1/uploads"
REDIRECT = "http://localhost:8080/callback"


def ask(conn, body, content_type: str = "application/json"):
    return invoke("uploads_create", "POST", UPLOADS, headers={**conn.bearer(), "Content-Type": content_type}, body=body)


def upload(conn, data: bytes, ctype: str = "image/png", length: int | None = None) -> dict:
    """POST uploads, then the standard S3 browser upload of `data` to the answer's url."""
    asked = ask(conn, {"contentType": ctype, "contentLength": str(length if length is not None else len(data))})
    assert asked.status == 200, asked.body
    staged = asked.json
    sent = httpx.post(staged["url"], data=staged["fields"], files={"file": ("image", data, ctype)}, timeout=30)
    assert sent.status_code in (200, 201, 204), sent.text
    return staged


def launch(conn, upload_id: str | None = None, image: bytes | None = None, key: str | None = None, **fields):
    parts = {"name": "Staged Coin", "symbol": "STG", **fields}
    if upload_id is not None:
        parts["imageUploadId"] = upload_id
    files = [("image", "logo.png", "image/png", image)] if image is not None else []
    body, ctype = encode(parts, files)
    headers = {**conn.bearer(), "Content-Type": ctype, **({"Idempotency-Key": key} if key else {})}
    return invoke("coins_create", "POST", "/partner/v1/coins/create", headers=headers, body=body)


def record(upload_id: str) -> dict | None:
    from partner.store import uploads as store

    return store.get(upload_id)


def staged_object(upload_id: str) -> bytes | None:
    from partner.store import uploads as store

    return store.read_object(upload_id, 10 * 1024 * 1024)


def refused(result, words: str) -> None:
    assert result.status == 400, result.body
    body = result.json
    assert body["error"] == "invalid_input" and body["field"] == "imageUploadId", body
    assert words in body["message"], body


def new_user(chain):
    from partnerctl import admin

    user = admin.create_user()
    airdrop(chain.url, user["wallet"], 10 * SOL)
    return user


@pytest.fixture
def app(aws_stack):
    from partnerctl import admin

    return admin.create_client(admin.NewClient(name="Uploader", redirect_uri=REDIRECT))


@pytest.fixture
def creator(chain):
    return new_user(chain)


@pytest.fixture
def conn(chain, pin_server, clock, ip, app, creator):
    return connect(app, creator, scope="coin:create", ip=ip)


# ------------------------------------------------------------------ POST /partner/v1/uploads


def test_upload_answers_a_presigned_post_bound_to_type_length_key_and_expiry(conn, clock, app, creator, aws_stack):
    from partner.features import uploads

    result = ask(conn, {"contentType": "image/webp", "contentLength": "5242880"})
    assert result.status == 200, result.body
    assert result.headers["x-ratelimit-limit"] == "30" and result.headers["x-ratelimit-remaining"] == "29"
    body = result.json
    assert set(body) == {"uploadId", "url", "fields", "expiresAt", "maxBytes"}
    upload_id = body["uploadId"]
    assert upload_id.startswith("upl_") and uploads.check_upload_id(upload_id) == upload_id
    assert body["expiresAt"] == int(clock()) + 900 and body["maxBytes"] == 5_242_880
    assert body["url"].startswith("http://127.0.0.1:")  # the devstack's S3 (moto)
    fields = body["fields"]
    assert fields["key"] == f"uploads/{upload_id}" and fields["Content-Type"] == "image/webp"
    policy = json.loads(base64.b64decode(fields["policy"]))
    conditions = policy["conditions"]
    assert {"Content-Type": "image/webp"} in conditions
    assert ["content-length-range", 1, 5_242_880] in conditions
    assert {"key": f"uploads/{upload_id}"} in conditions
    assert {"bucket": aws_stack.physical_id("StagingBucket")} in conditions
    assert policy["expiration"].endswith("Z")
    # SigV4: S3 buckets created after June 24, 2020 refuse SigV2 (AWSAccessKeyId + signature)
    assert fields["x-amz-algorithm"] == "AWS4-HMAC-SHA256" and "signature" not in fields
    assert {"x-amz-algorithm": "AWS4-HMAC-SHA256"} in conditions
    assert {"x-amz-credential": fields["x-amz-credential"]} in conditions

    stored = record(upload_id)
    assert (stored["cid"], stored["uid"], stored["ctype"], stored["length"], stored["used"]) == (
        app["client_id"],
        creator["user_id"],
        "image/webp",
        5_242_880,
        False,
    )
    assert stored["exp"] == body["expiresAt"]


def test_governance_propose_alone_may_upload_and_other_scopes_may_not(chain, pin_server, clock, ip, app, creator):
    proposer = connect(app, creator, scope="governance:propose", ip=ip)
    assert ask(proposer, {"contentType": "image/png", "contentLength": "10"}).status == 200
    reader = connect(app, creator, scope="profile:read trade:execute", ip=ip)
    result = ask(reader, {"contentType": "image/png", "contentLength": "10"})
    assert result.status == 403 and result.json["error"] == "insufficient_scope"
    assert (
        result.headers["www-authenticate"]
        == 'Bearer error="insufficient_scope", scope="coin:create governance:propose"'
    )


@pytest.mark.parametrize(
    "body, field",
    [
        ({"contentType": "image/svg+xml", "contentLength": "10"}, "contentType"),
        ({"contentType": "image/png", "contentLength": "0"}, "contentLength"),
        ({"contentType": "image/png", "contentLength": "5242881"}, "contentLength"),
        ({"contentType": "image/png", "contentLength": "1.5"}, "contentLength"),
        ({"contentType": "image/png", "contentLength": "-1"}, "contentLength"),
        ({"contentType": "image/png", "contentLength": 100}, "contentLength"),
        ({"contentType": "image/png"}, "contentLength"),
        ({"contentLength": "10"}, "contentType"),
        ({"contentType": "image/png", "contentLength": "10", "filename": "a.png"}, "filename"),
    ],
)
def test_upload_body_is_strict(conn, body, field):
    result = ask(conn, body)
    assert result.status == 400, result.body
    assert result.json["error"] == "invalid_input" and result.json["field"] == field


def test_upload_needs_a_json_body(conn):
    result = ask(conn, "contentType=image/png&contentLength=10", "application/x-www-form-urlencoded")
    assert result.status == 400 and result.json["error"] == "invalid_input"


def test_upload_bucket_is_30_per_minute_per_token(conn, clock):
    for n in range(30):
        assert ask(conn, {"contentType": "image/gif", "contentLength": "10"}).status == 200, n
    over = ask(conn, {"contentType": "image/gif", "contentLength": "10"})
    assert over.status == 429 and "error" not in over.json
    assert over.headers["x-ratelimit-limit"] == "30" and over.headers["x-ratelimit-remaining"] == "0"
    assert int(over.headers["retry-after"]) >= 1
    clock.advance(60)
    assert ask(conn, {"contentType": "image/gif", "contentLength": "10"}).status == 200


# ------------------------------------------------------------------ imageUploadId on coins/create


def test_staged_image_launches_once_with_the_direct_upload_cid(chain, pin_server, conn):
    from partner.core import cid

    staged = upload(conn, PNG)
    assert staged_object(staged["uploadId"]) == PNG  # the browser upload reached the bucket
    result = launch(conn, staged["uploadId"])
    assert result.status == 200, result.body
    body = result.json
    assert body["imageUri"] == "ipfs://" + cid.cid_v0(PNG)
    assert pin_server.get(body["imageUri"].removeprefix("ipfs://")) == (PNG, "image/png")
    assert wait(chain.url, body["signature"])["err"] is None
    assert record(staged["uploadId"])["used"] is True
    assert staged_object(staged["uploadId"]) is None  # deleted once used

    again = launch(conn, staged["uploadId"], name="Again", symbol="AGN")
    refused(again, "already used")


def test_an_upload_is_refused_to_another_user_and_another_client(chain, pin_server, clock, ip, app, conn, creator):
    from partnerctl import admin

    staged = upload(conn, PNG)
    other_user = connect(app, new_user(chain), scope="coin:create", ip=ip)
    refused(launch(other_user, staged["uploadId"]), "another user")
    other_app = admin.create_client(admin.NewClient(name="Other Uploader", redirect_uri=REDIRECT))
    other_client = connect(other_app, creator, scope="coin:create", ip=ip)
    refused(launch(other_client, staged["uploadId"]), "another client")
    assert record(staged["uploadId"])["used"] is False
    assert launch(conn, staged["uploadId"]).status == 200  # its owner still can


def test_an_expired_upload_is_refused(conn, clock):
    staged = upload(conn, PNG)
    clock.advance(15 * 60)
    refused(launch(conn, staged["uploadId"]), "expired")


def test_an_unknown_or_malformed_or_empty_upload_is_refused(conn):
    refused(launch(conn, "upl_" + "A" * 22), "no such upload")
    result = launch(conn, "not-an-upload")
    assert result.status == 400 and result.json["field"] == "imageUploadId"
    asked = ask(conn, {"contentType": "image/png", "contentLength": "100"})
    refused(launch(conn, asked.json["uploadId"]), "nothing was uploaded")


def test_bytes_that_are_not_an_image_are_refused_and_do_not_use_the_upload(conn):
    staged = upload(conn, b"<svg xmlns='http://www.w3.org/2000/svg'/>", "image/png")
    result = launch(conn, staged["uploadId"])
    assert result.status == 400 and result.json["error"] == "invalid_image_type"
    assert result.json["field"] == "imageUploadId"
    assert record(staged["uploadId"])["used"] is False


def test_a_file_over_the_declared_length_is_refused_by_the_service(conn):
    """S3 (and the devstack, see below) refuses such a form; were the object there anyway, the service
    reads it and checks it: here it is put in the bucket past the policy."""
    from partner.core.settings import get_settings
    from partner.store import aws

    asked = ask(conn, {"contentType": "image/png", "contentLength": str(len(PNG))})
    upload_id = asked.json["uploadId"]
    aws.s3().put_object(Bucket=get_settings().staging_bucket, Key=f"uploads/{upload_id}", Body=PNG + b"\0" * 100)
    refused(launch(conn, upload_id), "bigger than the contentLength")


def test_both_image_and_upload_is_invalid_input_and_neither_is_image_required(conn):
    staged = upload(conn, PNG)
    both = launch(conn, staged["uploadId"], image=PNG)
    assert both.status == 400 and both.json["error"] == "invalid_input" and both.json["field"] == "imageUploadId"
    neither = launch(conn)
    assert neither.status == 400 and neither.json["error"] == "image_required"
    assert record(staged["uploadId"])["used"] is False


def test_a_launch_that_fails_before_sending_gives_the_upload_back(chain, pin_server, conn):
    from devstack.pinserver import clear_fault, set_fault

    staged = upload(conn, PNG)
    set_fault("down", count=None)
    try:
        failed = launch(conn, staged["uploadId"])
    finally:
        clear_fault()
    assert failed.status == 502 and failed.json["error"] == "pinning_unavailable"
    assert record(staged["uploadId"])["used"] is False
    retried = launch(conn, staged["uploadId"])
    assert retried.status == 200, retried.body


def test_idempotency_key_covers_the_upload_id(chain, pin_server, conn, clock):
    first_upload, second_upload = upload(conn, PNG), upload(conn, PNG)
    first = launch(conn, first_upload["uploadId"], key="staged-1")
    assert first.status == 200, first.body
    replay = launch(conn, first_upload["uploadId"], key="staged-1")  # the upload is used: the claim answers
    assert replay.status == 200 and replay.body == first.body and replay.headers["idempotent-replayed"] == "true"
    other = launch(conn, second_upload["uploadId"], key="staged-1")  # only imageUploadId differs
    assert other.status == 422 and other.json["error"] == "idempotency_key_reused"
    clock.advance(61)  # past the launch cooldown: the used upload is what refuses it
    reused = launch(conn, first_upload["uploadId"], key="staged-2", name="Other", symbol="OTH")
    refused(reused, "already used")


# ------------------------------------------------------------------ imageUploadId on update-content


def test_update_content_takes_a_staged_image(chain, pin_server, clock, ip):
    from partner.core import cid
    from testkit.chain import new_coin

    coin = new_coin(chain.url, "Staged Gov", "SGOV")
    proposer = holder(chain.url, ip, coin, 2 * BOND)
    image = png(42)
    staged = upload(proposer, image)
    result = post_form(proposer, base_fields(coin, imageUploadId=staged["uploadId"]))
    assert result.status == 200, result.body
    assert result.json["imageUri"] == "ipfs://" + cid.cid_v0(image)
    assert cat(pin_server, result.json["imageUri"]) == image
    assert json.loads(cat(pin_server, result.json["metadataUri"]))["image"] == result.json["imageUri"]
    assert record(staged["uploadId"])["used"] is True

    both = post_form(
        proposer, base_fields(coin, imageUploadId=staged["uploadId"]), [("image", "pic.png", "image/png", image)]
    )
    assert both.status == 400 and both.json["error"] == "invalid_input" and both.json["field"] == "imageUploadId"
    refused(post_form(proposer, base_fields(coin, imageUploadId=staged["uploadId"])), "already used")


# ------------------------------------------------------------------ the presigned POST's policy, as S3 checks it
# The devstack's S3 (devstack/s3post.py, in front of moto) checks a browser upload as S3 does: the SigV4
# signature over the policy, its expiry, every condition, no field outside them. Each refusal is S3's
# status and XML error, and nothing reaches the bucket.


def stage(conn, data: bytes = PNG, ctype: str = "image/png") -> dict:
    asked = ask(conn, {"contentType": ctype, "contentLength": str(len(data))})
    assert asked.status == 200, asked.body
    return asked.json


def post_to_s3(
    staged: dict, data: bytes = PNG, ctype: str = "image/png", url: str | None = None, **changes: str | None
) -> httpx.Response:
    """The browser upload of `data` with the answer's fields, some changed (None: left out)."""
    fields = {**staged["fields"], **changes}
    fields = {name: value for name, value in fields.items() if value is not None}
    return httpx.post(url or staged["url"], data=fields, files={"file": ("image", data, ctype)}, timeout=30)


def s3_error(response: httpx.Response, status: int, code: str) -> dict[str, str]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/xml"
    error = ET.fromstring(response.content)
    assert error.tag == "Error" and error.findtext("Code") == code, response.text
    assert error.findtext("RequestId") and error.findtext("HostId")
    return {child.tag: child.text or "" for child in error}


def stored_keys() -> list[str]:
    from partner.core.settings import get_settings
    from partner.store import aws

    listed = aws.s3().list_objects_v2(Bucket=get_settings().staging_bucket, Prefix="uploads/")
    return [item["Key"] for item in listed.get("Contents", [])]


def policy_of(staged: dict) -> dict:
    return json.loads(base64.b64decode(staged["fields"]["policy"]))


def test_s3_stores_a_form_that_keeps_the_policy(conn):
    staged = stage(conn)
    sent = post_to_s3(staged, **{"x-ignore-note": "not in the policy, and allowed"})
    assert sent.status_code == 204, sent.text
    assert staged_object(staged["uploadId"]) == PNG


def test_s3_refuses_a_file_over_the_content_length_range(conn):
    staged = stage(conn)
    error = s3_error(post_to_s3(staged, PNG + b"\0"), 400, "EntityTooLarge")
    assert error["Message"] == "Your proposed upload exceeds the maximum allowed size"
    assert (error["ProposedSize"], error["MaxSizeAllowed"]) == (str(len(PNG) + 1), str(len(PNG)))
    assert f"uploads/{staged['uploadId']}" not in stored_keys()


def test_s3_refuses_an_empty_file(conn):
    staged = stage(conn)
    error = s3_error(post_to_s3(staged, b""), 400, "EntityTooSmall")
    assert error["Message"] == "Your proposed upload is smaller than the minimum allowed size"
    assert (error["ProposedSize"], error["MinSizeAllowed"]) == ("0", "1")
    assert f"uploads/{staged['uploadId']}" not in stored_keys()


def test_s3_refuses_another_content_type(conn):
    staged = stage(conn)
    error = s3_error(post_to_s3(staged, ctype="image/gif", **{"Content-Type": "image/gif"}), 403, "AccessDenied")
    assert (
        error["Message"] == 'Invalid according to Policy: Policy Condition failed: ["eq", "$Content-Type", "image/png"]'
    )
    missing = s3_error(post_to_s3(staged, **{"Content-Type": None}), 403, "AccessDenied")
    assert missing["Message"] == error["Message"]
    assert f"uploads/{staged['uploadId']}" not in stored_keys()


def test_s3_refuses_another_key(conn):
    staged, other = stage(conn), stage(conn)
    error = s3_error(post_to_s3(staged, key=f"uploads/{other['uploadId']}"), 403, "AccessDenied")
    assert error["Message"] == (
        f'Invalid according to Policy: Policy Condition failed: ["eq", "$key", "uploads/{staged["uploadId"]}"]'
    )
    assert not {f"uploads/{staged['uploadId']}", f"uploads/{other['uploadId']}"} & set(stored_keys())


def test_s3_refuses_another_bucket(conn, aws_stack):
    from partner.store import aws

    aws.s3().create_bucket(Bucket="partner-test-elsewhere")
    staged = stage(conn)
    url = staged["url"].rstrip("/").rsplit("/", 1)[0] + "/partner-test-elsewhere"
    error = s3_error(post_to_s3(staged, url=url), 403, "AccessDenied")
    bucket = aws_stack.physical_id("StagingBucket")
    assert error["Message"] == f'Invalid according to Policy: Policy Condition failed: ["eq", "$bucket", "{bucket}"]'
    assert aws.s3().list_objects_v2(Bucket="partner-test-elsewhere").get("KeyCount") == 0


def test_s3_refuses_an_expired_policy(conn, clock):
    staged = stage(conn)
    clock.t = float(calendar.timegm(time.strptime(policy_of(staged)["expiration"], "%Y-%m-%dT%H:%M:%SZ")))
    assert post_to_s3(staged).status_code == 204  # S3: "not valid after" the expiration
    clock.advance(1)
    error = s3_error(post_to_s3(staged), 403, "AccessDenied")
    assert error["Message"] == "Invalid according to Policy: Policy expired."


def test_s3_refuses_a_tampered_policy_or_signature(conn):
    staged = stage(conn)
    policy = policy_of(staged)
    policy["conditions"] = [
        ["content-length-range", 1, 100 * 1024 * 1024] if isinstance(c, list) else c for c in policy["conditions"]
    ]
    tampered = base64.b64encode(json.dumps(policy).encode()).decode()
    big = PNG + b"\0" * 1000
    error = s3_error(post_to_s3(staged, big, policy=tampered), 403, "SignatureDoesNotMatch")
    assert error["Message"] == (
        "The request signature we calculated does not match the signature you provided. "
        "Check your key and signing method."
    )
    assert error["StringToSign"] == tampered
    assert error["SignatureProvided"] == staged["fields"]["x-amz-signature"]
    assert error["AWSAccessKeyId"] == staged["fields"]["x-amz-credential"].split("/")[0]

    signature = staged["fields"]["x-amz-signature"]
    forged = signature[:-1] + ("0" if signature[-1] != "0" else "1")
    error = s3_error(post_to_s3(staged, **{"x-amz-signature": forged}), 403, "SignatureDoesNotMatch")
    assert error["SignatureProvided"] == forged
    other_date = s3_error(
        post_to_s3(staged, **{"x-amz-credential": staged["fields"]["x-amz-credential"].replace("/20", "/19", 1)}),
        403,
        "SignatureDoesNotMatch",
    )
    assert other_date["StringToSign"] == staged["fields"]["policy"]
    assert f"uploads/{staged['uploadId']}" not in stored_keys()


def test_s3_refuses_a_field_the_policy_does_not_cover(conn):
    staged = stage(conn)
    error = s3_error(post_to_s3(staged, **{"x-amz-meta-owner": "someone"}), 403, "AccessDenied")
    assert error["Message"] == "Invalid according to Policy: Extra input fields: x-amz-meta-owner"
    acl = s3_error(post_to_s3(staged, acl="public-read"), 403, "AccessDenied")
    assert acl["Message"] == "Invalid according to Policy: Extra input fields: acl"
    assert f"uploads/{staged['uploadId']}" not in stored_keys()


def test_s3_refuses_a_sigv2_form(conn, aws_stack):
    """What a client without signature_version s3v4 gets from boto3's generate_presigned_post."""
    import boto3
    from botocore.config import Config

    legacy = boto3.client(
        "s3",
        endpoint_url=os.environ["AWS_ENDPOINT_URL"],
        region_name="us-east-1",
        config=Config(signature_version="s3"),
    )
    post = legacy.generate_presigned_post(Bucket=aws_stack.physical_id("StagingBucket"), Key="uploads/upl_legacy")
    assert "signature" in post["fields"] and "x-amz-signature" not in post["fields"]
    sent = httpx.post(post["url"], data=post["fields"], files={"file": ("image", PNG, "image/png")}, timeout=30)
    error = s3_error(sent, 400, "InvalidRequest")
    assert error["Message"] == (
        "The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256."
    )
    assert "uploads/upl_legacy" not in stored_keys()


def test_s3_refuses_a_form_without_its_key_or_file_or_signature(conn):
    staged = stage(conn)
    error = s3_error(post_to_s3(staged, key=None), 400, "InvalidArgument")
    assert error["Message"] == (
        "Bucket POST must contain a field named 'key'.  If it is specified, please check the order of the fields."
    )
    no_file = httpx.post(staged["url"], data=staged["fields"], files={"other": ("x", b"x")}, timeout=30)
    assert s3_error(no_file, 400, "InvalidArgument")["Message"] == "POST requires exactly one file upload per request."
    anonymous = post_to_s3(
        staged,
        policy=None,
        **{"x-amz-signature": None, "x-amz-algorithm": None, "x-amz-credential": None, "x-amz-date": None},
    )
    assert s3_error(anonymous, 403, "AccessDenied")["Message"] == "Access Denied"
    assert f"uploads/{staged['uploadId']}" not in stored_keys()
