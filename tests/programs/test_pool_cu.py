"""Every pool instruction stays under a stated compute ceiling, and a swap's units do not depend
on the keys (no bump search in the pool's swaps; the measured table: `python -m tests.programs.pool_cu`,
over many key sets: `python -m tests.programs.cu_keys --keys 1000`)."""

from __future__ import annotations

from solders.pubkey import Pubkey

from partner.chain.idls import POOL

from .pool_cu import measure, pool_cu
from .pool_env import PoolEnv
from .svm import ATA_PROGRAM, SOL, TOKEN_2022

CEILING = 60_000  # initialize_pool (inside migrate) and an ATA-creating swap (the ATA program searches its bump)
SWAP_CEILING = 12_000  # a swap into an existing token account
SPREAD = 0.05  # max / min - 1 over fresh key sets
KEY_SETS = 4
ATA_TRY = 1_500  # one try of the ATA program's own address search (create_program_address)


def test_every_instruction_measured_under_the_ceiling():
    cu = measure()
    assert {name.split(" ")[0] for name in cu} == set(POOL.instructions)
    over = {name: max(v) for name, v in cu.items() if max(v) > CEILING}
    assert not over, over


def test_a_swap_costs_the_same_whatever_the_keys():
    """Into an existing token account: within 5% over fresh key sets (pool, mint, traders), under
    the swap ceiling."""
    runs: dict[str, list[int]] = {}
    for _ in range(KEY_SETS):
        for name, v in measure().items():
            runs.setdefault(name, []).extend(v)
    for name in ("swap buy", "swap sell", "swap_exact_out"):
        v = runs[name]
        assert max(v) <= SWAP_CEILING, (name, v)
        assert max(v) <= (1 + SPREAD) * min(v), (name, v)


def test_a_swap_that_creates_the_token_account_adds_only_the_ata_programs_search():
    """The pool derives no address itself: what varies with the keys is the ATA program's own
    search for the trader's new account (1,500 CU a try below bump 255)."""
    env = PoolEnv()
    net: dict[str, list[int]] = {"buy": [], "exact": []}
    for _ in range(6):
        for case in net:
            u = env.s.funded(100 * SOL)
            _, bump = Pubkey.find_program_address([bytes(u.pubkey()), bytes(TOKEN_2022), bytes(env.mint)], ATA_PROGRAM)
            o = env.buy(u, SOL // 10) if case == "buy" else env.buy_exact(u, 10**12, 10 * SOL)
            net[case].append(pool_cu(o) - ATA_TRY * (255 - bump))
    for case, v in net.items():
        assert max(v) <= (1 + SPREAD) * min(v), (case, v)
        assert max(v) <= SWAP_CEILING + 20_000, (case, v)  # + the ATA's creation (CreateIdempotent)
