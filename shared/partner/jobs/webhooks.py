"""Signed webhooks per client (Standard Webhooks): secrets, events, the queue, delivery with retries.

docs/writes.md, "Transaction lifecycle", gives the delivery rules.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from standardwebhooks import Webhook

from partner.core import clock, egress, observability
from partner.core.settings import get_settings
from partner.store import aws, ddb
from partner.store import clients as client_store
from partner.store import deliveries as deliveries_store

SECRET_PREFIX = "whsec_"
GRANT_EVENT_TYPES = ("grant.updated", "grant.revoked")  # queued by /account/apps
TIMEOUT_SECONDS = 5.0
MAX_SQS_DELAY = 900
MAX_BACKOFF = 6 * 3600
DELIVERY_DAYS = 7
MAX_URL_CHARS = 2048
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")
REFUSED = "refused"  # the outcome of a delivery to a URL or address that may not be reached


# ---------------------------------------------------------------- secrets and URLs


def new_secret() -> str:
    """`whsec_` + base64 of 32 random bytes (the Standard Webhooks convention), shown once
    by `partnerctl client webhook set|rotate`. The HMAC needs the secret itself, so it is stored
    encrypted by KMS (the WebhookKey) under the encryption context {purpose: partner-webhook,
    client_id}, on the client's item (`webhook_url`, `webhook_secret`, `webhook_key_id`). Never
    logged.
    """
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


def _context(client_id: str) -> dict[str, str]:
    return {"purpose": "partner-webhook", "client_id": client_id}


def seal(client_id: str, secret: str) -> tuple[bytes, str]:
    key_id = get_settings().webhook_key_id
    out = aws.kms().encrypt(KeyId=key_id, Plaintext=secret.encode(), EncryptionContext=_context(client_id))
    return bytes(out["CiphertextBlob"]), key_id


_opened: dict[tuple[str, bytes], str] = {}
_opened_lock = threading.Lock()


def unseal(client_id: str, ciphertext: bytes, key_id: str) -> str:
    """The plaintext secret (cached per process for this exact ciphertext: rotation changes it)."""
    cache_key = (client_id, bytes(ciphertext))
    with _opened_lock:
        found = _opened.get(cache_key)
    if found is None:
        out = aws.kms().decrypt(CiphertextBlob=bytes(ciphertext), KeyId=key_id, EncryptionContext=_context(client_id))
        found = bytes(out["Plaintext"]).decode()
        with _opened_lock:
            if len(_opened) > 1000:
                _opened.clear()
            _opened[cache_key] = found
    return found


def check_url(url: str, client_status: str) -> str:
    """A webhook URL: https for every client; a `development` client may also use http on
    localhost / 127.0.0.1 / [::1]. No credentials, no fragment. The host must be public
    (`egress.check_host`: IPv4 in any resolver form, reserved and internal names, names that
    spell a private address); a `development` client may also name loopback. ValueError
    (egress.Refused for the host) otherwise."""
    if not isinstance(url, str) or not url or len(url) > MAX_URL_CHARS or any(c.isspace() for c in url):
        raise ValueError("the webhook URL must be a URL of at most 2048 characters, without spaces")
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if parts.scheme not in ("https", "http") or not host:
        raise ValueError("the webhook URL must be an absolute http(s) URL")
    if parts.username or parts.password or parts.fragment:
        raise ValueError("the webhook URL must not carry credentials or a fragment")
    try:
        parts.port  # noqa: B018 - raises on a bad port
    except ValueError as exc:
        raise ValueError("the webhook URL has an invalid port") from exc
    if parts.scheme == "http":
        if client_status != "development":
            raise ValueError("a live client's webhook URL must use https")
        if host not in LOCAL_HOSTS:
            raise ValueError("http is allowed only on localhost or 127.0.0.1 (development clients)")
    egress.check_host(host, allow_loopback=client_status == "development")
    return url


def configure(client_id: str, url: str) -> dict[str, str]:
    """Set (or replace) the client's webhook URL with a new secret; the secret is returned once."""
    client = client_store.get_client(client_id)
    if client is None:
        raise LookupError(f"no client {client_id}")
    check_url(url, client.status)
    secret = new_secret()
    ciphertext, key_id = seal(client_id, secret)
    client_store.set_fields(
        client_id, webhook_url=url, webhook_secret=ciphertext, webhook_key_id=key_id, webhook_updated_at=clock.now_int()
    )
    return {"client_id": client_id, "webhook_url": url, "webhook_secret": secret}


def rotate(client_id: str) -> dict[str, str]:
    """A new secret for the registered URL (the old one stops signing at once)."""
    item = ddb.get(get_settings().clients_table, client_id)
    if item is None:
        raise LookupError(f"no client {client_id}")
    if not item.get("webhook_url"):
        raise LookupError(f"client {client_id} has no webhook; set one first")
    secret = new_secret()
    ciphertext, key_id = seal(client_id, secret)
    client_store.set_fields(
        client_id, webhook_secret=ciphertext, webhook_key_id=key_id, webhook_updated_at=clock.now_int()
    )
    return {"client_id": client_id, "webhook_url": item["webhook_url"], "webhook_secret": secret}


def remove(client_id: str) -> dict[str, Any]:
    if not client_store.remove_webhook(client_id, clock.now_int()):
        raise LookupError(f"no client {client_id}")
    return {"client_id": client_id, "webhook_url": None}


# ---------------------------------------------------------------- signing


def sign(secret: str, msg_id: str, timestamp: int, body: str | bytes) -> str:
    """The `webhook-signature` header value: `v1,<base64 HMAC-SHA256(key, id.timestamp.body)>`,
    by the Standard Webhooks reference library.

    Standard Webhooks: headers `webhook-id` (the event id), `webhook-timestamp` (unix
    seconds of the attempt) and `webhook-signature: v1,<base64 HMAC-SHA256(key, id.timestamp.body)>`
    where key is the base64-decoded part after `whsec_`. Partners verify with the SDK's
    `verify_webhook` or any Standard Webhooks library.
    """
    text = body.decode() if isinstance(body, bytes) else body
    return Webhook(secret).sign(msg_id, datetime.fromtimestamp(timestamp, UTC), text)


# ---------------------------------------------------------------- events and the queue


def event_id(signature: str, status: str) -> str:
    return "evt_" + hashlib.sha256(f"{signature}/{status}".encode()).hexdigest()[:32]


def event(record: dict[str, Any], status: str, slot: int | None, error: str | None) -> dict[str, Any]:
    """Event types `transaction.confirmed|finalized|failed|expired`, body
    {"id": "evt_...", "type", "created", "data": {"signature", "kind", "mint", "wallet", "slot",
    "error"}}. The id is derived from signature and type, so it never changes: a re-sent event
    (tracker crash, retry) keeps its id and receivers deduplicate on it.
    """
    return {
        "id": event_id(record["pk"], status),
        "type": f"transaction.{status}",
        "created": clock.now_int(),
        "data": {
            "signature": record["pk"],
            "kind": record["kind"],
            "mint": record.get("mint"),
            "wallet": record.get("wallet"),
            "slot": slot if slot is not None else record.get("slot"),
            "error": error,
        },
    }


def grant_event(kind: str, wallet: str | None, data: dict[str, Any]) -> dict[str, Any]:
    """`grant.updated` (the user changed the app's limits: data.limits) or `grant.revoked` (the
    user disconnected the app: data.reason `user_disconnected`), for the user's wallet. Each
    change is its own event: a random id, kept across retries."""
    assert kind in GRANT_EVENT_TYPES
    return {
        "id": "evt_" + secrets.token_hex(16),
        "type": kind,
        "created": clock.now_int(),
        "data": {"wallet": wallet, **data},
    }


def _sqs() -> Any:
    return aws.client("sqs")


SEND_BATCH = 10  # SendMessageBatch's limit


def _send(queue_url: str, messages: list[dict[str, Any]]) -> None:
    """SendMessageBatch in tens; a message SQS did not take raises (nothing is dropped silently)."""
    for start in range(0, len(messages), SEND_BATCH):
        chunk = messages[start : start + SEND_BATCH]
        entries = []
        for i, message in enumerate(chunk):
            entry: dict[str, Any] = {"Id": str(i), "MessageBody": json.dumps(message["body"], separators=(",", ":"))}
            if message.get("delay"):
                entry["DelaySeconds"] = int(message["delay"])
            entries.append(entry)
        out = _sqs().send_message_batch(QueueUrl=queue_url, Entries=entries)
        if out.get("Failed"):
            raise RuntimeError(f"SQS refused {len(out['Failed'])} webhook message(s)")


def enqueue(events: list[tuple[str, dict[str, Any]]]) -> None:
    """Queue (client_id, event) pairs for delivery."""
    if events:
        _send(
            get_settings().webhook_queue_url,
            [{"body": {"client_id": client_id, "event": ev, "attempt": 0}} for client_id, ev in events],
        )


def backoff(attempt: int, base: float | None = None) -> int:
    """Seconds to wait after failed attempt number `attempt` (1-based): base * 2**(attempt-1), capped."""
    base = float(get_settings().webhook_backoff_seconds) if base is None else base
    return int(min(MAX_BACKOFF, max(0.0, base) * 2 ** max(0, attempt - 1)))


# ---------------------------------------------------------------- delivery


def wants_events(item: dict[str, Any] | None) -> bool:
    """A client item with a webhook, not suspended (a suspended client gets no events)."""
    return bool(item and item.get("webhook_url") and item.get("webhook_secret") and item.get("status") != "suspended")


def _client_hook(client_id: str) -> tuple[str, str, str] | None:
    """(URL, secret, client status) of a client that wants events."""
    item = ddb.get(get_settings().clients_table, client_id)
    if not wants_events(item):
        return None
    assert item is not None
    return (
        item["webhook_url"],
        unseal(client_id, item["webhook_secret"], item["webhook_key_id"]),
        str(item.get("status") or "live"),
    )


def post(
    url: str, secret: str, ev: dict[str, Any], timeout: float = TIMEOUT_SECONDS, client_status: str = "live"
) -> tuple[int | None, str]:
    """One signed POST (no redirects followed): (HTTP status or None, a short outcome).
    The URL is checked again for the client's status as it is now, the name resolved once
    and every address checked (`egress.target`); the connection goes to that checked address.
    A URL or address that may not be reached gives `refused: <reason>` and sends nothing."""
    from partner.core import transport

    try:
        check_url(url, client_status)
        target = egress.target(url, allow_loopback=client_status == "development")
    except ValueError as exc:  # egress.Refused included
        return None, f"{REFUSED}: {exc}"
    except OSError as exc:  # the resolver failed: a passing fault, retried
        return None, f"error: dns {type(exc).__name__}"
    body = json.dumps(ev, separators=(",", ":"))
    timestamp = int(time.time())
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "partner-api-webhooks/1",
        "webhook-id": ev["id"],
        "webhook-timestamp": str(timestamp),
        "webhook-signature": sign(secret, ev["id"], timestamp, body),
    }
    try:
        answer = egress.post(target, timeout=timeout, body=body.encode(), headers=headers)
    except transport.Failed as exc:
        errors = transport.urllib3.exceptions
        cause = exc.__cause__
        # urllib3 files a refused connection (NewConnectionError) under ConnectTimeoutError: not a timeout
        if isinstance(cause, errors.TimeoutError) and not isinstance(cause, errors.NewConnectionError):
            return None, "timeout"
        return None, f"error: {type(cause or exc).__name__}"
    return answer.status, "delivered" if 200 <= answer.status < 300 else f"http {answer.status}"


def _log_attempt(
    client_id: str, ev: dict[str, Any], attempt: int, status: int | None, outcome: str, next_in: int | None
) -> None:
    now = clock.now()
    item = {
        "pk": client_id,
        "sk": f"{int(now * 1000):013d}#{ev['id']}#{attempt}",
        "event_id": ev["id"],
        "type": ev["type"],
        "signature": ev["data"].get("signature"),
        "attempt": attempt,
        "at": int(now),
        "http_status": status,
        "outcome": outcome,
        "retry_in": next_in,
        "expires_at": int(now) + DELIVERY_DAYS * 86_400,
    }
    deliveries_store.log(item)  # a failed write is not retried: it must not re-send the event


def deliver(message: dict[str, Any]) -> str:
    """Handle one queue message; the outcome (delivered, retry, deferred, dead_letter, refused, waiting,
    no_webhook).
    Raises only when the queue itself fails (then SQS re-delivers the message).
    """
    settings = get_settings()
    now = clock.now()
    ev, client_id = message["event"], message["client_id"]
    if message.get("dead_at"):  # redriven from the dead-letter queue by an operator: a fresh window
        message = {k: v for k, v in message.items() if k not in ("dead_at", "first_at", "not_before", "last_outcome")}
    not_before = float(message.get("not_before") or 0)
    if not_before > now:  # a long backoff: hop again, no attempt yet
        _send(
            settings.webhook_queue_url, [{"body": message, "delay": min(MAX_SQS_DELAY, int(not_before - now + 0.999))}]
        )
        return "waiting"
    attempt = int(message.get("attempt") or 0) + 1
    first = float(message.get("first_at") or now)
    try:
        hook = _client_hook(client_id)
    except Exception as exc:  # DynamoDB or KMS failed: nothing was posted, no attempt counted
        return _defer(message, first, attempt, f"error: reading the webhook: {type(exc).__name__}")
    if hook is None:
        return "no_webhook"  # removed since the event was queued: nothing to deliver to
    status, outcome = post(hook[0], hook[1], ev, client_status=hook[2])
    if outcome == "delivered":
        _log_attempt(client_id, ev, attempt, status, outcome, None)
        return "delivered"
    refused = outcome.startswith(REFUSED)  # final: the same URL would be refused again
    wait = backoff(attempt)
    if refused or now + wait - first > float(settings.webhook_retry_seconds):
        _log_attempt(client_id, ev, attempt, status, outcome, None)
        _dead_letter(message, first, attempt, outcome)
        return REFUSED if refused else "dead_letter"
    _log_attempt(client_id, ev, attempt, status, outcome, wait)
    retry = {**message, "attempt": attempt, "first_at": first, "not_before": now + wait, "last_outcome": outcome}
    _send(settings.webhook_queue_url, [{"body": retry, "delay": min(MAX_SQS_DELAY, wait)}])
    return "retry"


def _dead_letter(message: dict[str, Any], first: float, attempt: int, outcome: str) -> None:
    dead = {**message, "attempt": attempt, "first_at": first, "last_outcome": outcome, "dead_at": int(clock.now())}
    dead.pop("not_before", None)
    _send(get_settings().webhook_dlq_url, [{"body": dead}])


def _defer(message: dict[str, Any], first: float, attempt: int, outcome: str) -> str:
    """The client's webhook could not be read (a passing DynamoDB or KMS fault): the message goes
    back on the queue due after `backoff(attempt)`, as a failed POST would, not after SQS's
    visibility timeout (minutes); past the retry window, to the dead-letter queue. A queue that
    refuses it raises (SQS then re-delivers the message)."""
    observability.logger.warning("webhook delivery deferred", extra={"outcome": outcome}, exc_info=True)
    now, wait = clock.now(), backoff(attempt)
    if now + wait - first > float(get_settings().webhook_retry_seconds):
        _dead_letter(message, first, attempt - 1, outcome)
        return "dead_letter"
    again = {**message, "first_at": first, "not_before": now + wait}
    _send(get_settings().webhook_queue_url, [{"body": again, "delay": min(MAX_SQS_DELAY, wait)}])
    return "deferred"


def handle_sqs(event: dict[str, Any]) -> dict[str, Any]:
    """The SQS event source's batch: failures are reported per message (ReportBatchItemFailures)."""
    failures = []
    outcomes: dict[str, int] = {}
    for record in event.get("Records") or []:
        try:
            outcome = deliver(json.loads(record["body"]))
        except (ValueError, KeyError, TypeError):
            outcome = "malformed"  # never retried: it would fail the same way (logged by the caller)
        except Exception:  # SQS re-delivers it, then the redrive policy's DLQ
            failures.append({"itemIdentifier": record["messageId"]})
            outcome = "error"
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    return {"batchItemFailures": failures, "outcomes": outcomes}


def deliveries(client_id: str, limit: int = 20) -> list[dict[str, Any]]:
    """The client's most recent delivery attempts, newest first."""
    rows = deliveries_store.recent(client_id, limit)
    return [
        {
            k: row.get(k)
            for k in ("event_id", "type", "signature", "attempt", "at", "http_status", "outcome", "retry_in")
        }
        for row in rows
    ]
