"""`make run` is not the weak point (issue 23, devstack hygiene), over HTTP on the seeded devstack:
/dev/login is gone (item 9), the gateway refuses oversized and
malformed requests in the spec's Error shape (item 8), and .devstack files are the owner's only
(item 11)."""

from __future__ import annotations

import json
import socket
import stat

import httpx
import pytest

WAIT = 15


@pytest.fixture(scope="module")
def http(devstack):
    with httpx.Client(base_url=devstack.url, timeout=60, follow_redirects=False) as client:
        yield client


def user_id(devstack) -> str:
    return devstack.seeded["users"][0]["user_id"]


# --------------------------------------------------------------------------- 9: /dev/login


def test_dev_login_is_gone(http):
    """/dev/login (item 9: it split responses and redirected anywhere) is replaced by the sign-in
    through the stand-in OpenID provider, which returns only to the pages that need a session
    (tests/integration/test_signin.py::test_sign_in_returns_only_to_the_pages_that_need_it)."""
    response = http.get("/dev/login", params={"next": "/x\r\nSet-Cookie: evil=1"})
    assert response.status_code == 404 and response.json()["error"] == "not_found"
    assert "set-cookie" not in response.headers


# --------------------------------------------------------------------------- 7: path parameters


@pytest.mark.parametrize(
    "path,resource,params",
    [
        ("/partner/v1/governance/a%2Fb", "/partner/v1/governance/{mint}", {"mint": "a/b"}),
        ("/partner/v1/governance/a%252Fb", "/partner/v1/governance/{mint}", {"mint": "a%2Fb"}),
        ("/partner/v1/transactions/x%2Fy/status", "/partner/v1/transactions/{signature}/status", {"signature": "x/y"}),
    ],
)
def test_an_encoded_slash_reaches_the_function_as_api_gateway_hands_it(
    devstack, http, monkeypatch, path, resource, params
):
    """The event the function receives (the service's answer to it is its own check)."""
    gateway = devstack.gateway.gateway
    events = []
    build = gateway.build_event

    def recording(*args, **kwargs):
        events.append(build(*args, **kwargs))
        return events[-1]

    monkeypatch.setattr(gateway, "build_event", recording)
    response = http.get(path, headers={"Authorization": "Bearer app_at_x"})
    assert response.headers["content-type"].startswith("application/json")
    assert len(events) == 1, response.text  # routed to a function, not the gateway's not_found
    event = events[0]
    assert event["resource"] == resource and event["pathParameters"] == params and event["path"] == path


# --------------------------------------------------------------------------- 8: refusals in the Error shape


def raw(devstack, data: bytes) -> tuple[int, dict]:
    host, port = devstack.gateway.host, devstack.gateway.port
    with socket.create_connection((host, port), timeout=WAIT) as sock:
        sock.sendall(data)
        out = b""
        while chunk := sock.recv(65536):
            out += chunk
    head, _, body = out.partition(b"\r\n\r\n")
    assert b"content-type: application/json" in head.lower(), head
    return int(head.split(b" ", 2)[1]), json.loads(body)


def assert_error_shape(body: dict, code: str = "request_rejected") -> None:
    assert body["error"] == code and isinstance(body["message"], str) and body["retryable"] is False


def test_oversized_headers_are_431_in_the_error_shape(devstack):
    status, body = raw(devstack, b"GET /partner/v1/me HTTP/1.1\r\nHost: x\r\nCookie: " + b"a" * 11_000 + b"\r\n\r\n")
    assert status == 431
    assert_error_shape(body)


def test_ambiguous_framing_is_400_in_the_error_shape(devstack):
    for framing in (b"Content-Length: 2\r\nContent-Length: 2\r\n", b"Transfer-Encoding: chunked\r\n"):
        body = b"{}" if b"Length" in framing else b"-1\r\n{}"
        status, payload = raw(
            devstack,
            b"POST /partner/v1/trades/buy HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: application/json\r\n" + framing + b"\r\n" + body,
        )
        assert status == 400
        assert_error_shape(payload)


# --------------------------------------------------------------------------- 11: .devstack files


def test_the_seed_and_env_files_are_the_owners_only(devstack, tmp_path):
    from devstack.run import write_env_file, write_seed_file

    (tmp_path / "seed.json").write_text("{}")
    (tmp_path / "seed.json").chmod(0o644)  # as written before: readable by every local user
    seed = write_seed_file(devstack.seeded, tmp_path)
    env = write_env_file(devstack, tmp_path)
    for path in (seed, env):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert json.loads(seed.read_text())["client"]["api_key"] == devstack.seeded["client"]["api_key"]
