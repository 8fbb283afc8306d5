"""Test helpers: invoke the real handlers with API Gateway events, and walk the OAuth flow."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import importlib.util
import itertools
import json
import re
import secrets
import socket
import socketserver
import sys
import threading
from dataclasses import dataclass, field
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from devstack.events import ApiRequest, api_event, lambda_context

ROOT = Path(__file__).resolve().parents[1]
_modules: dict[str, Any] = {}
# set by the `lambdas` fixture: handlers run in processes of their own (devstack.workers)
processes: Any = None


def catalogue_section(first: str, last: str) -> list[str]:
    """The error codes of partner.core.errors.CATALOGUE from `first` to `last`, in catalogue order."""
    from partner.core.errors import CATALOGUE

    codes = list(CATALOGUE)
    return codes[codes.index(first) : codes.index(last) + 1]


def handler(function_dir: str):
    """The function's handler, imported into this process; under the `lambdas` fixture, from any thread
    but the main one, a call to it in a process of its own instead (one request at a time per process,
    as Lambda runs it), so that calls made at once never share a process."""
    if processes is not None and threading.current_thread() is not threading.main_thread():
        from devstack.workers import Spec

        function = Spec(function_dir, str(ROOT / "functions" / function_dir / "app.py"), "lambda_handler", 512, 30)
        return lambda event, _context=None: processes.invoke(function, event)
    if function_dir not in _modules:
        path = ROOT / "functions" / function_dir / "app.py"
        spec = importlib.util.spec_from_file_location(f"fn_{function_dir}", path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        _modules[function_dir] = module
    return _modules[function_dir].lambda_handler


@dataclass
class Result:
    status: int
    headers: dict[str, str]
    body: str
    raw: dict[str, Any] = field(repr=False)

    @property
    def json(self) -> Any:
        return json.loads(self.body)


def invoke(
    function_dir: str,
    method: str,
    path: str,
    *,
    headers: dict | None = None,
    query: Any = None,
    body: Any = None,
    source_ip: str = "127.0.0.1",
    resource: str | None = None,
) -> Result:
    event = api_event(
        ApiRequest(method, path, headers=headers, query=query, body=body, source_ip=source_ip, resource=resource)
    )
    out = handler(function_dir)(event, lambda_context(function_dir))
    merged: dict[str, str] = {}
    for name, value in (out.get("headers") or {}).items():
        merged[name.lower()] = value
    for name, values in (out.get("multiValueHeaders") or {}).items():
        merged[name.lower()] = ", ".join(values)
    text = out.get("body") or ""
    if out.get("isBase64Encoded"):
        text = base64.b64decode(text).decode()
    return Result(out["statusCode"], merged, text, out)


FEES = {"priorityFeeLamports": "10000", "tipLamports": "1000000"}  # the tests' usual priority fee and tip


def post_json(conn, function_dir: str, path: str, body: Any) -> Result:
    """POST a JSON body to `path` as `conn`."""
    return invoke(function_dir, "POST", path, headers={**conn.bearer(), "Content-Type": "application/json"}, body=body)


def trade(conn, kind: str, body: dict) -> Result:
    """POST /partner/v1/trades/{kind} (buy, buy-exact-out, sell, quote) as `conn`."""
    return post_json(conn, f"trades_{kind.replace('-', '_')}", f"/partner/v1/trades/{kind}", body)


def landed(url: str, result: Result) -> dict:
    """A write answered 200 whose transaction landed without error: the transaction."""
    from testkit.chain import wait

    assert result.status == 200, result.body
    transaction = wait(url, result.json["signature"])
    assert transaction["err"] is None, transaction
    return transaction


def buy(
    conn, mint: str, max_sol_in: int, slippage_bps: int = 500, *, priority_fee: int = 10_000, tip: int = 1_000_000
) -> Result:
    """A slippage-mode buy of `mint` for at most `max_sol_in` lamports."""
    body = {"mint": mint, "maxSolIn": str(max_sol_in), "slippageBps": slippage_bps}
    return trade(conn, "buy", {**body, "priorityFeeLamports": str(priority_fee), "tipLamports": str(tip)})


def tx_status(signature: str, headers: dict | None) -> Result:
    """GET /partner/v1/transactions/{signature}/status with `headers`."""
    path, resource = f"/partner/v1/transactions/{signature}/status", "/partner/v1/transactions/{signature}/status"
    return invoke("transaction_status", "GET", path, headers=headers, resource=resource)


def basic(client_id: str, secret: str) -> str:
    return "Basic " + base64.b64encode(f"{client_id}:{secret}".encode()).decode()


def pkce_pair() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)[:64]
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


FORM = {"Content-Type": "application/x-www-form-urlencoded"}
REDIRECT = "http://localhost:8080/callback"  # the tests' clients' redirect URI


def partner_client(name: str, **limits: Any) -> dict:
    """A Partner-tier client with the tests' redirect URI and `limits` (fee wallet, caps: NewClient's fields)."""
    from partnerctl import admin

    return admin.create_client(admin.NewClient(name=name, redirect_uri=REDIRECT, tier="Partner", **limits))


def hidden_inputs(html: str) -> dict[str, str]:
    return {
        m.group(1): unescape(m.group(2))
        for m in re.finditer(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', html)
    }


class Tokens:
    """The access and refresh token of an OAuth token answer held in `tokens`."""

    tokens: dict[str, Any]

    @property
    def access(self) -> str:
        return self.tokens["access_token"]

    @property
    def refresh(self) -> str:
        return self.tokens["refresh_token"]

    def bearer(self, token: str | None = None) -> dict[str, str]:
        return {"Authorization": f"Bearer {token or self.access}"}


@dataclass
class Connected(Tokens):
    client: dict[str, Any]
    user: dict[str, Any]
    tokens: dict[str, Any]
    verifier: str


def authorize_query(
    client: dict, challenge: str, scope: str = "profile:read", state: str = "xyz", redirect_uri: str = REDIRECT, **extra
) -> dict[str, str]:
    query = {
        "response_type": "code",
        "client_id": client["client_id"],
        "redirect_uri": redirect_uri,
        "scope": scope,
        "state": state,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
    }
    query.update(extra)
    return {k: v for k, v in query.items() if v is not None}


def consent_page(
    client: dict, cookie: str, challenge: str, scope: str = "profile:read", *, ip: str = "127.0.0.1", **kwargs: Any
) -> Result:
    """GET /oauth/authorize as the signed-in user of `cookie`: the consent screen (authorize_query's `kwargs`)."""
    query = authorize_query(client, challenge, scope, **kwargs)
    return invoke("oauth_authorize", "GET", "/oauth/authorize", query=query, headers={"Cookie": cookie}, source_ip=ip)


def consent_post(form: dict, cookie: str, *, ip: str = "127.0.0.1", headers: dict | None = None) -> Result:
    """POST the consent form as the signed-in user of `cookie`."""
    headers = {**FORM, "Cookie": cookie, **(headers or {})}
    return invoke("oauth_authorize", "POST", "/oauth/authorize", body=urlencode(form), headers=headers, source_ip=ip)


def get_code(
    client: dict,
    user: dict,
    *,
    scope: str = "profile:read",
    decision: str = "approve",
    redirect_uri: str = REDIRECT,
    ip: str = "127.0.0.1",
) -> tuple[str, str, dict]:
    """Walk the consent screen; returns (code or error, verifier, redirect query)."""
    from partnerctl import admin

    verifier, challenge = pkce_pair()
    cookie = admin.create_session(user["user_id"])["cookie"]
    page = consent_page(client, cookie, challenge, scope, ip=ip, redirect_uri=redirect_uri)
    assert page.status == 200, page.body
    form = hidden_inputs(page.body)
    form["decision"] = decision
    post = consent_post(form, cookie, ip=ip)
    assert post.status == 302, post.body
    params = {k: v[0] for k, v in parse_qs(urlsplit(post.headers["location"]).query).items()}
    return params.get("code", params.get("error", "")), verifier, params


def token_call(
    client: dict, params: dict[str, str], *, ip: str = "127.0.0.1", secret: str | None = None, endpoint: str = "token"
) -> Result:
    """POST the form `params` to /oauth/token (or /oauth/revoke: endpoint="revoke") as the client (Basic)."""
    return invoke(
        f"oauth_{endpoint}",
        "POST",
        f"/oauth/{endpoint}",
        body=urlencode(params),
        headers={**FORM, "Authorization": basic(client["client_id"], secret or client["api_key"])},
        source_ip=ip,
    )


def token_json(client: dict, params: dict[str, str], *, ip: str = "127.0.0.1") -> Result:
    """POST /oauth/token with a JSON body holding `params` and the client's credentials."""
    body = {**params, "client_id": client["client_id"], "client_secret": client["api_key"]}
    return invoke("oauth_token", "POST", "/oauth/token", source_ip=ip, body=body)


def me(access: str) -> Result:
    """GET /partner/v1/me with the access token."""
    return invoke("me", "GET", "/partner/v1/me", headers={"Authorization": f"Bearer {access}"})


def refresh(client: dict, token: str, *, ip: str = "127.0.0.1", secret: str | None = None, **extra: str) -> Result:
    """The refresh_token grant at /oauth/token."""
    return token_call(client, {"grant_type": "refresh_token", "refresh_token": token, **extra}, ip=ip, secret=secret)


def assert_oauth_error(result: Result, status: int, code: str) -> None:
    """An OAuth error answer (RFC 6749 section 5.2): no token, not cached."""
    assert result.status == status, result.body
    assert result.json["error"] == code
    assert result.json["error_description"]
    assert result.headers["cache-control"] == "no-store"
    assert result.headers["pragma"] == "no-cache"
    assert "access_token" not in result.json


def lost_race(r) -> bool:
    """A loser of concurrent uses of one token: `invalid_grant` (the replay), or, when DynamoDB kept
    cancelling its transaction on conflicts with the other contenders (the devstack's DynamoDB
    conflicts as DynamoDB does), a retryable 500 with nothing issued."""
    if r.status == 400:
        return r.json["error"] == "invalid_grant"
    return (
        r.status == 500
        and r.json["error"] == "internal"
        and r.json["retryable"] is True
        and "access_token" not in r.json
    )


def connect(client: dict, user: dict, scope: str = "profile:read", ip: str = "127.0.0.1") -> Connected:
    code, verifier, _ = get_code(client, user, scope=scope, ip=ip)
    result = token_call(
        client,
        {
            "grant_type": "authorization_code",
            "code": code,
            "code_verifier": verifier,
            "redirect_uri": "http://localhost:8080/callback",
        },
        ip=ip,
    )
    assert result.status == 200, result.body
    return Connected(client, user, result.json, verifier)


def authorize_code_http(http, client: dict, cookie: str, scope: str, redirect_uri: str) -> tuple[str, str]:
    """The consent page over HTTP as the signed-in user of `cookie`, approved: (code, PKCE verifier)."""
    verifier, challenge = pkce_pair()
    query = authorize_query(client, challenge, scope, state="s", redirect_uri=redirect_uri)
    page = http.get("/oauth/authorize", params=query, headers={"Cookie": cookie})
    assert page.status_code == 200, page.text[:300]
    approved = http.post(
        "/oauth/authorize", data=hidden_inputs(page.text) | {"decision": "approve"}, headers={"Cookie": cookie}
    )
    assert approved.status_code == 302, approved.text[:300]
    return parse_qs(urlsplit(approved.headers["location"]).query)["code"][0], verifier


def exchange_http(http, client: dict, code: str, verifier: str, redirect_uri: str):
    """The authorization_code grant over HTTP: the /oauth/token answer."""
    grant = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri, "code_verifier": verifier}
    return http.post("/oauth/token", auth=(client["client_id"], client["api_key"]), data=grant)


def connect_http(http, client: dict, user: dict, scope: str, redirect_uri: str) -> dict[str, str]:
    """The whole connect flow over HTTP (consent page, approve, code exchange); the bearer header."""
    from partnerctl import admin

    cookie = admin.create_session(user["user_id"])["cookie"]
    code, verifier = authorize_code_http(http, client, cookie, scope, redirect_uri)
    token = exchange_http(http, client, code, verifier, redirect_uri)
    assert token.status_code == 200, token.text
    return {"Authorization": f"Bearer {token.json()['access_token']}"}


def moto_client(service: str, moto):
    """A boto3 client of `service` on the moto server `moto` (devstack.aws.start_moto), signed by the
    devstack's key."""
    import boto3

    from devstack.aws import TEST_CREDENTIALS

    return boto3.client(
        service,
        endpoint_url=moto.url,
        region_name="us-east-1",
        aws_access_key_id=TEST_CREDENTIALS["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=TEST_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
    )


@contextlib.contextmanager
def moto_s3(*buckets: str):
    """A moto server of its own and an S3 client on it with `buckets` created: (moto, s3); stopped after."""

    from devstack.aws import start_moto

    moto = start_moto(port=0)
    try:
        s3 = moto_client("s3", moto)
        for bucket in buckets:
            s3.create_bucket(Bucket=bucket)
        yield moto, s3
    finally:
        moto.stop()


@contextlib.contextmanager
def fail_one_write(table: str, operation: str = "PutItem"):
    """The devstack's DynamoDB `error` fault (`partnerctl dev fault dynamodb error`), once, on the
    next `operation` on `table` made by this process. A process-wide one-shot fault could be taken
    by another thread's write of the same operation (a devstack's webhook deliverer in the same
    test worker); this one raises only from the matching call's own before-call hook."""
    from devstack import faults
    from partner.store import aws

    fired: list[str] = []

    def mark(params=None, model=None, context=None, **_):
        if model.name == operation and params.get("TableName") == table and not fired:
            fired.append(model.name)
            context["fail_one_write"] = True

    def fail(model=None, context=None, **_):
        if context.get("fail_one_write"):
            raise faults.error_for("dynamodb", "error", model.name)

    aws.add_hook("before-parameter-build.dynamodb", mark)
    aws.add_hook("before-call.dynamodb", fail)
    try:
        yield fired
    finally:
        aws.remove_hook("before-parameter-build.dynamodb", mark)
        aws.remove_hook("before-call.dynamodb", fail)


_loopbacks = itertools.count(1)


def gateway_client(base_url: str, **kwargs: Any):
    """An HTTP client to the devstack gateway from its own loopback address (127.1.x.y): the
    gateway puts the peer address in `sourceIp`, so each client has its own per-IP OAuth
    buckets (30/min) instead of every test of a worker sharing 127.0.0.1's."""
    import httpx

    n = next(_loopbacks)
    transport = httpx.HTTPTransport(local_address=f"127.1.{(n >> 8) & 255}.{n & 255 or 1}")
    return httpx.Client(base_url=base_url, transport=transport, **kwargs)


def deliver_until(poller, done, timeout: float = 30) -> None:
    """Poll the webhook queue until `done()`."""
    import time

    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, "webhook deliveries did not arrive in time"
        poller.poll_once(wait_seconds=1)


def answer(handler, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
    """Write a whole HTTP answer from a BaseHTTPRequestHandler: status, `headers`, Content-Length, body."""
    handler.send_response(status)
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


class Served:
    """A socketserver on 127.0.0.1 serving on a daemon thread until `stop()`."""

    server: socketserver.TCPServer
    port: int

    def serve(self, server: socketserver.TCPServer) -> None:
        self.server = server
        self.port = server.server_address[1]
        threading.Thread(target=server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Listener(Served):
    """A TCP listener on 127.0.0.1 that counts the connections it accepts (it must get none)."""

    def __init__(self) -> None:
        self.accepted = 0
        outer = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                outer.accepted += 1

        self.serve(socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler))


def read_to_close(sock: socket.socket, server: str) -> bytes:
    """Read until `server` closes (or resets) the connection; fail when it does neither within the socket's timeout."""
    out = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            pytest.fail(f"{server} neither answered nor closed within {sock.gettimeout()} s; got {out[:200]!r}")
        except ConnectionResetError:
            return out
        if not chunk:
            return out
        out += chunk
