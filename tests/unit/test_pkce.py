"""PKCE S256 (RFC 7636) as the spec constrains it: verifier 43-128 chars of [A-Za-z0-9_-]."""

from __future__ import annotations

import base64
import hashlib

import pytest

from partner.features.oauth import pkce

# RFC 7636 appendix B: the 32 octets, the verifier they encode, and its S256 challenge.
RFC_OCTETS = bytes(
    [
        116,
        24,
        223,
        180,
        151,
        153,
        224,
        37,
        79,
        250,
        96,
        125,
        216,
        173,
        187,
        186,
        22,
        212,
        37,
        77,
        105,
        214,
        191,
        240,
        91,
        88,
        5,
        88,
        83,
        132,
        141,
        121,
    ]
)
RFC_VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
RFC_CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"


def s256(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


def test_rfc7636_appendix_b_vector():
    assert base64.urlsafe_b64encode(RFC_OCTETS).rstrip(b"=").decode() == RFC_VERIFIER
    assert pkce.challenge_for(RFC_VERIFIER) == RFC_CHALLENGE
    assert pkce.verify(RFC_VERIFIER, RFC_CHALLENGE) is True
    assert pkce.valid_challenge(RFC_CHALLENGE) is True


def test_challenge_is_unpadded_base64url_of_sha256():
    verifier = "a" * 43 + "-_" + "Z9" * 20
    challenge = pkce.challenge_for(verifier)
    assert challenge == s256(verifier)
    assert len(challenge) == 43 and "=" not in challenge


@pytest.mark.parametrize("length", [43, 44, 100, 128])
def test_verifier_lengths_accepted(length):
    verifier = ("abcXYZ019-_" * 20)[:length]
    assert pkce.valid_verifier(verifier) is True
    assert pkce.verify(verifier, s256(verifier)) is True


@pytest.mark.parametrize("length", [0, 1, 42, 129, 200])
def test_verifier_lengths_rejected(length):
    verifier = ("abcXYZ019-_" * 20)[:length]
    assert pkce.valid_verifier(verifier) is False
    # even when the challenge is the verifier's own hash
    assert pkce.verify(verifier, s256(verifier)) is False


@pytest.mark.parametrize(
    "bad",
    [
        "+",
        "/",
        "=",
        " ",
        "%",
        "!",
        "é",
        ".",
        "~",  # RFC 7636 allows these; the spec's contract is [A-Za-z0-9_-] only
        "\n",
        "\t",
        "\x00",
    ],
)
@pytest.mark.parametrize("where", ["start", "middle", "end"])
def test_verifier_with_malformed_characters_rejected(bad, where):
    base = "A" * 50
    verifier = {"start": bad + base, "middle": base[:25] + bad + base[25:], "end": base + bad}[where]
    assert pkce.valid_verifier(verifier) is False
    assert pkce.verify(verifier, s256(verifier)) is False


def test_mismatched_verifier_rejected():
    other = "B" * 43
    assert pkce.verify(other, RFC_CHALLENGE) is False
    # one character different
    assert pkce.verify(RFC_VERIFIER[:-1] + "j", RFC_CHALLENGE) is False
    # the challenge itself is not a verifier for itself
    assert pkce.verify(RFC_CHALLENGE, RFC_CHALLENGE) is False


def test_plain_method_equivalent_is_rejected():
    """A client that sent the verifier itself as challenge (method plain) cannot pass S256."""
    verifier = "P" * 43
    assert pkce.verify(verifier, verifier) is False


@pytest.mark.parametrize(
    "challenge",
    [
        RFC_CHALLENGE[:-1],  # 42
        RFC_CHALLENGE + "A",  # 44
        RFC_CHALLENGE + "=",  # padded
        RFC_CHALLENGE[:-1] + "+",  # standard base64 alphabet
        RFC_CHALLENGE[:-1] + "/",
        RFC_CHALLENGE[:-1] + ".",
        RFC_CHALLENGE + "\n",  # trailing newline must not slip through `$`
        "\n" + RFC_CHALLENGE,
        "",
        "A" * 128,  # a plain-method verifier used as challenge
    ],
)
def test_challenge_format_rejected(challenge):
    assert pkce.valid_challenge(challenge) is False
