"""Trades over HTTP through the gateway, checked on the chain: tokens, partner fee, tip."""

from __future__ import annotations

from solders.keypair import Keypair

from testkit.chain import airdrop, balance, token_balance, wait, warp
from testkit.helpers import connect, gateway_client

SOL = 10**9
TIP = 1_000_000
PRIO = 5_000
FEES = {"priorityFeeLamports": str(PRIO), "tipLamports": str(TIP)}


def test_buy_then_sell_over_http_moves_exact_amounts(devstack, chain, ip):
    from partner.chain import curve
    from partner.chain.tx import TIP_ACCOUNTS
    from partnerctl import admin

    fee_wallet = str(Keypair().pubkey())
    client = admin.create_client(
        admin.NewClient(
            name="HTTP Trader", redirect_uri="http://localhost:8080/callback", tier="Partner", fee_wallet=fee_wallet
        )
    )
    user = admin.create_user()
    airdrop(chain.url, user["wallet"], 10 * SOL)
    conn = connect(client, user, scope="trade:execute", ip=ip)
    from partner.chain.rpc import Rpc
    from partner.store.users import get_user
    from partner.store.wallets import SealedWalletSigner
    from partnerctl.coins import create_coin_now

    creator = admin.create_user()
    airdrop(chain.url, creator["wallet"], SOL)
    mint = create_coin_now(Rpc(chain.url), SealedWalletSigner(get_user(creator["user_id"])), "Gateway Coin", "GATE")
    warp(chain.url, 1)

    headers = {"Authorization": f"Bearer {conn.access}"}
    tips_before = sum(balance(chain.url, str(t)) for t in TIP_ACCOUNTS)
    max_in, bps = 2 * SOL, 125
    fee = max_in * bps // 10_000
    expected, _ = curve.buy_quote(curve.INITIAL_CURVE, max_in - fee)
    with gateway_client(devstack.url, timeout=30) as http:
        buying = {"mint": mint, "maxSolIn": str(max_in), "slippageBps": 50, "partnerFeeBps": bps}
        bought = http.post("/partner/v1/trades/buy", headers=headers, json={**buying, **FEES})
        assert bought.status_code == 200, bought.text
        assert bought.json()["status"] == "submitted"
        assert wait(chain.url, bought.json()["signature"])["err"] is None
        assert token_balance(chain.url, user["wallet"], mint) == expected
        assert balance(chain.url, fee_wallet) == fee
        assert sum(balance(chain.url, str(t)) for t in TIP_ACCOUNTS) - tips_before == TIP

        state = curve.buy(curve.INITIAL_CURVE, max_in - fee).state_after
        sell_tokens = expected // 2
        quote, _ = curve.sell_quote(state, sell_tokens)
        min_out = quote * 9_900 // 10_000  # slippage 100 bps, the bound the service derives
        selling = {"mint": mint, "tokensIn": str(sell_tokens), "slippageBps": 100, "partnerFeeBps": str(bps)}
        sold = http.post("/partner/v1/trades/sell", headers=headers, json={**selling, **FEES})
        assert sold.status_code == 200, sold.text
        assert wait(chain.url, sold.json()["signature"])["err"] is None
        assert token_balance(chain.url, user["wallet"], mint) == expected - sell_tokens
        # the sell fee basis is minSolOut (here derived from the quote)
        assert balance(chain.url, fee_wallet) == fee + min_out * bps // 10_000
        assert sum(balance(chain.url, str(t)) for t in TIP_ACCOUNTS) - tips_before == 2 * TIP

        status = http.get(f"/partner/v1/transactions/{sold.json()['signature']}/status", headers=headers)
        assert status.status_code == 200
        assert status.json()["status"] in ("processed", "confirmed", "finalized")
        assert status.json()["error"] is None
