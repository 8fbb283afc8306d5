"""Issue 25 item 5: a spec error is never pre-empted by an added one.

The added refusals (a dust amount, the client's fee ceiling, the user's own limits) answer only
requests the spec would otherwise let through: for any request the spec describes an answer for
(its own checks, in design section 2's order, and the program's errors from the simulation), that
answer stands. Where the spec has none, the added refusal still answers (the last test of each group).
Through the real handlers against moto and the devstack chain.
"""

from __future__ import annotations

import pytest
from solders.keypair import Keypair

from testkit.chain import airdrop, balance, new_coin, rpc, token_balance, wait
from testkit.helpers import connect, post_json, trade
from tests.integration.test_trades import liquid

SOL = 10**9
TIP = 1_000_000
PRIO = 10_000
FEES = {"priorityFeeLamports": str(PRIO), "tipLamports": str(TIP)}


@pytest.fixture
def coin(chain, aws_stack):
    return new_coin(chain.url, "Spec Coin", "SPEC")


def _conn(chain, ip, sol: int = 20 * SOL, scope: str = "trade:execute", **client):
    from partnerctl import admin

    made = admin.create_client(
        admin.NewClient(name="Spec App", redirect_uri="http://localhost:8080/callback", **client)
    )
    user = admin.create_user()
    if sol:
        airdrop(chain.url, user["wallet"], sol)
    return connect(made, user, scope=scope, ip=ip)


def signatures(chain, wallet: str) -> list[str]:
    return [s["signature"] for s in rpc(chain.url, "getSignaturesForAddress", [wallet])]


def volume(client_id: str) -> int:
    from tests.integration.test_faults import volume as read

    return read(client_id)


# ------------------------------------------------------------------ dust


@pytest.mark.parametrize("bound", [{"minSolOut": "0"}, {"slippageBps": 100}])
def test_a_dust_sell_without_a_token_account_is_missing_sell_token_account(chain, coin, ip, bound):
    """The issue's case: tokensIn "1000" sells for 0 lamports, but the wallet holds no token account."""
    conn = _conn(chain, ip)
    result = trade(conn, "sell", {"mint": coin, "tokensIn": "1000", **bound, **FEES})
    assert result.status == 422, result.body
    assert result.json["error"] == "missing_sell_token_account"
    assert volume(conn.client["client_id"]) == 0


def test_a_dust_sell_of_more_than_the_wallet_holds_is_insufficient_tokens(chain, coin, ip):
    conn = _conn(chain, ip)
    bought = trade(conn, "buy-exact-out", {"mint": coin, "tokensOut": "500", "maxSolIn": str(SOL), **FEES})
    assert bought.status == 200, bought.body
    assert wait(chain.url, bought.json["signature"])["err"] is None
    assert token_balance(chain.url, conn.user["wallet"], coin) == 500
    result = trade(conn, "sell", {"mint": coin, "tokensIn": "1000", "minSolOut": "0", **FEES})
    assert result.status == 422, result.body
    assert (result.json["error"], result.json["requiredTokens"], result.json["availableTokens"]) == (
        "insufficient_tokens",
        "1000",
        "500",
    )


def test_a_dust_buy_from_a_wallet_that_cannot_pay_is_insufficient_sol(chain, coin, ip):
    conn = _conn(chain, ip, sol=SOL // 1000)  # 1,000,000 lamports: less than the tip and fee alone
    result = trade(conn, "buy", {"mint": coin, "maxSolIn": "1", "minTokensOut": "0", **FEES})
    assert result.status == 422, result.body
    assert result.json["error"] == "insufficient_sol"
    assert result.json["availableLamports"] == str(SOL // 1000)


# ------------------------------------------------------------------ the fee ceiling

CEILING = TIP + 50_000
OVER = {"priorityFeeLamports": str(CEILING), "tipLamports": str(TIP)}  # priority fee + tip > CEILING


def test_over_the_ceiling_a_sell_without_a_token_account_is_missing_sell_token_account(chain, coin, ip):
    conn = _conn(chain, ip, max_fee_lamports=CEILING)
    liquid(chain, coin)
    result = trade(conn, "sell", {"mint": coin, "tokensIn": str(10**9), "minSolOut": "0", **OVER})
    assert result.status == 422, result.body
    assert result.json["error"] == "missing_sell_token_account"


def test_over_the_ceiling_a_trade_over_the_cap_is_trade_cap_exceeded(chain, coin, ip):
    conn = _conn(chain, ip, max_fee_lamports=CEILING, max_trade_lamports=SOL // 10)
    result = trade(conn, "buy", {"mint": coin, "maxSolIn": str(SOL), "minTokensOut": "0", **OVER})
    assert result.status == 403, result.body
    assert (result.json["error"], result.json["maxTradeLamports"]) == ("trade_cap_exceeded", str(SOL // 10))


def test_over_the_ceiling_a_wallet_that_cannot_pay_is_insufficient_sol(chain, coin, ip):
    conn = _conn(chain, ip, sol=SOL // 100, max_fee_lamports=CEILING)
    result = trade(conn, "buy", {"mint": coin, "maxSolIn": str(SOL), "minTokensOut": "0", **OVER})
    assert result.status == 422 and result.json["error"] == "insufficient_sol", result.body


def test_over_the_ceiling_the_programs_own_refusal_stands(chain, coin, ip):
    """An explicit bound the curve cannot meet: the program's slippage_exceeded (from the simulation
    the service runs before refusing), and nothing is sent."""
    conn = _conn(chain, ip, max_fee_lamports=CEILING)
    wallet = conn.user["wallet"]
    before = balance(chain.url, wallet), signatures(chain, wallet)
    result = trade(conn, "buy", {"mint": coin, "maxSolIn": str(SOL), "minTokensOut": str(10**17), **OVER})
    assert result.status == 422, result.body
    assert result.json["error"] == "slippage_exceeded"
    assert (balance(chain.url, wallet), signatures(chain, wallet)) == before
    assert volume(conn.client["client_id"]) == 0


def test_over_the_ceiling_governance_answers_its_chain_state(chain, coin, ip):
    from tests.integration.test_update_content import post_form

    conn = _conn(chain, ip, max_fee_lamports=CEILING, scope="governance:vote governance:propose")
    vote = post_json(
        conn,
        "governance_vote",
        "/partner/v1/governance/votes",
        {"proposal": str(Keypair().pubkey()), "side": "yes", "amount": "1000000", **OVER},
    )
    assert vote.status == 422 and vote.json["error"] == "proposal_not_found", vote.body
    extend = post_json(
        conn,
        "governance_extend_mutability",
        "/partner/v1/governance/proposals/extend-mutability",
        {"mint": coin, "additionalSeconds": "60", **OVER},
    )
    assert extend.status == 422 and extend.json["error"] == "missing_proposal_token_account", extend.body
    missing = post_json(
        conn,
        "governance_finalize_expired",
        "/partner/v1/governance/metadata/finalize-expired",
        {"mint": str(Keypair().pubkey()), **OVER},
    )
    assert missing.status == 404 and missing.json["error"] == "governance_not_found", missing.body
    content = post_form(conn, {"mint": coin, **OVER, "name": "New Name"})
    assert content.status == 422 and content.json["error"] == "missing_proposal_token_account", content.body


def test_over_the_ceiling_a_launch_in_the_cooldown_is_deploy_cooldown_active(chain, pin_server, clock, ip):
    from tests.integration.test_coins_create import create, form

    conn = _conn(chain, ip, max_fee_lamports=CEILING, scope="coin:create")
    first = create(conn, form(priorityFeeLamports=str(PRIO)))
    assert first.status == 200, first.body
    result = create(conn, form(name="Second", symbol="TWO", priorityFeeLamports=str(CEILING + 1)))
    assert result.status == 429, result.body
    assert result.json["error"] == "deploy_cooldown_active"


def test_over_the_ceiling_a_request_the_spec_would_take_is_still_refused(chain, coin, ip):
    conn = _conn(chain, ip, max_fee_lamports=CEILING)
    wallet = conn.user["wallet"]
    before = balance(chain.url, wallet), signatures(chain, wallet)
    result = trade(conn, "buy", {"mint": coin, "maxSolIn": str(SOL // 100), "minTokensOut": "0", **OVER})
    assert result.status == 400, result.body
    assert (result.json["error"], result.json["field"], result.json["maxFeeLamports"]) == (
        "invalid_input",
        "priorityFeeLamports",
        str(CEILING),
    )
    assert (balance(chain.url, wallet), signatures(chain, wallet)) == before
    assert volume(conn.client["client_id"]) == 0  # the reservation was given back


# ------------------------------------------------------------------ the user's own limits


def _limited(chain, ip, sol: int, **limits):
    from partnerctl import admin
    from tests.integration.test_grant_limits import _client, consent

    client = _client(max_trade_lamports=10 * SOL, daily_volume_cap_lamports=100 * SOL)
    user = admin.create_user()
    if sol:
        airdrop(chain.url, user["wallet"], sol)
    return consent(client, user, ip, **limits)


def test_over_the_users_limit_a_sell_without_tokens_is_missing_sell_token_account(chain, coin, ip):
    conn = _limited(chain, ip, 5 * SOL, max_trade_sol="0.01")
    liquid(chain, coin)
    # about 0.28 SOL of tokens: over the user's 0.01 SOL, within the app's 10 SOL; none of them held
    result = trade(conn, "sell", {"mint": coin, "tokensIn": str(10_000_000 * 10**6), "minSolOut": "0", **FEES})
    assert result.status == 422, result.body
    assert result.json["error"] == "missing_sell_token_account"
    assert volume(conn.client["client_id"]) == 0


def test_over_the_users_limit_a_wallet_that_cannot_pay_is_insufficient_sol(chain, coin, ip):
    conn = _limited(chain, ip, SOL // 100, max_trade_sol="0.1", daily_cap_sol="0.1")
    result = trade(conn, "buy", {"mint": coin, "maxSolIn": str(SOL // 2), "minTokensOut": "0", **FEES})
    assert result.status == 422, result.body
    assert result.json["error"] == "insufficient_sol"
    assert volume(conn.client["client_id"]) == 0


def test_the_users_limits_still_refuse_what_the_spec_would_take(chain, coin, ip):
    from partner.features import grantlimits
    from partner.store import counters

    conn = _limited(chain, ip, 5 * SOL, max_trade_sol="0.3", daily_cap_sol="0.5")
    over = trade(conn, "buy", {"mint": coin, "maxSolIn": str(SOL // 2), "minTokensOut": "0", **FEES})
    assert over.status == 403 and over.json["error"] == "trade_cap_exceeded", over.body
    assert over.json["maxTradeLamports"] == str(3 * SOL // 10)
    first = trade(conn, "buy", {"mint": coin, "maxSolIn": str(3 * SOL // 10), "minTokensOut": "0", **FEES})
    assert first.status == 200, first.body
    daily = trade(conn, "buy", {"mint": coin, "maxSolIn": str(SOL // 4), "minTokensOut": "0", **FEES})
    assert daily.status == 403 and daily.json["error"] == "daily_cap_exceeded", daily.body
    assert (daily.json["dailyVolumeCapLamports"], daily.json["spentTodayLamports"]) == (
        str(SOL // 2),
        str(3 * SOL // 10),
    )
    client_id, user_id = conn.client["client_id"], conn.user["user_id"]
    assert volume(client_id) == 3 * SOL // 10  # the refused trade's reservation on the app's day was given back
    assert counters.read(grantlimits.grant_volume_key(client_id, user_id)) == 3 * SOL // 10
