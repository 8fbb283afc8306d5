"""The devstack pin server's gateway serves pinned files as images, never as pages (issue 23 item 12),
and reads requests as strictly as the API gateway does (item 8)."""

from __future__ import annotations

import json
import socket

import httpx
import pytest

from devstack.pinserver import start_pin_server
from testkit.helpers import moto_s3, read_to_close

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde"
# a PNG whose bytes also hold a page: what a browser would run if it ever rendered it as HTML
POLYGLOT = PNG + b"<html><script>document.title='ran'</script></html>"
WAIT = 15


@pytest.fixture(scope="module")
def pins():
    with moto_s3("pins") as (_, s3):
        server = start_pin_server("pins", port=0, s3=s3)
        yield server
        server.stop()


def add(pins, data: bytes, content_type: str, name: str = "file") -> str:
    added = httpx.post(
        f"{pins.url}/api/v0/add", params={"cid-version": "1"}, files={"file": (name, data, content_type)}, timeout=WAIT
    )
    assert added.status_code == 200, added.text
    return json.loads(added.text.splitlines()[0])["Hash"]


def assert_not_sniffable(response: httpx.Response) -> None:
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["content-security-policy"] == "default-src 'none'; sandbox"


def test_a_png_html_polyglot_is_served_as_a_png_that_is_never_sniffed(pins):
    served = httpx.get(f"{pins.url}/ipfs/{add(pins, POLYGLOT, 'image/png', 'logo.png')}", timeout=WAIT)
    assert served.status_code == 200 and served.content == POLYGLOT
    assert served.headers["content-type"] == "image/png"
    assert_not_sniffable(served)


@pytest.mark.parametrize(
    "declared",
    ["text/html", "image/svg+xml", "application/xhtml+xml", "text/html; charset=utf-8", "application/javascript", ""],
)
def test_a_type_the_service_never_pins_is_served_as_octet_stream(pins, declared):
    page = b"<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>" + declared.encode()
    served = httpx.get(f"{pins.url}/ipfs/{add(pins, page, declared or 'application/octet-stream')}", timeout=WAIT)
    assert served.status_code == 200 and served.content == page
    assert served.headers["content-type"] == "application/octet-stream"
    assert_not_sniffable(served)


def test_the_types_the_service_pins_keep_their_type(pins):
    for content_type, data in [
        ("image/jpeg", b"\xff\xd8\xff\xe0jpeg"),
        ("image/gif", b"GIF89a..."),
        ("image/webp", b"RIFF\x00\x00\x00\x00WEBPVP8 "),
        ("application/json", b'{"name":"x"}'),
    ]:
        served = httpx.get(f"{pins.url}/ipfs/{add(pins, data, content_type)}", timeout=WAIT)
        assert served.headers["content-type"] == content_type and served.content == data
        assert_not_sniffable(served)


def test_errors_are_not_sniffable_either(pins):
    reflected = httpx.get(f"{pins.url}/ipfs/<script>alert(1)</script>", timeout=WAIT)
    assert reflected.status_code == 400 and reflected.headers["content-type"] == "text/plain"
    assert_not_sniffable(reflected)
    missing = httpx.get(f"{pins.url}/ipfs/bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy", timeout=WAIT)
    assert missing.status_code == 404
    assert_not_sniffable(missing)


def test_a_chunk_size_of_minus_one_is_refused_not_a_hang(pins):
    with socket.create_connection((pins.host, pins.port), timeout=WAIT) as sock:
        sock.sendall(
            b"POST /api/v0/add HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n-1\r\n--b"
        )
        out = read_to_close(sock, "the pin server")
    head, _, body = out.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 ")
    assert json.loads(body)["Type"] == "error"


def test_two_content_lengths_are_refused(pins):
    with socket.create_connection((pins.host, pins.port), timeout=WAIT) as sock:
        sock.sendall(b"POST /api/v0/version HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 5\r\n\r\nhello")
        assert sock.recv(65536).startswith(b"HTTP/1.1 400 ")
