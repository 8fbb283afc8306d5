"""Normalizing and validating the link fields of coin content (website, twitter, telegram), for
update-content and coins/create alike (`normalize`).

    website("example.com/about")     -> "https://example.com/about"
    twitter("@alice") / twitter("https://x.com/alice") -> "https://x.com/alice"
    telegram("t.me/mygroup")         -> "https://t.me/mygroup"
    website("")                      -> ""   (an empty string clears the field)
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from partner.core.errors import ApiError

__all__ = ["MAX_LINK_CHARS", "LINK_FIELDS", "website", "twitter", "telegram", "normalize", "normalize_all"]

MAX_LINK_CHARS = 300
LINK_FIELDS = ("website", "twitter", "telegram")

_LABEL = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)")  # these four with fullmatch, never `$`
_TLD = re.compile(r"(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})")
_TWITTER_HANDLE = re.compile(r"[A-Za-z0-9_]{1,15}")
_TELEGRAM_HANDLE = re.compile(r"[A-Za-z0-9_]{5,32}")
_TWITTER_HOSTS = {"twitter.com", "x.com"}
_TELEGRAM_HOSTS = {"t.me", "telegram.me"}
_HOST_PREFIXES = ("www.", "mobile.")
_TWITTER_RESERVED = {
    "home",
    "i",
    "intent",
    "search",
    "share",
    "explore",
    "hashtag",
    "messages",
    "notifications",
    "settings",
    "login",
    "signup",
    "tos",
    "privacy",
}
_TELEGRAM_RESERVED = {"joinchat", "addstickers", "share", "proxy", "socks", "setlanguage", "iv"}
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def _invalid(field: str, message: str) -> ApiError:
    return ApiError(f"invalid_{field}", message, field=field)


def _prepare(value: str, field: str) -> str:
    if not isinstance(value, str):
        raise _invalid(field, f"{field} must be a string.")
    value = value.strip()
    if len(value) > MAX_LINK_CHARS:
        raise ApiError(f"{field}_too_long", f"{field} is over {MAX_LINK_CHARS} characters.", field=field)
    if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in value):
        raise _invalid(field, f"{field} must not contain whitespace or control characters.")
    return value


def _split(value: str, field: str):
    """urlsplit with `https://` assumed when no scheme is given; None if unparseable."""
    text = value if _SCHEME.match(value) else "https://" + value
    try:
        parts = urlsplit(text)
        port = parts.port  # raises ValueError for a bad port
    except ValueError:
        raise _invalid(field, f"{field} is not a valid URL.") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise _invalid(field, f"{field} must be an http(s) URL.")
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise _invalid(field, f"{field} must not carry user info.")
    if port is not None and not 1 <= port <= 65535:
        raise _invalid(field, f"{field} has an invalid port.")
    host = (parts.hostname or "").lower()
    return parts, host, port


def _dotted_host(host: str) -> bool:
    if not host or len(host) > 253 or "." not in host:
        return False
    labels = host.rstrip(".").split(".") if host.endswith(".") else host.split(".")
    if len(labels) < 2 or not all(_LABEL.fullmatch(label) for label in labels):
        return False
    return bool(_TLD.fullmatch(labels[-1]))


def website(value: str) -> str:
    value = _prepare(value, "website")
    if value == "":
        return ""
    parts, host, port = _split(value, "website")
    if not _dotted_host(host):
        raise _invalid("website", "website needs a dotted hostname, like example.com.")
    netloc = host + (f":{port}" if port is not None and port != 443 else "")
    out = f"https://{netloc}{parts.path or ''}"
    if parts.query:
        out += f"?{parts.query}"
    if parts.fragment:
        out += f"#{parts.fragment}"
    return out


def _handle(value: str, field: str, hosts: set[str], pattern: re.Pattern, reserved: set[str], rule: str) -> str:
    value = _prepare(value, field)
    if value == "":
        return ""
    bare = value[1:] if value.startswith("@") else value
    if pattern.fullmatch(bare):
        return bare
    if value.startswith("@"):
        raise _invalid(field, f"{field} handle must match {rule}.")
    parts, host, port = _split(value, field)
    for prefix in _HOST_PREFIXES:
        if host.startswith(prefix):
            host = host[len(prefix) :]
            break
    if host not in hosts or port not in (None, 80, 443):
        raise _invalid(field, f"{field} must be a URL on {' or '.join(sorted(hosts))} or a handle.")
    segments = parts.path.split("/")[1:]
    if segments and segments[-1] == "":
        segments = segments[:-1]
    if len(segments) != 1:
        raise _invalid(field, f"{field} URL must name exactly one account, like {sorted(hosts)[0]}/<handle>.")
    handle = segments[0].lstrip("@")
    if not pattern.fullmatch(handle) or handle.lower() in reserved:
        raise _invalid(field, f"{field} handle must match {rule}.")
    return handle


def twitter(value: str) -> str:
    handle = _handle(value, "twitter", _TWITTER_HOSTS, _TWITTER_HANDLE, _TWITTER_RESERVED, "[A-Za-z0-9_]{1,15}")
    return f"https://x.com/{handle}" if handle else ""


def telegram(value: str) -> str:
    handle = _handle(value, "telegram", _TELEGRAM_HOSTS, _TELEGRAM_HANDLE, _TELEGRAM_RESERVED, "[A-Za-z0-9_]{5,32}")
    return f"https://t.me/{handle}" if handle else ""


_NORMALIZERS = {"website": website, "twitter": twitter, "telegram": telegram}


def normalize(field: str, value: str) -> str:
    """The canonical value of one link field; ApiError with the field's 400 code otherwise.

    Rules (spec `proposals/update-content`; the six codes answer 400):
    * every value is trimmed; more than 300 characters (before normalizing) -> `<field>_too_long`;
    * `website` must resolve to `https://` with a dotted hostname: a bare host gets
      `https://`, `http://` is upgraded, any other scheme, user info, a port outside
      1..65535, whitespace or a malformed host -> `invalid_website`;
    * `twitter` must reduce to a handle `[A-Za-z0-9_]{1,15}`: a bare handle, `@handle`, or a
      URL on twitter.com / x.com (optionally `www.` / `mobile.`, `http(s)://` optional) whose
      path is exactly `/<handle>` (a trailing slash, query and fragment are ignored);
      anything else (another host, a deeper path, a reserved path like `/home`) ->
      `invalid_twitter`; the canonical value is `https://x.com/<handle>`;
    * `telegram` likewise with `[A-Za-z0-9_]{5,32}` on t.me / telegram.me, canonical
      `https://t.me/<handle>`, else `invalid_telegram`.
    """
    return _NORMALIZERS[field](value)


def normalize_all(values: dict[str, str]) -> dict[str, str]:
    """Normalize the link fields present in `values` (in website, twitter, telegram order)."""
    return {f: normalize(f, values[f]) for f in LINK_FIELDS if f in values}


def canonical_or_raw(field: str, value: str | None) -> str:
    """For comparing stored content: its canonical form when it normalizes, else as stored."""
    if not value:
        return ""
    try:
        return normalize(field, value)
    except ApiError:
        return value
