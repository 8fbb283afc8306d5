"""Every route's transaction lands on the SBF programs with the compute-unit limit of its purpose
(`partner.features.pipeline.UNIT_LIMITS`), never below what it uses, and each program
instruction in it stays within the stated margin of the measured table (docs/benchmarks.md
section 6, `bench/compute_units.py`): at most its largest figure times MARGIN (runs differ with
the keys: each try of a PDA bump search costs 1,500 CU). No lower bound: paths differ (a settle
that applies no change makes no Token-2022 CPI). So the table stays true for the transactions the
service really sends.

Read off the landed transactions: the message's SetComputeUnitLimit, the runtime's
`computeUnitsConsumed`, and each top-level program's `consumed` log line.
"""

from __future__ import annotations

import base64
import re
import struct
from pathlib import Path

from solders.transaction import VersionedTransaction

from tests.chainutil import DEEP_BUMP_MINT_SEED, new_coin, rpc, wait, warp
from tests.integration import test_coins_create as launch_tests
from tests.integration import test_governance_writes as gov_tests
from tests.integration import test_migration as venue_tests
from tests.integration import test_update_content as content_tests

SOL = 10**9
COMPUTE_BUDGET = "ComputeBudget111111111111111111111111111111"
CONSUMED = re.compile(r"^Program (\w+) consumed (\d+) of \d+ compute units$")


def table() -> dict[tuple[str, str], tuple[int, int]]:
    """docs/benchmarks.md section 6: (program, instruction) -> (min CU, max CU)."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "benchmarks.md").read_text()
    section = doc.split("## 6. Compute units per instruction (SBF programs)")[1].split("\n## ")[0]
    return {
        (p, n): (int(lo), int(hi))
        for p, n, lo, hi in re.findall(
            r"^\| (launchpad|pool) \| (\w+) \| (\d+) \| \d+ \| (\d+) \| \d+ \|$", section, re.M
        )
    }


def top_level_units(logs: list[str]) -> list[tuple[str, int]]:
    """(program id, units) of each top-level instruction, its CPIs included."""
    out, depth = [], 0
    for line in logs:
        if m := re.match(r"^Program (\w+) invoke \[(\d+)\]$", line):
            depth = int(m.group(2))
        elif (m := CONSUMED.match(line)) and depth == 1:
            out.append((m.group(1), int(m.group(2))))
        elif re.match(r"^Program \w+ (success|failed)", line):
            depth -= 1
    return out


def check(
    chain_url: str, purpose: str, *signatures: str, limit: int | None = None, within_table: bool = True
) -> list[int]:
    """Each transaction's limit is `limit` (the purpose's when None) and covers what it used; its program
    instruction is within MARGIN of the table (unless `within_table` is false) -> each one's units."""
    from partner.chain.idls import LAUNCHPAD, POOL
    from partner.features import pipeline

    units_of = []

    programs = {str(LAUNCHPAD.address): ("launchpad", LAUNCHPAD), str(POOL.address): ("pool", POOL)}
    figures = table()
    for signature in signatures:
        assert wait(chain_url, signature)["err"] is None
        tx = rpc(chain_url, "getTransaction", [signature, {"encoding": "base64", "maxSupportedTransactionVersion": 0}])
        message = VersionedTransaction.from_bytes(base64.b64decode(tx["transaction"][0])).message
        keys = [str(k) for k in message.account_keys]
        limits = [
            struct.unpack_from("<I", bytes(ix.data), 1)[0]
            for ix in message.instructions
            if keys[ix.program_id_index] == COMPUTE_BUDGET and bytes(ix.data)[:1] == b"\x02"
        ]
        assert limits == [limit or pipeline.UNIT_LIMITS[purpose]], (purpose, limits)
        assert 0 < tx["meta"]["computeUnitsConsumed"] <= limits[0], (purpose, signature)
        ours = [
            (keys[ix.program_id_index], bytes(ix.data))
            for ix in message.instructions
            if keys[ix.program_id_index] in programs
        ]
        used = [(p, n) for p, n in top_level_units(tx["meta"]["logMessages"]) if p in programs]
        assert len(ours) == 1 and [p for p, _ in used] == [ours[0][0]], (purpose, signature)
        name, idl = programs[ours[0][0]]
        _, high = figures[(name, idl.instruction_name(ours[0][1]))]
        units = used[0][1]
        assert 0 < units and (units <= high * pipeline.MARGIN or not within_table), (purpose, name, units, high)
        units_of.append(units)
    return units_of


def test_a_mint_whose_migrate_outgrows_the_stated_limit_still_migrates(chain, aws_stack, whales, crank_signer):
    """A mint's PDA bumps fix its migrate's units, so a limit too small for one mint fails on every
    retry. This mint's take more than the stated migrate limit; the crank sizes each mint's limit
    (`migration.migrate_units`), and the migrate lands."""
    from solders.keypair import Keypair
    from solders.pubkey import Pubkey

    from partner.chain.rpc import Rpc
    from partner.features import migration, pipeline

    mint = new_coin(chain.url, "Deep Coin", "DEEP", mint=Keypair.from_seed(DEEP_BUMP_MINT_SEED))
    venue_tests.complete(chain, mint, whales)
    migrated = [r for r in migration.crank(Rpc(chain.url), crank_signer) if r["mint"] == mint]
    assert [r["status"] for r in migrated] == ["migrated"], migrated
    limit = migration.migrate_units(Pubkey.from_string(mint))
    [units] = check(chain.url, "migrate", migrated[0]["signature"], limit=limit, within_table=False)
    bound = migration.migrate_units_bound(Pubkey.from_string(mint))
    assert pipeline.UNIT_LIMITS["migrate"] < bound - migration.ATA_PATH_UNITS <= units <= bound < limit


def ok(result) -> str:
    assert result.status == 200, result.body
    return result.json["signature"]


def test_curve_and_pool_trades(chain, aws_stack, whales, crank_signer):
    from solders.pubkey import Pubkey

    from partner.chain.rpc import Rpc
    from partner.features.migration import crank, migrate_units

    mint = new_coin(chain.url, "Units Coin", "UNIT")
    first, _ = whales
    trade = venue_tests.trade
    curve = [
        ok(trade(first, "buy", {"mint": mint, "maxSolIn": str(SOL), "slippageBps": 100})),
        ok(trade(first, "buy-exact-out", {"mint": mint, "tokensOut": str(10**9), "slippageBps": 100})),
        ok(trade(first, "sell", {"mint": mint, "tokensIn": str(10**9), "slippageBps": 100})),
    ]
    check(chain.url, "trade", *curve)

    venue_tests.complete(chain, mint, whales)
    migrated = [r for r in crank(Rpc(chain.url), crank_signer) if r["mint"] == mint]
    assert [r["status"] for r in migrated] == ["migrated"], migrated
    # the crank's own transaction, at its limit for this mint (the stated one but for deep bumps)
    check(chain.url, "migrate", migrated[0]["signature"], limit=migrate_units(Pubkey.from_string(mint)))
    warp(chain.url, venue_tests.POOL_OPEN_DELAY + 1)
    pool = [
        ok(trade(first, "buy", {"mint": mint, "maxSolIn": str(SOL), "slippageBps": 100})),
        ok(trade(first, "buy-exact-out", {"mint": mint, "tokensOut": str(10**9), "slippageBps": 100})),
        ok(trade(first, "sell", {"mint": mint, "tokensIn": str(10**9), "slippageBps": 100})),
    ]
    assert venue_tests.pool_of(chain, mint) is not None
    check(chain.url, "trade", *pool)


def test_launch_with_a_first_buy(chain, launcher):
    result = launch_tests.create(launcher, launch_tests.form(initialBuySol=str(SOL // 2), slippageBps="100"))
    assert result.status == 200, result.body
    create_sig, buy_sig = result.json["signatures"]
    check(chain.url, "coin_create", create_sig)
    check(chain.url, "first_buy", buy_sig)


def test_governance_writes(chain, aws_stack, app_client, pin_server):
    """Every governance write route: update-content, votes, votes/cancel, proposals/settle,
    votes/withdraw, bonds/withdraw, proposals/finalize-metadata, proposals/extend-mutability and
    metadata/finalize-expired."""
    mint = new_coin(chain.url, "Gov Units", "GOVU")
    proposer = gov_tests.member(chain, app_client, mint, gov_tests.BOND * 3)
    voter = gov_tests.member(chain, app_client, mint, gov_tests.QUORUM)
    canceller = gov_tests.member(chain, app_client, mint, gov_tests.T)
    content = content_tests.post_form(
        proposer, content_tests.base_fields(mint, symbol="UNIT2", voteDurationSeconds="60")
    )
    check(chain.url, "propose_update_content", ok(content))
    proposal = content.json["proposal"]
    signatures = [
        ok(gov_tests.gov(voter, "vote", {"proposal": proposal, "side": "yes", "amount": str(gov_tests.QUORUM)})),
        ok(gov_tests.gov(canceller, "vote", {"proposal": proposal, "side": "no", "amount": str(gov_tests.T)})),
        ok(gov_tests.gov(canceller, "cancel", {"proposal": proposal})),
    ]
    warp(chain.url, 61)
    signatures.append(ok(gov_tests.gov(voter, "settle", {"proposal": proposal})))
    signatures.append(ok(gov_tests.gov(voter, "withdraw", {"proposal": proposal})))
    signatures.append(ok(gov_tests.gov(proposer, "bond", {"proposal": proposal})))
    final = gov_tests.ok(gov_tests.gov(proposer, "finalize", {"mint": mint, "voteDurationSeconds": "60"}))
    signatures.append(final["signature"])
    warp(chain.url, 61)
    signatures.append(ok(gov_tests.gov(voter, "settle", {"proposal": final["proposal"]})))  # no votes: fails
    # two failed proposals doubled the bond twice (the proposal slot): two free days bring it back
    warp(chain.url, gov_tests.governance_of(chain, mint).bond_level * 86_400)
    signatures.append(gov_tests.propose_extend(proposer, mint)["signature"])  # create_proposal, the largest
    governance = gov_tests.governance_of(chain, mint)
    assert not governance.finalized
    now = warp(chain.url, 0)["unixTimestamp"]
    warp(chain.url, governance.mutable_until - now + 1)  # the mutability window lapses
    signatures.append(ok(gov_tests.gov(proposer, "expired", {"mint": mint})))
    assert gov_tests.governance_of(chain, mint).finalized_by_expiry
    check(chain.url, "governance", *signatures)


app_client = gov_tests.app_client  # a fixture: the governance tests' Partner-tier client
