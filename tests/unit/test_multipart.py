"""partner.features.multipart: fields, files, limits and the codes for broken forms."""

from __future__ import annotations

import base64
import secrets

import pytest

from partner.core.errors import ApiError
from partner.features import multipart


def encode(
    fields: dict[str, str] | list[tuple[str, str]] = (),
    files: list[tuple[str, str, str, bytes]] = (),
    boundary: str | None = None,
) -> tuple[bytes, str]:
    """A multipart/form-data body: fields (name -> value) and files (name, filename, type, bytes)."""
    boundary = boundary or "----partner" + secrets.token_hex(8)
    out = bytearray()
    pairs = fields.items() if isinstance(fields, dict) else fields
    for name, value in pairs:
        out += f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode()
        out += value.encode("utf-8") + b"\r\n"
    for name, filename, ctype, data in files:
        out += (
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
            f"Content-Type: {ctype}\r\n\r\n"
        ).encode()
        out += data + b"\r\n"
    out += f"--{boundary}--\r\n".encode()
    return bytes(out), f"multipart/form-data; boundary={boundary}"


def code_of(call) -> str:
    with pytest.raises(ApiError) as info:
        call()
    return info.value.code


def test_fields_and_files_parse():
    body, ctype = encode({"name": "Héllo", "empty": ""}, [("image", "a.png", "image/png", b"\x89PNG\r\n--x\r\n\0")])
    form = multipart.parse(body, ctype)
    assert form.fields == {"name": "Héllo", "empty": ""}
    image = form.file("image")
    assert image is not None and image.data == b"\x89PNG\r\n--x\r\n\0" and image.filename == "a.png"
    assert image.content_type == "image/png" and image.size == 12
    assert form.names() == {"name", "empty", "image"}
    assert form.file("other") is None


def test_quoted_boundary_and_case():
    body, _ = encode({"a": "1"}, boundary="xyz")
    assert multipart.parse(body, 'Multipart/Form-Data; boundary="xyz"').fields == {"a": "1"}


def test_empty_file_part_is_ignored():
    body, ctype = encode({"a": "1"}, [("image", "", "application/octet-stream", b"")])
    assert multipart.parse(body, ctype).files == {}


@pytest.mark.parametrize("ctype", [None, "", "application/json", "multipart/form-data", "text/plain; boundary=x"])
def test_wrong_or_missing_content_type(ctype):
    body, _ = encode({"a": "1"})
    assert code_of(lambda: multipart.parse(body, ctype)) == "invalid_multipart"


@pytest.mark.parametrize(
    "body", [b"", b"garbage", b"--b\r\nno headers end", b'--b\r\nContent-Disposition: form-data; name="a"\r\n\r\nvalue']
)
def test_unparseable_or_truncated(body):
    assert code_of(lambda: multipart.parse(body, "multipart/form-data; boundary=b")) == "invalid_multipart"


def test_part_without_name():
    body = b"--b\r\nContent-Disposition: form-data\r\n\r\nx\r\n--b--\r\n"
    assert code_of(lambda: multipart.parse(body, "multipart/form-data; boundary=b")) == "invalid_multipart"


def test_repeated_field():
    body, ctype = encode([("a", "1"), ("a", "2")])
    assert code_of(lambda: multipart.parse(body, ctype)) == "invalid_multipart"


def test_field_and_file_with_one_name():
    body, ctype = encode({"image": "x"}, [("image", "a.png", "image/png", b"1")])
    assert code_of(lambda: multipart.parse(body, ctype)) == "invalid_multipart"


def test_non_utf8_text():
    body = b'--b\r\nContent-Disposition: form-data; name="a"\r\n\r\n\xff\xfe\r\n--b--\r\n'
    assert code_of(lambda: multipart.parse(body, "multipart/form-data; boundary=b")) == "invalid_multipart"


def test_field_count_limit():
    ok, ctype = encode({f"f{i}": "x" for i in range(16)})
    assert len(multipart.parse(ok, ctype).fields) == 16
    over, ctype = encode({f"f{i}": "x" for i in range(17)})
    assert code_of(lambda: multipart.parse(over, ctype)) == "invalid_multipart"


def test_file_count_limit():
    files = [(f"f{i}", f"{i}.bin", "application/octet-stream", b"x") for i in range(4)]
    body, ctype = encode({}, files)
    assert len(multipart.parse(body, ctype).files) == 4
    body, ctype = encode({}, files + [("f4", "4.bin", "application/octet-stream", b"x")])
    assert code_of(lambda: multipart.parse(body, ctype)) == "invalid_multipart"
    body, ctype = encode({}, files[:2])
    assert code_of(lambda: multipart.parse(body, ctype, max_files=1)) == "invalid_multipart"


def test_file_size_limit():
    exact, ctype = encode({}, [("image", "a.bin", "application/octet-stream", b"\1" * multipart.MAX_FILE_BYTES)])
    assert multipart.parse(exact, ctype).file("image").size == multipart.MAX_FILE_BYTES
    over, ctype = encode({}, [("image", "a.bin", "application/octet-stream", b"\1" * (multipart.MAX_FILE_BYTES + 1))])
    with pytest.raises(ApiError) as info:
        multipart.parse(over, ctype)
    assert info.value.code == "payload_too_large" and info.value.status == 413
    assert info.value.extra["maxFileBytes"] == multipart.MAX_FILE_BYTES


def test_text_field_size_limit():
    body, ctype = encode({"description": "x" * (multipart.MAX_FIELD_BYTES + 1)})
    assert code_of(lambda: multipart.parse(body, ctype)) == "invalid_multipart"


def test_body_bytes_of_events():
    assert multipart.body_bytes({"body": base64.b64encode(b"\0\1").decode(), "isBase64Encoded": True}) == b"\0\1"
    assert multipart.body_bytes({"body": "abc", "isBase64Encoded": False}) == b"abc"
    assert multipart.body_bytes({"body": None}) == b""
    assert code_of(lambda: multipart.body_bytes({"body": "!!!", "isBase64Encoded": True})) == "invalid_multipart"
