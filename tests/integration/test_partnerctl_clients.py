"""partnerctl client list and client show (issue 39, newcomer 2): every registered client, or one,
without any secret (no API key, no key digest, no webhook secret); and help text for every command."""

from __future__ import annotations

import argparse
import json

import pytest

from testkit.helpers import ROOT


@pytest.fixture
def cli(aws_stack, capsys, monkeypatch):
    from partnerctl.cli import main

    monkeypatch.setenv("PARTNER_DEVSTACK_ENV", str(ROOT / ".devstack" / "absent.json"))

    def run(*args: str, code: int = 0) -> dict:
        assert main(["--json", *args]) == code
        return json.loads(capsys.readouterr().out)

    return run


def _secrets_absent(text: str, made: dict, digests: list[str], webhook_secret: str) -> None:
    for secret in (made["api_key"], *digests, webhook_secret):
        assert secret not in text
    assert "digest" not in text and "webhook_secret" not in text and "api_key" not in text


def test_client_show_and_list_name_every_setting_and_no_secret(cli):
    from partner.store import clients

    made = cli(
        "client",
        "create",
        "--name",
        "Listed App",
        "--redirect-uri",
        "http://localhost:8080/cb",
        "--tier",
        "Partner",
        "--scopes",
        "profile:read trade:execute",
        "--max-fee-lamports",
        "5000000",
        "--website",
        "https://listed.example",
    )
    client_id = made["client_id"]
    rotated = cli("client", "key", "rotate", client_id)
    cli("client", "key", "revoke", client_id, made["key_id"])
    hook = cli("client", "webhook", "set", client_id, "http://127.0.0.1:9/hook")
    stored = clients.get_client(client_id)
    digests = [k.digest for k in stored.keys.values()]

    shown = cli("client", "show", client_id)
    assert shown == {
        "client_id": client_id,
        "name": "Listed App",
        "redirect_uri": "http://localhost:8080/cb",
        "tier": "Partner",
        "status": "development",
        "scopes": ["profile:read", "trade:execute"],
        "fee_wallet": None,
        "max_trade_lamports": stored.max_trade_lamports,
        "daily_volume_cap_lamports": stored.daily_volume_cap_lamports,
        "max_fee_lamports": 5_000_000,
        "website": "https://listed.example",
        "webhook_url": "http://127.0.0.1:9/hook",
        "keys": sorted(
            [
                {"key_id": made["key_id"], "status": "revoked", "created_at": stored.keys[made["key_id"]].created_at},
                {
                    "key_id": rotated["key_id"],
                    "status": "active",
                    "created_at": stored.keys[rotated["key_id"]].created_at,
                },
            ],
            key=lambda k: (k["created_at"], k["key_id"]),
        ),
    }
    _secrets_absent(json.dumps(shown), made, digests, hook["webhook_secret"])
    assert rotated["api_key"] not in json.dumps(shown)

    other = cli("client", "create", "--name", "Other App", "--redirect-uri", "http://localhost:8080/cb")
    listed = cli("client", "list")["clients"]
    ids = [c["client_id"] for c in listed]
    assert client_id in ids and other["client_id"] in ids and len(ids) == len(set(ids))
    assert listed == sorted(listed, key=lambda c: (c["name"].lower(), c["client_id"]))
    row = next(c for c in listed if c["client_id"] == client_id)
    assert row == {
        "client_id": client_id,
        "name": "Listed App",
        "tier": "Partner",
        "status": "development",
        "active_keys": 1,
        "webhook": True,
    }
    _secrets_absent(json.dumps(listed), made, digests, hook["webhook_secret"])
    assert other["api_key"] not in json.dumps(listed) and rotated["api_key"] not in json.dumps(listed)


def test_client_show_of_an_unknown_client_fails(cli):
    assert cli("client", "show", "no-such-client", code=1) == {"error": "no client no-such-client"}


def test_text_output_of_client_show_has_no_secret(aws_stack, capsys, monkeypatch):
    from partnerctl import admin
    from partnerctl.cli import main

    monkeypatch.setenv("PARTNER_DEVSTACK_ENV", str(ROOT / ".devstack" / "absent.json"))
    made = admin.create_client(admin.NewClient(name="Text App", redirect_uri="http://localhost:8080/cb"))
    assert main(["client", "show", made["client_id"]]) == 0
    out = capsys.readouterr().out
    assert f"client_id: {made['client_id']}" in out and "name: Text App" in out
    assert made["api_key"] not in out and "digest" not in out


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                yield (*path, name), helps.get(name), sub
                yield from _commands(sub, (*path, name))


def test_every_command_has_help_text():
    from partnerctl.cli import build_parser

    found = {" ".join(path): text for path, text, _ in _commands(build_parser())}
    assert {"client list", "client show", "dev airdrop", "dev warp", "dev coin", "dev coin create"} <= set(found)
    missing = sorted(path for path, text in found.items() if not (text and text.strip()))
    assert missing == []
