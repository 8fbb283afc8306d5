"""Scope parsing and the formats of issued secrets (no AWS needed)."""

from __future__ import annotations

import base64
import re
import secrets

import pytest

from partner.core import scopes
from partner.core.errors import ApiError
from partner.store import tokens

SPEC_SCOPES = ("profile:read", "trade:execute", "governance:vote", "governance:propose", "coin:create")


# ---------------------------------------------------------------- scopes


def test_the_five_spec_scopes_each_have_plain_words():
    assert set(scopes.DESCRIPTIONS) == set(SPEC_SCOPES)
    assert set(scopes.ALL) == set(SPEC_SCOPES)
    for name, text in scopes.DESCRIPTIONS.items():
        assert text and name not in text and ":" not in text


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("profile:read", ("profile:read",)),
        ("trade:execute profile:read", ("trade:execute", "profile:read")),
        (" ".join(SPEC_SCOPES), SPEC_SCOPES),
        ("profile:read profile:read", ("profile:read",)),
        ("coin:create profile:read coin:create", ("coin:create", "profile:read")),
    ],
)
def test_parse_valid(raw, expected):
    assert scopes.parse(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        None,
        "",
        " ",
        "  ",
        "profile:read  trade:execute",  # double space
        " profile:read",
        "profile:read ",
        "profile:read,trade:execute",
        "profile:write",
        "Profile:read",
        "PROFILE:READ",
        "profile",
        "read",
        "*",
        "openid",
        "profile:read unknown:scope",
        "profile:read\ttrade:execute",
        "profile:read\n",
    ],
)
def test_parse_rejects_empty_or_unknown_with_invalid_scope(raw):
    with pytest.raises(ApiError) as err:
        scopes.parse(raw)
    assert err.value.code == "invalid_scope"
    assert err.value.status == 400


def test_check_allowed():
    scopes.check_allowed(("profile:read",), ("profile:read", "trade:execute"))
    scopes.check_allowed((), ("profile:read",))
    with pytest.raises(ApiError) as err:
        scopes.check_allowed(("profile:read", "trade:execute"), ("profile:read",))
    assert err.value.code == "scope_not_allowed"
    assert err.value.status == 400
    assert "trade:execute" in err.value.message


# ---------------------------------------------------------------- secrets


@pytest.mark.parametrize("prefix", [tokens.API_KEY, tokens.CODE, tokens.SESSION])
def test_new_secret_format(prefix):
    value = tokens.new_secret(prefix)
    assert re.fullmatch(re.escape(prefix) + r"[A-Za-z0-9_-]{43}", value)
    assert tokens.new_secret(prefix) != value


def test_prefixes_are_the_spec_ones():
    assert (tokens.CODE, tokens.ACCESS, tokens.REFRESH) == ("app_ac_", "app_at_", "app_rt_")
    assert tokens.API_KEY == "app_sk_"


def _ids() -> tuple[str, str]:
    return secrets.token_hex(16), secrets.token_hex(16)


@pytest.mark.parametrize("prefix", [tokens.ACCESS, tokens.REFRESH])
def test_bound_token_round_trip(prefix):
    user_id, client_id = _ids()
    token = tokens.new_bound_token(prefix, user_id, client_id)
    assert token.startswith(prefix) and len(token) == len(prefix) + 86
    assert re.fullmatch(re.escape(prefix) + r"[A-Za-z0-9_-]{86}", token)
    ids = tokens.parse_bound_token(prefix, token)
    assert ids == tokens.TokenIds(user_id, client_id)
    assert tokens.new_bound_token(prefix, user_id, client_id) != token


def test_bound_token_wrong_prefix():
    user_id, client_id = _ids()
    access = tokens.new_bound_token(tokens.ACCESS, user_id, client_id)
    refresh = tokens.new_bound_token(tokens.REFRESH, user_id, client_id)
    assert tokens.parse_bound_token(tokens.REFRESH, access) is None
    assert tokens.parse_bound_token(tokens.ACCESS, refresh) is None
    body = access[len(tokens.ACCESS) :]
    for prefix in ("app_sk_", "app_ac_", "APP_AT_", "app_at", "at_", ""):
        assert tokens.parse_bound_token(tokens.ACCESS, prefix + body) is None


@pytest.mark.parametrize("delta", [-86, -1, 1, 2, 4, 100])
def test_bound_token_wrong_length(delta):
    user_id, client_id = _ids()
    token = tokens.new_bound_token(tokens.ACCESS, user_id, client_id)
    if delta < 0:
        bad = token[:delta]
    else:
        bad = token + "A" * delta
    assert tokens.parse_bound_token(tokens.ACCESS, bad) is None


@pytest.mark.parametrize("char", ["+", "/", "=", ".", "~", " ", "!", "é", "\n"])
def test_bound_token_bad_base64(char):
    user_id, client_id = _ids()
    token = tokens.new_bound_token(tokens.ACCESS, user_id, client_id)
    for pos in (len(tokens.ACCESS), len(token) - 1, len(token) - 40):
        bad = token[:pos] + char + token[pos + 1 :]
        assert len(bad) == len(token)
        assert tokens.parse_bound_token(tokens.ACCESS, bad) is None


def test_bound_token_standard_base64_alphabet_rejected():
    """A token re-encoded with + and / (standard base64) is not the issued token."""
    raw = b"\xfb\xff" * 32  # encodes to characters that differ between the alphabets
    std = base64.b64encode(raw).rstrip(b"=").decode()
    assert ("+" in std) or ("/" in std)
    assert tokens.parse_bound_token(tokens.ACCESS, tokens.ACCESS + std) is None
    url = base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
    assert tokens.parse_bound_token(tokens.ACCESS, tokens.ACCESS + url) is not None


@pytest.mark.parametrize(
    "value, ok",
    [
        ("0" * 32, True),
        ("0123456789abcdef" * 2, True),
        ("0123456789ABCDEF" * 2, False),
        ("0" * 31, False),
        ("0" * 33, False),
        ("g" * 32, False),
        ("", False),
        (" " + "0" * 31, False),
    ],
)
def test_is_hex_id(value, ok):
    assert tokens.is_hex_id(value) is ok
