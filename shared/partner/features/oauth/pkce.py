"""PKCE (RFC 7636), S256 only."""

from __future__ import annotations

import hashlib
import re

from partner.store import crypto

# The spec narrows RFC 7636's alphabet: a verifier is 43-128 characters of [A-Za-z0-9_-].
# fullmatch, not match with `$`: `$` also matches before a trailing newline.
_VERIFIER = re.compile(r"[A-Za-z0-9_-]{43,128}")
_CHALLENGE = re.compile(r"[A-Za-z0-9_-]{43}")


def valid_challenge(challenge: str) -> bool:
    return bool(_CHALLENGE.fullmatch(challenge))


def valid_verifier(verifier: str) -> bool:
    return bool(_VERIFIER.fullmatch(verifier))


def challenge_for(verifier: str) -> str:
    return crypto.b64url(hashlib.sha256(verifier.encode("ascii")).digest())


def verify(verifier: str, challenge: str) -> bool:
    return valid_verifier(verifier) and crypto.equal(challenge_for(verifier), challenge)
