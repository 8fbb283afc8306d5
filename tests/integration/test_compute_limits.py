"""Every route's landed transaction asks for the units it takes, and not much more: its
SetComputeUnitLimit covers the runtime's `computeUnitsConsumed`, and is at most 10% plus 1,000 over
it (issue 35: the instructions' measured units, a token-account creation when one is needed, and
the margin; partner.chain.units). A limit too generous spreads the user's priority fee thin.

Read off the landed transactions: the message's SetComputeUnitLimit and the runtime's
`computeUnitsConsumed`.
"""

from __future__ import annotations

from testkit.chain import DEEP_BUMP_MINT_SEED, compute_budget, new_coin, wait, warp
from tests.integration import test_coins_create as launch_tests
from tests.integration import test_governance_writes as gov_tests
from tests.integration import test_migration as venue_tests
from tests.integration import test_update_content as content_tests

SOL = 10**9


def fitted(limit: int, used: int) -> bool:
    return used <= limit <= used * 11 // 10 + 1_000


def check(chain_url: str, *signatures: str) -> list[tuple[int, int]]:
    """Each transaction landed with a limit that covers what it used and is at most 10% plus 1,000
    over it -> (limit, used) of each."""
    out = []
    for signature in signatures:
        assert wait(chain_url, signature)["err"] is None
        limit, _, used = compute_budget(chain_url, signature)
        assert limit is not None and fitted(limit, used), (signature, limit, used)
        out.append((limit, used))
    return out


def test_a_mint_with_deep_bump_searches_migrates_at_its_own_limit(chain, aws_stack, whales, crank_signer):
    """A mint's PDA bumps fix its migrate's units (this one's searches take many tries), so the
    crank sizes each mint's limit from its keys (`migration.migrate_units`), and the migrate lands
    at a fitted limit."""
    from solders.keypair import Keypair
    from solders.pubkey import Pubkey

    from partner.chain.rpc import Rpc
    from partner.jobs import migration

    mint = new_coin(chain.url, "Deep Coin", "DEEP", mint=Keypair.from_seed(DEEP_BUMP_MINT_SEED))
    venue_tests.complete(chain, mint, whales)
    migrated = [r for r in migration.crank(Rpc(chain.url), crank_signer) if r["mint"] == mint]
    assert [r["status"] for r in migrated] == ["migrated"], migrated
    [(limit, used)] = check(chain.url, migrated[0]["signature"])
    assert limit == migration.migrate_units(Pubkey.from_string(mint)) and used > 150_000


def ok(result) -> str:
    assert result.status == 200, result.body
    return result.json["signature"]


def test_curve_and_pool_trades(chain, aws_stack, whales, crank_signer):
    from solders.pubkey import Pubkey

    from partner.chain.rpc import Rpc
    from partner.jobs.migration import crank, migrate_units

    mint = new_coin(chain.url, "Units Coin", "UNIT")
    first, _ = whales
    trade = venue_tests.trade
    curve = [
        ok(trade(first, "buy", {"mint": mint, "maxSolIn": str(SOL), "slippageBps": 100})),
        ok(trade(first, "buy-exact-out", {"mint": mint, "tokensOut": str(10**9), "slippageBps": 100})),
        ok(trade(first, "sell", {"mint": mint, "tokensIn": str(10**9), "slippageBps": 100})),
    ]
    check(chain.url, *curve)

    venue_tests.complete(chain, mint, whales)
    migrated = [r for r in crank(Rpc(chain.url), crank_signer) if r["mint"] == mint]
    assert [r["status"] for r in migrated] == ["migrated"], migrated
    # the crank's own transaction, at its limit for this mint
    [(limit, _)] = check(chain.url, migrated[0]["signature"])
    assert limit == migrate_units(Pubkey.from_string(mint))
    warp(chain.url, venue_tests.POOL_OPEN_DELAY + 1)
    pool = [
        ok(trade(first, "buy", {"mint": mint, "maxSolIn": str(SOL), "slippageBps": 100})),
        ok(trade(first, "buy-exact-out", {"mint": mint, "tokensOut": str(10**9), "slippageBps": 100})),
        ok(trade(first, "sell", {"mint": mint, "tokensIn": str(10**9), "slippageBps": 100})),
    ]
    assert venue_tests.pool_of(chain, mint) is not None
    check(chain.url, *pool)


def test_launch_with_a_first_buy(chain, launcher):
    result = launch_tests.create(launcher, launch_tests.form(initialBuySol=str(SOL // 2), slippageBps="100"))
    assert result.status == 200, result.body
    create_sig, buy_sig = result.json["signatures"]
    check(chain.url, create_sig, buy_sig)


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
    check(chain.url, ok(content))
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
    check(chain.url, *signatures)


app_client = gov_tests.app_client  # a fixture: the governance tests' Partner-tier client
