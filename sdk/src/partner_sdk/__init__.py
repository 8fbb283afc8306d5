"""Python SDK for the Partner API (httpx): PKCE connect, a refresh-once token store, the spec's
retry rules, typed responses and typed errors."""

from .client import PartnerClient
from .errors import (
    AccessError,
    AmbiguousWriteError,
    AuthenticationError,
    CapExceededError,
    GovernanceError,
    IdempotencyError,
    LaunchError,
    NotFoundError,
    OAuthError,
    PartnerError,
    RateLimitError,
    ReauthorizationRequired,
    ServerError,
    TradeError,
    TransactionError,
    TransportError,
    ValidationError,
    VenueNotReadyError,
)
from .lifecycle import FeeEstimate, WebhookEvent, WebhookVerificationError, verify_webhook
from .models import (
    CoinCreateResult,
    Governance,
    GovernanceView,
    GovernanceWriteResult,
    InitialBuyPlan,
    Limits,
    Profile,
    Proposal,
    Quote,
    TokenSet,
    TradeResult,
    TransactionStatus,
    Vote,
)
from .oauth import ALL_SCOPES, AuthorizationRequest, OAuthClient, pkce_pair, s256
from .retry import NO_RETRY, IdempotencyKey, RetryPolicy
from .tokens import InMemoryTokenStorage, StaticToken, TokenSource, TokenStorage, TokenStore, UserTokens

__version__ = "0.1.0"

__all__ = [
    "ALL_SCOPES", "NO_RETRY", "AccessError", "AmbiguousWriteError", "AuthenticationError", "AuthorizationRequest",
    "CapExceededError", "CoinCreateResult", "FeeEstimate", "Governance", "GovernanceError", "GovernanceView",
    "GovernanceWriteResult", "IdempotencyError", "IdempotencyKey", "InMemoryTokenStorage", "InitialBuyPlan", "LaunchError", "Limits", "NotFoundError", "OAuthClient",
    "OAuthError", "PartnerClient", "PartnerError", "Profile", "Proposal", "Quote", "RateLimitError",
    "ReauthorizationRequired", "RetryPolicy", "ServerError", "StaticToken", "TokenSet", "TokenSource",
    "TokenStorage", "TokenStore", "TradeError", "TradeResult", "TransactionError", "TransactionStatus",
    "TransportError", "UserTokens", "ValidationError", "VenueNotReadyError", "Vote", "WebhookEvent",
    "WebhookVerificationError", "pkce_pair", "s256", "verify_webhook",
]
