"""Rules shared by coins/create and proposals/update-content: image type by content, name, symbol,
description. Coin text is shown to other users, so `name` and `symbol` refuse characters that hide
or reorder what they see, and `description` has them removed (docs/architecture.md, "Request path").
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from partner.core import cid
from partner.core.errors import ApiError

_SYMBOL = re.compile(r"[A-Z0-9]+")  # with fullmatch: `$` also matches before a trailing newline
_JOINERS = frozenset("\u200c\u200d")  # ZWNJ, ZWJ: Cf, but emoji sequences and scripts need them
_TEXT_BREAKS = frozenset("\t\n\r")  # kept in a description
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
        return "ipfs://" + cid.cid_v0(self.data)


def read_image(data: bytes) -> Image:
    """The image with its type decided by content; `invalid_image_type` otherwise."""
    found = detect_image(data)
    if found is None:
        raise ApiError("invalid_image_type", field="image")
    return Image(data, *found)


def unsafe_char(ch: str) -> bool:
    """A control, separator or format character (bidi controls among them), see the module docstring."""
    category = unicodedata.category(ch)
    return category in ("Cc", "Zl", "Zp") or (category == "Cf" and ch not in _JOINERS)


def _has_unsafe(text: str) -> bool:
    return not (text.isprintable() and text.isascii()) and any(unsafe_char(ch) for ch in text)


def clean_description(value: str) -> str:
    """The description with unsafe characters removed; tab, line feed and carriage return kept."""
    if not _has_unsafe(value):
        return value
    return "".join(ch for ch in value if ch in _TEXT_BREAKS or not unsafe_char(ch))


def _sized(text: str, name: str, max_bytes: int, unsafe_message: str) -> str:
    """`text`, the normalized field `name`, if it is 1 to `max_bytes` bytes of UTF-8 without unsafe
    characters: empty or unsafe is `invalid_<name>`, longer is `<name>_too_long`."""
    if not text:
        raise ApiError(f"invalid_{name}", f"{name} must not be empty.", field=name)
    if _has_unsafe(text):
        raise ApiError(f"invalid_{name}", unsafe_message, field=name)
    if len(text.encode("utf-8")) > max_bytes:
        raise ApiError(f"{name}_too_long", field=name)
    return text


def normalize_name(value: str) -> str:
    """NFC-normalized and trimmed, then 1 to 32 bytes of UTF-8 without unsafe characters."""
    name = unicodedata.normalize("NFC", value).strip()
    return _sized(name, "name", 32, "name must not contain control, format or bidi characters.")


def normalize_symbol(value: str) -> str:
    """Trimmed and upper-cased, then 1 to 10 bytes of A-Z and 0-9."""
    symbol = _sized(value.strip().upper(), "symbol", 10, "symbol may hold only A-Z and 0-9.")
    if not _SYMBOL.fullmatch(symbol):
        raise ApiError("invalid_symbol", "symbol may hold only A-Z and 0-9.", field="symbol")
    return symbol
