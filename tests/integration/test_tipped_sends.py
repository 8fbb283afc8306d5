"""Tipped sends go where tips count (issue 25 item 3; docs/chain.md, "Tipped sends"): with
`BLOCK_ENGINE_TX_URL` set, a write that pays a tip goes through the block engine's `sendTransaction`
(the devstack's `/api/v1/transactions`, Jito's rules) and lands; when the engine does not take it
(its rate limit, down, a refusal) the same signed transaction goes through the RPC and the answer is
the one a deployment without an engine gives. Each case is checked on chain and against the engine's
own record of what it accepted (`devstack_getEngineTransactions`)."""

from __future__ import annotations

import os

import pytest
from solders.keypair import Keypair

from testkit.chain import airdrop, balance, block_engine, new_coin, rpc, token_balance, use_up_rate_limit, wait
from testkit.helpers import FEES, buy, connect, partner_client, trade

SOL = 10**9
TIP = 1_000_000


def engine_saw(chain, signature: str):
    return rpc(chain.url, "devstack_getEngineTransactions", [[signature]])[0]


@pytest.fixture
def engine(chain):
    """BLOCK_ENGINE_TX_URL = the devstack's /api/v1/transactions for the test; unset after."""
    from partner.core.settings import reset_settings

    os.environ["BLOCK_ENGINE_TX_URL"] = chain.transactions_url
    reset_settings()
    yield chain.transactions_url
    os.environ.pop("BLOCK_ENGINE_TX_URL", None)
    reset_settings()


@pytest.fixture
def counts(monkeypatch):
    """The metrics counted during the test, as (name, dimensions); still counted as usual."""
    from partner.core import observability

    seen: list[tuple[str, dict[str, str]]] = []
    original = observability.count

    def count(name: str, value: int = 1, /, **dimensions: str) -> None:
        seen.append((name, dimensions))
        original(name, value, **dimensions)

    monkeypatch.setattr(observability, "count", count)
    return seen


@pytest.fixture
def coin(chain, aws_stack):
    return new_coin(chain.url, "Tipped Coin", "TIPD")


@pytest.fixture
def conn(aws_stack, chain, ip):
    from partnerctl import admin

    client = admin.create_client(
        admin.NewClient(name="Tipped App", redirect_uri="http://localhost:8080/callback", tier="Partner")
    )
    user = admin.create_user()
    airdrop(chain.url, user["wallet"], 20 * SOL)
    return connect(client, user, scope="trade:execute", ip=ip)


def assert_bought(chain, conn, coin, result, tips_before: int) -> None:
    """The answer a trade gives without an engine, and its effects on chain."""
    from partner.chain.tx import TIP_ACCOUNTS

    assert result.status == 200, result.body
    assert set(result.json) == {"signature", "mint", "status"}
    assert result.json["status"] == "submitted" and result.json["mint"] == coin
    assert wait(chain.url, result.json["signature"])["err"] is None
    assert token_balance(chain.url, conn.user["wallet"], coin) > 0
    assert sum(balance(chain.url, str(t)) for t in TIP_ACCOUNTS) - tips_before == TIP


def tips(chain) -> int:
    from partner.chain.tx import TIP_ACCOUNTS

    return sum(balance(chain.url, str(t)) for t in TIP_ACCOUNTS)


def test_a_trade_is_sent_through_the_block_engine_and_lands(chain, engine, coin, conn, counts):
    before = tips(chain)
    result = buy(conn, coin, SOL // 10)
    assert_bought(chain, conn, coin, result, before)
    signature = result.json["signature"]
    saw = engine_saw(chain, signature)
    assert saw == {"signature": signature, "bundleId": saw["bundleId"], "bundleOnly": False}
    assert ("TippedSends", {"via": "block_engine"}) in counts
    assert not [c for c in counts if c[0] == "TippedSendFallback"]
    # a sell right after, through the engine too
    tokens = token_balance(chain.url, conn.user["wallet"], coin)
    sold = trade(conn, "sell", {"mint": coin, "tokensIn": str(tokens // 2), "slippageBps": 500, **FEES})
    assert sold.status == 200 and sold.json["status"] == "submitted", sold.body
    assert wait(chain.url, sold.json["signature"])["err"] is None
    assert engine_saw(chain, sold.json["signature"]) is not None


def test_bundle_only_in_the_url_reaches_the_engine(chain, coin, conn):
    """Query parameters of BLOCK_ENGINE_TX_URL are kept (Jito's ?bundleOnly=true, ?uuid=)."""
    from partner.core.settings import reset_settings

    os.environ["BLOCK_ENGINE_TX_URL"] = chain.transactions_url + "?bundleOnly=true"
    reset_settings()
    try:
        before = tips(chain)
        result = buy(conn, coin, SOL // 10)
        assert_bought(chain, conn, coin, result, before)
        assert engine_saw(chain, result.json["signature"])["bundleOnly"] is True
    finally:
        os.environ.pop("BLOCK_ENGINE_TX_URL", None)
        reset_settings()


def test_without_the_setting_a_trade_goes_through_the_rpc(chain, coin, conn, counts):
    assert not os.environ.get("BLOCK_ENGINE_TX_URL")
    before = tips(chain)
    result = buy(conn, coin, SOL // 10)
    assert_bought(chain, conn, coin, result, before)
    assert engine_saw(chain, result.json["signature"]) is None
    assert not [c for c in counts if c[0] in ("TippedSends", "TippedSendFallback")]


def test_when_the_engine_rate_limits_the_trade_lands_through_the_rpc(chain, engine, coin, conn, counts):
    before = tips(chain)
    with block_engine(chain.url, rateLimitPerSecond=0.01):  # one request a 100 s
        use_up_rate_limit(chain.bundle_url)
        result = buy(conn, coin, SOL // 10)
    assert_bought(chain, conn, coin, result, before)
    assert engine_saw(chain, result.json["signature"]) is None
    assert ("TippedSendFallback", {"reason": "rate_limited"}) in counts
    assert ("TippedSends", {"via": "block_engine"}) not in counts


def test_when_the_engine_is_down_the_trade_lands_through_the_rpc(chain, engine, coin, conn, counts):
    before = tips(chain)
    rpc(
        chain.url,
        "devstack_setFault",
        [{"target": "bundle", "mode": "down", "methods": ["sendTransaction"], "count": 1}],
    )
    try:
        result = buy(conn, coin, SOL // 10)
    finally:
        rpc(chain.url, "devstack_clearFaults")
    assert_bought(chain, conn, coin, result, before)
    assert engine_saw(chain, result.json["signature"]) is None
    assert ("TippedSendFallback", {"reason": "unavailable"}) in counts
    assert ("RpcUnavailable", {"upstream": "block_engine"}) not in counts  # the write did not fail


def test_when_the_engine_answers_nothing_the_same_transaction_lands_once(
    chain, engine, coin, conn, counts, monkeypatch
):
    """A timeout after sending (the engine may hold it): the RPC gets the very same signed
    transaction; the signature lands once and the answer is as before."""
    from partner.chain.rpc import TxEngine

    before = tips(chain)
    rpc(
        chain.url,
        "devstack_setFault",
        [{"target": "bundle", "mode": "slow", "methods": ["sendTransaction"], "count": 1, "delayMs": 2_500}],
    )
    monkeypatch.setattr(TxEngine, "TIMEOUT_SECONDS", 1.0)
    try:
        result = buy(conn, coin, SOL // 10)
    finally:
        rpc(chain.url, "devstack_clearFaults")
    assert_bought(chain, conn, coin, result, before)
    assert ("TippedSendFallback", {"reason": "no_answer"}) in counts
    # the engine executed it after its delay, or the RPC did: either way one transaction, one tip
    assert wait(chain.url, result.json["signature"])["err"] is None
    assert tips(chain) - before == TIP


def test_a_refusal_of_the_tip_falls_back_to_the_rpc(chain, engine, counts):
    """The engine refuses a transaction whose tip is under its 1,000-lamport minimum; the same
    transaction then goes through the RPC and lands."""
    from solders.message import Message
    from solders.transaction import Transaction

    from partner.chain import instructions as ix
    from partner.chain.rpc import Rpc, TxEngine
    from partner.chain.tx import TIP_ACCOUNTS, submit
    from partner.core.observability import invocation

    payer, to = Keypair(), Keypair().pubkey()
    airdrop(chain.url, str(payer.pubkey()), SOL)
    node = Rpc(chain.url)
    blockhash, _ = node.latest_blockhash()
    message = Message.new_with_blockhash(
        [ix.system_transfer(payer.pubkey(), to, 10_000_000), ix.tip_transfer(payer.pubkey(), TIP_ACCOUNTS[0], 1)],
        payer.pubkey(),
        blockhash,
    )
    tx = Transaction([payer], message, blockhash)
    with invocation():
        assert submit(node, tx, TxEngine(engine)) == tx.signatures[0]
    assert wait(chain.url, str(tx.signatures[0]))["err"] is None
    assert balance(chain.url, str(to)) == 10_000_000
    assert engine_saw(chain, str(tx.signatures[0])) is None
    assert ("TippedSendFallback", {"reason": "refused"}) in counts


def test_a_program_refusal_answers_as_without_an_engine(chain, engine, coin, conn, counts):
    """The engine skips the preflight (Jito always does): the service simulates first, and a
    transaction the program would refuse is answered from the RPC's preflight, as without an engine;
    nothing reaches the engine and nothing lands."""
    wallet = conn.user["wallet"]
    lamports = balance(chain.url, wallet)
    result = trade(conn, "buy", {"mint": coin, "maxSolIn": str(SOL), "minTokensOut": str(10**17), **FEES})
    assert result.status == 422 and result.json["error"] == "slippage_exceeded", result.body
    assert balance(chain.url, wallet) == lamports
    assert not [c for c in counts if c[0] in ("TippedSends", "TippedSendFallback")]


def test_governance_writes_are_sent_through_the_block_engine(chain, engine, aws_stack, counts):
    """A governance write (a `processed` delivery) pays a tip too: through the engine, answered
    `processed` as without one."""
    from tests.integration.test_governance_writes import BOND, DAY, T, gov, member, ok, proposal_of, receipt_of

    app = partner_client("Tipped Governance", daily_volume_cap_lamports=10**15)
    mint = new_coin(chain.url, "Tipped Gov", "TGOV")
    proposer = member(chain, app, mint, BOND + 3 * T)
    voter = member(chain, app, mint, 2 * T)
    created = ok(gov(proposer, "extend", {"mint": mint, "additionalSeconds": str(DAY), "voteDurationSeconds": "60"}))
    assert engine_saw(chain, created["signature"]) is not None
    assert proposal_of(chain, created["proposal"]).bond_amount == BOND
    voted = ok(gov(voter, "vote", {"proposal": created["proposal"], "side": "yes", "amount": str(T)}))
    assert engine_saw(chain, voted["signature"]) is not None
    assert receipt_of(chain, created["proposal"], voter.user["wallet"]).amount == T
    assert [c for c in counts if c == ("TippedSends", {"via": "block_engine"})]
    assert not [c for c in counts if c[0] == "TippedSendFallback"]


def test_update_content_is_sent_through_the_block_engine(chain, engine, aws_stack, pin_server, ip, counts):
    from partner.chain.layouts import Proposal
    from tests.integration.test_update_content import BOND, account, base_fields, holder, post_form

    mint = new_coin(chain.url, "Tipped Content", "TCON")
    proposer = holder(chain.url, ip, mint, 2 * BOND)
    result = post_form(proposer, base_fields(mint, symbol="NEW2"))
    assert result.status == 200 and result.json["status"] == "processed", result.body
    assert engine_saw(chain, result.json["signature"]) is not None
    assert Proposal.decode(account(chain.url, result.json["proposal"])).action_symbol == "NEW2"
    assert not [c for c in counts if c[0] == "TippedSendFallback"]
