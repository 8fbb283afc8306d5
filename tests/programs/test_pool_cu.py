"""Every pool instruction stays under a stated compute ceiling (60,000 CU; the measured
table: `python -m tests.programs.pool_cu`)."""
from __future__ import annotations

from partner.chain.idls import POOL

from .pool_cu import measure

CEILING = 60_000


def test_every_instruction_measured_under_the_ceiling():
    cu = measure()
    assert {name.split(" ")[0] for name in cu} == set(POOL.instructions)
    over = {name: max(v) for name, v in cu.items() if max(v) > CEILING}
    assert not over, over
