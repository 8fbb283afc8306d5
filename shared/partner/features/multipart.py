"""multipart/form-data bodies for the two multipart endpoints (update-content, coins/create).

    form = parse(body_bytes, content_type, max_files=1)
    form.fields["name"]            # text parts, UTF-8, each name at most once
    form.file("image")             # UploadedFile(name, filename, content_type, data) or None

`body_bytes(event)` gives an API Gateway proxy event's raw body (base64 for binary media types).
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from python_multipart.multipart import MultipartParser, parse_options_header

if TYPE_CHECKING:
    from python_multipart.multipart import MultipartCallbacks

from partner.core.errors import ApiError

__all__ = [
    "UploadedFile",
    "Form",
    "parse",
    "body_bytes",
    "MAX_FILE_BYTES",
    "MAX_FILES",
    "MAX_FIELDS",
    "MAX_FIELD_BYTES",
    "MAX_BODY_BYTES",
]

MAX_FILE_BYTES = 5 * 1024 * 1024
MAX_FILES = 4
MAX_FIELDS = 16
MAX_FIELD_BYTES = 64 * 1024
MAX_BODY_BYTES = MAX_FILES * MAX_FILE_BYTES + 1024 * 1024  # files plus fields and part headers


def form_digest(fields: dict[str, str], files: dict[str, bytes]) -> str:
    """A multipart body: its text fields and the bytes of its files (not file names or declared types,
    which the service does not read)."""
    canonical = json.dumps(
        {"fields": fields, "files": {n: hashlib.sha256(d).hexdigest() for n, d in files.items()}},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass(frozen=True)
class UploadedFile:
    name: str
    filename: str
    content_type: str
    data: bytes = field(repr=False)

    @property
    def size(self) -> int:
        return len(self.data)


@dataclass(frozen=True)
class Form:
    fields: dict[str, str]
    files: dict[str, UploadedFile]

    def file(self, name: str) -> UploadedFile | None:
        return self.files.get(name)

    def digest(self) -> str:
        """The form's identity for Idempotency-Key: its text fields and its files' bytes."""
        return form_digest(self.fields, {name: f.data for name, f in self.files.items()})

    def names(self) -> set[str]:
        return set(self.fields) | set(self.files)


def invalid(message: str) -> ApiError:
    return ApiError("invalid_multipart", message)


def too_large(max_file_bytes: int) -> ApiError:
    return ApiError(
        "payload_too_large", f"An uploaded file is over {max_file_bytes} bytes.", maxFileBytes=max_file_bytes
    )


def body_bytes(event: dict) -> bytes:
    """The raw request body of an API Gateway proxy event."""
    body = event.get("body")
    if body is None:
        return b""
    if event.get("isBase64Encoded"):
        try:
            return base64.b64decode(body, validate=True)
        except ValueError as exc:
            raise invalid("The body is not valid base64.") from exc
    return body.encode("utf-8") if isinstance(body, str) else bytes(body)


def _boundary(content_type: str | None) -> bytes:
    media, params = parse_options_header(content_type or "")
    if media.strip().lower() != b"multipart/form-data":
        raise invalid("Content-Type must be multipart/form-data.")
    boundary = params.get(b"boundary")
    if not boundary or len(boundary) > 70:
        raise invalid("The multipart boundary is missing or too long.")
    return boundary


class _Collector:
    def __init__(self, max_file_bytes: int, max_files: int, max_fields: int, max_field_bytes: int) -> None:
        self.limits = (max_file_bytes, max_files, max_fields, max_field_bytes)
        self.fields: dict[str, str] = {}
        self.files: dict[str, UploadedFile] = {}
        self.file_parts = 0
        self.ended = False
        self._reset_part()

    def _reset_part(self) -> None:
        self.headers: dict[str, bytes] = {}
        self.header_field = bytearray()
        self.header_value = bytearray()
        self.data = bytearray()
        self.name: str | None = None
        self.filename: str | None = None
        self.in_part = False

    # ---- callbacks (python-multipart calls them with (data, start, end) or no args)
    def on_part_begin(self) -> None:
        self._reset_part()
        self.in_part = True

    def on_header_field(self, data: bytes, start: int, end: int) -> None:
        self.header_field += data[start:end]

    def on_header_value(self, data: bytes, start: int, end: int) -> None:
        self.header_value += data[start:end]

    def on_header_end(self) -> None:
        self.headers[bytes(self.header_field).decode("latin-1").strip().lower()] = bytes(self.header_value).strip()
        self.header_field.clear()
        self.header_value.clear()

    def on_headers_finished(self) -> None:
        disposition, params = parse_options_header(self.headers.get("content-disposition", b""))
        if disposition.strip().lower() != b"form-data" or not params.get(b"name"):
            raise invalid("Every part needs Content-Disposition: form-data with a name.")
        try:
            self.name = params[b"name"].decode("utf-8")
            filename = params.get(b"filename")
            self.filename = None if filename is None else filename.decode("utf-8", "replace")
        except UnicodeDecodeError as exc:
            raise invalid("A part name is not UTF-8.") from exc

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        max_file_bytes, _, _, max_field_bytes = self.limits
        self.data += data[start:end]
        if self.filename is not None and len(self.data) > max_file_bytes:
            raise too_large(max_file_bytes)
        if self.filename is None and len(self.data) > max_field_bytes:
            raise invalid(f"A text field is over {max_field_bytes} bytes.")

    def on_part_end(self) -> None:
        _, max_files, max_fields, _ = self.limits
        name = self.name
        assert name is not None
        if name in self.fields or name in self.files:
            raise invalid(f"The field {name[:40]!r} is repeated.")
        if self.filename is not None:
            if self.filename == "" and not self.data:
                self._reset_part()
                return  # "no file chosen"
            self.file_parts += 1
            if self.file_parts > max_files:
                raise invalid(f"At most {max_files} file(s) may be uploaded.")
            ctype = self.headers.get("content-type", b"application/octet-stream").decode("latin-1")
            self.files[name] = UploadedFile(name, self.filename, ctype.strip(), bytes(self.data))
        else:
            if len(self.fields) + 1 > max_fields:
                raise invalid(f"At most {max_fields} form fields are accepted.")
            try:
                self.fields[name] = bytes(self.data).decode("utf-8")
            except UnicodeDecodeError as exc:
                raise invalid(f"The field {name[:40]!r} is not UTF-8 text.") from exc
        self._reset_part()

    def on_end(self) -> None:
        self.ended = True

    def callbacks(self) -> MultipartCallbacks:
        return {
            "on_part_begin": self.on_part_begin,
            "on_header_field": self.on_header_field,
            "on_header_value": self.on_header_value,
            "on_header_end": self.on_header_end,
            "on_headers_finished": self.on_headers_finished,
            "on_part_data": self.on_part_data,
            "on_part_end": self.on_part_end,
            "on_end": self.on_end,
        }


def parse(
    body: bytes,
    content_type: str | None,
    *,
    max_file_bytes: int = MAX_FILE_BYTES,
    max_files: int = MAX_FILES,
    max_fields: int = MAX_FIELDS,
    max_field_bytes: int = MAX_FIELD_BYTES,
) -> Form:
    """Parse a multipart/form-data body within the limits; see the module docstring.

    Parsing streams through `python-multipart`'s MultipartParser and stops at the first
    broken limit (spec Limits):
    * a file part over 5 MiB                          -> 413 `payload_too_large` (`maxFileBytes`)
    * more than `max_files` file parts (default 4)    -> 400 `invalid_multipart`
    * more than `max_fields` text parts (default 16)  -> 400 `invalid_multipart`
    * a text part over 64 KiB, a repeated name, a name that is both a file and a text part,
      a part without a name, text that is not UTF-8, a missing or wrong Content-Type, a
      missing boundary, or a body that does not parse     -> 400 `invalid_multipart`

    A part is a file when its Content-Disposition carries `filename`; a file part with an
    empty filename and no bytes (what browsers send for "no file chosen") is ignored.
    """
    boundary = _boundary(content_type)
    if len(body) > MAX_BODY_BYTES:
        raise too_large(max_file_bytes)
    collector = _Collector(max_file_bytes, max_files, max_fields, max_field_bytes)
    parser = MultipartParser(boundary, collector.callbacks())
    try:
        parser.write(body)
        parser.finalize()
    except ApiError:
        raise
    except Exception as exc:  # python_multipart.exceptions.MultipartParseError and friends
        raise invalid("The multipart body could not be parsed.") from exc
    if not collector.ended or collector.in_part:
        raise invalid("The multipart body is truncated (no closing boundary).")
    return Form(collector.fields, collector.files)
