"""Every launchpad instruction runs in one coin's life and stays under a stated compute
ceiling (80,000 CU, the figure docs/onchain.md gives with the measured ranges); the
table itself: `python -m tests.programs.launchpad_cu`."""
from __future__ import annotations

from .launchpad_chain import LAUNCHPAD_IDL
from .launchpad_cu import lifecycle

CEILING = 80_000


def test_every_instruction_measured_under_the_ceiling():
    cu = lifecycle()
    assert set(cu) == set(LAUNCHPAD_IDL.instructions)
    over = {name: max(v) for name, v in cu.items() if max(v) > CEILING}
    assert not over, over
