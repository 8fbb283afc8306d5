"""Venue lifecycle through the real handlers: curve -> migration_pending -> crank -> pool_not_open -> pool."""

from __future__ import annotations

import base64

import pytest
from solders.keypair import Keypair

from testkit.chain import POOL_OPEN_DELAY, balance, new_coin, rpc, token_balance, wait, warp
from testkit.helpers import handler, landed
from testkit.helpers import trade as post_trade

SOL = 10**9
TIP = 1_000_000
PRIO = 10_000
BASE_FEE = 5000
TOKENS = 10**6
SCHEDULED_EVENT = {
    "version": "0",
    "id": "crank-1",
    "detail-type": "Scheduled Event",
    "source": "aws.events",
    "account": "123456789012",
    "time": "2025-01-01T00:00:00Z",
    "region": "us-east-1",
    "resources": ["arn:aws:events:us-east-1:123456789012:rule/partner-migrator"],
    "detail": {},
}


def trade(conn, kind: str, body: dict):
    """The trade, paying the tests' priority fee and tip."""
    return post_trade(conn, kind, {**body, "priorityFeeLamports": str(PRIO), "tipLamports": str(TIP)})


def account(chain, pubkey, cls):
    info = rpc(chain.url, "getAccountInfo", [str(pubkey), {"encoding": "base64"}])["value"]
    return None if info is None else cls.decode(base64.b64decode(info["data"][0]))


def curve_of(chain, mint):
    from partner.chain.layouts import BondingCurve
    from partner.chain.programs import bonding_curve_pda

    return account(chain, bonding_curve_pda(mint)[0], BondingCurve)


def pool_of(chain, mint):
    from partner.chain.layouts import Pool
    from partner.chain.programs import pool_pda

    return account(chain, pool_pda(mint)[0], Pool)


def spent_today(client_id: str) -> int:
    from partner.features.trading import _volume_key
    from partner.store import counters

    return counters.read(_volume_key(client_id)[0])


@pytest.fixture
def coin(chain, aws_stack):
    return new_coin(chain.url, "Moon Coin", "MOON")


def complete(chain, coin, whales) -> None:
    """Buy the curve out: a 40 SOL buy, then a 60 SOL buy capped to what is left."""
    from partner.chain import curve
    from partner.chain.programs import rent_exempt_minimum

    assert curve.sol_to_complete(curve.INITIAL_CURVE) == 85_855_412_648
    first, second = whales
    r1 = trade(first, "buy", {"mint": coin, "maxSolIn": str(40 * SOL), "slippageBps": 100})
    landed(chain.url, r1)
    state = curve.CurveState.of(curve_of(chain, coin))
    capped = curve.buy(state, 60 * SOL)
    assert capped.capped and capped.completes and capped.sol_in < 60 * SOL
    before = balance(chain.url, second.user["wallet"])
    r2 = trade(second, "buy", {"mint": coin, "maxSolIn": str(60 * SOL), "slippageBps": 100})
    landed(chain.url, r2)
    spent = before - balance(chain.url, second.user["wallet"])
    assert spent == capped.sol_in + BASE_FEE + PRIO + TIP + rent_exempt_minimum(170)
    assert token_balance(chain.url, second.user["wallet"], coin) == capped.tokens_out
    total = token_balance(chain.url, first.user["wallet"], coin) + capped.tokens_out
    assert total == 793_100_000 * TOKENS


def test_lifecycle_through_the_crank(chain, coin, whales, crank_signer):
    from partner.chain import pool_math
    from partner.chain.programs import pool_base_vault
    from partner.chain.rpc import Rpc
    from partner.jobs.migration import crank

    complete(chain, coin, whales)
    flags = curve_of(chain, coin)
    assert flags.complete and not flags.migrated
    quote_reserve = flags.real_sol_reserves

    # migration pending: refused before anything is built, and nothing counted
    trader = whales[0]
    client_id = trader.client["client_id"]
    counted = spent_today(client_id)
    for kind, body in (
        ("buy", {"maxSolIn": str(SOL), "slippageBps": 100}),
        ("buy-exact-out", {"tokensOut": str(TOKENS), "slippageBps": 100}),
        ("sell", {"tokensIn": str(TOKENS), "slippageBps": 100}),
    ):
        refused = trade(trader, kind, {"mint": coin, **body})
        assert refused.status == 409, refused.body
        assert refused.json["error"] == "migration_pending" and refused.json["retryable"] is True
    assert spent_today(client_id) == counted

    reports = crank(Rpc(chain.url), crank_signer)
    mine = [r for r in reports if r["mint"] == coin]
    assert len(mine) == 1 and mine[0]["status"] == "migrated", reports
    assert wait(chain.url, mine[0]["signature"])["err"] is None
    flags = curve_of(chain, coin)
    assert flags.complete and flags.migrated and flags.real_sol_reserves == 0
    pool = pool_of(chain, coin)
    assert pool is not None
    assert (
        pool.base_reserve
        == 206_900_000 * TOKENS
        == int(rpc(chain.url, "getTokenAccountBalance", [str(pool_base_vault(coin))])["value"]["amount"])
    )
    assert pool.quote_reserve == quote_reserve

    # the pool opens POOL_OPEN_DELAY chain seconds after the migration
    early = trade(trader, "buy", {"mint": coin, "maxSolIn": str(SOL), "slippageBps": 100})
    assert early.status == 409, early.body
    assert early.json["error"] == "pool_not_open" and early.json["retryable"] is True
    assert spent_today(client_id) == counted

    # a second crank finds nothing to do for this coin
    assert [r for r in crank(Rpc(chain.url), crank_signer) if r["mint"] == coin] == []

    warp(chain.url, POOL_OPEN_DELAY + 1)
    wallet = trader.user["wallet"]
    held = token_balance(chain.url, wallet, coin)
    # buy on the pool, explicit bound = the exact quote
    expected = pool_math.swap_quote_in(pool, SOL, pool.fee_bps).amount_out
    lamports = balance(chain.url, wallet)
    bought = trade(trader, "buy", {"mint": coin, "maxSolIn": str(SOL), "minTokensOut": str(expected)})
    landed(chain.url, bought)
    assert token_balance(chain.url, wallet, coin) == held + expected
    assert lamports - balance(chain.url, wallet) == SOL + BASE_FEE + PRIO + TIP
    assert spent_today(client_id) == counted + SOL
    pool = pool_of(chain, coin)

    # buy exact out on the pool
    want = 1_000_000 * TOKENS
    cost = pool_math.swap_base_out(pool, want, pool.fee_bps).amount_in
    lamports = balance(chain.url, wallet)
    exact = trade(trader, "buy-exact-out", {"mint": coin, "tokensOut": str(want), "maxSolIn": str(cost)})
    landed(chain.url, exact)
    assert token_balance(chain.url, wallet, coin) == held + expected + want
    assert lamports - balance(chain.url, wallet) == cost + BASE_FEE + PRIO + TIP
    pool = pool_of(chain, coin)

    # sell everything back to the pool
    tokens = token_balance(chain.url, wallet, coin)
    proceeds = pool_math.swap_base_in(pool, tokens, pool.fee_bps).amount_out
    lamports = balance(chain.url, wallet)
    sold = trade(trader, "sell", {"mint": coin, "tokensIn": str(tokens), "minSolOut": str(proceeds)})
    landed(chain.url, sold)
    assert token_balance(chain.url, wallet, coin) == 0
    assert balance(chain.url, wallet) - lamports == proceeds - BASE_FEE - PRIO - TIP


def test_scheduled_handler_reports_each_mint_and_survives_a_bad_one(chain, coin, whales, crank_signer, monkeypatch):
    from devstack.events import lambda_context
    from partner.jobs import migration

    complete(chain, coin, whales)
    bogus = Keypair().pubkey()
    found = migration.pending_mints
    monkeypatch.setattr(migration, "pending_mints", lambda r: [bogus, *found(r)])
    summary = handler("migrator")(SCHEDULED_EVENT, lambda_context("MigratorFunction", timeout_seconds=120))
    by_mint = {r["mint"]: r for r in summary["results"]}
    assert by_mint[str(bogus)]["status"] == "failed" and by_mint[str(bogus)]["error"] == "tx_failed"
    assert by_mint[coin]["status"] == "migrated"
    assert summary["found"] == len(summary["results"]) and summary["migrated"] >= 1
    assert curve_of(chain, coin).migrated and pool_of(chain, coin) is not None


def test_a_crank_that_lost_the_race_reports_already_migrated(chain, coin, whales, crank_signer, monkeypatch):
    """Two cranks saw the same complete curve; the program refuses the second migrate."""
    from partner.chain.rpc import Rpc
    from partner.jobs import migration

    complete(chain, coin, whales)
    mint = curve_of(chain, coin).mint
    first = migration.crank(Rpc(chain.url), crank_signer)
    assert {r["mint"]: r["status"] for r in first}[coin] == "migrated"
    crank_lamports = balance(chain.url, str(crank_signer.pubkey))
    monkeypatch.setattr(migration, "pending_mints", lambda r: [mint])  # a stale view of the chain
    same_slot = migration.crank(Rpc(chain.url), crank_signer)  # same blockhash: the identical transaction
    assert same_slot[0]["status"] in ("duplicate", "already_migrated")
    warp(chain.url, 1)  # a new blockhash: a new transaction, which the program refuses
    late = migration.crank(Rpc(chain.url), crank_signer)
    assert late == [{"mint": coin, "status": "already_migrated"}]
    assert balance(chain.url, str(crank_signer.pubkey)) == crank_lamports  # refused in preflight: no fee


def test_crank_with_nothing_to_do(chain, crank_signer, monkeypatch):
    from partner.chain.rpc import Rpc
    from partner.jobs import migration

    monkeypatch.setattr(migration, "pending_mints", lambda r: [])
    assert migration.crank(Rpc(chain.url), crank_signer) == []
    assert migration.summarize([]) == {"found": 0, "results": []}
