"""The `make run` banner: its curl examples work as printed."""

from __future__ import annotations

import re
from types import SimpleNamespace

from devstack.run import usage

MINT = "Mint1111111111111111111111111111111111111111"


def _banner() -> str:
    stack = SimpleNamespace(
        url="http://127.0.0.1:3000",
        moto=SimpleNamespace(url="http://127.0.0.1:5000"),
        chain=SimpleNamespace(
            url="http://127.0.0.1:8899", bundle_url="http://127.0.0.1:8899/b", ws_url="ws://127.0.0.1:8900"
        ),
        pinning=SimpleNamespace(url="http://127.0.0.1:5001"),
    )
    seeded = {
        "client": {"client_id": "cid", "api_key": "app_sk_x"},
        "users": [
            {"user_id": "u1", "wallet": "W1", "label": "alice"},
            {"user_id": "u2", "wallet": "W2", "label": "bob"},
            {"user_id": "u3", "wallet": "W3", "label": "carol"},
        ],
        "coin": {"mint": MINT},
        "crank": {"wallet": "C1"},
    }
    return usage(stack, seeded)


def _commands(text: str) -> list[str]:
    """Each curl command with its continuation lines joined."""
    joined = re.sub(r"\\\n\s*", " ", text)
    return [line.strip() for line in joined.splitlines() if line.strip().startswith("curl ")]


def test_update_content_example_names_the_mint():
    examples = [c for c in _commands(_banner()) if "update-content" in c]
    assert examples and all(f"-F mint={MINT}" in c for c in examples)


def test_banner_shows_a_keyed_buy_and_a_quote():
    commands = _commands(_banner())
    keyed = [c for c in commands if "Idempotency-Key:" in c]
    assert keyed and all("/partner/v1/trades/" in c for c in keyed)
    quotes = [c for c in commands if "/partner/v1/trades/quote" in c]
    assert quotes and '"side":"buy"' in quotes[0] and MINT in quotes[0]


def test_banner_shows_one_staged_launch():
    """POST uploads (JSON), the S3 browser upload (fields, then the file as `file`), coins/create by id."""
    joined = re.sub(r"\\\n\s*", " ", _banner())
    commands = [line.strip() for line in joined.splitlines() if "curl " in line]
    asked = [c for c in commands if "/partner/v1/uploads" in c]
    assert len(asked) == 1 and '\\"contentType\\":\\"image/png\\"' in asked[0] and "contentLength" in asked[0]
    (s3,) = [c for c in commands if "jq -r .url" in c]
    assert "-F file=@big.png" in s3 and s3.index(".fields") < s3.index("-F file=@big.png")
    (launch,) = [c for c in commands if "imageUploadId=" in c]
    assert "/partner/v1/coins/create" in launch and "image=@" not in launch


def test_banner_walks_through_limits_apps_page_and_disconnect():
    text = _banner()
    assert "0.1 SOL" in text and "403 daily_cap_exceeded" in text
    assert "http://127.0.0.1:3000/account/apps" in text and "Disconnect" in text and "401" in text


def test_banner_lists_every_seeded_user():
    """alice, bob and carol are seeded (and on the sign-in page): each with its user id and wallet."""
    text = _banner()
    for label, user_id, wallet in (("alice", "u1", "W1"), ("bob", "u2", "W2"), ("carol", "u3", "W3")):
        assert re.search(rf"\b{label} {user_id} wallet {wallet}\b", text), label
