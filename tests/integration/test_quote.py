"""POST /partner/v1/trades/quote through the real handlers against moto and the devstack chain.

For each side, on the curve and on the pool: quote, then the same trade in explicit mode with the
quote's bound, and the amounts that move on-chain equal the quote exactly (tokens, the wallet's
lamports, the protocol fee, the partner fee). Plus the venue errors, the input rules, the read
bucket, and that a quote signs, sends and counts nothing."""

from __future__ import annotations

import pytest
from solders.keypair import Keypair

from testkit.chain import POOL_OPEN_DELAY, airdrop, balance, new_coin, rpc, token_balance, wait, warp
from testkit.helpers import connect, invoke, partner_client
from testkit.helpers import trade as post_trade
from tests.integration.test_migration import complete

SOL = 10**9
TOKENS = 10**6
TIP = 1_000_000
PRIO = 10_000
BASE_FEE = 5000
FEE_BPS = 150


def quote(conn, body: dict):
    return post_trade(conn, "quote", body)


def trade(conn, kind: str, body: dict):
    """The trade, paying the tests' priority fee and tip."""
    return post_trade(conn, kind, {**body, "priorityFeeLamports": str(PRIO), "tipLamports": str(TIP)})


def fee_recipient(chain, mint: str, venue: str) -> str:
    from solders.pubkey import Pubkey

    from partner.chain.rpc import Rpc
    from partner.chain.state import read_coin

    state = read_coin(Rpc(chain.url), Pubkey.from_string(mint), Keypair().pubkey())
    return str(state.global_config.fee_recipient if venue == "curve" else state.pool.fee_recipient)


@pytest.fixture
def trader(aws_stack, chain, ip, fee_wallet):
    """A Partner-tier client with a fee wallet and caps that fit, and a user with 60 SOL."""
    from partnerctl import admin

    client = partner_client(
        "Quoting App", fee_wallet=fee_wallet, max_trade_lamports=100 * SOL, daily_volume_cap_lamports=1000 * SOL
    )
    user = admin.create_user()
    airdrop(chain.url, user["wallet"], 60 * SOL)
    return connect(client, user, scope="trade:execute", ip=ip)


def quote_then_trade(chain, conn, mint: str, venue: str, fee_wallet: str, side: str, amount: int) -> dict:
    """Quote, trade at once in explicit mode with the quote's bound, compare every amount."""
    from partner.chain.programs import rent_exempt_minimum

    wallet = conn.user["wallet"]
    amount_field = {"buy": "maxSolIn", "buy-exact-out": "tokensOut", "sell": "tokensIn"}[side]
    q = quote(
        conn, {"side": side, "mint": mint, amount_field: str(amount), "slippageBps": 300, "partnerFeeBps": FEE_BPS}
    )
    assert q.status == 200, q.body
    body = q.json
    assert body["venue"] == venue
    assert isinstance(body["priceImpactBps"], int) and body["priceImpactBps"] >= 0
    assert isinstance(body["contextSlot"], int) and body["contextSlot"] <= rpc(chain.url, "getSlot")
    recipient = fee_recipient(chain, mint, venue)
    before = {
        "lamports": balance(chain.url, wallet),
        "tokens": token_balance(chain.url, wallet, mint),
        "protocol": balance(chain.url, recipient),
        "partner": balance(chain.url, fee_wallet),
    }
    ata_rent = 0 if before["tokens"] or side == "sell" else rent_exempt_minimum(170)
    network = BASE_FEE + PRIO + TIP
    request = {"mint": mint, amount_field: str(amount), "partnerFeeBps": FEE_BPS}
    if side == "buy":
        request["minTokensOut"] = body["minTokensOut"]
    elif side == "buy-exact-out":
        request["maxSolIn"] = body["maxSolIn"]
    else:
        request["minSolOut"] = body["minSolOut"]
    sent = trade(conn, side, request)
    assert sent.status == 200, sent.body
    assert wait(chain.url, sent.json["signature"])["err"] is None
    after = {
        "lamports": balance(chain.url, wallet),
        "tokens": token_balance(chain.url, wallet, mint),
        "protocol": balance(chain.url, recipient),
        "partner": balance(chain.url, fee_wallet),
    }
    assert after["protocol"] - before["protocol"] == int(body["protocolFeeLamports"])
    assert after["partner"] - before["partner"] == int(body["partnerFeeLamports"])
    if side == "buy":
        assert after["tokens"] - before["tokens"] == int(body["expectedTokensOut"])
        assert int(body["minTokensOut"]) == int(body["expectedTokensOut"]) * (10_000 - 300) // 10_000
        assert int(body["partnerFeeLamports"]) == amount * FEE_BPS // 10_000
        if not body["completesCurve"]:
            assert before["lamports"] - after["lamports"] == amount + network + ata_rent
    elif side == "buy-exact-out":
        assert after["tokens"] - before["tokens"] == amount
        assert before["lamports"] - after["lamports"] == int(body["expectedSolIn"]) + network + ata_rent
        assert int(body["expectedSolIn"]) <= int(body["maxSolIn"])
    else:
        assert before["tokens"] - after["tokens"] == amount
        assert (
            after["lamports"] - before["lamports"]
            == int(body["expectedSolOut"]) - int(body["partnerFeeLamports"]) - network
        )
        assert int(body["partnerFeeLamports"]) == int(body["minSolOut"]) * FEE_BPS // 10_000
    return body


def test_quote_then_trade_on_the_curve_is_exact(chain, trader, fee_wallet):
    mint = new_coin(chain.url, "Quote Coin", "QUOTE")
    buy = quote_then_trade(chain, trader, mint, "curve", fee_wallet, "buy", 2 * SOL)
    assert buy["completesCurve"] is False and buy["priceImpactBps"] > 0
    quote_then_trade(chain, trader, mint, "curve", fee_wallet, "buy-exact-out", 3_000_000 * TOKENS)
    quote_then_trade(chain, trader, mint, "curve", fee_wallet, "sell", 1_500_000 * TOKENS)


def test_venue_errors_then_quote_then_trade_on_the_pool_is_exact(chain, trader, fee_wallet, whales, crank_signer):
    from partner.chain.rpc import Rpc
    from partner.jobs.migration import crank

    mint = new_coin(chain.url, "Pool Quote", "PQUOTE")
    # a quote that completes the curve says so
    completing = quote(trader, {"side": "buy", "mint": mint, "maxSolIn": str(90 * SOL)})
    assert completing.status == 200 and completing.json["completesCurve"] is True, completing.body
    complete(chain, mint, whales)
    bodies = [
        {"side": "buy", "maxSolIn": str(SOL)},
        {"side": "buy-exact-out", "tokensOut": str(TOKENS)},
        {"side": "sell", "tokensIn": str(TOKENS)},
    ]
    for body in bodies:
        pending = quote(trader, {**body, "mint": mint})
        assert pending.status == 409 and pending.json["error"] == "migration_pending", pending.body
    assert [r["status"] for r in crank(Rpc(chain.url), crank_signer) if r["mint"] == mint] == ["migrated"]
    for body in bodies:
        early = quote(trader, {**body, "mint": mint})
        assert early.status == 409 and early.json["error"] == "pool_not_open", early.body
    warp(chain.url, POOL_OPEN_DELAY + 1)
    huge = quote(trader, {"side": "buy-exact-out", "mint": mint, "tokensOut": str(206_900_000 * TOKENS)})
    assert huge.status == 422 and huge.json["error"] == "insufficient_liquidity", huge.body

    quote_then_trade(chain, trader, mint, "pool", fee_wallet, "buy", 3 * SOL)
    quote_then_trade(chain, trader, mint, "pool", fee_wallet, "buy-exact-out", 2_000_000 * TOKENS)
    quote_then_trade(chain, trader, mint, "pool", fee_wallet, "sell", 1_000_000 * TOKENS)


def test_quote_signs_sends_and_counts_nothing_and_needs_no_delegation(aws_stack, chain, trader):
    from partnerctl import admin
    from tests.integration.test_faults import volume

    mint = new_coin(chain.url, "Quiet Coin", "QUIET")
    admin.set_delegation(trader.user["user_id"], False)
    wallet = trader.user["wallet"]
    before = (
        balance(chain.url, wallet),
        rpc(chain.url, "getSignaturesForAddress", [wallet]),
        volume(trader.client["client_id"]),
    )
    result = quote(trader, {"side": "buy", "mint": mint, "maxSolIn": str(SOL)})
    assert result.status == 200, result.body
    assert result.headers["x-ratelimit-limit"] == "300"  # the read bucket
    assert set(result.json) == {
        "venue",
        "expectedTokensOut",
        "minTokensOut",
        "protocolFeeLamports",
        "partnerFeeLamports",
        "priceImpactBps",
        "completesCurve",
        "contextSlot",
    }
    assert result.json["minTokensOut"] == result.json["expectedTokensOut"]  # slippageBps defaults to 0
    assert result.json["partnerFeeLamports"] == "0"
    assert (
        balance(chain.url, wallet),
        rpc(chain.url, "getSignaturesForAddress", [wallet]),
        volume(trader.client["client_id"]),
    ) == before
    # no wallet SOL needed either, and the Idempotency-Key header is not read on a quote
    again = invoke(
        "trades_quote",
        "POST",
        "/partner/v1/trades/quote",
        headers={**trader.bearer(), "Content-Type": "application/json", "Idempotency-Key": "q"},
        body={"side": "buy", "mint": mint, "maxSolIn": str(SOL)},
    )
    assert again.status == 200 and "idempotent-replayed" not in again.headers


@pytest.mark.parametrize(
    "body,code,field",
    [
        ({"side": "buy"}, "invalid_input", "maxSolIn"),
        ({"side": "buy", "maxSolIn": "1000", "tokensIn": "5"}, "invalid_input", "tokensIn"),
        ({"side": "sell", "maxSolIn": "1000"}, "invalid_input", "tokensIn"),
        ({"side": "swap", "maxSolIn": "1000"}, "invalid_input", "side"),
        ({"side": "buy", "maxSolIn": "0"}, "invalid_input", "maxSolIn"),
        ({"side": "buy", "maxSolIn": "1.5"}, "invalid_input", "maxSolIn"),
        ({"side": "buy", "maxSolIn": "1000", "slippageBps": 5001}, "invalid_input", "slippageBps"),
        ({"side": "buy", "maxSolIn": "1000", "slippageBps": "10"}, "invalid_input", "slippageBps"),
        ({"side": "buy", "maxSolIn": "1000", "partnerFeeBps": 10000}, "invalid_partner_fee", "partnerFeeBps"),
        ({"side": "buy", "maxSolIn": "1000", "priorityFeeLamports": "10000"}, "invalid_input", "priorityFeeLamports"),
        ({"side": "buy", "maxSolIn": "1000", "mint": "nope"}, "invalid_input", "mint"),
    ],
)
def test_quote_input_errors(chain, trader, body, code, field):
    mint = body.pop("mint", str(Keypair().pubkey()))
    result = quote(trader, {"mint": mint, **body})
    assert result.status == 400, result.body
    assert result.json["error"] == code and field in result.json["message"]


def test_quote_partner_fee_rules_and_unknown_mint(aws_stack, chain, ip):
    from partnerctl import admin

    basic = connect(
        admin.create_client(admin.NewClient(name="Basic Quotes", redirect_uri="http://localhost:8080/callback")),
        admin.create_user(),
        scope="trade:execute",
        ip=ip,
    )
    mint = new_coin(chain.url, "Fee Coin", "FEEQ")
    refused = quote(basic, {"side": "buy", "mint": mint, "maxSolIn": str(SOL), "partnerFeeBps": 10})
    assert refused.status == 400 and refused.json["error"] == "partner_fee_not_configured"
    assert quote(basic, {"side": "buy", "mint": mint, "maxSolIn": str(SOL), "partnerFeeBps": 0}).status == 200
    unknown = quote(basic, {"side": "sell", "mint": str(Keypair().pubkey()), "tokensIn": "5"})
    assert unknown.status == 400 and unknown.json["error"] == "invalid_input"


def test_quote_needs_the_trade_scope(aws_stack, chain, ip):
    from partnerctl import admin

    client = admin.create_client(admin.NewClient(name="Reader", redirect_uri="http://localhost:8080/callback"))
    conn = connect(client, admin.create_user(), scope="profile:read", ip=ip)
    result = quote(conn, {"side": "buy", "mint": str(Keypair().pubkey()), "maxSolIn": "1"})
    assert result.status == 403 and result.json["error"] == "insufficient_scope"


@pytest.mark.parametrize(
    "side,body,field",
    [
        ("buy", {"maxSolIn": "1"}, "maxSolIn"),
        ("buy", {"maxSolIn": "1", "slippageBps": 100}, "maxSolIn"),
        ("sell", {"tokensIn": "1000"}, "tokensIn"),
        ("sell", {"tokensIn": "1000", "slippageBps": 100}, "tokensIn"),
    ],
)
def test_dust_quotes_give_the_trades_error(chain, trader, side, body, field):
    """Issue 17 item 3: an amount that buys nothing or sells for 0 lamports is the same clear 400 on the
    quote as on the trade (tests/integration/test_trades.py test_a_dust_*), not a 200 quoting 0."""
    mint = new_coin(chain.url, "Dust Coin", "DUST")
    result = quote(trader, {"side": side, "mint": mint, **body})
    assert result.status == 400, result.body
    assert (result.json["error"], result.json["field"]) == ("invalid_input", field)


def test_a_buy_past_the_curves_last_tokens_answers_the_capped_amount(chain, trader):
    """Issue 39 (2): a buy asking for more than the curve has left was capped silently (buy-exact-out
    with tokensOut u64-max quoted maxSolIn for fewer tokens, nothing said how many). The quote and
    the trade now add `cappedTokensOut` (the curve's last tokens: what the buy gets) and
    `cappedSolIn` (what the curve takes for them, its protocol fee included); absent otherwise."""
    from solders.pubkey import Pubkey

    from partner.chain.rpc import Rpc
    from partner.chain.state import read_coin

    mint = new_coin(chain.url, "Capped Coin", "CAPD")
    left = read_coin(Rpc(chain.url), Pubkey.from_string(mint), Keypair().pubkey()).curve.real_token_reserves
    exact = quote(trader, {"side": "buy-exact-out", "mint": mint, "tokensOut": str(2**64 - 1)})
    assert exact.status == 200, exact.body
    assert exact.json["cappedTokensOut"] == str(left) and exact.json["completesCurve"] is True
    assert int(exact.json["expectedSolIn"]) == int(exact.json["cappedSolIn"])  # no partner fee asked
    spend = quote(trader, {"side": "buy", "mint": mint, "maxSolIn": str(99 * SOL)})
    assert spend.status == 200, spend.body
    assert spend.json["cappedTokensOut"] == spend.json["expectedTokensOut"] == str(left)
    assert spend.json["cappedSolIn"] == exact.json["cappedSolIn"] and int(spend.json["cappedSolIn"]) < 99 * SOL
    small = quote(trader, {"side": "buy-exact-out", "mint": mint, "tokensOut": str(left)})
    assert "cappedTokensOut" not in small.json and "cappedSolIn" not in small.json  # exactly what is left
    # the trade answers it too, and gets exactly that many tokens
    airdrop(chain.url, trader.user["wallet"], 100 * SOL)
    body = {"mint": mint, "tokensOut": str(10 * left), "maxSolIn": exact.json["maxSolIn"]}
    done = trade(trader, "buy-exact-out", body)
    assert done.status == 200, done.body
    assert done.json["cappedTokensOut"] == str(left) and done.json["cappedSolIn"] == exact.json["cappedSolIn"]
    wait(chain.url, done.json["signature"])
    assert token_balance(chain.url, trader.user["wallet"], mint) == left
