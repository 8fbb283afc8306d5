"""Compute units in LiteSVM against what the docs and the service state.

- Every launchpad instruction, over one coin's life, stays under a stated ceiling (80,000 CU, the
  figure docs/onchain.md gives) for a fixed sweep of key sets. The units depend on the keys (each
  PDA bump search costs 1,500 CU a try), so the sweep's keys are seeded: the same figures every run.
  The table of one run: `python -m tests.programs.launchpad_cu`.
- A mint whose bumps make its migrate dearer than a common mint's migrates under the crank's limit
  for it (partner.chain.units; tests/programs/test_unit_model.py holds the model to every
  instruction)."""

from __future__ import annotations

import pytest
from solders.keypair import Keypair

from partner.jobs import migration
from testkit.chain import DEEP_BUMP_MINT_SEED

from .launchpad_chain import LAUNCHPAD_IDL, SOL, Chain
from .launchpad_cu import lifecycle

CEILING = 80_000
SEEDS = range(20)

DEEP_MINT = Keypair.from_seed(DEEP_BUMP_MINT_SEED)


def test_every_instruction_measured_under_the_ceiling():
    over = {}
    for seed in SEEDS:
        cu = lifecycle(seed)
        assert set(cu) == set(LAUNCHPAD_IDL.instructions)
        over.update({(seed, name): max(v) for name, v in cu.items() if max(v) > CEILING})
    assert not over, over


def _completed(seed: int, mint: Keypair | None = None) -> tuple[Chain, Keypair]:
    chain = Chain(pool=True, seed=seed)
    _, mint = chain.create_coin(mint=mint)
    chain.advance(1, 1)
    assert chain.buy(chain.wallet(200 * SOL), mint.pubkey(), 100 * SOL).ok  # completes the curve
    return chain, mint


def test_a_mint_with_deep_bump_searches_migrates_under_the_cranks_limit():
    """A mint's bumps fix its migrate's units: a limit fitted to a common mint runs out on this one
    on every retry; the crank's limit for it (its keys' searches) lands."""
    from partner.chain import units

    mint = DEEP_MINT.pubkey()
    chain, _ = _completed(1, DEEP_MINT)
    common = Keypair.from_seed(bytes(32)).pubkey()
    short = chain.migrate(mint, cu_limit=migration.migrate_units(common))
    assert not short.ok and "ComputationalBudgetExceeded" in str(short.err), short.err
    assert not chain.curve(mint).migrated
    limit = migration.migrate_units(mint)
    assert chain.migrate(mint, cu_limit=limit).ok and chain.curve(mint).migrated
    [used] = chain.cu["migrate"]
    assert used + 2 * units.BUDGET_UNITS <= limit <= used * 11 // 10 + 1_000, (used, limit)


TRADE_CEILING = 10_000  # a trade into an existing token account (issue 35)
SPREAD = 0.05  # max / min - 1 over key sets


def test_a_trade_costs_the_same_whatever_the_keys():
    """buy, sell and buy_exact_out into an existing token account: no bump search, so within 5%
    over key sets, and under the trade ceiling (`python -m tests.programs.cu_keys --keys 1000`)."""
    from .cu_keys import launchpad_trades

    runs: dict[str, list[int]] = {}
    for seed in SEEDS:
        for name, v in launchpad_trades(seed).items():
            runs.setdefault(name, []).extend(v)
    for name in ("buy", "sell", "buy_exact_out"):
        v = runs[name]
        assert max(v) <= TRADE_CEILING, (name, v)
        assert max(v) <= (1 + SPREAD) * min(v), (name, v)


# no bump search: each call of a coin's life costs the same over key sets (settle_proposal's two calls
# take different paths: UpdateField, then UpdateAuthority)
STABLE = (
    "set_params",
    "set_governance_params",
    "cancel_vote",
    "withdraw_vote",
    "withdraw_bond",
    "settle_proposal",
    "finalize_expired",
)
REVOTE = 3  # the fourth cast_vote of lifecycle(): a re-vote on the receipt cancel_vote left


def test_votes_and_settlements_cost_the_same_whatever_the_keys():
    """A new vote receipt still needs the search that gives its bump: that vote varies; a vote on
    an existing receipt does not."""
    runs = [lifecycle(seed) for seed in SEEDS]
    calls = {(name, i): [r[name][i] for r in runs] for name in STABLE for i in range(len(runs[0][name]))}
    calls["cast_vote", REVOTE] = [r["cast_vote"][REVOTE] for r in runs]
    for call, v in calls.items():
        assert max(v) <= (1 + SPREAD) * min(v), (call, v)
