"""Compute units of every launchpad instruction, measured in LiteSVM over one coin's
whole life (create, trades, governance, completion, migration into the pool):

    python -m tests.programs.launchpad_cu        # prints a table: min / max CU per instruction

`lifecycle()` is shared with the budget test (test_launchpad_cu.py)."""

from __future__ import annotations

from partner.chain import governance_math as GM
from partner.chain.governance_math import ActionKind, VoteSide

from .launchpad_chain import SOL, Chain
from .svm import print_cu_table


def lifecycle(seed: int | None = None) -> dict[str, list[int]]:
    """Run every instruction at least once; -> CU per instruction name (the compute-budget
    instruction's own cost taken off). `seed` fixes every key (Chain's), and so the figures."""
    from .test_launchpad_governance import IMAGE, NAME, QUORUM_THIRD, Gov

    g = Gov(Chain(pool=True, seed=seed))
    c = g.c
    a, b, d = g.holders
    assert c.sell(a, g.mint, 10**9).ok
    assert c.buy(a, g.mint, SOL).ok  # ATA exists
    assert c.buy_exact_out(a, g.mint, 10**9, 10 * SOL).ok
    admin = c.wallet()
    c.send_ok(
        [
            c.ix(
                "set_params",
                {"admin": c.admin.pubkey()},
                new_admin=admin.pubkey(),
                fee_recipient=c.fee_recipient.pubkey(),
                protocol_fee_bps=100,
                wallet_cap_bps=10_000,
                pool_open_delay_seconds=2,
            )
        ],
        c.admin,
    )
    c.send_ok([c.ix("accept_admin", {"new_admin": admin.pubkey()})], admin)
    c.admin = admin
    c.send_ok([c.ix("set_governance_params", {"admin": c.admin.pubkey()}, params=GM.DEFAULT_PARAMS)], c.admin)
    prop, r = g.propose(a, name="New", uri="https://x.example/new.json", mask=NAME | IMAGE)
    assert r.ok
    for h in g.holders:
        assert g.vote(h, prop, VoteSide.YES, QUORUM_THIRD).ok
    assert c.send([g.escrow_ix("cancel_vote", d, prop, voter=d.pubkey())], d).ok
    assert g.vote(d, prop, VoteSide.YES, QUORUM_THIRD).ok  # receipt reused
    c.advance(10, 601)
    assert g.settle(prop).ok  # two UpdateFields
    cranker = c.wallet()
    assert c.send([g.escrow_ix("withdraw_vote", cranker, prop, payer=cranker.pubkey(), voter=b.pubkey())], cranker).ok
    assert c.send(
        [g.escrow_ix("withdraw_bond", cranker, prop, payer=cranker.pubkey(), proposer=a.pubkey())], cranker
    ).ok
    prop, r = g.propose(a, ActionKind.FINALIZE_METADATA)
    assert r.ok
    assert g.pass_(prop).ok  # UpdateAuthority(none)
    whale = c.wallet(200 * SOL)
    assert c.buy(whale, g.mint, 100 * SOL).ok  # completes the curve
    assert c.migrate(g.mint).ok
    other = Gov(c)
    c.advance(10, GM.DEFAULT_MUTABILITY_WINDOW_SECONDS + 1)
    assert other.finalize_expired().ok
    return c.cu


def main() -> None:
    print_cu_table("instruction", lifecycle(), 24)


if __name__ == "__main__":
    main()
