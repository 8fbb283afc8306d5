"""partner.features.links: normalization of website / twitter / telegram and their six 400 codes."""

from __future__ import annotations

import pytest

from partner.core.errors import ApiError
from partner.features import links


def code_of(field: str, value: str) -> str:
    with pytest.raises(ApiError) as info:
        links.normalize(field, value)
    assert info.value.status == 400
    assert info.value.extra["field"] == field
    return info.value.code


@pytest.mark.parametrize(
    "value, expected",
    [
        ("https://example.com", "https://example.com"),
        ("example.com", "https://example.com"),
        ("http://Example.COM/About?x=1#top", "https://example.com/About?x=1#top"),
        ("  https://sub.example.co.uk/path  ", "https://sub.example.co.uk/path"),
        ("https://example.com:8443/a", "https://example.com:8443/a"),
        ("https://example.com:443/a", "https://example.com/a"),
        ("", ""),
        ("   ", ""),
    ],
)
def test_website_normalizes(value, expected):
    assert links.website(value) == expected


@pytest.mark.parametrize(
    "value",
    [
        "ftp://example.com",
        "javascript:alert(1)",
        "localhost",
        "https://localhost",
        "https://example",
        "https://exa mple.com",
        "https://user:pw@example.com",
        "https://-bad-.com",
        "https://example.c",
        "https://example.com:99999",
        "https://127.0.0.1",
        "mailto:a@example.com",
        "https://ex_ample.com",
    ],
)
def test_website_invalid(value):
    assert code_of("website", value) == "invalid_website"


HANDLES_NORMALIZED = {
    "twitter": [
        ("alice", "https://x.com/alice"),
        ("@alice_01", "https://x.com/alice_01"),
        ("https://twitter.com/alice", "https://x.com/alice"),
        ("https://www.twitter.com/alice/", "https://x.com/alice"),
        ("http://mobile.twitter.com/alice", "https://x.com/alice"),
        ("x.com/alice?s=20", "https://x.com/alice"),
        ("https://x.com/@alice", "https://x.com/alice"),
        ("A" * 15, "https://x.com/" + "A" * 15),
        ("", ""),
    ],
    "telegram": [
        ("mygroup", "https://t.me/mygroup"),
        ("@my_group", "https://t.me/my_group"),
        ("https://t.me/mygroup", "https://t.me/mygroup"),
        ("telegram.me/mygroup/", "https://t.me/mygroup"),
        ("https://www.t.me/mygroup", "https://t.me/mygroup"),
        ("a" * 32, "https://t.me/" + "a" * 32),
        ("", ""),
    ],
}


@pytest.mark.parametrize(
    "field, value, expected", [(field, v, e) for field, cases in HANDLES_NORMALIZED.items() for v, e in cases]
)
def test_handle_normalizes(field, value, expected):
    assert getattr(links, field)(value) == expected


HANDLES_INVALID = {
    "twitter": [
        "A" * 16,
        "@",
        "@bad-handle",
        "al ice",
        "https://facebook.com/alice",
        "https://x.com/alice/status/1",
        "https://x.com/",
        "https://x.com/home",
        "ftp://x.com/alice",
        "https://notx.com/alice",
        "@@alice",
        "https://x.com:8080/alice",
    ],
    "telegram": [
        "abcd",
        "a" * 33,
        "@abc",
        "https://t.me/joinchat",
        "https://t.me/+AbCdEf123",
        "https://t.me/a/b",
        "https://telegram.org/mygroup",
        "my-group",
        "https://t.me/",
    ],
}


@pytest.mark.parametrize("field, value", [(field, v) for field, values in HANDLES_INVALID.items() for v in values])
def test_handle_invalid(field, value):
    assert code_of(field, value) == f"invalid_{field}"


@pytest.mark.parametrize("field", links.LINK_FIELDS)
def test_too_long_before_anything_else(field):
    assert code_of(field, "x" * 301) == f"{field}_too_long"
    assert code_of(field, "https://example.com/" + "a" * 290) == f"{field}_too_long"


def test_300_characters_is_not_too_long():
    value = "https://example.com/" + "a" * 280
    assert len(value) == 300
    assert links.website(value) == value


def test_normalize_all_and_canonical():
    assert links.normalize_all({"twitter": "@a", "name": "x", "website": ""}) == {
        "website": "",
        "twitter": "https://x.com/a",
    }
    assert links.canonical_or_raw("twitter", "alice") == "https://x.com/alice"
    assert links.canonical_or_raw("telegram", "not valid!") == "not valid!"
    assert links.canonical_or_raw("website", None) == ""
