"""The AWS and RPC call budget of the hot paths (design goals; issue 6 measures them all)."""

from __future__ import annotations

from collections import Counter

from tests.chainutil import airdrop, new_coin
from tests.helpers import connect, invoke


def _counting():
    from partner.store import aws

    calls: Counter[str] = Counter()

    def hook(event_name: str, **_):
        calls[event_name.split(".", 1)[1]] += 1

    aws.add_hook("before-call", hook)
    return calls, hook


def test_authenticated_get_makes_three_dynamodb_calls(aws_stack, client, user, ip):
    from partner.store import aws

    conn = connect(client, user, ip=ip)
    invoke("me", "GET", "/partner/v1/me", headers=conn.bearer())  # the hash secret is derived once per process
    calls, hook = _counting()
    try:
        result = invoke("me", "GET", "/partner/v1/me", headers=conn.bearer())
    finally:
        aws.remove_hook("before-call", hook)
    assert result.status == 200
    assert calls == Counter({"dynamodb.BatchGetItem": 1, "dynamodb.UpdateItem": 2})


def test_trade_makes_one_kms_call_and_two_rpc_round_trips(aws_stack, chain, ip, monkeypatch):
    from partner.features import admin, trading
    from partner.store import aws
    from partner.chain import rpc as rpc_module

    client = admin.create_client(name="Budget", redirect_uri="http://localhost:8080/callback")
    user = admin.create_user()
    airdrop(chain.url, user["wallet"], 10**9)
    conn = connect(client, user, scope="trade:execute", ip=ip)
    mint = new_coin(chain.url)
    posts = []
    real_post = rpc_module.Rpc._post

    def counting_post(self, payload, **kw):
        posts.append(payload)
        return real_post(self, payload, **kw)

    monkeypatch.setattr(rpc_module.Rpc, "_post", counting_post)
    calls, hook = _counting()
    try:
        result = invoke("trades_buy", "POST", "/partner/v1/trades/buy",
                        headers={**conn.bearer(), "Content-Type": "application/json"},
                        body={"mint": mint, "maxSolIn": "10000000", "slippageBps": 100,
                              "priorityFeeLamports": "1000", "tipLamports": "1000000"})
    finally:
        aws.remove_hook("before-call", hook)
    assert result.status == 200, result.body
    assert calls["kms.Decrypt"] == 1 and sum(v for k, v in calls.items() if k.startswith("kms.")) == 1
    assert len(posts) == 2
    # batch read, 2 buckets, the volume on the client's and the grant's day (two conditional
    # updates, never one transaction: a busy client's transactions would conflict), and the
    # transaction record written before sending
    assert sum(v for k, v in calls.items() if k.startswith("dynamodb.")) == 6
    assert "dynamodb.TransactWriteItems" not in calls
    assert calls["dynamodb.PutItem"] == 1


def test_transaction_status_reads_the_bundle_record_with_the_token(aws_stack, chain, client, user, ip):
    from partner.store import aws
    from tests.chainutil import rpc

    conn = connect(client, user, ip=ip)
    signature = rpc(chain.url, "requestAirdrop", [user["wallet"], 10**6])
    path = f"/partner/v1/transactions/{signature}/status"
    resource = "/partner/v1/transactions/{signature}/status"
    invoke("transaction_status", "GET", path, headers=conn.bearer(), resource=resource)
    calls, hook = _counting()
    try:
        result = invoke("transaction_status", "GET", path, headers=conn.bearer(), resource=resource)
    finally:
        aws.remove_hook("before-call", hook)
    assert result.status == 200, result.body
    assert calls == Counter({"dynamodb.BatchGetItem": 1, "dynamodb.UpdateItem": 2})
