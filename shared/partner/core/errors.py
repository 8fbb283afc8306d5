"""Domain errors. Each carries one of the spec's stable `error` codes and its HTTP status.

Domain code raises these; partner.edge.errors turns them into HTTP answers: the API's, the OAuth
endpoints' and the web pages'.
"""

from __future__ import annotations

from typing import Any

# code -> (status, default message, retryable, family); a family is one exception class of the SDK
CATALOGUE: dict[str, tuple[int, str, bool, str]] = {
    # auth and access
    "invalid_token": (401, "The access token is missing, malformed, expired or revoked.", False, "access"),
    "invalid_client": (401, "Client authentication failed.", False, "access"),
    "insufficient_scope": (403, "The access token lacks the scope this endpoint requires.", False, "access"),
    "delegation_missing": (403, "The user has not enabled 1-click trading for this wallet.", False, "access"),
    "trade_cap_exceeded": (403, "The trade exceeds the client's per-trade limit.", False, "caps"),
    "daily_cap_exceeded": (403, "The trade exceeds the client's daily volume cap.", False, "caps"),
    "invalid_grant": (400, "The authorization code or refresh token is invalid, expired or replayed.", False, "oauth"),
    "invalid_request": (400, "The request is missing a required parameter or is malformed.", False, "oauth"),
    "unsupported_grant_type": (400, "grant_type must be authorization_code or refresh_token.", False, "oauth"),
    "invalid_scope": (400, "The scope is empty or unknown.", False, "oauth"),
    "scope_not_allowed": (400, "A requested scope is not approved for this client.", False, "oauth"),
    "invalid_redirect_uri": (400, "The redirect_uri does not exactly match the registered one.", False, "oauth"),
    "unknown_client": (400, "No such client, or the client is suspended.", False, "oauth"),
    "rate_limit_exceeded": (429, "The client's tier request budget is exhausted for this minute.", True, "rate_limits"),
    "too_many_failed_attempts": (429, "Too many failed client authentications; try again later.", True, "rate_limits"),
    "access_denied": (400, "The user denied the request.", False, "oauth"),
    # trading
    "invalid_partner_fee": (400, "partnerFeeBps must be an integer from 0 to 9999.", False, "trading"),
    "partner_fee_not_configured": (400, "This client cannot charge a partner fee.", False, "trading"),
    "migration_pending": (409, "The curve is complete and migration is finalizing.", True, "venue"),
    "pool_not_open": (409, "The pool is not open yet.", True, "venue"),
    "insufficient_sol": (422, "The wallet does not hold enough SOL.", False, "trading"),
    "insufficient_tokens": (422, "The wallet does not hold enough tokens.", False, "trading"),
    "insufficient_liquidity": (422, "The venue cannot fill a trade of this size.", False, "trading"),
    "curve_complete": (422, "The curve completed while the trade was in flight.", False, "trading"),
    "missing_sell_token_account": (422, "The wallet holds none of this token.", False, "trading"),
    "slippage_exceeded": (422, "The price moved past the slippage bound.", False, "trading"),
    "buy_limit_exceeded": (422, "The buy exceeds the per-wallet token cap.", False, "trading"),
    "same_slot_trading_blocked": (422, "Trading opens on the next block.", True, "trading"),
    "math_overflow": (422, "The amount is too large.", False, "trading"),
    # governance
    "governance_not_found": (404, "This token has no governance.", False, "governance"),
    "already_voted": (422, "An active vote exists on this proposal.", False, "governance"),
    "invalid_vote_amount": (422, "The vote amount is below the minimum or above the balance.", False, "governance"),
    "missing_vote_token_account": (422, "The wallet holds none of this token.", False, "governance"),
    "vote_not_active": (422, "The vote was cancelled.", False, "governance"),
    "vote_already_withdrawn": (422, "The locked tokens were already reclaimed.", False, "governance"),
    "vote_receipt_not_found": (422, "No vote from this wallet on this proposal.", False, "governance"),
    "proposal_closed": (422, "Voting has ended.", False, "governance"),
    "proposal_still_open": (422, "The proposal cannot be settled yet.", False, "governance"),
    "proposal_already_settled": (422, "The proposal is already settled.", False, "governance"),
    "proposal_not_settled": (422, "Withdrawal needs a settled proposal.", False, "governance"),
    "proposal_not_found": (422, "Unknown proposal.", False, "governance"),
    "invalid_proposal": (422, "The proposal account is unreadable.", False, "governance"),
    "active_proposal_exists": (422, "The governance already has an active proposal.", False, "governance"),
    "insufficient_proposal_bond": (422, "The wallet cannot cover the proposal bond.", False, "governance"),
    "missing_proposal_token_account": (422, "The wallet must hold the token.", False, "governance"),
    "no_proposal_bond": (422, "There is no bond to withdraw.", False, "governance"),
    "proposal_bond_already_withdrawn": (422, "The bond was already reclaimed.", False, "governance"),
    "proposal_window_closing": (422, "Not enough time remains before metadata locks.", False, "governance"),
    "governance_finalized": (422, "Metadata is locked forever.", False, "governance"),
    "metadata_not_mutable": (422, "Metadata can no longer change.", False, "governance"),
    "metadata_still_mutable": (422, "The mutability window has not expired.", False, "governance"),
    "content_field_locked": (422, "A changed field is permanently locked.", False, "governance"),
    "no_metadata_changes": (422, "Nothing differs from the on-chain metadata.", False, "governance"),
    "stale_content_revision": (
        422,
        "Metadata changed during authoring; re-read, rebase and reconfirm.",
        False,
        "governance",
    ),
    "mutability_expired": (422, "The mutability window is closed.", False, "governance"),
    "mutability_already_extended": (422, "The mutability window was already extended once.", False, "governance"),
    "mutability_extension_exceeds_cap": (422, "The extension is too long.", False, "governance"),
    "invalid_vote_duration": (422, "Not a valid vote duration.", False, "governance"),
    "vote_duration_exceeds_window": (422, "The vote would outlast the mutable window.", False, "governance"),
    # validation
    "invalid_input": (400, "The request body failed validation.", False, "validation"),
    "invalid_multipart": (400, "The form could not be parsed.", False, "validation"),
    "invalid_image_type": (400, "The image must be PNG, JPEG, WebP or GIF.", False, "validation"),
    "image_required": (400, "An image is required.", False, "launch"),
    # the coin's content fields (coin create, update-content)
    "invalid_name": (400, "The name is empty.", False, "content"),
    "invalid_symbol": (400, "The symbol is empty or has characters other than A-Z and 0-9.", False, "content"),
    "name_too_long": (400, "The name is over 32 bytes.", False, "content"),
    "symbol_too_long": (400, "The symbol is over 10 bytes.", False, "content"),
    "invalid_website": (400, "The website is not a valid URL.", False, "content"),
    "invalid_twitter": (400, "The twitter value is not a valid URL or handle.", False, "content"),
    "invalid_telegram": (400, "The telegram value is not a valid URL or handle.", False, "content"),
    "website_too_long": (400, "The website is over 300 characters.", False, "content"),
    "twitter_too_long": (400, "The twitter value is over 300 characters.", False, "content"),
    "telegram_too_long": (400, "The telegram value is over 300 characters.", False, "content"),
    "invalid_wallet": (422, "The user's wallet address is invalid.", False, "validation"),
    "deploy_cooldown_active": (429, "The creator launched a coin too recently.", True, "launch"),
    "launch_identity_limit_reached": (
        422,
        "The creator already launched a coin with this name or symbol.",
        False,
        "launch",
    ),
    # Idempotency-Key (additive)
    "idempotency_key_reused": (422, "This Idempotency-Key was used for a different request.", False, "idempotency"),
    "idempotency_key_in_use": (409, "A request with this Idempotency-Key is still running.", True, "idempotency"),
    "not_found": (404, "No such resource.", False, "routing"),
    "method_not_allowed": (405, "Method not allowed.", False, "routing"),
    "payload_too_large": (413, "The request body is too large.", False, "routing"),
    # API Gateway's own answers (template.yaml GatewayResponses; additive)
    "request_rejected": (400, "API Gateway refused the request.", False, "gateway"),
    "gateway_timeout": (504, "The API did not answer within 29 seconds.", False, "gateway"),
    # infrastructure
    "rpc_unavailable": (502, "The chain network or landing service is unavailable.", True, "infrastructure"),
    "wallet_sign_failed": (502, "The wallet signing service failed.", True, "infrastructure"),
    "pinning_unavailable": (502, "The image or metadata upload service is unavailable.", True, "infrastructure"),
    "internal": (500, "Internal server error.", True, "infrastructure"),
    "tx_expired": (422, "The transaction expired before landing; rebuild and resubmit.", True, "transaction"),
    "tx_failed": (422, "The transaction failed on-chain.", False, "transaction"),
    "tx_too_large": (422, "The transaction is too large; retry with fewer fields.", False, "transaction"),
}


def family(name: str) -> tuple[str, ...]:
    """The codes of one family, in catalogue order."""
    return tuple(code for code, entry in CATALOGUE.items() if entry[3] == name)


class ApiError(Exception):
    """An error with a stable spec code. `extra` fields are added to the Error object."""

    def __init__(
        self,
        code: str,
        message: str | None = None,
        *,
        action: str | None = None,
        retryable: bool | None = None,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:
        default_status, default_message, default_retryable, _ = CATALOGUE.get(code, CATALOGUE["internal"])
        self.code = code
        self.status = default_status  # the code's, from the catalogue
        self.message = message or default_message
        self.action = action
        if retryable is None:
            # a 5xx carrying the signature(s) of a sent write: it may be in flight, so an identical
            # retry could execute it twice (spec retry rule 5: reconcile on-chain first)
            in_flight = self.status >= 500 and ("signature" in extra or "signatures" in extra)
            retryable = default_retryable and not in_flight
        self.retryable = retryable
        self.headers = headers or {}
        self.extra = extra
        super().__init__(f"{code}: {self.message}")

    def body(self) -> dict[str, Any]:
        out: dict[str, Any] = {"error": self.code, "message": self.message}
        if self.action:
            out["action"] = self.action
        out["retryable"] = self.retryable
        out.update(self.extra)
        return out


class RateLimited(Exception):
    """The per-endpoint bucket is exhausted. The spec's 429 for it has no `error` code."""

    def __init__(self, retry_after: int, limit: int) -> None:
        self.retry_after = retry_after
        self.limit = limit
        super().__init__(f"rate limited for {retry_after}s")
