"""The AWS and RPC call budget of the hot paths (design goals; issue 6 measures them all)."""

from __future__ import annotations

from collections import Counter

from testkit.chain import airdrop, new_coin
from testkit.helpers import buy, connect, invoke


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
    from partner.chain import rpc as rpc_module
    from partner.store import aws
    from partnerctl import admin

    client = admin.create_client(admin.NewClient(name="Budget", redirect_uri="http://localhost:8080/callback"))
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
        result = buy(conn, mint, 10_000_000, 100, priority_fee=1000)
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
    from testkit.chain import rpc

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


def test_the_bench_counts_only_the_measured_request(aws_stack, chain, ip):
    """`make bench` (bench.calls.measure) counts a buy's own calls while other threads of the
    process make DynamoDB calls of their own (as the devstack's pollers and timers do): the
    figure equals what the code makes (the test above: 6 DynamoDB calls, 1 KMS, 2 RPC)."""
    import threading

    from bench.calls import measure
    from partner.store import aws
    from partnerctl import admin

    client = admin.create_client(admin.NewClient(name="Bench count", redirect_uri="http://localhost:8080/callback"))
    user = admin.create_user()
    airdrop(chain.url, user["wallet"], 10**9)
    conn = connect(client, user, scope="trade:execute", ip=ip)
    mint = new_coin(chain.url)
    body = {
        "mint": mint,
        "maxSolIn": "10000000",
        "slippageBps": 100,
        "priorityFeeLamports": "1000",
        "tipLamports": "1000000",
    }
    headers = {**conn.bearer(), "Content-Type": "application/json"}
    stop, background = threading.Event(), Counter()

    def noise() -> None:  # a poller's worth of calls in another thread
        table = aws_stack.physical_id("ClientsTable")
        while not stop.is_set():
            aws.dynamodb().get_item(TableName=table, Key={"pk": {"S": "absent"}})
            background["calls"] += 1

    thread = threading.Thread(target=noise, daemon=True)
    thread.start()
    try:
        while background["calls"] < 3:
            stop.wait(0.01)
        calls, result = measure(invoke, "trades_buy", "POST", "/partner/v1/trades/buy", headers=headers, body=body)
    finally:
        stop.set()
        thread.join(timeout=10)
    assert result.status == 200, result.body
    assert background["calls"] > 3  # the noise ran during the measurement
    assert calls.service("dynamodb") == 6
    assert "dynamodb.GetItem" not in calls.aws  # the noise's own operation is not counted
    assert calls.aws["kms.Decrypt"] == 1 and calls.service("kms") == 1
    assert len(calls.rpc_methods) == 2
    # units: the admission batch (token, client, user: 3 strongly consistent reads), 5 writes
    assert calls.write_units == 5 and calls.read_units >= 1
    assert calls.log_bytes > 0
