"""Abuse over HTTP through the gateway: oversize input, malformed headers and bodies, token confusion.

Every answer is a 4xx with the Error shape (`error` a string, `message` a string when
present), never a 5xx. Requests come from this module's own loopback address, so the
per-IP OAuth buckets of other e2e modules sharing the devstack are left alone (each test
draws from a fresh 127.x.y.z address).
"""

from __future__ import annotations

import base64
import json
import random
import socket
from urllib.parse import urlencode, urlsplit

import httpx
import pytest

from testkit.helpers import Tokens, authorize_code_http, exchange_http

REDIRECT = "http://127.0.0.1:9/cb"
ALL_SCOPES = "profile:read trade:execute governance:vote governance:propose coin:create"
MINT = "So11111111111111111111111111111111111111112"
WRITE = {"priorityFeeLamports": "1000", "tipLamports": "1000000"}
PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
    b"\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82"
)


def loopback() -> str:
    return f"127.{random.randint(64, 250)}.{random.randint(1, 250)}.{random.randint(2, 250)}"


def assert_error(response: httpx.Response, status: int, code: str | None = None) -> dict:
    assert response.status_code == status, (response.status_code, response.text[:500])
    body = response.json()
    assert isinstance(body, dict) and isinstance(body.get("error"), str), body
    assert "message" not in body or isinstance(body["message"], str), body
    if code is not None:
        assert body["error"] == code, body
    return body


class Party(Tokens):
    """A client and a user connected over HTTP with every scope."""

    def __init__(self, http: httpx.Client, *, user_id: str, client: dict, tokens: dict, session_cookie: str):
        self.http = http
        self.user_id = user_id
        self.client = client
        self.tokens = tokens
        self.session_cookie = session_cookie

    @property
    def basic(self) -> tuple[str, str]:
        return self.client["client_id"], self.client["api_key"]


def authorize_code(http: httpx.Client, client: dict, cookie: str, scope: str = ALL_SCOPES) -> tuple[str, str]:
    return authorize_code_http(http, client, cookie, scope, REDIRECT)


def exchange(http: httpx.Client, client: dict, code: str, verifier: str) -> httpx.Response:
    return exchange_http(http, client, code, verifier, REDIRECT)


def connect(http: httpx.Client, *, name: str = "Abuse App") -> Party:
    from partnerctl import admin

    client = admin.create_client(admin.NewClient(name=name, redirect_uri=REDIRECT, tier="Partner"))
    user = admin.create_user()
    cookie = admin.create_session(user["user_id"])["cookie"]
    code, verifier = authorize_code(http, client, cookie)
    token = exchange(http, client, code, verifier)
    assert token.status_code == 200, token.text
    return Party(http, user_id=user["user_id"], client=client, tokens=token.json(), session_cookie=cookie)


def http_client(devstack) -> httpx.Client:
    """A client on a fresh loopback address: its own per-IP OAuth buckets."""
    transport = httpx.HTTPTransport(local_address=loopback())
    return httpx.Client(base_url=devstack.url, timeout=60, follow_redirects=False, transport=transport)


@pytest.fixture
def http(devstack):
    with http_client(devstack) as client:
        yield client


@pytest.fixture(scope="module")
def party(devstack) -> Party:
    with http_client(devstack) as client:
        return connect(client)


# ---------------------------------------------------------------- oversize input


def test_json_body_over_64_kib_is_invalid_input(http, party):
    body = json.dumps({**WRITE, "mint": MINT, "maxSolIn": "1", "slippageBps": 100, "pad": "x" * (64 * 1024)})
    response = http.post(
        "/partner/v1/trades/buy", content=body, headers={**party.bearer(), "Content-Type": "application/json"}
    )
    assert_error(response, 400, "invalid_input")
    # the bucket was drawn on (admission comes first), the headers say so
    assert response.headers["x-ratelimit-limit"] == "60"


def test_json_body_exactly_at_the_limit_is_read(http, party):
    # 64 KiB of valid JSON object passes the size check and fails only on the unknown field
    base = {**WRITE, "mint": MINT, "maxSolIn": "1", "pad": ""}
    base["pad"] = "x" * (64 * 1024 - len(json.dumps(base)))
    body = json.dumps(base)
    assert len(body.encode()) == 64 * 1024
    response = http.post(
        "/partner/v1/trades/buy", content=body, headers={**party.bearer(), "Content-Type": "application/json"}
    )
    body = assert_error(response, 400, "invalid_input")
    assert "unknown field" in body["message"] and "64 KiB" not in body["message"]


def test_oauth_form_over_64_kib_is_invalid_request(http, party):
    response = http.post(
        "/oauth/token", auth=party.basic, data={"grant_type": "refresh_token", "refresh_token": "x" * (65 * 1024)}
    )
    assert_error(response, 400, "invalid_request")
    assert response.headers["cache-control"] == "no-store"


def _multipart(fields: dict[str, str], files: list[tuple[str, str, bytes]]) -> tuple[bytes, str]:
    boundary = "abuse-boundary-7f3a"
    parts = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    for name, filename, data in files:
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
            f"Content-Type: image/png\r\n\r\n".encode()
            + data
            + b"\r\n"
        )
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def _coin_form(**extra: str) -> dict[str, str]:
    return {"name": "Abuse Coin", "symbol": "ABUSE", "priorityFeeLamports": "1000", **extra}


def post_multipart(http, party, path, fields, files):
    body, ctype = _multipart(fields, files)
    return http.post(path, content=body, headers={**party.bearer(), "Content-Type": ctype})


@pytest.mark.parametrize("path", ["/partner/v1/coins/create", "/partner/v1/governance/proposals/update-content"])
def test_file_over_5_mib_is_payload_too_large(http, party, path):
    # base64 in the event, it is over Lambda's 6,291,456 bytes: the gateway's REQUEST_TOO_LARGE
    # answers (the function's own 413 with maxFileBytes is for a direct invoke only)
    big = PNG + b"\x00" * (5 * 1024 * 1024 + 1 - len(PNG))
    fields = _coin_form() if path.endswith("create") else {**WRITE, "mint": MINT, "name": "X"}
    response = post_multipart(http, party, path, fields, [("image", "big.png", big)])
    body = assert_error(response, 413, "payload_too_large")
    assert "/partner/v1/uploads" in body["message"]


def test_more_than_4_files_is_invalid_multipart(http, party):
    files = [(f"image{i}" if i else "image", f"{i}.png", PNG) for i in range(5)]
    response = post_multipart(http, party, "/partner/v1/coins/create", _coin_form(), files)
    body = assert_error(response, 400, "invalid_multipart")
    assert "4" in body["message"]


def test_update_content_takes_at_most_one_file(http, party):
    response = post_multipart(
        http,
        party,
        "/partner/v1/governance/proposals/update-content",
        {**WRITE, "mint": MINT},
        [("image", "a.png", PNG), ("other", "b.png", PNG)],
    )
    assert_error(response, 400, "invalid_multipart")


def test_more_than_16_fields_is_invalid_multipart(http, party):
    fields = _coin_form(**{f"extra{i}": "v" for i in range(14)})
    assert len(fields) == 17
    response = post_multipart(http, party, "/partner/v1/coins/create", fields, [("image", "a.png", PNG)])
    body = assert_error(response, 400, "invalid_multipart")
    assert "16" in body["message"]


def test_repeated_form_field_is_invalid_multipart(http, party):
    body, ctype = _multipart(_coin_form(), [("image", "a.png", PNG)])
    body = body.replace(
        b"--abuse-boundary-7f3a--",
        b'--abuse-boundary-7f3a\r\nContent-Disposition: form-data; name="name"\r\n\r\nAgain\r\n--abuse-boundary-7f3a--',
    )
    response = http.post("/partner/v1/coins/create", content=body, headers={**party.bearer(), "Content-Type": ctype})
    assert_error(response, 400, "invalid_multipart")


def _raw_request(devstack, head: str, body: bytes = b"") -> tuple[int, bytes]:
    host, port = urlsplit(devstack.url).hostname, urlsplit(devstack.url).port
    with socket.create_connection((host, port), timeout=30, source_address=(loopback(), 0)) as sock:
        sock.sendall(head.encode("latin-1") + body)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
        head_part, _, rest = data.partition(b"\r\n\r\n")
        status = int(head_part.split(b" ", 2)[1])
        length = next(
            (
                int(line.split(b":", 1)[1])
                for line in head_part.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            ),
            0,
        )
        while len(rest) < length:
            chunk = sock.recv(65536)
            if not chunk:
                break
            rest += chunk
        return status, rest


def test_body_over_the_gateways_10_mb_is_413(devstack, party):
    size = 10 * 1024 * 1024 + 1
    status, body = _raw_request(
        devstack,
        f"POST /partner/v1/coins/create HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {party.access}\r\n"
        f"Content-Type: multipart/form-data; boundary=b\r\nContent-Length: {size}\r\n\r\n",
    )
    assert status == 413
    assert json.loads(body)["error"] == "payload_too_large" and "/partner/v1/uploads" in json.loads(body)["message"]


def test_a_full_10_mb_body_under_the_gateways_quota_is_over_lambdas(http, party):
    # just under API Gateway's quota, but over Lambda's 6,291,456-byte event: a 413, not a 5xx
    big = b"\x00" * (10 * 1024 * 1024 - 4096)
    response = post_multipart(http, party, "/partner/v1/coins/create", _coin_form(), [("image", "a.png", big)])
    assert_error(response, 413, "payload_too_large")


# ---------------------------------------------------------------- malformed headers


@pytest.mark.parametrize(
    "value",
    [
        "NO_SCHEME",
        "Basic junk",
        "Basic !!!",
        "Bearer",
        "bearer\tNO_SCHEME",
        "Bearer app_at_\u00e9\u00e9",
        "Bearer app_at_" + "A" * 8000,
        "Bearer " + "\u00ff" * 100,
        "Digest username=x",
    ],
)
def test_malformed_authorization_on_partner_routes_is_invalid_token(http, party, value):
    value = value.replace("NO_SCHEME", party.access)
    raw = value.encode("latin-1")  # non-ASCII goes on the wire as raw bytes
    response = http.get("/partner/v1/me", headers={"Authorization": raw})
    assert_error(response, 401, "invalid_token")
    assert response.headers["www-authenticate"] == 'Bearer error="invalid_token"'


def test_utf8_bytes_in_authorization_are_invalid_token(http, party):
    response = http.get("/partner/v1/me", headers={"Authorization": "Bearer app_at_ünïcødé".encode()})
    assert_error(response, 401, "invalid_token")


@pytest.mark.parametrize(
    "value",
    [
        "Basic junk",
        "Basic",
        "Basic " + base64.b64encode(b"no-colon").decode(),
        "Basic " + base64.b64encode(b"\xff\xfe:\xff").decode(),
        "Basic " + base64.b64encode("é:é".encode()).decode(),
        "Bearer something",
        "Basic " + "A" * 8000,
    ],
)
def test_malformed_client_authentication_is_invalid_client(http, value):
    response = http.post(
        "/oauth/token",
        data={"grant_type": "refresh_token", "refresh_token": "x"},
        headers={"Authorization": value.encode("latin-1")},
    )
    assert_error(response, 401, "invalid_client")
    assert response.headers["www-authenticate"] == "Basic realm=app-oauth"


def test_huge_header_never_reaches_a_handler_or_a_5xx(devstack, party):
    status, _ = _raw_request(
        devstack, f"GET /partner/v1/me HTTP/1.1\r\nHost: x\r\nX-Junk: {'a' * 70000}\r\nConnection: close\r\n\r\n"
    )
    assert 400 <= status < 500


def test_many_headers_are_not_a_5xx(http, party):
    headers = [(f"X-H{i}", "v") for i in range(60)] + [("Authorization", f"Bearer {party.access}")]
    response = http.get("/partner/v1/me", headers=headers)
    assert response.status_code == 200


# ---------------------------------------------------------------- wrong bodies and content types


@pytest.mark.parametrize(
    "ctype,body",
    [
        ("text/plain", json.dumps({**WRITE, "mint": MINT, "maxSolIn": "1"})),
        ("application/x-www-form-urlencoded", urlencode({**WRITE, "mint": MINT, "maxSolIn": "1"})),
        ("multipart/form-data; boundary=x", "--x--\r\n"),
        (None, json.dumps({**WRITE, "mint": MINT, "maxSolIn": "1"})),
        ("application/json", '{"mint": '),
        ("application/json", ""),
        ("application/json", "[]"),
        ("application/json", json.dumps([{**WRITE, "mint": MINT, "maxSolIn": "1"}])),
        ("application/json", '"a string"'),
        ("application/json", "null"),
        ("application/json", "12"),
        ("application/json", '{"mint": NaN}'),
        ("application/json", "\udcff".encode("utf-8", "surrogatepass")),
        ("application/json", b"\xff\xfe{}"),
        ("application/json", json.dumps({**WRITE, "mint": MINT, "maxSolIn": 1})),
        ("application/json", json.dumps({**WRITE, "mint": MINT, "maxSolIn": "1.5"})),
        ("application/json", json.dumps({**WRITE, "mint": MINT, "maxSolIn": "1e3"})),
        ("application/json", json.dumps({**WRITE, "mint": MINT, "maxSolIn": "99999999999999999999999"})),
        ("application/json", json.dumps({**WRITE, "mint": "not-base58-0OIl", "maxSolIn": "1"})),
        ("application/json", json.dumps({**WRITE, "mint": {"$ne": 1}, "maxSolIn": "1"})),
        ("application/json", "{" + ",".join(f'"k{i}":' for i in range(1)) + "[" * 5000 + "]" * 5000 + "}"),
    ],
)
def test_bad_json_bodies_on_a_write_are_invalid_input(http, party, ctype, body):
    headers = party.bearer() | ({"Content-Type": ctype} if ctype else {})
    response = http.post("/partner/v1/trades/buy", content=body, headers=headers)
    assert_error(response, 400, "invalid_input")


def test_buy_exact_out_in_explicit_mode_without_max_sol_in_is_invalid_input(http, party):
    # found by schemathesis: this was a TypeError answered as 500 internal
    response = http.post(
        "/partner/v1/trades/buy-exact-out", json={**WRITE, "mint": MINT, "tokensOut": "10"}, headers=party.bearer()
    )
    body = assert_error(response, 400, "invalid_input")
    assert body["field"] == "maxSolIn"


@pytest.mark.parametrize(
    "path",
    [
        "/partner/v1/trades/sell",
        "/partner/v1/trades/buy-exact-out",
        "/partner/v1/governance/votes",
        "/partner/v1/governance/votes/cancel",
        "/partner/v1/governance/votes/withdraw",
        "/partner/v1/governance/proposals/settle",
        "/partner/v1/governance/proposals/extend-mutability",
        "/partner/v1/governance/proposals/finalize-metadata",
        "/partner/v1/governance/metadata/finalize-expired",
        "/partner/v1/governance/bonds/withdraw",
    ],
)
def test_json_array_and_invalid_json_on_every_json_write(http, party, path):
    for body in ("[]", "{", "[1, 2]"):
        response = http.post(path, content=body, headers={**party.bearer(), "Content-Type": "application/json"})
        assert_error(response, 400, "invalid_input")


@pytest.mark.parametrize("path", ["/partner/v1/coins/create", "/partner/v1/governance/proposals/update-content"])
@pytest.mark.parametrize(
    "ctype,body",
    [
        ("application/json", b"{}"),
        (None, b"x"),
        ("multipart/form-data", b"--x--\r\n"),  # no boundary
        ("multipart/form-data; boundary=x", b"garbage without boundaries"),
        ("multipart/form-data; boundary=x", b"--x\r\nContent-Disposition: form-data\r\n\r\nv\r\n--x--\r\n"),  # no name
    ],
)
def test_bad_multipart_bodies_are_invalid_multipart(http, party, path, ctype, body):
    headers = party.bearer() | ({"Content-Type": ctype} if ctype else {})
    response = http.post(path, content=body, headers=headers)
    assert_error(response, 400, "invalid_multipart")


@pytest.mark.parametrize(
    "ctype,body",
    [
        ("text/plain", "grant_type=refresh_token&refresh_token=x"),
        (None, "grant_type=refresh_token&refresh_token=x"),
        ("application/json", '{"grant_type": '),
        ("application/json", "[]"),
        ("application/json", '[{"grant_type": "refresh_token"}]'),
        ("application/json", '{"grant_type": ["refresh_token"]}'),
        ("application/json", '{"grant_type": null}'),
        ("application/x-www-form-urlencoded", "grant_type=refresh_token&grant_type=authorization_code"),
        ("application/x-www-form-urlencoded", "grant_type=refresh_token&refresh_token=a&refresh_token=b"),
        ("application/x-www-form-urlencoded", "grant_type=refresh_token&client_id=a&client_id=b"),
    ],
)
def test_bad_bodies_on_oauth_token_are_invalid_request(http, party, ctype, body):
    headers = {"Authorization": "Basic " + base64.b64encode(":".join(party.basic).encode()).decode()}
    if ctype:
        headers["Content-Type"] = ctype
    response = http.post("/oauth/token", content=body, headers=headers)
    body_json = assert_error(response, 400, "invalid_request")
    assert isinstance(body_json["error_description"], str)
    assert response.headers["cache-control"] == "no-store" and response.headers["pragma"] == "no-cache"


def test_duplicate_parameters_on_oauth_revoke_are_invalid_request(http, party):
    response = http.post(
        "/oauth/revoke",
        auth=party.basic,
        content="token=a&token=b",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert_error(response, 400, "invalid_request")


def test_duplicate_grant_type_does_not_smuggle_a_second_grant(http, party):
    # a repeated grant_type with a valid refresh token: refused, and the token is not consumed
    other = connect(http, name="Dup App")
    response = http.post(
        "/oauth/token",
        auth=other.basic,
        content=urlencode(
            [("grant_type", "refresh_token"), ("grant_type", "authorization_code"), ("refresh_token", other.refresh)]
        ),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert_error(response, 400, "invalid_request")
    fine = http.post(
        "/oauth/token", auth=other.basic, data={"grant_type": "refresh_token", "refresh_token": other.refresh}
    )
    assert fine.status_code == 200, fine.text


# ---------------------------------------------------------------- token confusion


def test_every_other_secret_used_as_a_bearer_is_invalid_token(http, party):
    from partnerctl import admin

    code, _ = authorize_code(http, party.client, party.session_cookie)
    session_value = admin.create_session(party.user_id)["cookie"].split("=", 1)[1]
    for name, value in {
        "refresh token": party.refresh,
        "API key": party.client["api_key"],
        "authorization code": code,
        "session": session_value,
        "refresh token with the access prefix": "app_at_" + party.refresh[len("app_rt_") :],
        "client id": party.client["client_id"],
    }.items():
        response = http.get("/partner/v1/me", headers=party.bearer(value))
        assert_error(response, 401, "invalid_token"), name
        # a token-shaped secret on a write is refused the same way, before the body is read
        write = http.post(
            "/partner/v1/trades/buy", content="[]", headers={**party.bearer(value), "Content-Type": "application/json"}
        )
        assert_error(write, 401, "invalid_token")
    assert http.get("/partner/v1/me", headers=party.bearer()).status_code == 200


def test_access_token_used_as_a_refresh_token_is_invalid_grant(http, party):
    response = http.post(
        "/oauth/token", auth=party.basic, data={"grant_type": "refresh_token", "refresh_token": party.access}
    )
    assert_error(response, 400, "invalid_grant")
    # and the access prefix swapped to look like a refresh token
    response = http.post(
        "/oauth/token",
        auth=party.basic,
        data={"grant_type": "refresh_token", "refresh_token": "app_rt_" + party.access[len("app_at_") :]},
    )
    assert_error(response, 400, "invalid_grant")
    # and an access token as an authorization code
    response = http.post(
        "/oauth/token",
        auth=party.basic,
        data={
            "grant_type": "authorization_code",
            "code": party.access,
            "redirect_uri": REDIRECT,
            "code_verifier": "a" * 43,
        },
    )
    assert_error(response, 400, "invalid_grant")
    assert http.get("/partner/v1/me", headers=party.bearer()).status_code == 200


def test_revoking_another_clients_tokens_is_a_silent_no_op(http, party):
    victim = connect(http, name="Victim App")
    for token, hint in ((victim.access, "access_token"), (victim.refresh, "refresh_token")):
        response = http.post("/oauth/revoke", auth=party.basic, data={"token": token, "token_type_hint": hint})
        assert response.status_code == 200 and response.json() == {}
    still = http.get("/partner/v1/me", headers=victim.bearer())
    assert still.status_code == 200 and still.json()["client"] == victim.client["client_id"]
    refreshed = http.post(
        "/oauth/token", auth=victim.basic, data={"grant_type": "refresh_token", "refresh_token": victim.refresh}
    )
    assert refreshed.status_code == 200, refreshed.text


def test_another_clients_refresh_token_and_code_are_invalid_grant_and_not_burned(http, party):
    from partnerctl import admin

    victim = connect(http, name="Victim Two")
    stolen = http.post(
        "/oauth/token", auth=party.basic, data={"grant_type": "refresh_token", "refresh_token": victim.refresh}
    )
    assert_error(stolen, 400, "invalid_grant")
    # with body credentials too
    stolen = http.post(
        "/oauth/token",
        data={
            "grant_type": "refresh_token",
            "refresh_token": victim.refresh,
            "client_id": party.client["client_id"],
            "client_secret": party.client["api_key"],
        },
    )
    assert_error(stolen, 400, "invalid_grant")
    # the owner's refresh token was not consumed (a replay would have revoked the grant)
    own = http.post(
        "/oauth/token", auth=victim.basic, data={"grant_type": "refresh_token", "refresh_token": victim.refresh}
    )
    assert own.status_code == 200, own.text

    # an authorization code issued to the victim, presented by this client with the right verifier
    cookie = admin.create_session(victim.user_id)["cookie"]
    code, verifier = authorize_code(http, victim.client, cookie)
    stolen = exchange(http, party.client, code, verifier)
    assert_error(stolen, 400, "invalid_grant")
    assert exchange(http, victim.client, code, verifier).status_code == 200


def test_the_api_key_of_one_client_does_not_authenticate_another(http, party):
    other = connect(http, name="Other Key App")
    response = http.post(
        "/oauth/token",
        auth=(other.client["client_id"], party.client["api_key"]),
        data={"grant_type": "refresh_token", "refresh_token": other.refresh},
    )
    assert_error(response, 401, "invalid_client")
