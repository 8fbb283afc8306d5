"""Init and the garbage collector (partner/__init__.py): the youngest generation's threshold
is raised while a function's module is imported, then what init created is frozen and the
default thresholds come back; before a SnapStart snapshot init's garbage is collected. Only in a
Lambda environment's init: a process that imports the layer and is not one (a test, the devstack's
gateway) keeps its collector (raised for good, it kept a test worker's dead chains for minutes)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CODE = """
import gc, json, sys
default = gc.get_threshold()
import partner
during = gc.get_threshold()
sys.path.insert(0, 'functions/{function}')
import app
after = gc.get_threshold()
frozen = gc.get_freeze_count()
from partner.core import snapshot
snapshot.run_before_snapshot()
refrozen = gc.get_freeze_count()
gc.unfreeze()
left = gc.collect()
print(json.dumps({{"default": default, "during": during, "after": after, "frozen": frozen,
                  "refrozen": refrozen, "left": left}}))
"""


def run(function: str, **env: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CODE.format(function=function)],
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{ROOT / 'shared'}:{ROOT}", "AWS_DEFAULT_REGION": "us-east-1"}
        | env,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("function", ["trades_buy", "me", "migrator", "tracker"])
def test_threshold_raised_during_init_then_frozen_and_restored(function):
    got = run(function, AWS_LAMBDA_INITIALIZATION_TYPE="snap-start")
    assert got["during"][0] == 100_000 and got["during"][1:] == got["default"][1:]
    assert got["after"] == got["default"]  # restored once the handler was built
    assert got["frozen"] > 20_000  # what init created, out of every later collection
    assert got["refrozen"] > 20_000
    assert got["left"] == 0  # the before-snapshot hook collected init's garbage


def test_a_process_that_is_not_a_lambda_init_keeps_its_collector():
    got = run("trades_buy")
    assert got["during"] == got["default"] == got["after"]
    assert got["frozen"] == 0
