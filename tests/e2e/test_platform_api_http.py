"""The platform API (issue 28) over HTTP: /platform/v1 answers only SigV4 requests signed by the
platform's credentials (the devstack gateway checks them as API Gateway's IAM authorization does);
partner tokens are refused before any function runs; changes are idempotent; delegation off is
seen by the very next trade."""

from __future__ import annotations

import json
import time

import httpx
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from testkit.helpers import connect


def signed(
    devstack,
    method: str,
    path: str,
    body: dict | str | None = None,
    *,
    credentials=None,
    service="execute-api",
    region="us-east-1",
) -> httpx.Response:
    key_id, secret = credentials or devstack.platform_credentials
    data = (body if isinstance(body, str) else json.dumps(body)).encode() if body is not None else b""
    request = AWSRequest(
        method=method,
        url=f"{devstack.url}{path}",
        data=data,
        headers={"Content-Type": "application/json"} if body is not None else {},
    )
    SigV4Auth(Credentials(key_id, secret), service, region).add_auth(request)
    return httpx.request(
        method, f"{devstack.url}{path}", content=data, headers=dict(request.headers.items()), timeout=30
    )


def test_upsert_wallet_delegation_and_read_are_idempotent(devstack):
    sub = f"platform|{time.time_ns()}"
    path = f"/platform/v1/users/{httpx.URL('/x/' + sub).raw_path.decode()[3:]}"
    first = signed(devstack, "PUT", path, {"twitterHandle": "@dana"})
    assert first.status_code == 200, first.text
    user = first.json()
    assert user["sub"] == sub and user["twitterHandle"] == "dana" and user["wallet"] is None
    assert user["tradingEnabled"] is False
    again = signed(devstack, "PUT", path, {"twitterHandle": "@dana"})
    assert again.status_code == 200 and again.json() == user  # the same user, nothing new
    wallet = signed(devstack, "POST", f"{path}/wallet")
    assert wallet.status_code == 200 and len(wallet.json()["wallet"]) >= 32
    assert signed(devstack, "POST", f"{path}/wallet").json() == wallet.json()  # the same wallet
    on = signed(devstack, "PUT", f"{path}/delegation", {"tradingEnabled": True})
    assert on.status_code == 200 and on.json()["tradingEnabled"] is True
    assert signed(devstack, "PUT", f"{path}/delegation", {"tradingEnabled": True}).json() == on.json()
    renamed = signed(devstack, "PUT", path, {"twitterHandle": "dana_2"}).json()
    assert renamed == {**on.json(), "twitterHandle": "dana_2"}
    assert signed(devstack, "GET", path).json() == renamed
    from partner.store.users import get_user

    stored = get_user(user["userId"])
    assert stored.sub == sub and stored.wallet == wallet.json()["wallet"] and stored.secret is not None


def test_platform_api_input_and_unknown_users(devstack):
    missing = signed(devstack, "GET", "/platform/v1/users/nobody-here")
    assert missing.status_code == 404 and missing.json()["error"] == "not_found"
    assert signed(devstack, "POST", "/platform/v1/users/nobody-here/wallet").status_code == 404
    bad = signed(devstack, "PUT", "/platform/v1/users/someone", {"twitterHandle": "not a handle"})
    assert bad.status_code == 400 and bad.json()["field"] == "twitterHandle"
    extra = signed(devstack, "PUT", "/platform/v1/users/someone", {"admin": True})
    assert extra.status_code == 400 and extra.json()["field"] == "admin"
    signed(devstack, "PUT", "/platform/v1/users/no-wallet-yet", {})
    early = signed(devstack, "PUT", "/platform/v1/users/no-wallet-yet/delegation", {"tradingEnabled": True})
    assert early.status_code == 400 and early.json()["field"] == "tradingEnabled"
    assert (
        signed(devstack, "PUT", "/platform/v1/users/no-wallet-yet/delegation", {"tradingEnabled": "yes"}).status_code
        == 400
    )


def test_wallet_refuses_unknown_fields_and_a_repeated_key_as_the_upsert_does(devstack):
    """Issue 39 (low 8): the wallet route reads its body as the upsert does: an unknown field is
    refused by name, a repeated key gets its own message (on every platform route), and the
    route's empty body or `{}` provisions as before."""
    sub = f"platform-wallet|{time.time_ns()}"
    path = f"/platform/v1/users/{httpx.URL('/x/' + sub).raw_path.decode()[3:]}"
    assert signed(devstack, "PUT", path, {}).status_code == 200
    for route, method in ((f"{path}/wallet", "POST"), (path, "PUT")):
        extra = signed(devstack, method, route, {"admin": True})
        assert extra.status_code == 400, extra.text
        assert {k: extra.json()[k] for k in ("error", "field", "message")} == {
            "error": "invalid_input",
            "field": "admin",
            "message": "Unknown field admin.",
        }
        twice = signed(devstack, method, route, '{"a": 1, "a": 2}')
        assert twice.status_code == 400, twice.text
        assert twice.json()["error"] == "invalid_input"
        assert twice.json()["message"] == 'The JSON body repeats the key "a".'
    assert signed(devstack, "GET", path).json()["wallet"] is None  # nothing provisioned by a refusal
    wallet = signed(devstack, "POST", f"{path}/wallet", {})
    assert wallet.status_code == 200 and wallet.json()["wallet"]
    assert signed(devstack, "POST", f"{path}/wallet").json() == wallet.json()


def _assert_refused_before_the_function(response: httpx.Response, status: int, error: str, error_type: str) -> None:
    assert response.status_code == status, response.text
    assert response.json()["error"] == error
    assert response.headers["x-amzn-ErrorType"] == error_type


def test_sigv4_is_required_and_partner_tokens_are_refused(devstack, ip):
    from partnerctl import admin

    path = "/platform/v1/users/alice"
    # no signature: API Gateway's MISSING_AUTHENTICATION_TOKEN, which this API renders as its 404
    _assert_refused_before_the_function(
        httpx.get(f"{devstack.url}{path}"), 404, "not_found", "MissingAuthenticationTokenException"
    )
    # a partner's valid access token is no IAM signature
    client = admin.create_client(
        admin.NewClient(name="Platform Prober", redirect_uri="http://localhost:8080/callback", tier="Partner")
    )
    token = connect(client, admin.create_user(), scope="profile:read", ip=ip).access
    for method, url in (("GET", path), ("PUT", path), ("PUT", f"{path}/delegation")):
        response = httpx.request(
            method,
            f"{devstack.url}{url}",
            headers={"Authorization": f"Bearer {token}"},
            json={"tradingEnabled": False} if method == "PUT" else None,
        )
        _assert_refused_before_the_function(response, 403, "request_rejected", "IncompleteSignatureException")
    # signed, but by a key IAM does not know
    _assert_refused_before_the_function(
        signed(devstack, "GET", path, credentials=("AKIA0000000000000000", "x" * 40)),
        403,
        "request_rejected",
        "UnrecognizedClientException",
    )
    # the right key id with a wrong secret; another service's scope
    key_id, _ = devstack.platform_credentials
    _assert_refused_before_the_function(
        signed(devstack, "GET", path, credentials=(key_id, "wrong" * 8)),
        403,
        "request_rejected",
        "InvalidSignatureException",
    )
    _assert_refused_before_the_function(
        signed(devstack, "GET", path, service="lambda"), 403, "request_rejected", "InvalidSignatureException"
    )
    # a signed request whose body was changed on the way
    key_id, secret = devstack.platform_credentials
    request = AWSRequest(
        method="PUT",
        url=f"{devstack.url}{path}/delegation",
        data=b'{"tradingEnabled":true}',
        headers={"Content-Type": "application/json"},
    )
    SigV4Auth(Credentials(key_id, secret), "execute-api", "us-east-1").add_auth(request)
    tampered = httpx.put(
        f"{devstack.url}{path}/delegation", content=b'{"tradingEnabled":false}', headers=dict(request.headers.items())
    )
    _assert_refused_before_the_function(tampered, 403, "request_rejected", "InvalidSignatureException")
    assert signed(devstack, "GET", path).json()["tradingEnabled"] is True  # alice's delegation untouched


def test_delegation_off_makes_the_next_trade_answer_delegation_missing(devstack, chain, ip):
    from partnerctl import admin

    sub = f"trader-{time.time_ns()}"
    user = admin.create_user(sub=sub)
    client = admin.create_client(
        admin.NewClient(name="Delegation Probe", redirect_uri="http://localhost:8080/callback", tier="Partner")
    )
    token = connect(client, user, scope="trade:execute profile:read", ip=ip).access
    mint = devstack.seeded["coin"]["mint"]
    body = {
        "mint": mint,
        "maxSolIn": "1000000",
        "minTokensOut": "0",
        "priorityFeeLamports": "10000",
        "tipLamports": "1000000",
    }
    off = signed(devstack, "PUT", f"/platform/v1/users/{sub}/delegation", {"tradingEnabled": False})
    assert off.status_code == 200 and off.json()["tradingEnabled"] is False
    trade = httpx.post(
        f"{devstack.url}/partner/v1/trades/buy", json=body, headers={"Authorization": f"Bearer {token}"}, timeout=30
    )
    assert trade.status_code == 403 and trade.json()["error"] == "delegation_missing", trade.text
    on = signed(devstack, "PUT", f"/platform/v1/users/{sub}/delegation", {"tradingEnabled": True})
    assert on.json()["tradingEnabled"] is True
    me = httpx.get(f"{devstack.url}/partner/v1/me", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert me.status_code == 200 and me.json()["user"]["tradingEnabled"] is True
