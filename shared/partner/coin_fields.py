"""Rules shared by coins/create and proposals/update-content: image type by content, name, symbol."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from partner.errors import ApiError

_SYMBOL = re.compile(r"^[A-Z0-9]+$")
IMAGE_TYPES = (
    (b"\x89PNG\r\n\x1a\n", "image/png", "png"),
    (b"\xff\xd8\xff", "image/jpeg", "jpg"),
    (b"GIF87a", "image/gif", "gif"),
    (b"GIF89a", "image/gif", "gif"),
)


def detect_image(data: bytes) -> tuple[str, str] | None:
    """(content type, extension) by magic bytes, or None."""
    for magic, ctype, ext in IMAGE_TYPES:
        if data.startswith(magic):
            return ctype, ext
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp", "webp"
    return None


@dataclass(frozen=True)
class Image:
    data: bytes = field(repr=False)
    content_type: str
    extension: str

    @property
    def uri(self) -> str:
        """The ipfs:// URI pinning these bytes gives (Kubo defaults, CIDv0)."""
        from partner import cid

        return "ipfs://" + cid.cid_v0(self.data)


def read_image(data: bytes) -> Image:
    """The image with its type decided by content; `invalid_image_type` otherwise."""
    found = detect_image(data)
    if found is None:
        raise ApiError("invalid_image_type", field="image")
    return Image(data, *found)


def normalize_name(value: str) -> str:
    """NFC-normalized and trimmed, then 1 to 32 bytes of UTF-8."""
    name = unicodedata.normalize("NFC", value).strip()
    if not name:
        raise ApiError("invalid_name", "name must not be empty.", field="name")
    if len(name.encode("utf-8")) > 32:
        raise ApiError("name_too_long", field="name")
    return name


def normalize_symbol(value: str) -> str:
    """Trimmed and upper-cased, then 1 to 10 bytes of A-Z and 0-9."""
    symbol = value.strip().upper()
    if not symbol:
        raise ApiError("invalid_symbol", "symbol must not be empty.", field="symbol")
    if len(symbol.encode("utf-8")) > 10:
        raise ApiError("symbol_too_long", field="symbol")
    if not _SYMBOL.match(symbol):
        raise ApiError("invalid_symbol", "symbol may hold only A-Z and 0-9.", field="symbol")
    return symbol
