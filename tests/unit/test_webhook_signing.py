"""Webhook signatures (Standard Webhooks): the published test vector, and interoperability
with the reference library `standardwebhooks` in both directions (server signer, SDK verifier)."""

from __future__ import annotations

import base64
import time

import pytest
from standardwebhooks import Webhook
from standardwebhooks import WebhookVerificationError as ReferenceError_

from partner.jobs import webhooks
from partner_sdk import WebhookVerificationError, verify_webhook

# the specification's test vector
SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
MSG_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
TIMESTAMP = 1614265330
BODY = '{"test": 2432232314}'
SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="


def test_the_published_vector():
    assert webhooks.sign(SECRET, MSG_ID, TIMESTAMP, BODY) == SIGNATURE
    assert webhooks.sign(SECRET, MSG_ID, TIMESTAMP, BODY.encode()) == SIGNATURE


def _event_body(event_id: str) -> str:
    return (
        f'{{"id":"{event_id}","type":"transaction.confirmed","created":1,"data":{{"signature":"s",'
        '"kind":"buy","mint":null,"wallet":"w","slot":5,"error":null}}'
    )


def _event(status: str) -> tuple[str, str, int]:
    """A transaction event's id and JSON body, and the time now."""
    event_id = webhooks.event_id("sig", status)
    return event_id, _event_body(event_id), int(time.time())


def test_what_the_service_signs_the_reference_library_accepts_and_the_reverse():
    secret = webhooks.new_secret()
    assert secret.startswith("whsec_") and len(base64.b64decode(secret[len("whsec_") :])) == 32
    event_id, body, now = _event("confirmed")
    ours = {
        "webhook-id": event_id,
        "webhook-timestamp": str(now),
        "webhook-signature": webhooks.sign(secret, event_id, now, body),
    }
    assert Webhook(secret).verify(body, ours)["id"] == event_id
    with pytest.raises(ReferenceError_):
        Webhook(webhooks.new_secret()).verify(body, ours)
    from datetime import UTC, datetime

    theirs = {**ours, "webhook-signature": Webhook(secret).sign(event_id, datetime.fromtimestamp(now, UTC), body)}
    assert theirs["webhook-signature"] == ours["webhook-signature"]
    assert verify_webhook(secret, theirs, body).id == event_id


def test_sdk_verifier_rejects_tampering_old_timestamps_and_missing_headers():
    secret = webhooks.new_secret()
    event_id, body, now = _event("finalized")
    headers = {
        "Webhook-Id": event_id,
        "Webhook-Timestamp": str(now),
        "Webhook-Signature": "v1,bm9wZQ== " + webhooks.sign(secret, event_id, now, body),
    }
    event = verify_webhook(secret, headers, body.encode())
    assert (event.id, event.type, event.data["slot"]) == (event_id, "transaction.confirmed", 5)
    for bad_headers, bad_body in (
        (headers, body.replace('"slot":5', '"slot":6')),  # tampered body
        ({**headers, "Webhook-Timestamp": str(now - 301)}, body),  # too old
        ({**headers, "Webhook-Timestamp": str(now + 301)}, body),  # too new
        ({k: v for k, v in headers.items() if k != "Webhook-Signature"}, body),  # unsigned
        ({**headers, "Webhook-Id": "evt_other"}, body),
    ):  # id swapped
        with pytest.raises(WebhookVerificationError):
            verify_webhook(secret, bad_headers, bad_body)
    with pytest.raises(WebhookVerificationError):  # the id in the body must be the signed one
        other = _event_body("evt_" + "0" * 32)
        verify_webhook(secret, {**headers, "Webhook-Signature": webhooks.sign(secret, event_id, now, other)}, other)


def test_event_ids_never_change_and_differ_per_status():
    assert webhooks.event_id("sig", "confirmed") == webhooks.event_id("sig", "confirmed")
    assert len({webhooks.event_id("sig", s) for s in ("confirmed", "finalized", "failed", "expired")}) == 4
