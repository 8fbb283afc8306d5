"""`make bench`'s compute-unit part (bench/compute_units.py, section 6 of docs/benchmarks.md):
every instruction of the SBF programs' IDLs has a measured, positive figure, and the report
renders a row for each."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import compute_units, report

IDL = Path(__file__).resolve().parents[2] / "idl"


@pytest.fixture(scope="module")
def measured() -> dict:
    return compute_units.measure(rounds=1)  # one round: every instruction once, fast


@pytest.mark.parametrize("program", ["launchpad", "pool"])
def test_every_idl_instruction_has_positive_figures(measured, program):
    names = [ix["name"] for ix in json.loads((IDL / f"{program}.json").read_text())["instructions"]]
    assert set(measured[program]) == set(names)
    for name in names:
        f = measured[program][name]
        assert 0 < f["min"] <= f["median"] <= f["max"], (name, f)
        assert f["runs"] >= 1


def test_the_report_has_a_row_per_instruction(measured):
    doc = report.render({"compute_units": measured})
    assert "## 6. Compute units per instruction (SBF programs)" in doc
    for program in ("launchpad", "pool"):
        for name, f in measured[program].items():
            assert f"| {program} | {name} | {f['min']} | {f['median']} | {f['max']} | {f['runs']} |" in doc
