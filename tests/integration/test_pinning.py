"""partner.features.pinning against the devstack pin server (Kubo RPC) backed by moto S3."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import struct
import zlib

import httpx
import pytest

from partner.core import cid
from partner.core.errors import ApiError
from partner.core.settings import get_settings
from partner.features import pinning
from partner.store import aws


def _png(width: int = 2, height: int = 2, extra: bytes = b"") -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    text = chunk(b"tEXt", b"Comment\x00" + extra) if extra else b""
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + text + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


@pytest.fixture(autouse=True)
def _no_fault(pin_server):
    from devstack.pinserver import clear_fault

    clear_fault()
    yield
    clear_fault()


def _cat(server, cid_text: str) -> bytes:
    response = httpx.post(f"{server.url}/api/v0/cat", params={"arg": cid_text}, timeout=10)
    assert response.status_code == 200, response.text
    return response.content


def _staged(data: bytes) -> dict:
    return aws.s3().get_object(Bucket=get_settings().staging_bucket, Key=f"staging/{hashlib.sha256(data).hexdigest()}")


def test_pin_image_returns_ipfs_uri_and_content_is_retrievable(pin_server):
    image = _png(extra=os.urandom(16))
    pinned = pinning.pin_bytes(image, "logo.png", "image/png")

    assert pinned.cid == cid.cid_v0(image)
    assert pinned.cid.startswith("Qm")
    assert pinned.uri == f"ipfs://{pinned.cid}"
    assert pinned.size == len(image)
    assert _cat(pin_server, pinned.cid) == image
    staged = _staged(image)
    assert staged["Body"].read() == image
    assert staged["ContentType"] == "image/png"
    assert staged["Metadata"]["cid"] == pinned.cid
    # the node pinned it, and its gateway serves it with the uploaded type
    pins = httpx.post(f"{pin_server.url}/api/v0/pin/ls", params={"arg": pinned.cid}, timeout=10).json()
    assert pinned.cid in pins["Keys"]
    page = httpx.get(f"{pin_server.url}/ipfs/{pinned.cid}", timeout=10)
    assert page.status_code == 200 and page.content == image
    assert page.headers["content-type"] == "image/png"


def test_pin_json_metadata(pin_server):
    image = pinning.pin_bytes(_png(extra=b"meta"), "i.png", "image/png")
    metadata = {"name": "Café Coin", "symbol": "CAFE", "image": image.uri, "nonce": os.urandom(4).hex()}
    pinned = pinning.pin_json(metadata)

    body = _cat(pin_server, pinned.cid)
    assert json.loads(body) == metadata
    assert body == pinning.json_bytes(metadata)
    assert pinned.cid == cid.cid_v0(body)
    assert pinned.uri == f"ipfs://{pinned.cid}"
    assert _staged(body)["ContentType"] == "application/json"


def test_multi_chunk_image_cid_matches(pin_server):
    image = _png(extra=os.urandom(600 * 1024))  # > 256 KiB: leaves + a parent node
    assert len(image) > 2 * cid.CHUNK_SIZE
    pinned = pinning.pin_bytes(image, "big.png", "image/png")
    assert pinned.cid == cid.cid_v0(image)
    assert _cat(pin_server, pinned.cid) == image


def test_pin_server_answers_like_kubo_add(pin_server):
    files = [
        ("file", ("a.txt", b"hello world\n", "text/plain")),
        ("file", ("b.bin", bytes(262145), "application/octet-stream")),
    ]
    response = httpx.post(f"{pin_server.url}/api/v0/add", params={"pin": "true"}, files=files, timeout=10)
    assert response.status_code == 200
    lines = [json.loads(line) for line in response.text.splitlines()]
    assert lines == [
        {"Name": "a.txt", "Hash": "QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o", "Size": "20"},
        {
            "Name": "b.bin",
            "Hash": "QmbVuw4C4vcmVKqxoWtgDVobvcHrSn51qsmQmyxjk4sB2Q",
            "Size": str(cid.stat(bytes(262145))[1]),
        },
    ]
    v1 = httpx.post(
        f"{pin_server.url}/api/v0/add", params={"cid-version": "1"}, files={"file": ("h", b"Hello IPFS\n")}, timeout=10
    ).json()
    assert v1["Hash"] == "bafkreidfdrlkeq4m4xnxuyx6iae76fdm4wgl5d4xzsb77ixhyqwumhz244"
    assert httpx.post(f"{pin_server.url}/api/v0/version", timeout=10).json()["Version"]
    assert httpx.get(f"{pin_server.url}/api/v0/version", timeout=10).status_code == 405
    missing = httpx.post(
        f"{pin_server.url}/api/v0/cat", params={"arg": "QmS9JArPwa55ePgDnyg6TzX24mYTS1b1vLqWNebyVotKxQ"}, timeout=10
    )
    assert missing.status_code == 500 and missing.json()["Type"] == "error"


def _assert_unavailable(excinfo) -> None:
    err = excinfo.value
    assert err.code == "pinning_unavailable"
    assert err.status == 502
    assert err.retryable is True
    assert err.body()["retryable"] is True


def test_pin_server_down_is_pinning_unavailable_and_upload_stays_staged(pin_server):
    from devstack.pinserver import set_fault

    data = _png(extra=os.urandom(8))
    set_fault("down", count=1)
    with pytest.raises(ApiError) as excinfo:
        pinning.pin_bytes(data, "x.png", "image/png")
    _assert_unavailable(excinfo)
    assert _staged(data)["Body"].read() == data  # nothing lost
    # the fault was for one request only: a retry works
    assert pinning.pin_bytes(data, "x.png", "image/png").cid == cid.cid_v0(data)


def test_unreachable_node_is_pinning_unavailable(pin_server, monkeypatch):
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("PINNING_URL", f"http://127.0.0.1:{port}")
    get_settings.cache_clear()
    try:
        with pytest.raises(ApiError) as excinfo:
            pinning.pin_json({"a": 1})
        _assert_unavailable(excinfo)
    finally:
        monkeypatch.setenv("PINNING_URL", pin_server.url)
        get_settings.cache_clear()


def test_wrong_cid_from_node_is_pinning_unavailable(pin_server):
    from devstack.pinserver import set_fault

    set_fault("wrong_cid", count=1)
    with pytest.raises(ApiError) as excinfo:
        pinning.pin_json({"name": "x", "nonce": os.urandom(4).hex()})
    _assert_unavailable(excinfo)


def test_slow_node_times_out_as_pinning_unavailable(pin_server):
    from devstack.pinserver import set_fault

    set_fault("slow", count=1, delay=1.5)
    with pytest.raises(ApiError) as excinfo:
        pinning.pin_bytes(b"slow", "s.txt", "text/plain", timeout=0.3)
    _assert_unavailable(excinfo)


def test_fault_control_route(pin_server):
    answer = httpx.post(f"{pin_server.url}/_devstack/fault", json={"mode": "down", "count": 2}, timeout=10)
    assert answer.status_code == 200 and answer.json()["mode"] == "down"
    assert httpx.post(f"{pin_server.url}/api/v0/version", timeout=10).status_code == 503
    assert httpx.post(f"{pin_server.url}/api/v0/version", timeout=10).status_code == 503
    assert httpx.post(f"{pin_server.url}/api/v0/version", timeout=10).status_code == 200
    assert httpx.post(f"{pin_server.url}/_devstack/fault", json={"mode": "bogus"}, timeout=10).status_code == 400


def test_malformed_answers_are_pinning_unavailable(pin_server, monkeypatch):
    from partner.core import transport

    for status, text in (
        (200, "not json"),
        (200, '{"Name": "x"}'),
        (500, '{"Message": "boom", "Type": "error"}'),
        (200, '{"Message": "blockstore full", "Type": "error"}'),
    ):
        answer = transport.Answer(status, text.encode())
        monkeypatch.setattr(transport, "post", lambda *args, answer=answer, **kwargs: answer)
        with pytest.raises(ApiError) as excinfo:
            pinning.pin_bytes(b"data", "d.bin")
        _assert_unavailable(excinfo)


def test_hook_seam_faults_the_add_call(pin_server):
    from devstack import faults

    hook = functools.partial(faults.take, "pinning")
    pinning.add_hook(hook)
    try:
        faults.set_fault("pinning", "down", count=1)
        with pytest.raises(ApiError) as excinfo:
            pinning.pin_bytes(b"hooked", "h.txt", "text/plain")
        _assert_unavailable(excinfo)
        assert pinning.pin_bytes(b"hooked", "h.txt", "text/plain").cid == cid.cid_v0(b"hooked")
    finally:
        faults.clear("pinning")
        pinning.remove_hook(hook)
