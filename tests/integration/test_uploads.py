"""Staged image uploads (issue 18) through the real handlers against moto (server mode), the devstack
chain and the pin server: POST /partner/v1/uploads (validation, scope, rate limit, the presigned
POST's policy), the S3 browser upload, then `imageUploadId` on coins/create and update-content:
each upload once, by its own client and user, before it expires, and only an image."""

from __future__ import annotations

import base64
import json
import os

import httpx
import pytest

from tests.chainutil import airdrop, wait
from tests.helpers import connect, invoke
from tests.integration.test_update_content import BOND, base_fields, cat, holder, png, post_form
from tests.unit.test_multipart import encode

SOL = 10**9
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + os.urandom(64)
UPLOADS = "/partner/v1/uploads"
REDIRECT = "http://localhost:8080/callback"


def ask(conn, body, content_type: str = "application/json"):
    return invoke("uploads_create", "POST", UPLOADS, headers={**conn.bearer(), "Content-Type": content_type},
                  body=body)


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
    from partner import admin

    user = admin.create_user()
    airdrop(chain.url, user["wallet"], 10 * SOL)
    return user


@pytest.fixture
def app(aws_stack):
    from partner import admin

    return admin.create_client(name="Uploader", redirect_uri=REDIRECT)


@pytest.fixture
def creator(chain):
    return new_user(chain)


@pytest.fixture
def conn(chain, pin_server, clock, ip, app, creator):
    return connect(app, creator, scope="coin:create", ip=ip)


# ------------------------------------------------------------------ POST /partner/v1/uploads


def test_upload_answers_a_presigned_post_bound_to_type_length_key_and_expiry(conn, clock, app, creator, aws_stack):
    from partner import uploads

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

    stored = record(upload_id)
    assert (stored["cid"], stored["uid"], stored["ctype"], stored["length"], stored["used"]) == (
        app["client_id"], creator["user_id"], "image/webp", 5_242_880, False)
    assert stored["exp"] == body["expiresAt"]


def test_governance_propose_alone_may_upload_and_other_scopes_may_not(chain, pin_server, clock, ip, app, creator):
    proposer = connect(app, creator, scope="governance:propose", ip=ip)
    assert ask(proposer, {"contentType": "image/png", "contentLength": "10"}).status == 200
    reader = connect(app, creator, scope="profile:read trade:execute", ip=ip)
    result = ask(reader, {"contentType": "image/png", "contentLength": "10"})
    assert result.status == 403 and result.json["error"] == "insufficient_scope"
    assert result.headers["www-authenticate"] == 'Bearer error="insufficient_scope", scope="coin:create governance:propose"'


@pytest.mark.parametrize("body, field", [
    ({"contentType": "image/svg+xml", "contentLength": "10"}, "contentType"),
    ({"contentType": "image/png", "contentLength": "0"}, "contentLength"),
    ({"contentType": "image/png", "contentLength": "5242881"}, "contentLength"),
    ({"contentType": "image/png", "contentLength": "1.5"}, "contentLength"),
    ({"contentType": "image/png", "contentLength": "-1"}, "contentLength"),
    ({"contentType": "image/png", "contentLength": 100}, "contentLength"),
    ({"contentType": "image/png"}, "contentLength"),
    ({"contentLength": "10"}, "contentType"),
    ({"contentType": "image/png", "contentLength": "10", "filename": "a.png"}, "filename"),
])
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
    from partner import cid

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
    from partner import admin

    staged = upload(conn, PNG)
    other_user = connect(app, new_user(chain), scope="coin:create", ip=ip)
    refused(launch(other_user, staged["uploadId"]), "another user")
    other_app = admin.create_client(name="Other Uploader", redirect_uri=REDIRECT)
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
    """moto checks none of a presigned POST's conditions; the service reads the object and checks it."""
    staged = upload(conn, PNG + b"\0" * 100, length=len(PNG))
    refused(launch(conn, staged["uploadId"]), "bigger than the contentLength")


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
    from partner import cid
    from tests.chainutil import new_coin

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

    both = post_form(proposer, base_fields(coin, imageUploadId=staged["uploadId"]),
                     [("image", "pic.png", "image/png", image)])
    assert both.status == 400 and both.json["error"] == "invalid_input" and both.json["field"] == "imageUploadId"
    refused(post_form(proposer, base_fields(coin, imageUploadId=staged["uploadId"])), "already used")
