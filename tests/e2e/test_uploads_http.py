"""A 5 MiB image launches a coin through the staged path, end to end over HTTP (issue 18): POST
/partner/v1/uploads through the devstack gateway, the file straight to S3 (the moto server on
127.0.0.1, never through the gateway, whose Lambda quota a 5 MiB multipart body would break), then
coins/create with `imageUploadId`. The pinned image's CID is the one the pin server gives the same
bytes uploaded to it directly."""

from __future__ import annotations

import json
import os
import struct
import zlib
from urllib.parse import urlsplit

import httpx

from testkit.chain import airdrop, wait
from testkit.helpers import connect_http, gateway_client

SOL = 10**9
REDIRECT = "http://127.0.0.1:9/cb"


def big_png(size: int) -> bytes:
    """A PNG of exactly `size` bytes: signature, IHDR, one IDAT of random (incompressible) bytes, IEND."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    head = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1024, 1024, 8, 2, 0, 0, 0))
    tail = chunk(b"IEND", b"")
    data = head + chunk(b"IDAT", os.urandom(size - len(head) - len(tail) - 12)) + tail
    assert len(data) == size
    return data


def create_from_upload(http: httpx.Client, headers: dict, name: str, symbol: str, upload_id: str) -> httpx.Response:
    """POST /partner/v1/coins/create naming a staged upload as the image."""
    fields = [("name", (None, name)), ("symbol", (None, symbol)), ("imageUploadId", (None, upload_id))]
    return http.post("/partner/v1/coins/create", headers=headers, files=fields)


def test_a_5_mib_png_launches_through_a_staged_upload_over_http(devstack, chain):
    from partnerctl import admin

    image = big_png(5_240_000)
    assert len(image) >= 5_200_000
    client = admin.create_client(admin.NewClient(name="Staged Launcher", redirect_uri=REDIRECT))
    creator = admin.create_user()
    airdrop(chain.url, creator["wallet"], 5 * SOL)
    with gateway_client(devstack.url, timeout=60) as http:
        headers = connect_http(http, client, creator, "coin:create", REDIRECT)
        asked = http.post(
            "/partner/v1/uploads", headers=headers, json={"contentType": "image/png", "contentLength": str(len(image))}
        )
        assert asked.status_code == 200, asked.text
        staged = asked.json()
        assert asked.headers["x-ratelimit-limit"] == "30"
        url = urlsplit(staged["url"])
        assert url.hostname == "127.0.0.1" and url.port != urlsplit(devstack.url).port  # S3, not the gateway

        # the standard S3 browser upload, with a plain HTTP client and no bearer token
        sent = httpx.post(
            staged["url"], data=staged["fields"], files={"file": ("big.png", image, "image/png")}, timeout=60
        )
        assert sent.status_code == 204, sent.text

        launched = create_from_upload(http, headers, "Big Image Coin", "BIG", staged["uploadId"])
        assert launched.status_code == 200, launched.text
        body = launched.json()
        assert int(launched.request.headers["content-length"]) < 2048  # the image never passed through the gateway
        assert body["status"] == "submitted" and body["initialBuyPlan"] is None
        assert wait(chain.url, body["signature"])["err"] is None

        added = httpx.post(
            f"{devstack.pinning.url}/api/v0/add",
            params={"cid-version": "0", "pin": "true"},
            files={"file": ("direct.png", image, "image/png")},
            timeout=60,
        )
        assert added.status_code == 200, added.text
        direct_cid = json.loads(added.text.strip().splitlines()[-1])["Hash"]
        assert body["imageUri"] == f"ipfs://{direct_cid}"
        document = httpx.post(
            f"{devstack.pinning.url}/api/v0/cat",
            params={"arg": body["metadataUri"].removeprefix("ipfs://")},
            timeout=30,
        ).json()
        assert document["image"] == body["imageUri"]

        again = create_from_upload(http, headers, "Big Again", "BIGA", staged["uploadId"])
        assert again.status_code == 400 and again.json()["error"] == "invalid_input"
        assert again.json()["field"] == "imageUploadId"
