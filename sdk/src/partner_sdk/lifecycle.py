"""Transaction lifecycle: webhook verification and fee estimates.

Webhooks follow Standard Webhooks: `webhook-id`, `webhook-timestamp` and
`webhook-signature: v1,<base64 HMAC-SHA256(key, id.timestamp.body)>`, key = the base64 part
of the `whsec_...` secret `partnerctl client webhook set` showed once.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

SECRET_PREFIX = "whsec_"
TOLERANCE_SECONDS = 300


class WebhookVerificationError(Exception):
    """The webhook's signature, timestamp or body is not acceptable: answer 400 and ignore it."""


@dataclass(frozen=True)
class WebhookEvent:
    """A verified event. `id` never changes across retries: dedupe on it.

    - `transaction.confirmed|finalized|failed|expired`: `data` holds signature, kind, mint,
      wallet, slot and error.
    - `grant.updated`: the user changed this app's limits on /account/apps; `data` holds wallet
      and limits (maxTradeLamports, dailyVolumeCapLamports: the effective caps from now on).
    - `grant.revoked`: the user disconnected this app; `data` holds wallet and reason
      (`user_disconnected`). Every token of that user already answers 401 / invalid_grant.
    """

    id: str
    type: str
    created: int
    data: dict[str, Any]
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def is_grant_event(self) -> bool:
        return self.type.startswith("grant.")

    @property
    def limits(self) -> dict[str, str] | None:
        """grant.updated: the new effective caps (lamports as integer strings)."""
        value = self.data.get("limits")
        return dict(value) if isinstance(value, dict) else None


def _signature(secret: str, msg_id: str, timestamp: str, body: bytes) -> bytes:
    key_text = secret[len(SECRET_PREFIX) :] if secret.startswith(SECRET_PREFIX) else secret
    try:
        key = base64.b64decode(key_text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise WebhookVerificationError("the webhook secret is not whsec_ + base64") from exc
    return base64.b64encode(hmac.new(key, f"{msg_id}.{timestamp}.".encode() + body, hashlib.sha256).digest())


def verify_webhook(
    secret: str,
    headers: Mapping[str, str],
    body: str | bytes,
    *,
    tolerance: int = TOLERANCE_SECONDS,
    now: float | None = None,
) -> WebhookEvent:
    """The event, if `body` carries a valid signature made with `secret` less than
    `tolerance` seconds from now; else WebhookVerificationError. Pass the raw body bytes."""
    lower = {k.lower(): v for k, v in headers.items()}
    msg_id, stamp, given = lower.get("webhook-id"), lower.get("webhook-timestamp"), lower.get("webhook-signature")
    if not msg_id or not stamp or not given:
        raise WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature")
    try:
        timestamp = int(stamp)
    except ValueError as exc:
        raise WebhookVerificationError("webhook-timestamp is not an integer") from exc
    if abs((time.time() if now is None else now) - timestamp) > tolerance:
        raise WebhookVerificationError("webhook-timestamp is too old or too new")
    raw = body.encode() if isinstance(body, str) else bytes(body)
    expected = _signature(secret, msg_id, stamp, raw)
    for candidate in given.split(" "):
        version, _, value = candidate.partition(",")
        if version == "v1" and hmac.compare_digest(expected, value.encode()):
            break
    else:
        raise WebhookVerificationError("no matching signature")
    try:
        payload = json.loads(raw)
    except ValueError as exc:
        raise WebhookVerificationError("the body is not JSON") from exc
    if not isinstance(payload, dict) or payload.get("id") != msg_id:
        raise WebhookVerificationError("the body's id does not match webhook-id")
    return WebhookEvent(
        payload["id"],
        str(payload.get("type")),
        int(payload.get("created") or 0),
        dict(payload.get("data") or {}),
        payload,
    )


@dataclass(frozen=True)
class FeeEstimate:
    """`GET /partner/v1/fees/estimate`: `priority_fee_lamports` maps p25/p50/p75/p95 to integer
    strings for the service's compute-unit limit (never below the minimum); pass one as
    `priorityFeeLamports`; `recommended_priority_fee_lamports` is the service's pick (the 75th
    percentile, `recommended_percentile`). `tip_lamports` is the minimum tip."""

    mint: str
    compute_unit_limit: int
    priority_fee_lamports: dict[str, str]
    compute_unit_price_micro_lamports: dict[str, str]
    tip_lamports: str
    slots: int
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def recommended_priority_fee_lamports(self) -> str | None:
        return (self.raw.get("recommended") or {}).get("priorityFeeLamports")

    @property
    def recommended_percentile(self) -> int | None:
        return (self.raw.get("recommended") or {}).get("percentile")

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> FeeEstimate:
        return cls(
            body["mint"],
            int(body["computeUnitLimit"]),
            dict(body["priorityFeeLamports"]),
            dict(body.get("computeUnitPriceMicroLamports") or {}),
            body["tipLamports"],
            int(body.get("slots") or 0),
            body,
        )
