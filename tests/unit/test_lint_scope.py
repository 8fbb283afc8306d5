"""`make lint` checks the project's own files: what git ignores (written by make bench, the builds)
is outside what mypy reads, as it is for ruff, which honours .gitignore itself."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_mypy_skips_what_git_ignores_inside_the_folders_it_checks() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    excluded = re.compile(config.get("exclude", "(?!)"))
    ignored = [line.rstrip("/") for line in (ROOT / ".gitignore").read_text().split() if "/" in line.rstrip("/")]
    inside = [d for d in ignored if any(d.startswith(f"{checked}/") for checked in config["files"])]
    assert "bench/out" in inside  # make bench's runtime copy of botocore and friends
    assert [d for d in inside if not excluded.search(f"{d}/module.py")] == []
