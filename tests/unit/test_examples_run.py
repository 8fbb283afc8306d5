"""The examples run as the README says, `.venv/bin/python -m examples.<name>` from the repository
root, with nothing but the dev venv: the SDK (sdk/src) is not installed there."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("module", ["examples.staged_launch", "examples.webhook_receiver", "examples.partner_app"])
def test_example_runs_from_the_repository_root(module):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run(
        [sys.executable, "-m", module, "--help"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert "usage:" in out.stdout
