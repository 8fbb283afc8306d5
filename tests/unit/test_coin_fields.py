"""partner.features.coin_fields: no control, format or bidi characters in coin text (issue 17 item 14).

`name` and `symbol` refuse them (`invalid_name`, `invalid_symbol`); `description` has them
removed (tab, line feed and carriage return kept). Shared by coins/create and update-content."""

from __future__ import annotations

import pytest

from partner.core.errors import ApiError
from partner.features import multipart
from partner.features.coin_fields import clean_description, normalize_name, normalize_symbol
from partner.features.governance import content
from partner.features.launch import form as launch

PK = "So11111111111111111111111111111111111111112"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 40
UNSAFE = [
    "\x00",
    "\x07",
    "\x1b",
    "\x7f",
    "\x9b",
    "\u202a",
    "\u202b",
    "\u202c",
    "\u202d",
    "\u202e",
    "\u2066",
    "\u2067",
    "\u2068",
    "\u2069",
    "\u200e",
    "\u200f",
    "\u061c",
    "\u200b",
    "\ufeff",
    "\u2060",
    "\u2028",
    "\u2029",
    "\n",
]


def code_of(call, value) -> tuple[str, str]:
    with pytest.raises(ApiError) as info:
        call(value)
    return info.value.code, info.value.extra.get("field")


def test_the_issue_example_is_invalid_name():
    assert code_of(normalize_name, "A\nB\x00C\u202e") == ("invalid_name", "name")


@pytest.mark.parametrize("ch", UNSAFE)
def test_name_refuses_controls_and_bidi_anywhere_inside(ch):
    assert code_of(normalize_name, f"Safe{ch}Coin") == ("invalid_name", "name")
    # even when the name is also too long: the character is the problem to fix first
    assert code_of(normalize_name, "x" * 20 + ch + "x" * 20) == ("invalid_name", "name")


@pytest.mark.parametrize("ch", UNSAFE)
def test_symbol_refuses_controls_and_bidi(ch):
    assert code_of(normalize_symbol, f"AB{ch}C") == ("invalid_symbol", "symbol")
    assert code_of(normalize_symbol, f"AB{ch}CDEFGHIJKLMNOP") == ("invalid_symbol", "symbol")


def test_names_that_follow_the_spec_are_unchanged():
    assert normalize_name("  Cafe\u0301 Coin \n") == "Caf\u00e9 Coin"  # NFC and trimmed, as before
    assert normalize_name("\u05e9\u05dc\u05d5\u05dd Coin") == "\u05e9\u05dc\u05d5\u05dd Coin"  # RTL letters
    assert (
        normalize_name("\U0001f468\u200d\U0001f469\u200d\U0001f467") == "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    )  # an emoji ZWJ sequence keeps its joiners
    assert normalize_symbol(" abc1 ") == "ABC1"


def test_symbol_is_a_full_match():
    # `$` would match before a final newline; the trim removes an outer one, a full match refuses the rest
    assert code_of(normalize_symbol, "AB\nC") == ("invalid_symbol", "symbol")


def test_description_has_unsafe_characters_removed_and_keeps_line_breaks():
    text = "Line one\r\n\tLine two \u202eevil\u202c\x00 end\u200b\ufeff"
    assert clean_description(text) == "Line one\r\n\tLine two evil end"
    plain = "A normal description, with \u05e9\u05dc\u05d5\u05dd and \U0001f680.\nSecond line."
    assert clean_description(plain) == plain


def _form(**fields) -> multipart.Form:
    return multipart.Form(
        fields={k: v for k, v in fields.items()},
        files={"image": multipart.UploadedFile("image", "a.png", "image/png", PNG)},
    )


def test_coin_create_form_uses_the_rules():
    with pytest.raises(ApiError) as info:
        launch.parse_form(_form(name="Spoof\u202eNIOC", symbol="SPF"))
    assert (info.value.code, info.value.extra["field"]) == ("invalid_name", "name")
    with pytest.raises(ApiError) as info:
        launch.parse_form(_form(name="Fine", symbol="SP\u200bF"))
    assert info.value.code == "invalid_symbol"
    parsed = launch.parse_form(_form(name="Fine", symbol="FINE", description="Hi\u202e there\x00\nBye"))
    assert parsed.description == "Hi there\nBye"


def test_update_content_form_uses_the_rules():
    base = {"mint": PK, "priorityFeeLamports": "1000", "tipLamports": "1000000"}
    with pytest.raises(ApiError) as info:
        content.parse_form(multipart.Form({**base, "name": "Bad\x00Name"}, {}))
    assert info.value.code == "invalid_name"
    with pytest.raises(ApiError) as info:
        content.parse_form(multipart.Form({**base, "symbol": "B\u2066AD"}, {}))
    assert info.value.code == "invalid_symbol"
    parsed = content.parse_form(multipart.Form({**base, "description": "New\u202d text\u2069"}, {}))
    assert parsed.patch["description"] == "New text"
