"""A trade through the service with two RPC endpoints, the first failing (issue 26 item 3)."""

from __future__ import annotations

import pytest

from devstack.rpcproxy import start_rpc_proxy
from partner.chain import rpc as rpc_module
from tests.chainutil import airdrop, new_coin, rpc, token_balance, wait
from tests.helpers import connect, invoke


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
    return invoke(
        "trades_buy",
        "POST",
        "/partner/v1/trades/buy",
        headers={**conn.bearer(), "Content-Type": "application/json"},
        body={
            "mint": mint,
            "maxSolIn": "10000000",
            "slippageBps": 100,
            "priorityFeeLamports": "1000",
            "tipLamports": "1000000",
        },
    )


@pytest.mark.parametrize("mode", ["down", "error", "behind", "none"])
def test_a_buy_reads_and_sends_past_a_failing_first_endpoint(aws_stack, chain, ip, two_endpoints, mode):
    from partner.features import admin

    client = admin.create_client(name="Failover", redirect_uri="http://localhost:8080/callback")
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
