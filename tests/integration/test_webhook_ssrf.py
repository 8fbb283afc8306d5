"""Webhook SSRF (issue 23, item 2) through partnerctl, the SQS queue and the delivery
function's handler against moto: a live client's URL cannot name a private host, and a
delivery that resolves or points to one reaches nothing, is recorded in the delivery log with
its reason and goes to the dead-letter queue at once instead of being retried.

DNS answers come from the resolver seam `partner.core.egress.resolve`; the listener on
127.0.0.1 is real and must accept no connection."""

from __future__ import annotations

import ipaddress
import json
from urllib.parse import urlsplit

import boto3
import pytest

from testkit.helpers import deliver_until
from tests.unit.test_webhook_egress import ISSUE_URLS

NAME = "hooks.acme-partner.com"


@pytest.fixture
def dns(monkeypatch):
    """`answers[name]` is what the resolver seam answers for `name` (other names: real DNS)."""
    from partner.core import egress

    real = egress.resolve
    answers: dict[str, list[str]] = {}
    monkeypatch.setattr(
        egress,
        "resolve",
        lambda name, port: [ipaddress.ip_address(a) for a in answers[name]] if name in answers else real(name, port),
    )
    return answers


def cli(capsys, *argv: str) -> tuple[int, dict]:
    from partnerctl.cli import main

    code = main(["--json", *argv])
    return code, json.loads(capsys.readouterr().out)


def live_client(name: str = "Live Hooks") -> str:
    from partnerctl import admin

    return admin.create_client(admin.NewClient(name=name, redirect_uri="https://acme-partner.com/cb", status="live"))[
        "client_id"
    ]


def dead_letters(aws_stack, client_ids: set[str]) -> list[dict]:
    """Take this test's messages off the (shared) dead-letter queue."""
    sqs = boto3.client("sqs", endpoint_url=aws_stack.endpoint_url, region_name="us-east-1")
    dlq = aws_stack.physical_id("WebhookDeadLetterQueue")
    found: list[dict] = []
    for _ in range(5):
        got = sqs.receive_message(QueueUrl=dlq, MaxNumberOfMessages=10, WaitTimeSeconds=1).get("Messages") or []
        for m in got:
            body = json.loads(m["Body"])
            if body.get("client_id") in client_ids:
                found.append(body)
                sqs.delete_message(QueueUrl=dlq, ReceiptHandle=m["ReceiptHandle"])
        if len(found) >= len(client_ids):
            break
    return found


@pytest.mark.parametrize("url", ISSUE_URLS)
def test_partnerctl_refuses_each_reproduction_for_a_live_client(aws_stack, capsys, url):
    client_id = live_client()
    code, out = cli(capsys, "client", "webhook", "set", client_id, url)
    assert code == 1 and out["error"].startswith(urlsplit(url).hostname), out
    from partner.core.settings import get_settings
    from partner.store import ddb

    assert "webhook_url" not in ddb.get(get_settings().clients_table, client_id)


def test_a_live_clients_delivery_never_reaches_a_loopback_listener(aws_stack, poller, listener, dns, capsys):
    """Two live clients whose deliveries would land on the listener: one promoted from development
    with its loopback URL, one whose public-looking name resolves to loopback. Nothing connects;
    each attempt is logged as refused with its reason, not retried, and dead-lettered at once."""
    from partner.jobs import webhooks
    from partnerctl import admin

    promoted = admin.create_client(admin.NewClient(name="Promoted", redirect_uri="http://localhost:8080/callback"))[
        "client_id"
    ]
    assert cli(capsys, "client", "webhook", "set", promoted, f"http://127.0.0.1:{listener.port}/hooks")[0] == 0
    admin.set_client_status(promoted, "live")
    named = live_client("Named")
    assert cli(capsys, "client", "webhook", "set", named, f"https://{NAME}:{listener.port}/hooks")[0] == 0
    dns[NAME] = ["127.0.0.1"]
    webhooks.enqueue(
        [(c, webhooks.grant_event("grant.revoked", "w", {"reason": "user_disconnected"})) for c in (promoted, named)]
    )
    deliver_until(poller, lambda: all(webhooks.deliveries(c) for c in (promoted, named)))
    for _ in range(3):  # nothing comes back for another attempt
        poller.poll_once(wait_seconds=1)
    assert listener.accepted == 0
    reasons = {
        promoted: "refused: a live client's webhook URL must use https",
        named: f"refused: {NAME} resolves to 127.0.0.1, not a public address (loopback)",
    }
    for client_id, reason in reasons.items():
        code, out = cli(capsys, "client", "webhook", "deliveries", client_id)
        assert code == 0
        assert [(d["attempt"], d["outcome"], d["http_status"], d["retry_in"]) for d in out["deliveries"]] == [
            (1, reason, None, None)
        ]
    dead = {d["client_id"]: d for d in dead_letters(aws_stack, set(reasons))}
    assert {c: (d["attempt"], d["last_outcome"]) for c, d in dead.items()} == {c: (1, r) for c, r in reasons.items()}


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (["10.0.0.7"], "10.0.0.7, not a public address (private)"),
        (["169.254.169.254"], "169.254.169.254, not a public address (link-local)"),
        (["100.64.0.9"], "100.64.0.9, not a public address (shared address space (CGNAT))"),
        (["93.184.215.14", "fd00::7"], "fd00::7, not a public address (private)"),
        (["::ffff:10.0.0.7"], "::ffff:10.0.0.7, not a public address (private (IPv4 10.0.0.7 inside IPv6))"),
    ],
)
def test_a_name_resolving_to_a_private_address_is_refused_and_recorded_with_its_reason(aws_stack, dns, answer, reason):
    from partner.jobs import webhooks

    client_id = live_client()
    webhooks.configure(client_id, f"https://{NAME}/hooks")
    dns[NAME] = answer
    ev = webhooks.grant_event("grant.updated", "w", {"limits": {}})
    assert webhooks.deliver({"client_id": client_id, "event": ev, "attempt": 0}) == "refused"
    log = webhooks.deliveries(client_id)
    assert [(d["event_id"], d["outcome"], d["retry_in"]) for d in log] == [
        (ev["id"], f"refused: {NAME} resolves to {reason}", None)
    ]
    (dead,) = dead_letters(aws_stack, {client_id})
    assert dead["event"]["id"] == ev["id"] and dead["last_outcome"] == log[0]["outcome"]


def test_a_development_client_keeps_its_loopback_receiver(aws_stack, dns):
    """As before: a development client's http://127.0.0.1 or a name resolving to loopback is delivered."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from partner.jobs import webhooks
    from partnerctl import admin

    got: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            got.append(self.headers["Host"])
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    try:
        client_id = admin.create_client(admin.NewClient(name="Dev", redirect_uri="http://localhost:8080/callback"))[
            "client_id"
        ]
        for url in (f"http://127.0.0.1:{port}/hooks", f"http://localhost:{port}/hooks"):
            webhooks.configure(client_id, url)
            ev = webhooks.grant_event("grant.updated", "w", {"limits": {}})
            assert webhooks.deliver({"client_id": client_id, "event": ev, "attempt": 0}) == "delivered"
        assert got == [f"127.0.0.1:{port}", f"localhost:{port}"]
    finally:
        server.shutdown()
        server.server_close()
