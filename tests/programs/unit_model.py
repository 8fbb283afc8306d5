"""Fits and checks the service's unit model (partner.chain.units) against the programs in LiteSVM:
every instruction the service sends, over many key sets, each with the tries of its searches and
what it creates taken off:

    python -m tests.programs.unit_model --keys 50    # per case: min / max of the rest, and the model's

A case's spread (max - min) is what the model cannot see (values, paths); its figure in
partner.chain.units is the case's max. `runs()` is shared with test_unit_model.py."""
from __future__ import annotations

import argparse
from collections import defaultdict

from partner.chain import units as U
from partner.chain.idls import LAUNCHPAD, POOL

from .launchpad_chain import SOL, Chain, Run
from .launchpad_cu import lifecycle


def trades(seed: int) -> None:
    """The curve's and the pool's trades, into new and existing token accounts (keys from `seed`)."""
    c = Chain(pool=True, seed=seed)
    _, mint = c.create_coin()
    c.advance(1, 1)
    m = mint.pubkey()
    u, v = c.wallet(), c.wallet()
    assert c.buy(u, m, SOL).ok and c.buy(u, m, SOL).ok
    assert c.sell(u, m, c.balance(u.pubkey(), m) // 2).ok
    assert c.buy_exact_out(u, m, 10**12, 10 * SOL).ok and c.buy_exact_out(v, m, 10**12, 10 * SOL).ok
    whale = c.wallet(200 * SOL)
    assert c.buy(whale, m, 100 * SOL).ok
    assert c.migrate(m).ok
    c.advance(10, 10)
    p, q = c.wallet(), c.wallet()
    assert c.swap(p, m, False, SOL).ok and c.swap(p, m, False, SOL).ok
    assert c.swap(p, m, True, c.balance(p.pubkey(), m) // 2).ok
    assert c.swap_exact_out(p, m, 10**12, 10 * SOL).ok and c.swap_exact_out(q, m, 10**12, 10 * SOL).ok


def settles(seed: int) -> None:
    """Each path of settle: failed, one to three metadata rewrites, a lock with and without the
    update authority's removal, an extension."""
    from partner.chain.governance_math import ActionKind, VoteSide

    from .test_launchpad_governance import IMAGE, NAME, QUORUM_THIRD, SYMBOL, Gov

    cases = [
        (ActionKind.UPDATE_CONTENT, False, dict(name="N", mask=NAME)),
        (ActionKind.UPDATE_CONTENT, True, dict(name="N" * 32, mask=NAME)),
        (ActionKind.UPDATE_CONTENT, True, dict(uri="https://x.example/" + "a" * 182, mask=IMAGE)),
        (ActionKind.UPDATE_CONTENT, True, dict(name="New", symbol="NS", uri="https://x.example/n.json",
                                               mask=NAME | SYMBOL | IMAGE)),
        (ActionKind.FINALIZE_METADATA, True, dict(mask=NAME)),
        (ActionKind.EXTEND_MUTABILITY, True, dict(additional=86_400)),
    ]
    for i, (kind, votes, kw) in enumerate(cases):
        g = Gov(Chain(pool=True, seed=seed * 10 + i))
        prop, r = g.propose(g.holders[0], kind, **kw)
        assert r.ok, r.logs
        for h in g.holders if votes else ():
            assert g.vote(h, prop, VoteSide.YES, QUORUM_THIRD).ok
        g.c.advance(10, 601)
        assert g.settle(prop).ok


def runs(keys: int, first_seed: int = 0) -> list[Run]:
    Chain.recorder = out = []
    try:
        for seed in range(first_seed, first_seed + keys):
            lifecycle(seed)
            trades(seed + 1_000_000)
            settles(seed + 2_000_000)
    finally:
        Chain.recorder = None
    return out


def case(r: Run) -> str:
    """The instruction's name, and the accounts it created that the model prices."""
    idl, costs = (LAUNCHPAD, U.LAUNCHPAD_COSTS) if r.ix.program_id == LAUNCHPAD.address else (POOL, U.POOL_COSTS)
    name = idl.instruction_name(bytes(r.ix.data))
    if name not in costs:
        return ""
    names = [a["name"] for a in idl.instructions[name]["accounts"]]
    keys = dict(zip(names, (m.pubkey for m in r.ix.accounts), strict=False))
    created = [a for a in costs[name].new if keys[a] in r.hint.new]
    if name == "settle_proposal":
        return f"settle_proposal ({r.hint.updates} updates{', drops authority' if r.hint.drops_authority else ''})"
    if name == "swap":
        name += " (sells)" if POOL.decode_instruction(bytes(r.ix.data))[1]["base_in"] else " (buys)"
    return " + new ".join([name, *created])


def residuals(rs: list[Run]) -> dict[str, list[int]]:
    """Per case: the units less the model's (each case's measured rest, to compare with its fixed figure)."""
    out: dict[str, list[int]] = defaultdict(list)
    for r in rs:
        if c := case(r):
            out[c].append(r.cu - U.instruction_units(r.ix, r.hint))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--keys", type=int, default=20)
    ap.add_argument("--first-seed", type=int, default=0)
    a = ap.parse_args()
    print(f"{'case':44} {'runs':>5} {'min':>7} {'max':>7}   (measured less the model's: <= 0)")
    for name, v in sorted(residuals(runs(a.keys, a.first_seed)).items()):
        print(f"{name:44} {len(v):5} {min(v):7} {max(v):7}")


if __name__ == "__main__":
    main()
