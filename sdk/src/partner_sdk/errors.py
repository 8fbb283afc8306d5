"""Typed errors: one exception class per family of the spec's error catalogue.

Every error carries `.code` (the stable `error` field; match on it), `.status` (HTTP),
`.message`, `.action`, `.retryable` (the server's hint, else the family's default) and
`.extra` (the code-specific fields, also readable as attributes: `err.maxTradeLamports`).
"""

from __future__ import annotations

from typing import Any

from .codes import FAMILY

_KNOWN = {"error", "message", "action", "retryable", "error_description"}


class PartnerError(Exception):
    """Base class of every error the SDK raises for an API answer."""

    default_retryable = False

    def __init__(
        self,
        code: str,
        status: int | None = None,
        message: str | None = None,
        *,
        action: str | None = None,
        retryable: bool | None = None,
        extra: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.code = code
        self.status = status
        self.message = message or ""
        self.action = action
        self.retryable = self.default_retryable if retryable is None else bool(retryable)
        self.extra = dict(extra or {})
        self.headers = dict(headers or {})
        super().__init__(f"{status or '-'} {code}" + (f": {self.message}" if self.message else ""))

    def __getattr__(self, name: str) -> Any:
        extra = self.__dict__.get("extra") or {}
        if name in extra:
            return extra[name]
        raise AttributeError(name)


class AuthenticationError(PartnerError):
    """401: `invalid_token` (refreshed once automatically) or `invalid_client` (never retry)."""


class ReauthorizationRequired(AuthenticationError):
    """The stored grant is gone (`invalid_grant` on refresh, or no tokens stored): send the user
    through the connect flow again."""

    def __init__(
        self, user: str | None = None, message: str = "re-authorize needed", *, cause: PartnerError | None = None
    ) -> None:
        super().__init__("reauthorization_required", cause.status if cause else None, message)
        self.user = user
        self.cause = cause


class OAuthError(PartnerError):
    """400 errors of the OAuth endpoints: `invalid_grant`, `invalid_request`, `invalid_scope`, ..."""


class AccessError(PartnerError):
    """403: `insufficient_scope`, `delegation_missing`."""


class CapExceededError(AccessError):
    """403 `trade_cap_exceeded` (`maxTradeLamports`) or `daily_cap_exceeded`
    (`dailyVolumeCapLamports`, `spentTodayLamports`; resets 00:00 UTC)."""


class RateLimitError(PartnerError):
    """429: `rate_limit_exceeded`, `too_many_failed_attempts`, per-endpoint buckets, launch cooldown."""

    default_retryable = True

    @property
    def retry_after(self) -> float | None:
        value = (
            self.headers.get("retry-after")
            or self.extra.get("retryAfterSeconds")
            or self.extra.get("cooldownRemainingSeconds")
        )
        try:
            return float(value) if value is not None else None
        except (TypeError, ValueError):
            return None


class IdempotencyError(PartnerError):
    """`422 idempotency_key_reused` (another request under a used key: use a new key) or
    `409 idempotency_key_in_use` (the first request with the key still runs: wait `retry_after`)."""

    retry_after = RateLimitError.retry_after


class VenueNotReadyError(PartnerError):
    """409 `migration_pending` / `pool_not_open`: nothing was submitted; safe to retry."""

    default_retryable = True


class TradeError(PartnerError):
    """422 trading failures: `slippage_exceeded`, `insufficient_sol`, `curve_complete`, ..."""


class GovernanceError(PartnerError):
    """Governance failures (`governance_not_found` 404, the 422 vote/proposal/metadata codes)."""


class ValidationError(PartnerError):
    """400 request validation: `invalid_input`, `invalid_multipart`, `invalid_image_type`, link fields, ..."""


class LaunchError(PartnerError):
    """Coin-create restrictions: `launch_identity_limit_reached` (`totalBypassFeeLamports`), ..."""


class TransactionError(PartnerError):
    """422 `tx_expired` (rebuild and resubmit), `tx_failed`, `tx_too_large`."""


class NotFoundError(PartnerError):
    """404 other than governance."""


class ServerError(PartnerError):
    """5xx: `rpc_unavailable`, `wallet_sign_failed`, `pinning_unavailable`, `internal`."""

    default_retryable = True


class AmbiguousWriteError(PartnerError):
    """A write timed out or answered 5xx: the transaction may be in flight. It was NOT retried.
    Reconcile first (`client.reconcile(err.signature)` when a signature is known; otherwise
    check the chain) before sending it again, or send it again with `idempotency_key=err.idempotency_key`
    (the server then replays the first answer, or runs it once if it never arrived)."""

    def __init__(
        self,
        code: str,
        status: int | None = None,
        message: str | None = None,
        *,
        signature: str | None = None,
        cause: BaseException | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(code, status, message, **kwargs)
        self.signature = signature or self.extra.get("signature")
        self.cause = cause
        self.retryable = False
        self.idempotency_key: str | None = None  # send the write again with it: replayed or run once


class TransportError(PartnerError):
    """The request never got an answer (connection failure on a read after the attempt ceiling)."""

    default_retryable = True


# Codes the server does not send (yet), and their families: the spec's oracle codes, RFC 7591's
# invalid_client_metadata.
SPEC_ONLY = {
    "oracle_stale": "trading",
    "oracle_unavailable": "trading",
    "oracle_confidence_too_wide": "trading",
    "oracle_price_out_of_range": "trading",
    "invalid_client_metadata": "oauth",
}
CLASSES: dict[str, type[PartnerError]] = {
    "caps": CapExceededError,
    "venue": VenueNotReadyError,
    "idempotency": IdempotencyError,
    "trading": TradeError,
    "governance": GovernanceError,
    "launch": LaunchError,
    "transaction": TransactionError,
    "oauth": OAuthError,
}


def family(code: str, status: int | None) -> type[PartnerError]:
    """The exception class for an error code (falling back on the HTTP status)."""
    if status == 429:
        return RateLimitError
    if code in ("invalid_token", "invalid_client") or status == 401:
        return AuthenticationError
    named = CLASSES.get(FAMILY.get(code) or SPEC_ONLY.get(code) or "")
    if named is not None:
        return named
    if status == 403:
        return AccessError
    if status == 404:
        return NotFoundError
    if status is not None and status >= 500:
        return ServerError
    if status == 400:
        return ValidationError
    return PartnerError


def error_from_response(status: int, body: Any, headers: dict[str, str] | None = None) -> PartnerError:
    """Build the typed error from an answer's status and (possibly non-JSON) body."""
    if not isinstance(body, dict):
        body = {}
    code = str(body.get("error") or ("rate_limited" if status == 429 else f"http_{status}"))
    message = body.get("message") or body.get("error_description")
    extra = {k: v for k, v in body.items() if k not in _KNOWN}
    if body.get("error_description"):
        extra["error_description"] = body["error_description"]
    cls = family(code, status)
    return cls(
        code,
        status,
        message,
        action=body.get("action"),
        retryable=body.get("retryable"),
        extra=extra,
        headers={k.lower(): v for k, v in (headers or {}).items()},
    )
