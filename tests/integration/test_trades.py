"""Trades through the real handlers against moto and the devstack chain: exact on-chain effects."""

from __future__ import annotations

import pytest
from solders.keypair import Keypair

from testkit.chain import airdrop, balance, token_balance, wait
from testkit.helpers import FEES, buy, connect, trade

SOL = 10**9
TIP = 1_000_000
PRIO = 10_000


def test_buy_slippage_mode_moves_exact_tokens_fee_and_tip(chain, coin, partner_conn, fee_wallet):
    from partner.chain import curve
    from partner.chain.tx import TIP_ACCOUNTS

    wallet = partner_conn.user["wallet"]
    tips_before = {str(t): balance(chain.url, str(t)) for t in TIP_ACCOUNTS}
    max_in, bps = 1 * SOL, 250
    partner_fee = max_in * bps // 10_000
    expected_tokens, _ = curve.buy_quote(curve.INITIAL_CURVE, max_in - partner_fee)
    result = trade(
        partner_conn, "buy", {"mint": coin, "maxSolIn": str(max_in), "slippageBps": 100, "partnerFeeBps": bps, **FEES}
    )
    assert result.status == 200, result.body
    assert result.json["status"] == "submitted" and result.json["mint"] == coin
    assert result.headers["x-ratelimit-limit"] == "60"
    status = wait(chain.url, result.json["signature"])
    assert status["err"] is None
    assert token_balance(chain.url, wallet, coin) == expected_tokens
    assert balance(chain.url, fee_wallet) == partner_fee
    tips_after = {str(t): balance(chain.url, str(t)) for t in TIP_ACCOUNTS}
    assert sum(tips_after.values()) - sum(tips_before.values()) == TIP


def test_sell_explicit_mode_returns_sol(chain, coin, partner_conn):

    wallet = partner_conn.user["wallet"]
    bought = trade(
        partner_conn,
        "buy-exact-out",
        {"mint": coin, "tokensOut": str(5_000_000 * 10**6), "maxSolIn": str(2 * SOL), **FEES},
    )
    assert bought.status == 200, bought.body
    wait(chain.url, bought.json["signature"])
    assert token_balance(chain.url, wallet, coin) == 5_000_000 * 10**6
    lamports_before = balance(chain.url, wallet)
    sold = trade(partner_conn, "sell", {"mint": coin, "tokensIn": str(2_000_000 * 10**6), "minSolOut": "0", **FEES})
    assert sold.status == 200, sold.body
    assert wait(chain.url, sold.json["signature"])["err"] is None
    assert token_balance(chain.url, wallet, coin) == 3_000_000 * 10**6
    gained = balance(chain.url, wallet) - lamports_before
    # proceeds minus the base fee, priority fee and tip
    assert gained > 0
    assert gained == _sell_net(chain, coin, 2_000_000 * 10**6, before_tokens=5_000_000 * 10**6) - 5000 - PRIO - TIP


def _sell_net(chain, coin, tokens, before_tokens):
    from partner.chain import curve

    state = curve.buy_exact_out(curve.INITIAL_CURVE, before_tokens).state_after
    return curve.sell_quote(state, tokens)[0]


@pytest.mark.parametrize(
    "body,code,field",
    [
        ({"maxSolIn": "1.5"}, "invalid_input", "maxSolIn"),
        ({"maxSolIn": "0"}, "invalid_input", "maxSolIn"),
        ({"maxSolIn": 1000}, "invalid_input", "maxSolIn"),
        ({"maxSolIn": "18446744073709551616"}, "invalid_input", "maxSolIn"),
        ({"maxSolIn": "1000", "priorityFeeLamports": "999"}, "invalid_input", "priorityFeeLamports"),
        ({"maxSolIn": "1000", "tipLamports": "999999"}, "invalid_input", "tipLamports"),
        ({"maxSolIn": "1000", "slippageBps": 5001}, "invalid_input", "slippageBps"),
        ({"maxSolIn": "1000", "slippageBps": "100"}, "invalid_input", "slippageBps"),
        ({"maxSolIn": "1000", "slippageBps": None}, "invalid_input", "slippageBps"),
        ({"maxSolIn": "1000", "partnerFeeBps": 10000}, "invalid_partner_fee", "partnerFeeBps"),
        ({"maxSolIn": "1000", "partnerFeeBps": "1.5"}, "invalid_partner_fee", "partnerFeeBps"),
        ({"maxSolIn": "1000", "mint": "not-a-key"}, "invalid_input", "mint"),
        ({"maxSolIn": "1000", "surprise": "x"}, "invalid_input", "surprise"),
        ({"maxSolIn": "1000"}, "invalid_input", "minTokensOut"),  # explicit mode needs the bound
        # issue 17 item 2: a priority fee whose compute-unit price would overflow u64 (was 500 internal)
        (
            {"maxSolIn": "1000", "minTokensOut": "0", "priorityFeeLamports": "18446744073709551615"},
            "invalid_input",
            "priorityFeeLamports",
        ),
        (
            {"maxSolIn": "1000", "minTokensOut": "0", "priorityFeeLamports": "18446744073710"},
            "invalid_input",
            "priorityFeeLamports",
        ),
    ],
)
def test_buy_input_errors(coin, partner_conn, body, code, field):
    full = {"mint": coin, "priorityFeeLamports": str(PRIO), "tipLamports": str(TIP), **body}
    result = trade(partner_conn, "buy", full)
    assert result.status == 400, result.body
    assert result.json["error"] == code
    assert field in result.json["message"]


def test_partner_fee_needs_partner_tier_and_fee_wallet(aws_stack, chain, coin, ip):
    from partnerctl import admin

    client = admin.create_client(
        admin.NewClient(name="Basic App", redirect_uri="http://localhost:8080/callback", tier="Basic")
    )
    user = admin.create_user()
    conn = connect(client, user, scope="trade:execute", ip=ip)
    result = trade(conn, "buy", {"mint": coin, "maxSolIn": "1000000", "slippageBps": 100, "partnerFeeBps": 50, **FEES})
    assert result.status == 400 and result.json["error"] == "partner_fee_not_configured"
    zero = trade(conn, "buy", {"mint": coin, "maxSolIn": "1000000", "slippageBps": 100, "partnerFeeBps": 0, **FEES})
    assert zero.status == 422 and zero.json["error"] == "insufficient_sol"  # the user has no SOL
    assert zero.json["availableLamports"] == "0"
    assert int(zero.json["requiredLamports"]) >= 1_000_000 + TIP + PRIO + 5000


def test_delegation_missing_comes_after_validation(aws_stack, chain, coin, partner_conn):
    from partnerctl import admin

    admin.set_delegation(partner_conn.user["user_id"], False)
    bad = trade(partner_conn, "buy", {"mint": coin, "maxSolIn": "x", **FEES})
    assert bad.json["error"] == "invalid_input"
    result = trade(partner_conn, "buy", {"mint": coin, "maxSolIn": "1000000", "slippageBps": 10, **FEES})
    assert result.status == 403 and result.json["error"] == "delegation_missing"


def test_trade_cap_and_daily_cap(aws_stack, chain, coin, ip):
    from partnerctl import admin

    client = admin.create_client(
        admin.NewClient(
            name="Capped",
            redirect_uri="http://localhost:8080/callback",
            max_trade_lamports=SOL // 2,
            daily_volume_cap_lamports=SOL,
        )
    )
    user = admin.create_user()
    airdrop(chain.url, user["wallet"], 5 * SOL)
    conn = connect(client, user, scope="trade:execute", ip=ip)
    base = {"mint": coin, "slippageBps": 500, **FEES}
    over = trade(conn, "buy", {**base, "maxSolIn": str(SOL // 2 + 1)})
    assert over.status == 403 and over.json["error"] == "trade_cap_exceeded"
    assert over.json["maxTradeLamports"] == str(SOL // 2)
    for _ in range(2):
        ok = trade(conn, "buy", {**base, "maxSolIn": str(SOL // 2)})
        assert ok.status == 200, ok.body
    daily = trade(conn, "buy", {**base, "maxSolIn": "1000000"})
    assert daily.status == 403 and daily.json["error"] == "daily_cap_exceeded"
    assert daily.json["dailyVolumeCapLamports"] == str(SOL)
    assert daily.json["spentTodayLamports"] == str(SOL)


def liquid(chain, coin: str, sol: int = SOL) -> None:
    """Another user (of another client) buys `sol` of `coin`, so that the curve can pay a sell."""
    from partnerctl import admin

    buyer = admin.create_user()
    airdrop(chain.url, buyer["wallet"], 2 * sol)
    client = admin.create_client(admin.NewClient(name="Liquidity", redirect_uri="http://localhost:8080/callback"))
    other = connect(client, buyer, scope="trade:execute", ip="10.250.0.1")
    bought = trade(other, "buy", {"mint": coin, "maxSolIn": str(sol), "minTokensOut": "0", **FEES})
    assert bought.status == 200, bought.body
    assert wait(chain.url, bought.json["signature"])["err"] is None


def test_sell_without_tokens(chain, coin, partner_conn):
    # a sell is valued by its quote first (issue 17 item 13), so the curve must be able to pay it
    # (a fresh curve holds no SOL: insufficient_liquidity), and it must not be dust (item 3)
    liquid(chain, coin)
    result = trade(partner_conn, "sell", {"mint": coin, "tokensIn": str(1000 * 10**6), "slippageBps": 100, **FEES})
    assert result.status == 422 and result.json["error"] == "missing_sell_token_account"


def test_slippage_exceeded_from_the_program(chain, coin, partner_conn):
    result = trade(partner_conn, "buy", {"mint": coin, "maxSolIn": str(SOL), "minTokensOut": str(10**17), **FEES})
    assert result.status == 422 and result.json["error"] == "slippage_exceeded"


def test_unknown_mint_is_invalid_input(partner_conn):
    result = trade(partner_conn, "buy", {"mint": str(Keypair().pubkey()), "maxSolIn": "1000", "slippageBps": 1, **FEES})
    assert result.status == 400 and result.json["error"] == "invalid_input"


# ------------------------------------------------------------------ issue 17: check order and dust


@pytest.mark.parametrize(
    "kind,body,field",
    [
        ("buy", {"maxSolIn": "1000000"}, "minTokensOut"),
        ("buy-exact-out", {"tokensOut": "1000000"}, "maxSolIn"),
        ("sell", {"tokensIn": "1000000"}, "minSolOut"),
    ],
)
def test_explicit_mode_bound_is_input_validation_before_delegation(
    aws_stack, chain, coin, partner_conn, kind, body, field
):
    """Design section 2: input validation (5) before delegation (6)."""
    from partnerctl import admin

    admin.set_delegation(partner_conn.user["user_id"], False)
    result = trade(partner_conn, kind, {"mint": coin, **body, **FEES})
    assert result.status == 400, result.body
    assert (result.json["error"], result.json["field"]) == ("invalid_input", field)


def test_caps_come_before_chain_state(aws_stack, chain, coin, ip):
    """Caps (7) before balances (8): a poor wallet over the daily cap gets daily_cap_exceeded, and a
    sell over the per-trade cap of tokens the wallet does not hold gets trade_cap_exceeded."""
    from partnerctl import admin

    client = admin.create_client(
        admin.NewClient(
            name="Capped",
            redirect_uri="http://localhost:8080/callback",
            max_trade_lamports=10 * SOL,
            daily_volume_cap_lamports=SOL,
        )
    )
    poor = admin.create_user()
    airdrop(chain.url, poor["wallet"], SOL // 1000)
    conn = connect(client, poor, scope="trade:execute", ip=ip)
    fees = {"priorityFeeLamports": str(PRIO), "tipLamports": str(TIP)}
    daily = trade(conn, "buy", {"mint": coin, "maxSolIn": str(2 * SOL), "minTokensOut": "0", **fees})
    assert daily.status == 403 and daily.json["error"] == "daily_cap_exceeded", daily.body
    assert daily.json["spentTodayLamports"] == "0"
    exact = trade(conn, "buy-exact-out", {"mint": coin, "tokensOut": str(10**12), "maxSolIn": str(2 * SOL), **fees})
    assert exact.status == 403 and exact.json["error"] == "daily_cap_exceeded", exact.body
    small = admin.create_client(
        admin.NewClient(name="Small", redirect_uri="http://localhost:8080/callback", max_trade_lamports=SOL // 100)
    )
    seller = connect(small, poor, scope="trade:execute", ip=ip)
    liquid(chain, coin)
    # about 0.28 SOL of tokens on a fresh curve, none of them held
    sell = trade(seller, "sell", {"mint": coin, "tokensIn": str(10_000_000 * 10**6), "minSolOut": "0", **fees})
    assert sell.status == 403 and sell.json["error"] == "trade_cap_exceeded", sell.body
    slip = trade(
        seller, "buy-exact-out", {"mint": coin, "tokensOut": str(10_000_000 * 10**6), "slippageBps": 100, **fees}
    )
    assert slip.status == 403 and slip.json["error"] == "trade_cap_exceeded", slip.body
    # within the caps, the balance check answers as before
    within = trade(conn, "buy", {"mint": coin, "maxSolIn": str(SOL // 2), "minTokensOut": "0", **fees})
    assert within.status == 422 and within.json["error"] == "insufficient_sol", within.body
    assert volume_today(client["client_id"]) == 0  # nothing stays reserved


def volume_today(client_id: str) -> int:
    from tests.integration.test_faults import volume

    return volume(client_id)


def _holder_of(chain, coin, partner_conn, tokens: int) -> None:
    bought = trade(
        partner_conn, "buy-exact-out", {"mint": coin, "tokensOut": str(tokens), "maxSolIn": str(SOL), **FEES}
    )
    assert bought.status == 200, bought.body
    assert wait(chain.url, bought.json["signature"])["err"] is None


@pytest.mark.parametrize("slippage", [None, 100])
def test_a_dust_sell_is_400_naming_tokens_in(chain, coin, partner_conn, slippage):
    """A sell whose proceeds round to 0 lamports (was 500: a KeyError reserving 0 volume)."""
    _holder_of(chain, coin, partner_conn, 10**9)
    wallet = partner_conn.user["wallet"]
    before = balance(chain.url, wallet)
    bound = {"slippageBps": slippage} if slippage is not None else {"minSolOut": "0"}
    result = trade(partner_conn, "sell", {"mint": coin, "tokensIn": "1000", **bound, **FEES})
    assert result.status == 400, result.body
    assert (result.json["error"], result.json["field"]) == ("invalid_input", "tokensIn")
    assert balance(chain.url, wallet) == before
    assert volume_today(partner_conn.client["client_id"]) == SOL  # only the first buy's maxSolIn


@pytest.mark.parametrize("slippage", [None, 100])
def test_a_dust_buy_is_400_naming_max_sol_in(chain, coin, partner_conn, slippage):
    """maxSolIn "1" buys nothing (was a bare 400 without `field` from the program's simulation)."""
    bound = {"slippageBps": slippage} if slippage is not None else {"minTokensOut": "0"}
    result = trade(partner_conn, "buy", {"mint": coin, "maxSolIn": "1", **bound, **FEES})
    assert result.status == 400, result.body
    assert (result.json["error"], result.json["field"]) == ("invalid_input", "maxSolIn")
    assert volume_today(partner_conn.client["client_id"]) == 0


def test_reserving_zero_volume_is_a_no_op(aws_stack):
    """Issue 17 item 3: reserving 0 raised KeyError (an ADD of 0 updates nothing, so no count comes back)."""
    from partner.store import counters

    assert counters.reserve("VOL#zero-test#used", 5, SOL, 2**31) == (True, 5)
    assert counters.reserve("VOL#zero-test#used", 0, SOL, 2**31)[0] is True
    assert counters.reserve("VOL#zero-test#fresh", 0, SOL, 2**31)[0] is True
    assert counters.read("VOL#zero-test#fresh") == 0
    counters.release("VOL#zero-test#used", 0)
    assert counters.read("VOL#zero-test#used") == 5


def test_a_sell_right_after_a_buy_works_while_finalized_lags(chain, coin, partner_conn):
    """Issue 25: the state a trade decides on is read at `processed`. The node's default,
    `finalized` (~32 slots behind), does not yet hold the token account the buy created: a sell
    deciding on it would answer 422 missing_sell_token_account."""
    from devstack.chain.testing import rpc as raw_rpc
    from partner.chain.programs import associated_token_address

    wallet = partner_conn.user["wallet"]
    bought = buy(partner_conn, coin, SOL // 10, 100)
    assert bought.status == 200, bought.body
    assert wait(chain.url, bought.json["signature"])["err"] is None
    ata = str(associated_token_address(wallet, coin))
    lagging = raw_rpc(chain.url, "getAccountInfo", [ata, {"encoding": "base64"}], raw=True)["result"]
    assert lagging["value"] is None  # finalized: no token account yet
    held = token_balance(chain.url, wallet, coin)
    assert held > 0
    sold = trade(partner_conn, "sell", {"mint": coin, "tokensIn": str(held), "slippageBps": 100, **FEES})
    assert sold.status == 200, sold.body
    assert wait(chain.url, sold.json["signature"])["err"] is None
    assert token_balance(chain.url, wallet, coin) == 0
