"""The `make run` walk-through of issue 11 over HTTP: partnerctl registers a webhook for a
client, the example receiver (examples/webhook_receiver.py) verifies and prints events, a buy
through the gateway is followed by the devstack's tracker timer and delivered by its SQS poller."""

from __future__ import annotations

import json
import threading
import time
from http.server import ThreadingHTTPServer

import httpx

from tests.chainutil import airdrop, new_coin, wait, warp
from tests.helpers import connect_http

SOL = 10**9


def test_partnerctl_webhook_then_buy_delivers_signed_events_to_the_example_receiver(devstack, chain, capsys):
    from examples.webhook_receiver import make_handler
    from partner import admin
    from partnerctl.cli import main

    redirect = "http://localhost:8080/callback"
    client = admin.create_client(name="Webhook App", redirect_uri=redirect)
    user = admin.create_user()
    airdrop(chain.url, user["wallet"], 2 * SOL)
    mint = new_coin(chain.url, "Webhook Coin", "WHK")

    seen: set[str] = set()
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler("whsec_placeholder", seen))
    url = f"http://127.0.0.1:{server.server_address[1]}/webhooks"
    capsys.readouterr()
    assert main(["--json", "client", "webhook", "set", client["client_id"], url]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out) == ["webhook_secret"] and out["webhook_secret"].startswith("whsec_")
    server.RequestHandlerClass = make_handler(out["webhook_secret"], seen)  # the secret shown once
    threading.Thread(target=server.serve_forever, daemon=True).start()
    timer = devstack.start_schedules(0.5)
    try:
        with httpx.Client(base_url=devstack.url, timeout=30) as http:
            headers = connect_http(http, client, user, "trade:execute", redirect)
            bought = http.post("/partner/v1/trades/buy", headers=headers, json={
                "mint": mint, "maxSolIn": str(SOL // 20), "slippageBps": 500,
                "priorityFeeLamports": "10000", "tipLamports": "1000000"})
            assert bought.status_code == 200, bought.text
            signature = bought.json()["signature"]
            wait(chain.url, signature)
            deadline = time.monotonic() + 30
            while len(seen) < 1 and time.monotonic() < deadline:
                time.sleep(0.2)
            warp(chain.url, 20)  # past finalization
            while len(seen) < 2 and time.monotonic() < deadline:
                time.sleep(0.2)
    finally:
        timer.stop()
        devstack._owned.remove(timer)
        server.shutdown()
        server.server_close()
    printed = [line for line in capsys.readouterr().out.splitlines() if signature in line]
    assert [line.split(" ", 1)[0] for line in printed] == ["transaction.confirmed", "transaction.finalized"]
    assert all(json.loads(line.split(": ", 1)[1])["kind"] == "buy" for line in printed)
    assert main(["--json", "client", "webhook", "deliveries", client["client_id"]]) == 0
    log = json.loads(capsys.readouterr().out)["deliveries"]
    assert [(d["type"], d["outcome"], d["http_status"]) for d in log] == [
        ("transaction.finalized", "delivered", 200), ("transaction.confirmed", "delivered", 200)]
