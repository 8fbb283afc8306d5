"""The shared layer's build (shared/Makefile, run by `sam build`): the package with its bytecode.

/opt is read-only in Lambda, so a layer without .pyc files makes every cold start without
SnapStart compile `partner` again; the build ships them, hash-based and unchecked (the layer
never changes once built), for the interpreter that builds it (sam build runs Python 3.13).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

from devstack.cfn import load_template

ROOT = Path(__file__).resolve().parents[2]


def test_shared_layer_is_built_by_its_makefile():
    layer = load_template(ROOT / "template.yaml").resources["SharedLayer"]
    assert layer["Metadata"]["BuildMethod"] == "makefile"
    assert layer["Properties"]["ContentUri"] == "shared"


def test_layer_build_ships_unchecked_bytecode_for_every_module(tmp_path):
    subprocess.run(
        [
            "make",
            "-s",
            "-C",
            str(ROOT / "shared"),
            "build-SharedLayer",
            f"ARTIFACTS_DIR={tmp_path}",
            f"PYTHON={sys.executable}",
        ],
        check=True,
    )
    package = tmp_path / "python" / "partner"
    sources = sorted(p.relative_to(package) for p in package.rglob("*.py"))
    assert sources == sorted(
        p.relative_to(ROOT / "shared" / "partner") for p in (ROOT / "shared" / "partner").rglob("*.py")
    )
    for source in sources:
        pyc = Path(importlib.util.cache_from_source(str(package / source)))
        assert pyc.exists(), f"no bytecode for {source}"
        flags = int.from_bytes(pyc.read_bytes()[4:8], "little")
        assert flags == 0b01, f"{source}: bytecode is not hash-based and unchecked (flags {flags:#b})"
    # nothing but the package (no Makefile, no stale caches from the work tree)
    assert sorted(p.name for p in (tmp_path / "python").iterdir()) == ["partner"]
