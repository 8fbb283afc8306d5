"""What API Gateway answers itself, over HTTP on the devstack: each is the gateway response of
template.yaml in the spec's Error shape. Unknown routes, GET on the fixed governance paths,
the stage throttle, and images too large for a direct multipart upload (Lambda's 6,291,456-byte
event, base64 included) next to one that fits."""

from __future__ import annotations

import os

import httpx
import pytest

from testkit.chain import airdrop, balance
from testkit.helpers import connect_http, gateway_client

SOL = 10**9
REDIRECT = "http://127.0.0.1:9/cb"
PNG_HEAD = b"\x89PNG\r\n\x1a\n"


def assert_error(response: httpx.Response, status: int, code: str) -> dict:
    assert response.status_code == status, (response.status_code, response.text[:300])
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert body["error"] == code, body
    assert isinstance(body["message"], str) and isinstance(body["retryable"], bool)
    return body


@pytest.fixture(scope="module")
def http(devstack):
    with gateway_client(devstack.url, timeout=120) as client:
        yield client


@pytest.fixture()
def creator(devstack, chain, http):
    """A fresh creator per test (the launch cooldown is per creator)."""
    from partnerctl import admin

    client = admin.create_client(admin.NewClient(name="Gateway Limits", redirect_uri=REDIRECT))
    user = admin.create_user()
    airdrop(chain.url, user["wallet"], 5 * SOL)
    headers = connect_http(http, client, user, "coin:create profile:read", REDIRECT)
    return {"user": user, "headers": headers}


@pytest.mark.parametrize(
    "method,path",
    [
        ("GET", "/partner/v1/nope"),
        ("POST", "/partner/v1/me"),
        ("GET", "/partner/v1/governance/votes/cancel"),
        ("GET", "/nothing/here"),
    ],
)
def test_an_unknown_route_is_not_found_in_the_error_shape(http, method, path):
    body = assert_error(http.request(method, path), 404, "not_found")
    assert body["retryable"] is False


@pytest.mark.parametrize("fixed", ["votes", "proposals", "metadata", "bonds"])
def test_get_on_a_fixed_governance_path_is_governance_not_found(http, creator, fixed):
    response = http.get(f"/partner/v1/governance/{fixed}", headers=creator["headers"])
    assert_error(response, 404, "governance_not_found")
    assert response.headers["x-ratelimit-limit"] == "300"  # the read bucket: the function's usual checks ran
    # the token is checked first, as on GET governance/{mint}
    assert_error(http.get(f"/partner/v1/governance/{fixed}"), 401, "invalid_token")


def test_stage_throttle_is_throttled_in_the_error_shape(devstack, http):
    gateway = devstack.gateway.gateway
    saved = gateway.stage_throttle
    assert saved == (200.0, 500.0)  # from the template's MethodSettings
    gateway.stage_throttle = (0, 1)  # one request, no refill: what a burst past the limit meets
    try:
        assert http.get("/partner/v1/transactions/x/status").status_code == 401  # the one token
        response = http.get("/partner/v1/transactions/x/status")
        body = assert_error(response, 429, "rate_limit_exceeded")
        assert response.headers["retry-after"] == "1" and body["retryAfterSeconds"] == 1
    finally:
        gateway.stage_throttle = saved


def _launch(http, creator, image: bytes) -> httpx.Response:
    return http.post(
        "/partner/v1/coins/create",
        headers=creator["headers"],
        data={"name": "Direct Image", "symbol": "DIRECT", "priorityFeeLamports": "1000"},
        files={"image": ("logo.png", image, "image/png")},
    )


def test_a_5_mib_image_sent_directly_is_payload_too_large_and_creates_nothing(devstack, chain, http, creator):
    image = PNG_HEAD + os.urandom(5_200_000 - len(PNG_HEAD))
    pinned_before = set(devstack.pinning.pinned())
    lamports_before = balance(chain.url, creator["user"]["wallet"])
    body = assert_error(_launch(http, creator, image), 413, "payload_too_large")
    assert "/partner/v1/uploads" in body["message"] and body["retryable"] is False
    assert set(devstack.pinning.pinned()) == pinned_before  # nothing pinned
    assert balance(chain.url, creator["user"]["wallet"]) == lamports_before  # no transaction, no mint


@pytest.mark.parametrize("size", [1024 * 1024, 4 * 1024 * 1024])  # 4 MiB: the documented direct limit
def test_an_image_up_to_4_mib_sent_directly_still_launches(devstack, http, creator, size):
    image = PNG_HEAD + os.urandom(size - len(PNG_HEAD))
    response = _launch(http, creator, image)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "submitted" and body["mint"]
    assert body["imageUri"].removeprefix("ipfs://") in devstack.pinning.pinned()
