"""A coin launch over HTTP through the gateway: multipart form with an image and a first buy
(one bundle), the status endpoint reporting the bundle, then the creator sells via trades/sell."""

from __future__ import annotations

import os

from testkit.chain import airdrop, balance, token_balance, wait, warp
from testkit.helpers import connect_http, gateway_client

SOL = 10**9
TIP = 1_000_000
PRIO = 10_000
FEES = {"priorityFeeLamports": str(PRIO), "tipLamports": str(TIP)}
REDIRECT = "http://127.0.0.1:9/cb"
PNG = b"\x89PNG\r\n\x1a\n" + os.urandom(64)


def test_launch_with_image_and_first_buy_then_sell_over_http(devstack, chain):
    from partner.chain import curve
    from partnerctl import admin

    client = admin.create_client(admin.NewClient(name="HTTP Launcher", redirect_uri=REDIRECT))
    creator = admin.create_user()
    airdrop(chain.url, creator["wallet"], 5 * SOL)
    sol = SOL // 2
    with gateway_client(devstack.url, timeout=60) as http:
        headers = connect_http(http, client, creator, "coin:create trade:execute", REDIRECT)
        launched = http.post(
            "/partner/v1/coins/create",
            headers=headers,
            data={
                "name": "Gateway Launch",
                "symbol": "gwl",
                "description": "over HTTP",
                "initialBuySol": str(sol),
                "slippageBps": "50",
            },
            files={"image": ("logo.png", PNG, "image/png")},
        )
        assert launched.status_code == 200, launched.text
        body = launched.json()
        assert launched.headers["x-ratelimit-limit"] == "20"
        assert body["status"] == "submitted" and body["imageUri"].startswith("ipfs://")
        assert body["metadataUri"].startswith("ipfs://")
        plan = body["initialBuyPlan"]
        expected, _ = curve.buy_quote(curve.INITIAL_CURVE, sol)
        assert plan["expectedTokensOut"] == str(expected) and plan["clamped"] is False
        mint = body["mint"]
        for signature in body["signatures"]:
            assert wait(chain.url, signature)["err"] is None
        assert token_balance(chain.url, creator["wallet"], mint) == expected

        reported = http.get(f"/partner/v1/transactions/{body['signatures'][1]}/status", headers=headers)
        assert reported.status_code == 200, reported.text
        assert reported.json()["bundle"]["signatures"] == body["signatures"]

        warp(chain.url, 1)
        state = curve.buy(curve.INITIAL_CURVE, sol).state_after
        sell_tokens = expected // 2
        quote, _ = curve.sell_quote(state, sell_tokens)
        lamports_before = balance(chain.url, creator["wallet"])
        selling = {"mint": mint, "tokensIn": str(sell_tokens), "minSolOut": str(quote)}
        sold = http.post("/partner/v1/trades/sell", headers=headers, json={**selling, **FEES})
        assert sold.status_code == 200, sold.text
        assert wait(chain.url, sold.json()["signature"])["err"] is None
        assert token_balance(chain.url, creator["wallet"], mint) == expected - sell_tokens
        assert balance(chain.url, creator["wallet"]) - lamports_before == quote - 5000 - PRIO - TIP
