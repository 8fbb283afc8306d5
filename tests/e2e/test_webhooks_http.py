"""The `make run` walk-through of issue 11 over HTTP: partnerctl registers a webhook for a
client, the example receiver (examples/webhook_receiver.py) verifies and prints events, a buy
through the gateway is followed by the devstack's tracker timer and delivered by its SQS poller."""

from __future__ import annotations

import json
import threading
import time
from http.server import ThreadingHTTPServer

from testkit.chain import airdrop, new_coin, wait, warp
from testkit.helpers import connect_http, gateway_client

SOL = 10**9


def test_partnerctl_webhook_then_buy_delivers_signed_events_to_the_example_receiver(devstack, chain, capsys):
    from examples.webhook_receiver import make_handler
    from partnerctl import admin
    from partnerctl.cli import main

    redirect = "http://localhost:8080/callback"
    client = admin.create_client(admin.NewClient(name="Webhook App", redirect_uri=redirect))
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
        with gateway_client(devstack.url, timeout=30) as http:
            headers = connect_http(http, client, user, "trade:execute", redirect)
            buying = {"mint": mint, "maxSolIn": str(SOL // 20), "slippageBps": 500}
            fees = {"priorityFeeLamports": "10000", "tipLamports": "1000000"}
            bought = http.post("/partner/v1/trades/buy", headers=headers, json={**buying, **fees})
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
        ("transaction.finalized", "delivered", 200),
        ("transaction.confirmed", "delivered", 200),
    ]


def test_grant_updated_and_revoked_arrive_signed_at_the_example_receiver(devstack, chain, capsys):
    """Issue 20: a user's change of limits and disconnect on /account/apps, over the gateway,
    reach the client's webhook signed (verified by the SDK's verify_webhook in the receiver)."""
    import re
    from html import unescape

    from examples.webhook_receiver import make_handler
    from partner.jobs import webhooks
    from partnerctl import admin
    from partnerctl.cli import main

    redirect = "http://localhost:8080/callback"
    client = admin.create_client(admin.NewClient(name="Grant Hooks", redirect_uri=redirect))
    user = admin.create_user()
    seen: set[str] = set()
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler("whsec_placeholder", seen))
    url = f"http://127.0.0.1:{server.server_address[1]}/webhooks"
    capsys.readouterr()
    assert main(["--json", "client", "webhook", "set", client["client_id"], url]) == 0
    secret = json.loads(capsys.readouterr().out)["webhook_secret"]
    server.RequestHandlerClass = make_handler(secret, seen)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with gateway_client(devstack.url, timeout=30) as http:
            bearer = connect_http(http, client, user, "profile:read trade:execute", redirect)
            cookie = admin.create_session(user["user_id"])["cookie"]
            apps = http.get("/account/apps", headers={"Cookie": cookie})
            csrf = unescape(re.search(r'name="csrf" value="([^"]+)"', apps.text).group(1))
            form = {"client_id": client["client_id"], "csrf": csrf}
            changed = http.post(
                "/account/apps", headers={"Cookie": cookie}, data={**form, "action": "limits", "daily_cap_sol": "0.25"}
            )
            assert changed.status_code == 303, changed.text
            deadline = time.monotonic() + 30
            while len(seen) < 1 and time.monotonic() < deadline:
                time.sleep(0.2)
            gone = http.post("/account/apps", headers={"Cookie": cookie}, data={**form, "action": "disconnect"})
            assert gone.status_code == 303, gone.text
            while len(seen) < 2 and time.monotonic() < deadline:
                time.sleep(0.2)
            assert http.get("/partner/v1/me", headers=bearer).status_code == 401
    finally:
        server.shutdown()
        server.server_close()
    printed = [line for line in capsys.readouterr().out.splitlines() if line.startswith("grant.")]
    assert [line.split(" ", 1)[0] for line in printed] == ["grant.updated", "grant.revoked"]
    updated, revoked = (json.loads(line.split(": ", 1)[1]) for line in printed)
    assert updated == {
        "wallet": user["wallet"],
        "limits": {"maxTradeLamports": str(10 * SOL), "dailyVolumeCapLamports": "250000000"},
    }
    assert revoked == {"wallet": user["wallet"], "reason": "user_disconnected"}
    assert main(["--json", "client", "webhook", "deliveries", client["client_id"]]) == 0
    log = json.loads(capsys.readouterr().out)["deliveries"]
    assert [(d["type"], d["outcome"]) for d in log] == [("grant.revoked", "delivered"), ("grant.updated", "delivered")]
    assert webhooks.GRANT_EVENT_TYPES == ("grant.updated", "grant.revoked")
