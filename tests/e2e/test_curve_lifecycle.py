"""A coin's whole venue lifecycle over HTTP through the gateway: bonding curve bought out by several
users, `migration_pending`, migration by the devstack's scheduled migrator, `pool_not_open`, trades on
the pool, everyone sells back. Every token balance moves by exactly the quoted amount."""

from __future__ import annotations

import base64
import time

import httpx

from testkit.chain import POOL_OPEN_DELAY, airdrop, balance, rpc, token_balance, wait, warp
from testkit.helpers import connect_http, gateway_client

SOL = 10**9
TIP = 1_000_000
PRIO = 10_000
NETWORK_FEE = 5000 + PRIO + TIP
TOKENS = 10**6
REDIRECT = "http://127.0.0.1:9/cb"


def account(chain, pubkey, cls):
    info = rpc(chain.url, "getAccountInfo", [str(pubkey), {"encoding": "base64"}])["value"]
    return None if info is None else cls.decode(base64.b64decode(info["data"][0]))


def test_curve_to_pool_lifecycle_over_http(devstack, chain):
    from partner.chain import curve, pool_math
    from partner.chain.layouts import BondingCurve, Pool
    from partner.chain.programs import bonding_curve_pda, pool_base_vault, pool_pda
    from partnerctl import admin, dev

    creator = admin.create_user()
    airdrop(chain.url, creator["wallet"], SOL)
    mint = dev.create_coin(creator["user_id"], "Lifecycle Coin", "LIFE")["mint"]
    warp(chain.url, 1)
    curve_key, pool_key = bonding_curve_pda(mint)[0], pool_pda(mint)[0]

    client = admin.create_client(
        admin.NewClient(
            name="Lifecycle App",
            redirect_uri=REDIRECT,
            max_trade_lamports=100 * SOL,
            daily_volume_cap_lamports=1000 * SOL,
        )
    )
    users = [admin.create_user() for _ in range(3)]
    for user in users:
        airdrop(chain.url, user["wallet"], 100 * SOL)

    with gateway_client(devstack.url, timeout=60) as http:
        auth = [connect_http(http, client, user, "trade:execute", REDIRECT) for user in users]

        def trade(i: int, kind: str, **body: str) -> httpx.Response:
            return http.post(
                f"/partner/v1/trades/{kind}",
                headers=auth[i],
                json={"mint": mint, "priorityFeeLamports": str(PRIO), "tipLamports": str(TIP), **body},
            )

        def landed(response: httpx.Response) -> str:
            assert response.status_code == 200, response.text
            assert response.json()["status"] == "submitted"
            signature = response.json()["signature"]
            assert wait(chain.url, signature)["err"] is None
            return signature

        # bonding: three buys with the exact quote as the bound; the last one is capped and completes it
        held = [0, 0, 0]
        for i, sol_in in enumerate((30 * SOL, 30 * SOL, 40 * SOL)):
            state = curve.CurveState.of(account(chain, curve_key, BondingCurve))
            quote = curve.buy(state, sol_in)
            lamports = balance(chain.url, users[i]["wallet"])
            landed(trade(i, "buy", maxSolIn=str(sol_in), minTokensOut=str(quote.tokens_out)))
            held[i] = quote.tokens_out
            assert token_balance(chain.url, users[i]["wallet"], mint) == held[i]
            ata_rent = (128 + 170) * 6960  # a Token-2022 ATA (ImmutableOwner)
            assert lamports - balance(chain.url, users[i]["wallet"]) == quote.sol_in + NETWORK_FEE + ata_rent
            assert quote.capped == (i == 2)
        assert sum(held) == 793_100_000 * TOKENS
        flags = account(chain, curve_key, BondingCurve)
        assert flags.complete and not flags.migrated and flags.real_token_reserves == 0

        # migration pending: retryable 409s, nothing sent
        for kind, body in (
            ("buy", {"maxSolIn": str(SOL), "slippageBps": 100}),
            ("sell", {"tokensIn": str(TOKENS), "slippageBps": 100}),
        ):
            refused = trade(0, kind, **body)
            assert refused.status_code == 409, refused.text
            assert refused.json()["error"] == "migration_pending" and refused.json()["retryable"] is True
        assert token_balance(chain.url, users[0]["wallet"], mint) == held[0]

        # the devstack's timer runs the scheduled migrator
        timer = devstack.start_schedules(0.25)
        try:
            deadline = time.monotonic() + 20
            while account(chain, pool_key, Pool) is None:
                assert time.monotonic() < deadline, "the scheduled migrator did not migrate the curve"
                time.sleep(0.05)
            early = trade(1, "buy", maxSolIn=str(SOL), slippageBps=100)
        finally:
            timer.stop()
        assert early.status_code == 409, early.text
        assert early.json()["error"] == "pool_not_open" and early.json()["retryable"] is True
        flags = account(chain, curve_key, BondingCurve)
        assert flags.complete and flags.migrated and flags.real_sol_reserves == 0
        pool = account(chain, pool_key, Pool)
        assert pool.base_reserve == 206_900_000 * TOKENS

        # the pool opens 2 s after the migration
        warp(chain.url, POOL_OPEN_DELAY + 1)
        pool = account(chain, pool_key, Pool)
        bought = pool_math.swap_quote_in(pool, 2 * SOL, pool.fee_bps).amount_out
        signature = landed(trade(0, "buy", maxSolIn=str(2 * SOL), minTokensOut=str(bought)))
        held[0] += bought
        assert token_balance(chain.url, users[0]["wallet"], mint) == held[0]
        pool = account(chain, pool_key, Pool)
        exact = 5_000_000 * TOKENS
        cost = pool_math.swap_base_out(pool, exact, pool.fee_bps).amount_in
        landed(trade(1, "buy-exact-out", tokensOut=str(exact), maxSolIn=str(cost)))
        held[1] += exact
        assert token_balance(chain.url, users[1]["wallet"], mint) == held[1]

        # everyone sells everything back to the pool, at exactly the quoted proceeds
        for i, user in enumerate(users):
            pool = account(chain, pool_key, Pool)
            proceeds = pool_math.swap_base_in(pool, held[i], pool.fee_bps).amount_out
            lamports = balance(chain.url, user["wallet"])
            landed(trade(i, "sell", tokensIn=str(held[i]), minSolOut=str(proceeds)))
            assert token_balance(chain.url, user["wallet"], mint) == 0
            assert balance(chain.url, user["wallet"]) - lamports == proceeds - NETWORK_FEE

        pool = account(chain, pool_key, Pool)
        vault = rpc(chain.url, "getTokenAccountBalance", [str(pool_base_vault(mint))])["value"]["amount"]
        assert pool.base_reserve == int(vault) == 1_000_000_000 * TOKENS
        assert token_balance(chain.url, str(curve_key), mint) == 0

        # the status endpoint follows a pool trade to finality
        warp(chain.url, 15)
        status = http.get(f"/partner/v1/transactions/{signature}/status", headers=auth[2])
        assert status.status_code == 200, status.text
        assert status.json()["status"] == "finalized" and status.json()["error"] is None
