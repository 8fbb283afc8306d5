"""`partnerctl dev warp` moves the whole devstack's clock (issue 39, newcomer 1): under `make run`
(`Devstack.follow_chain_clock`) one warp of the chain moves the service's clock too, in the gateway's
process and in every function's, so an upload (15 minutes) and an access token (30 minutes, spec:
`expires_in` 1800) expire as the spec says without waiting."""

from __future__ import annotations

import argparse

import httpx

from testkit.helpers import connect_http, gateway_client
from tests.e2e.test_uploads_http import create_from_upload

REDIRECT = "http://127.0.0.1:9/cb"


def warp(monkeypatch, chain, seconds: int) -> None:
    from partnerctl import dev

    monkeypatch.setenv("RPC_URL", chain.url)
    dev.run(argparse.Namespace(cmd="warp", seconds=seconds))


def test_one_warp_expires_an_upload_and_an_access_token(devstack, chain, ports, monkeypatch):
    from partnerctl import admin

    devstack.follow_chain_clock()  # what `make run` does; the `ports` fixture restores the clock
    client = admin.create_client(admin.NewClient(name="Warp App", redirect_uri=REDIRECT))
    user = admin.create_user()
    with gateway_client(devstack.url, timeout=60) as http:
        headers = connect_http(http, client, user, "coin:create profile:read", REDIRECT)
        asked = http.post(
            "/partner/v1/uploads", headers=headers, json={"contentType": "image/png", "contentLength": "8"}
        )
        assert asked.status_code == 200, asked.text
        staged = asked.json()
        sent = httpx.post(staged["url"], data=staged["fields"], files={"file": ("a.png", b"\x89PNG\r\n\x1a\n")})
        assert sent.status_code == 204, sent.text

        warp(monkeypatch, chain, 16 * 60)
        launched = create_from_upload(http, headers, "Warped Coin", "WARP", staged["uploadId"])
        assert launched.status_code == 400, launched.text
        assert launched.json()["error"] == "invalid_input"
        assert "the upload expired" in launched.json()["message"]
        assert http.get("/partner/v1/me", headers=headers).status_code == 200  # 16 of its 30 minutes

        # a fresh upload after the warp: its presigned POST still works (S3 signs and judges on its own clock)
        again = http.post(
            "/partner/v1/uploads", headers=headers, json={"contentType": "image/png", "contentLength": "8"}
        )
        assert again.status_code == 200, again.text
        fresh = again.json()
        resent = httpx.post(fresh["url"], data=fresh["fields"], files={"file": ("a.png", b"\x89PNG\r\n\x1a\n")})
        assert resent.status_code == 204, resent.text

        warp(monkeypatch, chain, 15 * 60)  # 31 minutes in all
        expired = http.get("/partner/v1/me", headers=headers)
        assert expired.status_code == 401 and expired.json()["error"] == "invalid_token", expired.text
