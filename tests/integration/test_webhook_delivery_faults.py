"""A passing KMS or DynamoDB fault while the delivery function reads the client's webhook (its URL,
its sealed secret) defers the event by the webhook backoff (seconds), as a failed POST is retried.
Raising instead left the message to SQS's visibility timeout (600 s in template.yaml): the soak
(tests/e2e/test_soak.py) saw `transaction.confirmed` events arrive ten minutes late after a KMS
phase. No attempt is counted (nothing was posted), the retry window still bounds the deferrals,
and a queue that refuses the deferral still raises (SQS re-delivers the message)."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from tests.integration.test_lifecycle import Receiver

THROTTLED = ClientError({"Error": {"Code": "ThrottlingException", "Message": "Rate exceeded"}}, "Decrypt")


@pytest.fixture
def receiver():
    """test_lifecycle's webhook receiver, as (its URL, the receiver)."""
    rx = Receiver()
    try:
        yield rx.url, rx
    finally:
        rx.stop()


def _ids(rx: Receiver) -> list[str]:
    return [headers["webhook-id"] for headers, _ in rx.got]


def _client(url: str) -> str:
    from partner.jobs import webhooks
    from partnerctl import admin

    made = admin.create_client(admin.NewClient(name="Faulty Hooks", redirect_uri="http://localhost:8080/callback"))
    webhooks.configure(made["client_id"], url)
    return made["client_id"]


def _sent(monkeypatch) -> list[tuple[str, list[dict]]]:
    from partner.jobs import webhooks

    sent: list[tuple[str, list[dict]]] = []
    monkeypatch.setattr(webhooks, "_send", lambda queue_url, messages: sent.append((queue_url, messages)))
    return sent


@pytest.mark.parametrize("fails", ["unseal", "_client_hook"])  # KMS Decrypt; the clients table's GetItem
def test_a_fault_reading_the_hook_defers_the_event_by_the_backoff(aws_stack, monkeypatch, receiver, fails):
    from partner.core import clock
    from partner.core.settings import get_settings
    from partner.jobs import webhooks

    url, rx = receiver
    client_id = _client(url)
    ev = webhooks.grant_event("grant.updated", "w", {"limits": {}})
    real = getattr(webhooks, fails)

    def once(*args, **kwargs):
        monkeypatch.setattr(webhooks, fails, real)
        raise THROTTLED

    monkeypatch.setattr(webhooks, fails, once)
    sent = _sent(monkeypatch)
    now = clock.now()
    message = {"client_id": client_id, "event": ev, "attempt": 2, "first_at": now - 60}
    assert webhooks.deliver(message) == "deferred"
    ((queue_url, [again]),) = sent
    assert queue_url == get_settings().webhook_queue_url
    body = again["body"]
    # no attempt counted (nothing was posted); due after the backoff of the attempt to come
    assert body["attempt"] == 2 and body["first_at"] == now - 60 and body["event"] == ev
    assert again["delay"] == webhooks.backoff(3) and body["not_before"] == pytest.approx(now + webhooks.backoff(3))
    assert _ids(rx) == [] and webhooks.deliveries(client_id) == []
    # when it is due, the same event is delivered under its own id, attempt 3
    monkeypatch.setattr(clock, "now", lambda: body["not_before"] + 0.1)
    assert webhooks.deliver(body) == "delivered"
    assert _ids(rx) == [ev["id"]]
    assert [(d["event_id"], d["attempt"], d["outcome"]) for d in webhooks.deliveries(client_id)] == [
        (ev["id"], 3, "delivered")
    ]


def test_deferrals_past_the_retry_window_go_to_the_dead_letter_queue(aws_stack, monkeypatch, receiver):
    from partner.core import clock
    from partner.core.settings import get_settings
    from partner.jobs import webhooks

    url, _ = receiver
    client_id = _client(url)
    ev = webhooks.grant_event("grant.updated", "w", {"limits": {}})
    monkeypatch.setattr(webhooks, "unseal", lambda *a: (_ for _ in ()).throw(THROTTLED))
    sent = _sent(monkeypatch)
    window = float(get_settings().webhook_retry_seconds)
    message = {"client_id": client_id, "event": ev, "attempt": 1, "first_at": clock.now() - window}
    assert webhooks.deliver(message) == "dead_letter"
    ((queue_url, [dead]),) = sent
    assert queue_url == get_settings().webhook_dlq_url
    assert dead["body"]["event"] == ev and dead["body"]["last_outcome"].startswith("error: ")


def test_a_queue_that_refuses_the_deferral_still_raises(aws_stack, monkeypatch, receiver):
    """SQS then re-delivers the message after its visibility timeout: nothing is lost."""
    from partner.jobs import webhooks

    url, _ = receiver
    client_id = _client(url)
    ev = webhooks.grant_event("grant.updated", "w", {"limits": {}})
    monkeypatch.setattr(webhooks, "unseal", lambda *a: (_ for _ in ()).throw(THROTTLED))

    def refuse(queue_url, messages):
        raise RuntimeError("SQS refused 1 webhook message(s)")

    monkeypatch.setattr(webhooks, "_send", refuse)
    with pytest.raises(RuntimeError):
        webhooks.deliver({"client_id": client_id, "event": ev, "attempt": 0})
