"""A trade through the service with two RPC endpoints, the first failing (issue 26 item 3)."""

from __future__ import annotations

import time

import pytest

from devstack.rpcproxy import start_rpc_proxy
from partner.chain import rpc as rpc_module
from testkit.chain import airdrop, new_coin, rpc, token_balance, wait
from testkit.helpers import buy, connect, trade


@pytest.fixture
def two_endpoints(chain, monkeypatch):
    from partner.core.settings import reset_settings

    proxy = start_rpc_proxy(chain.url)
    monkeypatch.setenv("RPC_URLS", f"{proxy.url},{chain.url}")
    reset_settings()
    yield proxy
    monkeypatch.undo()
    reset_settings()
    proxy.stop()


def _buy(conn, mint):
    return buy(conn, mint, 10_000_000, 100, priority_fee=1000)


@pytest.mark.parametrize("mode", ["down", "error", "behind", "none"])
def test_a_buy_reads_and_sends_past_a_failing_first_endpoint(aws_stack, chain, ip, two_endpoints, mode):
    from partnerctl import admin

    client = admin.create_client(admin.NewClient(name="Failover", redirect_uri="http://localhost:8080/callback"))
    user = admin.create_user()
    airdrop(chain.url, user["wallet"], 10**9)
    conn = connect(client, user, scope="trade:execute", ip=ip)
    mint = new_coin(chain.url)
    two_endpoints.set_fault(mode)
    result = _buy(conn, mint)
    assert result.status == 200, result.body
    signature = result.json["signature"]
    assert wait(chain.url, signature)["err"] is None
    assert token_balance(chain.url, user["wallet"], mint) > 0
    assert two_endpoints.requests["sendTransaction"] == 1  # the send went to both endpoints
    if mode != "none":
        assert two_endpoints.forwarded["sendTransaction"] == 0  # ...and landed through the chain
    # landed once: one transaction with that signature, the buyer paid once
    assert rpc(chain.url, "getTransaction", [signature, {"encoding": "json"}]) is not None
    rpc_module.forget_health()


def test_a_sell_right_after_a_buy_fails_over_from_an_endpoint_behind_the_buy(aws_stack, chain, ip, two_endpoints):
    """With several endpoints, a write keeps the slot it was answered at on the user's record; the
    user's next write reads with that `minContextSlot`, so an endpoint behind the buy answers
    -32016 and the sell decides on the next endpoint's state, which holds the buy."""
    from partner.store.users import get_user
    from partnerctl import admin

    client = admin.create_client(admin.NewClient(name="Failover sell", redirect_uri="http://localhost:8080/callback"))
    user = admin.create_user()
    airdrop(chain.url, user["wallet"], 10**9)
    conn = connect(client, user, scope="trade:execute", ip=ip)
    mint = new_coin(chain.url)
    bought = _buy(conn, mint)
    assert bought.status == 200, bought.body
    assert wait(chain.url, bought.json["signature"])["err"] is None
    kept = get_user(user["user_id"]).write_slot
    assert kept > 0  # the slot the buy decided at
    held = token_balance(chain.url, user["wallet"], mint)
    assert held > 0
    for _ in range(100):  # the sell decides in a later slot than the buy did (slots are 400 ms)
        if rpc(chain.url, "getSlot") > kept:
            break
        time.sleep(0.05)
    two_endpoints.set_fault("behind", slots=1000)  # the first endpoint now lags far behind the buy
    asked, served = two_endpoints.requests["getMultipleAccounts"], two_endpoints.forwarded["getMultipleAccounts"]
    sold = trade(
        conn,
        "sell",
        {
            "mint": mint,
            "tokensIn": str(held),
            "slippageBps": 100,
            "priorityFeeLamports": "1000",
            "tipLamports": "1000000",
        },
    )
    assert sold.status == 200, sold.body
    assert two_endpoints.requests["getMultipleAccounts"] == asked + 1  # asked first...
    assert two_endpoints.forwarded["getMultipleAccounts"] == served  # ...and refused to decide: -32016
    assert wait(chain.url, sold.json["signature"])["err"] is None
    assert token_balance(chain.url, user["wallet"], mint) == 0
    assert get_user(user["user_id"]).write_slot > kept
    rpc_module.forget_health()


def test_a_vote_right_after_a_proposal_fails_over_from_an_endpoint_behind_it(aws_stack, chain, two_endpoints):
    """A governance write is answered once `processed`: the slot it keeps is at or past its landing,
    so the proposer's own vote right after it is not decided by an endpoint that lacks the proposal."""
    from partner.store.users import get_user
    from partnerctl import admin
    from tests.integration.test_governance_writes import BOND, SCOPES, T, member, propose_extend, vote

    client = admin.create_client(
        admin.NewClient(
            name="Failover vote", redirect_uri="http://localhost:8080/callback", daily_volume_cap_lamports=10**15
        )
    )
    mint = new_coin(chain.url, "Failover Gov", "FGOV")
    proposer = member(chain, client, mint, BOND + T, scope=SCOPES)
    proposed = propose_extend(proposer, mint)
    proposal = proposed["proposal"]
    landed = rpc(chain.url, "getSignatureStatuses", [[proposed["signature"]]])["value"][0]
    assert get_user(proposer.user["user_id"]).write_slot >= landed["slot"]  # kept: at or past its landing
    two_endpoints.set_fault("behind", slots=1000)
    served = two_endpoints.forwarded["getMultipleAccounts"]
    assert vote(proposer, proposal, "yes", T)["proposal"] == proposal
    assert two_endpoints.forwarded["getMultipleAccounts"] == served  # decided on the endpoint that holds it
    rpc_module.forget_health()
