"""partnerctl reaches the stack it belongs to (issue 17 item 17).

The launcher writes `.devstack/env.json`; with the stack on a port other than 3000,
`partnerctl dev fault kms|dynamodb|pinning` and `dev fault clear`, run from the directory
holding that file with nothing else set, must reach that stack's gateway. `partnerctl user ...`
(issue 28) works on that stack's tables, keys and sessions the same way."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import httpx
import pytest

from devstack import faults


def partnerctl(cwd, *args: str, returncode: int = 0) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("GATEWAY_URL", "PARTNER_DEVSTACK_ENV")}
    out = subprocess.run(
        [sys.executable, "-m", "partnerctl", "--json", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == returncode, (out.stdout, out.stderr)
    return json.loads(out.stdout)


@pytest.fixture
def clean_faults():
    faults.clear()
    yield
    faults.clear()


def test_env_json_names_the_gateway(devstack, tmp_path):
    from devstack.run import write_env_file

    path = write_env_file(devstack, tmp_path / ".devstack")
    data = json.loads(path.read_text())
    assert data["GATEWAY_URL"] == devstack.url
    assert not devstack.url.endswith(":3000")
    assert oct(path.stat().st_mode & 0o777) == oct(0o600)


@pytest.mark.parametrize("target", ["kms", "dynamodb", "pinning"])
def test_dev_fault_goes_to_the_stack_in_env_json(devstack, tmp_path, clean_faults, target):
    from devstack.run import write_env_file

    write_env_file(devstack, tmp_path / ".devstack")
    fault = partnerctl(tmp_path, "dev", "fault", target, "error", "--count", "50")
    assert fault["target"] == target and fault["mode"] == "error"
    registered = faults.list_faults()  # the registry of the gateway this process runs
    # the running devstack's own timers (tracker, crank) may already have drawn on it
    assert [(f["target"], f["mode"]) for f in registered] == [(target, "error")]
    assert 0 < registered[0]["count"] <= 50
    cleared = partnerctl(tmp_path, "dev", "fault", "clear")
    assert not str(cleared["gateway"]).startswith("not cleared"), cleared
    assert faults.list_faults() == []


def test_user_create_show_and_session(devstack, tmp_path):
    """`user create --sub` links and provisions a user as the platform API does (idempotent by sub),
    `user show` reads it, and `user session` mints a cookie that /account/apps accepts."""
    from devstack.run import write_env_file
    from partner.store import users

    write_env_file(devstack, tmp_path / ".devstack")
    sub = f"cli-{os.urandom(6).hex()}"
    created = partnerctl(tmp_path, "user", "create", "--sub", sub, "--twitter", "cli_user", "--no-trading")
    assert created["sub"] == sub and set(created) == {"user_id", "wallet", "sub"}
    stored = users.get_user_by_sub(sub)  # the item the stack's functions read
    assert stored is not None and stored.user_id == created["user_id"] and stored.wallet == created["wallet"]
    assert stored.twitter_handle == "cli_user" and stored.trading_enabled is False and stored.secret is not None

    shown = partnerctl(tmp_path, "user", "show", sub)
    assert shown == {
        "userId": created["user_id"],
        "sub": sub,
        "twitterHandle": "cli_user",
        "wallet": created["wallet"],
        "tradingEnabled": False,
    }
    again = partnerctl(tmp_path, "user", "create", "--sub", sub, "--twitter", "cli_user")  # the same user, trading on
    assert again == created
    assert partnerctl(tmp_path, "user", "show", sub)["tradingEnabled"] is True
    assert partnerctl(tmp_path, "user", "show", "cli-never-linked", returncode=1) == {
        "error": "No user is linked to this sub."
    }

    cookie = partnerctl(tmp_path, "user", "session", created["user_id"])["cookie"]
    assert cookie.startswith("app_session=")
    with httpx.Client(base_url=devstack.url, timeout=60, follow_redirects=False) as http:
        apps = http.get("/account/apps", headers={"Cookie": cookie})
        assert apps.status_code == 200, apps.text
        assert "<h1>Connected apps</h1>" in apps.text and 'id="no-apps"' in apps.text
        assert http.get("/account/apps").status_code in (302, 303)  # without it: off to sign in
    assert partnerctl(tmp_path, "user", "session", "no-such-user", returncode=1) == {"error": "no user no-such-user"}
