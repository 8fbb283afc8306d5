"""partnerctl reaches the stack it belongs to (issue 17 item 17).

The launcher writes `.devstack/env.json`; with the stack on a port other than 3000,
`partnerctl dev fault kms|dynamodb|pinning` and `dev fault clear`, run from the directory
holding that file with nothing else set, must reach that stack's gateway."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from devstack import faults


def partnerctl(cwd, *args: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("GATEWAY_URL", "PARTNER_DEVSTACK_ENV")}
    out = subprocess.run(
        [sys.executable, "-m", "partnerctl", "--json", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, (out.stdout, out.stderr)
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
