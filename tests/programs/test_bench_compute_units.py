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


# What each of the service's transaction purposes may send (partner.features.pipeline.UNIT_LIMITS),
# the migration crank's included.
PURPOSES = {
    "trade": [("launchpad", "buy"), ("launchpad", "sell"), ("launchpad", "buy_exact_out"),
              ("pool", "swap"), ("pool", "swap_exact_out")],
    "first_buy": [("launchpad", "buy"), ("launchpad", "buy_exact_out")],
    "coin_create": [("launchpad", "create_coin")],
    "propose_update_content": [("launchpad", "create_proposal")],
    "governance": [("launchpad", n) for n in ("create_proposal", "cast_vote", "cancel_vote", "withdraw_vote",
                                              "withdraw_bond", "settle_proposal", "finalize_expired")],
    "migrate": [("launchpad", "migrate")],  # the migration crank's transaction (partner.features.migration)
}


def _table() -> dict[tuple[str, str], int]:
    """docs/benchmarks.md section 6: (program, instruction) -> max CU."""
    import re

    doc = (Path(__file__).resolve().parents[2] / "docs" / "benchmarks.md").read_text()
    section = doc.split("## 6. Compute units per instruction (SBF programs)")[1].split("\n## ")[0]
    return {(p, n): int(mx) for p, n, mx in
            re.findall(r"^\| (launchpad|pool) \| (\w+) \| \d+ \| \d+ \| (\d+) \| \d+ \|$", section, re.M)}


def test_the_service_limits_are_the_measured_table_plus_the_stated_margin():
    from partner.features import pipeline

    table = _table()
    assert set(PURPOSES) == set(pipeline.UNIT_LIMITS)
    for purpose, instructions in PURPOSES.items():
        measured = max(table[i] for i in instructions)
        # the service's figure is the largest of every run (random keys: runs differ), so the
        # table's latest run is at most it, and not far below (a PDA bump search's tries)
        assert measured <= pipeline.MEASURED_UNITS[purpose] < measured + 12 * 1_500, purpose
        limit = pipeline.UNIT_LIMITS[purpose]
        figure = pipeline.MEASURED_UNITS[purpose]
        assert limit >= pipeline.MARGIN * figure + pipeline.OTHER_UNITS, purpose
        assert limit < pipeline.MARGIN * figure + pipeline.OTHER_UNITS + 10_000, purpose


def test_a_fresh_measurement_stays_under_each_limit(measured):
    """Never below use: every instruction a purpose sends, measured again now, fits its limit
    with the transaction's other instructions."""
    from partner.features import pipeline

    for purpose, instructions in PURPOSES.items():
        use = max(measured[p][n]["max"] for p, n in instructions) + pipeline.OTHER_UNITS
        assert use <= pipeline.UNIT_LIMITS[purpose], (purpose, use)
