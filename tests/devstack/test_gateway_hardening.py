"""The devstack gateway as an attacker meets it (issue 23, items 6, 7, 8 and 11): read deadlines,
strict framing and a bounded head over real sockets, path parameters decoded once as API Gateway
REST decodes them, repeated headers and query keys passed as API Gateway passes them, and an
access log without query values. Deadlines are shortened for the tests (``Gateway.read_timeouts``);
every socket read is bounded, so a regression fails instead of hanging."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

import httpx
import pytest

from devstack.aws import aws_env, create_resources, start_moto
from devstack.gateway import Gateway, start_gateway
from devstack.httpserver import ReadTimeouts
from testkit.helpers import read_to_close

ROOT = Path(__file__).resolve().parents[2]
FIXTURE_TEMPLATE = Path(__file__).resolve().parent / "fixtures" / "template.yaml"
SHORT = ReadTimeouts(idle=0.5, header=0.5, header_max=1.0, body=0.5, min_rate=500)
WAIT = 15  # seconds any single socket read may take before the test fails (never reached when it passes)


@pytest.fixture(scope="module")
def gateway():
    moto = start_moto(port=0)
    stack = create_resources(FIXTURE_TEMPLATE, moto.url, prefix="gwhard", parameters={"Greeting": "howdy"})
    handle = start_gateway(FIXTURE_TEMPLATE, {**stack.environment(), **aws_env(moto.url)}, port=0, log=False)
    yield handle
    handle.stop()
    moto.stop()


@pytest.fixture()
def short_deadlines(gateway):
    gateway.gateway.read_timeouts = SHORT
    yield
    gateway.gateway.read_timeouts = ReadTimeouts()


def raw_exchange(gateway, data: bytes, *, then_wait: bool = True) -> bytes:
    """Send `data` on a fresh connection and read until the server closes it (or WAIT passes)."""
    with socket.create_connection((gateway.host, gateway.port), timeout=WAIT) as sock:
        sock.sendall(data)
        return read_to_close(sock, "the gateway")


def parse(response: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = response.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers, body


def refused(response: bytes, status: int) -> dict:
    """The gateway's own refusal: `status`, JSON as its other gateway responses (the fixture template
    customizes none: API Gateway's {"message": ...}), and the connection closed."""
    assert response, "the connection closed with no answer"
    got, headers, body = parse(response)
    assert got == status, response[:300]
    assert headers["content-type"] == "application/json" and headers["connection"] == "close"
    payload = json.loads(body)
    assert isinstance(payload["message"], str) and payload["message"]
    assert b"<html" not in body.lower() and b"<!doctype" not in body.lower()
    return payload


def echo_event(response: httpx.Response) -> dict:
    assert response.status_code == 200, response.text
    return response.json()["event"]


# --------------------------------------------------------------------------- 8: read deadlines


def test_a_partial_header_is_answered_408_at_the_header_deadline(gateway, short_deadlines):
    response = raw_exchange(gateway, b"GET /items/1 HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    assert refused(response, 408)["message"] == "The request was not received in time"


def trickled_exchange(gateway, head: bytes, byte: bytes) -> bytes:
    """Send `head`, then one `byte` every 50 ms (slowloris) until the server closes the connection."""
    stop = threading.Event()
    with socket.create_connection((gateway.host, gateway.port), timeout=WAIT) as sock:
        sock.sendall(head)

        def trickle() -> None:
            try:
                while not stop.wait(0.05):
                    sock.sendall(byte)
            except OSError:
                pass

        sender = threading.Thread(target=trickle, daemon=True)
        sender.start()
        try:
            return read_to_close(sock, "the gateway")
        finally:
            stop.set()
            sender.join(5)


def test_headers_trickled_in_do_not_extend_the_deadline_forever(gateway, short_deadlines):
    refused(trickled_exchange(gateway, b"GET /items/1 HTTP/1.1\r\nHost: x\r\n", b"a"), 408)


def test_a_body_sent_at_a_few_bytes_a_second_is_answered_408(gateway, short_deadlines):
    head = b"POST /items/1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
    refused(trickled_exchange(gateway, head, b" "), 408)


def test_an_idle_connection_is_closed_without_an_answer(gateway, short_deadlines):
    assert raw_exchange(gateway, b"") == b""


def test_a_request_within_the_deadlines_is_served_and_kept_alive(gateway, short_deadlines):
    with httpx.Client(base_url=gateway.url, timeout=WAIT) as client:
        assert echo_event(client.post("/items/1", json={"a": 1}))["body"] == '{"a":1}'
        assert echo_event(client.get("/items/2"))["pathParameters"] == {"id": "2"}


# --------------------------------------------------------------------------- 8: strict framing


CHUNKED = b"POST /items/1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"


def test_a_chunk_size_of_minus_one_is_refused_not_a_hang(gateway):
    refused(raw_exchange(gateway, CHUNKED + b"-1\r\n{}"), 400)


@pytest.mark.parametrize(
    "size_line", [b"+2", b"0x2", b" 2", b"2 ", b"2_0", b"\xd9\xa2", b"", b"g", b"10000000000000000", b"2\n"]
)  # 10000000000000000: 2**64, a size over 64 bits (leading zeros are the RFC's 1*HEXDIG, and served)
def test_chunk_sizes_are_hex_digits_only_and_bounded(gateway, size_line):
    line = size_line if size_line.endswith(b"\n") else size_line + b"\r\n"
    refused(raw_exchange(gateway, CHUNKED + line + b"{}\r\n0\r\n\r\n"), 400)


def test_a_well_formed_chunked_body_still_arrives(gateway):
    body = CHUNKED + b'2;ext=1\r\n{"\r\n6\r\na":12}\r\n0\r\n\r\n'
    with socket.create_connection((gateway.host, gateway.port), timeout=WAIT) as sock:
        sock.sendall(body.replace(b"Host: x\r\n", b"Host: x\r\nConnection: close\r\n"))
        status, _, payload = parse(read_to_close(sock, "the gateway"))
    assert status == 200 and json.loads(json.loads(payload)["event"]["body"]) == {"a": 12}


def test_a_chunk_not_followed_by_crlf_is_refused(gateway):
    refused(raw_exchange(gateway, CHUNKED + b"2\r\n{}XX0\r\n\r\n"), 400)


@pytest.mark.parametrize(
    "framing",
    [
        b"Content-Length: 2\r\nContent-Length: 2\r\n",  # two Content-Length headers, even equal
        b"Content-Length: 2\r\nContent-Length: 40\r\n",
        b"Content-Length: 2, 2\r\n",
        b"Content-Length: +2\r\n",
        b"Content-Length: -2\r\n",
        b"Content-Length: 0x2\r\n",
        b"Content-Length: 2\r\nTransfer-Encoding: chunked\r\n",  # both: request smuggling
        b"Transfer-Encoding: gzip, chunked\r\n",
        b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
    ],
)
def test_ambiguous_body_framing_is_refused(gateway, framing):
    head = b"POST /items/1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + framing + b"\r\n"
    refused(raw_exchange(gateway, head + b"{}\r\n0\r\n\r\n"), 400)


def test_a_body_shorter_than_its_content_length_is_refused(gateway):
    with socket.create_connection((gateway.host, gateway.port), timeout=WAIT) as sock:
        sock.sendall(
            b"POST /items/1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{}"
        )
        sock.shutdown(socket.SHUT_WR)
        refused(read_to_close(sock, "the gateway"), 400)


# --------------------------------------------------------------------------- 8: the head's size


def test_headers_over_api_gateways_10240_bytes_are_431_json(gateway):
    head = b"GET /items/1 HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 10_300 + b"\r\n\r\n"
    assert refused(raw_exchange(gateway, head), 431)["message"] == "Request header fields too large"
    many = b"GET /items/1 HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(150)) + b"\r\n"
    refused(raw_exchange(gateway, many), 431)  # the server's bound, 100 headers
    line = b"GET /items/1 HTTP/1.1\r\nHost: x\r\nX-Line: " + b"a" * 70_000 + b"\r\n\r\n"
    refused(raw_exchange(gateway, line), 431)  # the server's bound, a 65,536-byte head


def test_a_request_line_over_the_limit_is_414_json(gateway):
    refused(raw_exchange(gateway, b"GET /items/" + b"a" * 11_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n"), 414)


def test_headers_just_under_the_limit_are_served(gateway):
    with httpx.Client(base_url=gateway.url, timeout=WAIT) as client:
        event = echo_event(client.get("/items/1", headers={"X-Big": "a" * 9_000}))
    assert event["headers"]["X-Big"] == "a" * 9_000


def test_a_malformed_request_line_is_400_json_not_html(gateway):
    refused(raw_exchange(gateway, b"GET /items/1 HTTP/9.9\r\nHost: x\r\n\r\n"), 505)
    refused(raw_exchange(gateway, b"GET\r\n\r\n"), 400)
    refused(raw_exchange(gateway, b"GET /items/1\r\n\r\n"), 400)  # HTTP/0.9


def test_the_projects_template_renders_these_refusals_in_the_error_shape():
    """On template.yaml the refusals are its DEFAULT_4XX gateway response: the spec's Error shape."""
    from devstack.gateway import Request
    from devstack.gateway_responses import GatewayError

    gateway = Gateway(ROOT / "template.yaml")
    request = Request(method="GET", path="/partner/v1/me", query_string="", headers=[], body=b"", source_ip="127.0.0.1")
    status, headers, body = gateway.gateway_error(
        GatewayError("DEFAULT_4XX", 431, "Request header fields too large", "BadRequestException"), request
    )
    assert status == 431 and ("Content-Type", "application/json") in headers
    assert json.loads(body) == {
        "error": "request_rejected",
        "message": "Request header fields too large",
        "retryable": False,
    }


# --------------------------------------------------------------------------- 7: path parameters


def test_an_encoded_slash_stays_in_its_segment_and_is_decoded_once(gateway):
    with httpx.Client(base_url=gateway.url, timeout=WAIT) as client:
        event = echo_event(client.get("/items/a%2Fb"))
        assert event["resource"] == "/items/{id}" and event["pathParameters"] == {"id": "a/b"}
        assert event["path"] == "/items/a%2Fb"  # REST APIs keep `path` as received
        twice = echo_event(client.get("/items/a%252Fb"))
        assert twice["pathParameters"] == {"id": "a%2Fb"}  # decoded once, not twice
        nested = echo_event(client.get("/things/x%2Fy/sub/z%3F"))
        assert nested["resource"] == "/things/{a}/sub/{b}" and nested["pathParameters"] == {"a": "x/y", "b": "z?"}
        # an encoded slash is no separator: this is not /items/{id}/extra
        assert echo_event(client.get("/items/1%2Fextra"))["pathParameters"] == {"id": "1/extra"}
        # and a real one still is: no such resource
        assert client.get("/items/1/extra").status_code == 403


@pytest.mark.parametrize(
    "path,resource,params",
    [
        ("/partner/v1/governance/a%2Fb", "/partner/v1/governance/{mint}", {"mint": "a/b"}),
        ("/partner/v1/governance/a%252Fb", "/partner/v1/governance/{mint}", {"mint": "a%2Fb"}),
        ("/partner/v1/transactions/x%2Fy/status", "/partner/v1/transactions/{signature}/status", {"signature": "x/y"}),
        (
            "/partner/v1/transactions/x%252Fy/status",
            "/partner/v1/transactions/{signature}/status",
            {"signature": "x%2Fy"},
        ),
    ],
)
def test_the_projects_routes_get_the_parameter_api_gateway_hands_them(path, resource, params):
    from devstack.gateway import Request

    gateway = Gateway(ROOT / "template.yaml")
    route, got, _ = gateway.match("GET", path)
    assert route is not None and route.path == resource and got == params
    request = Request(
        method="GET",
        path=path,
        query_string="",
        headers=[("Host", "x")],
        body=b"",
        source_ip="127.0.0.1",
        raw_path=path,
    )
    event = gateway.build_event(route, got, request)
    assert event["pathParameters"] == params and event["path"] == path and event["resource"] == resource


# --------------------------------------------------------------------------- 6: repeated headers and keys


def test_repeated_headers_and_query_keys_reach_the_function_as_api_gateway_passes_them(gateway):
    request = (
        b"POST /items/1?limit=1&limit=2&x=%2F&flag HTTP/1.1\r\nHost: x\r\n"
        b"Authorization: Bearer app_at_first\r\nAuthorization: Bearer app_at_second\r\n"
        b"Content-Type: text/plain\r\nContent-Type: application/json\r\n"
        b"Content-Length: 2\r\nConnection: close\r\n\r\n{}"
    )
    status, _, body = parse(raw_exchange(gateway, request))
    assert status == 200
    event = json.loads(body)["event"]
    # headers: the last value of a repeated header; multiValueHeaders: every value, in order
    assert event["headers"]["Authorization"] == "Bearer app_at_second"
    assert event["multiValueHeaders"]["Authorization"] == ["Bearer app_at_first", "Bearer app_at_second"]
    assert event["headers"]["Content-Type"] == "application/json"
    assert event["multiValueHeaders"]["Content-Type"] == ["text/plain", "application/json"]
    # the same for the query string, values decoded
    assert event["queryStringParameters"] == {"limit": "2", "x": "/", "flag": ""}
    assert event["multiValueQueryStringParameters"] == {"limit": ["1", "2"], "x": ["/"], "flag": [""]}


# --------------------------------------------------------------------------- 11: the access log


def test_the_access_log_has_no_query_values(gateway, capsys):
    gateway.gateway.log_requests = True
    try:
        with httpx.Client(base_url=gateway.url, timeout=WAIT) as client:
            client.get("/items/1?access_token=app_at_s3cr3t&code=app_ac_s3cr3t&plain")
        # a refused request too: its log line names no target
        refused(raw_exchange(gateway, b"GET /items/1?access_token=app_at_s3cr3t HTTP/9.9\r\n\r\n"), 505)
    finally:
        gateway.gateway.log_requests = False
    err = capsys.readouterr().err
    assert "/items/1?access_token=REDACTED&code=REDACTED&plain=REDACTED -> 200" in err
    assert "refused -> 505" in err
    assert "s3cr3t" not in err
