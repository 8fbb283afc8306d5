"""Response models (and the OAuth forms' documentation models): what each endpoint answers, field for
field as the spec names them. The handlers build these shapes as plain dicts (`partner.features.trading`,
`partner.features.governance.*`, `partner.features.launch`, `partner.features.oauth.grants`) and
answer them byte for byte as
before; each route's decorator names its model in `responses=` (partner.edge.apidoc), and the OAuth and
/account/apps forms' models document the bodies those functions parse themselves. Request models live
next to their handlers (`partner.features.models`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from partner.features.models import BASE58_PATTERN
from partner.store.txrecords import Kind


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _addr(description: str) -> Any:
    return Field(description=description, pattern=BASE58_PATTERN)


def _units(description: str) -> Any:
    return Field(description=description, pattern="^[0-9]+$")


# ------------------------------------------------------------------ errors


class Error(BaseModel):
    """The Error object. Code-specific fields are additive (e.g. `requiredLamports`)."""

    model_config = ConfigDict(extra="allow")

    error: str = Field(description="Stable machine-readable code; match on this.")
    message: str | None = Field(default=None, description="Human-readable; may change.")
    action: str | None = Field(default=None, description="Suggested next step.")
    retryable: bool | None = Field(default=None, description="Whether an identical retry could plausibly succeed.")
    error_description: str | None = Field(default=None, description="OAuth endpoints only (RFC 6749).")


# the document's `RateLimited` component (the exception that answers with it: partner.core.errors.RateLimited)
class BucketRefusal(BaseModel):
    """A per-endpoint bucket's 429: no `error` code (the tier budget's 429 is an Error)."""

    model_config = ConfigDict(extra="allow", title="RateLimited")

    message: str
    retryAfterSeconds: int


# ------------------------------------------------------------------ OAuth


class TokenResponse(_Out):
    access_token: str = Field(pattern=r"^app_at_", description="Valid 30 minutes.")
    token_type: Literal["Bearer"]
    expires_in: Literal[1800] = Field(description="Seconds, always 1800.")
    refresh_token: str = Field(pattern=r"^app_rt_", description="New token, 60 days; replaces the one sent.")
    scope: str = Field(description="Space-joined scopes carried by this access token.")


class AuthorizationCodeGrant(BaseModel):
    """grant_type=authorization_code. Client credentials by HTTP Basic, or in the body."""

    model_config = ConfigDict(extra="allow")

    grant_type: Literal["authorization_code"]
    code: str = Field(min_length=1, description="The `app_ac_` code from the callback.")
    redirect_uri: str = Field(min_length=1, description="Must match the URI stored with the code.")
    code_verifier: str = Field(
        pattern=r"^[A-Za-z0-9_-]{43,128}$", description="PKCE verifier hashing (S256) to the original challenge."
    )
    client_id: str | None = Field(default=None, description="Only when not using HTTP Basic.")
    client_secret: str | None = Field(default=None, description="The API key; only when not using HTTP Basic.")


class RefreshTokenGrant(BaseModel):
    """grant_type=refresh_token. Client credentials by HTTP Basic, or in the body."""

    model_config = ConfigDict(extra="allow")

    grant_type: Literal["refresh_token"]
    refresh_token: str = Field(min_length=1, description="The current `app_rt_` token.")
    scope: str | None = Field(default=None, description="If sent, must equal the token's scopes.")
    client_id: str | None = Field(default=None, description="Only when not using HTTP Basic.")
    client_secret: str | None = Field(default=None, description="The API key; only when not using HTTP Basic.")


class RevokeRequest(BaseModel):
    """RFC 7009. Client credentials by HTTP Basic, or in the body."""

    model_config = ConfigDict(extra="allow")

    token: str = Field(min_length=1, description="An `app_at_` or `app_rt_` token issued to this client.")
    token_type_hint: str | None = None
    client_id: str | None = None
    client_secret: str | None = None


class RevokeResponse(_Out):
    """Always an empty object: unknown or foreign tokens are ignored (RFC 7009)."""


class ConsentDecision(BaseModel):
    """The consent form the consent page posts back (browser only)."""

    model_config = ConfigDict(extra="allow")

    request: str = Field(description="The signed authorization request from the page.")
    csrf: str = Field(description="The page's CSRF token.")
    decision: Literal["approve", "deny"]
    max_trade_sol: str | None = Field(
        None,
        description=(
            "With trade:execute: the user's per-trade limit for this app in SOL (at most the client's cap; "
            "absent: unchanged). Added."
        ),
    )
    daily_cap_sol: str | None = Field(
        None,
        description=(
            "With trade:execute: the user's daily limit for this app in SOL (at most the client's cap; "
            "absent: unchanged). Added."
        ),
    )


class AppsChange(BaseModel):
    """A form of /account/apps (browser only)."""

    action: Literal["limits", "disconnect"]
    client_id: str = Field(description="The app.")
    csrf: str = Field(description="The page's CSRF token.")
    max_trade_sol: str | None = Field(
        None, description="action=limits: the per-trade limit in SOL (at most the app's cap)."
    )
    daily_cap_sol: str | None = Field(
        None, description="action=limits: the daily limit in SOL (at most the app's cap)."
    )


# ------------------------------------------------------------------ writes


CAPPED_TOKENS = (
    "Added, only when a buy asks for more than the curve has left: the tokens it gets (the curve's last; "
    "migration follows)."
)
CAPPED_SOL = "Added, with cappedTokensOut: the lamports the curve takes for them, its protocol fee included."


class TradeResponse(_Out):
    signature: str = Field(description="Transaction signature (Base58).")
    mint: str = _addr("Token mint.")
    status: Literal["submitted"]
    cappedTokensOut: str | None = Field(default=None, description=CAPPED_TOKENS, pattern="^[0-9]+$")
    cappedSolIn: str | None = Field(default=None, description=CAPPED_SOL, pattern="^[0-9]+$")


class QuoteResponse(_Out):
    """What the same trade would do now. Exactly one of the expected/bound pairs is present, by side:
    buy -> expectedTokensOut, minTokensOut; buy-exact-out -> expectedSolIn, maxSolIn (both include
    the partner fee, as a trade's maxSolIn does); sell -> expectedSolOut, minSolOut (what the venue
    pays, before the partner fee is transferred out of it)."""

    venue: Literal["curve", "pool"]
    expectedTokensOut: str | None = Field(default=None, description="buy: tokens out.", pattern="^[0-9]+$")
    minTokensOut: str | None = Field(
        default=None, description="buy: the bound with this slippageBps.", pattern="^[0-9]+$"
    )
    expectedSolIn: str | None = Field(
        default=None, description="buy-exact-out: lamports in, venue and partner fee.", pattern="^[0-9]+$"
    )
    maxSolIn: str | None = Field(
        default=None, description="buy-exact-out: the bound with this slippageBps.", pattern="^[0-9]+$"
    )
    expectedSolOut: str | None = Field(default=None, description="sell: lamports the venue pays.", pattern="^[0-9]+$")
    minSolOut: str | None = Field(
        default=None, description="sell: the bound with this slippageBps.", pattern="^[0-9]+$"
    )
    protocolFeeLamports: str = _units("The venue's protocol fee.")
    partnerFeeLamports: str = _units("The partner fee (0 without partnerFeeBps).")
    priceImpactBps: int = Field(
        ge=0, description="The trade's price against the venue's price before it, fees left out, in basis points."
    )
    completesCurve: bool = Field(description="The trade takes the curve's last tokens (migration follows).")
    contextSlot: int = Field(description="The slot the state was read at.")
    cappedTokensOut: str | None = Field(default=None, description=CAPPED_TOKENS, pattern="^[0-9]+$")
    cappedSolIn: str | None = Field(default=None, description=CAPPED_SOL, pattern="^[0-9]+$")


class GovernanceWriteResponse(_Out):
    signature: str = Field(description="Transaction signature (Base58).")
    status: Literal["processed"]
    mint: str = _addr("Token mint.")
    governance: str = _addr("Governance account.")
    proposal: str | None = Field(
        default=None, description="Proposal account, where the endpoint has one.", pattern=BASE58_PATTERN
    )


class UpdateContentResponse(GovernanceWriteResponse):
    proposal: str = _addr("The new proposal account.")
    metadataUri: str | None = Field(description="`ipfs://` URI of the (new) metadata document.")
    imageUri: str | None = Field(description="`ipfs://` URI of the (new) image.")


class InitialBuyPlan(_Out):
    kind: Literal["buy"]
    authorizedMaxSolIn: str = _units("Lamports.")
    expectedSolIn: str = _units("Lamports actually expected to be spent.")
    expectedTokensOut: str = _units("Token base units.")
    capacityTokensOut: str = _units("Token base units that fit under the limits.")
    clamped: bool
    clampReasons: list[Literal["token_balance", "net_bought", "migration_threshold"]]


class CoinCreateResponse(_Out):
    signature: str = Field(description="The launch transaction's signature.")
    mint: str = _addr("The new token's mint.")
    status: Literal["submitted"]
    metadataUri: str = Field(description="`ipfs://` URI of the metadata document.")
    imageUri: str = Field(description="`ipfs://` URI of the image.")
    initialBuyPlan: InitialBuyPlan | None
    signatures: list[str] | None = Field(default=None, description="Launch and first buy, when sent as a bundle.")
    bundleId: str | None = Field(default=None, description="The bundle, when sent as one.")


# ------------------------------------------------------------------ reads


class Governance(_Out):
    governance: str = _addr("Governance account address.")
    mint: str = _addr("Token mint.")
    metadata: str = _addr("Metadata account address.")
    creator: str = _addr("Wallet that launched the token.")
    totalSupply: str = _units("Base units.")
    createdAtUnix: str = _units("Creation time.")
    mutableUntilUnix: str = _units("When metadata locks permanently.")
    minVoterCount: int
    minLockAmount: str = _units("Smallest accepted vote, base units.")
    minParticipatingSupplyBps: int
    approvalBps: int
    proposalBondBps: int
    proposalBondLevel: int = Field(
        description="The proposal bond's doubling count now: a rejected or quorum-not-met proposal adds its voting "
        "days (rounded up, at most 32), each whole day without a proposal since the last voting end takes one off, "
        "a passed proposal resets it to 0."
    )
    nextProposalBondAmount: str = _units(
        "Base units a proposal created now must lock: totalSupply * proposalBondBps / 10000, doubled proposalBondLevel "
        "times (above totalSupply: no holder can create one until it decays)."
    )
    finalized: bool
    contentRevision: str = _units("Increments on every applied metadata change.")
    mutabilityExtended: bool
    nameLocked: bool
    symbolLocked: bool
    imageLocked: bool
    descriptionLocked: bool
    websiteLocked: bool
    twitterLocked: bool
    telegramLocked: bool


class Proposal(_Out):
    proposal: str = _addr("Proposal account address.")
    governance: str = _addr("Parent governance account.")
    proposer: str = _addr("Creator wallet.")
    proposalIndex: str = _units("Monotonic index within the governance.")
    baseContentRevision: str = _units("Revision the proposal was authored against.")
    actionKind: Literal["update_content", "extend_mutability", "finalize_metadata"]
    actionName: str | None
    actionSymbol: str | None
    actionUri: str | None
    actionAdditionalSeconds: str | None
    changedName: bool
    changedSymbol: bool
    changedImage: bool
    changedDescription: bool
    changedWebsite: bool
    changedTwitter: bool
    changedTelegram: bool
    createdAtUnix: str = _units("Creation time.")
    votingEndsAtUnix: str = _units("When voting closes.")
    proposalBondAmount: str = _units("Tokens locked as bond.")
    proposalBondWithdrawn: bool
    yesVotes: str = _units("Weight, base units.")
    noVotes: str = _units("Weight, base units.")
    participatingSupply: str = _units("Total weight cast.")
    participatingVoters: int
    outcome: Literal["pending", "passed", "rejected", "quorum_not_met"]
    executed: bool
    settled: bool
    metadataUpdated: bool
    signature: str | None = Field(description="Creating transaction (null if not found).")
    blockTime: str | None = Field(description="ISO 8601 timestamp.")


class Vote(_Out):
    proposal: str = _addr("Proposal address.")
    voter: str = _addr("Voting wallet.")
    side: Literal["yes", "no"]
    amount: str = _units("Locked weight, base units.")
    countedAsVoter: bool
    active: bool
    withdrawn: bool
    signature: str | None = Field(description="Voting transaction (null if not found).")
    blockTime: str | None = Field(description="ISO 8601 timestamp.")


class GovernanceView(_Out):
    governance: Governance
    proposals: list[Proposal] = Field(max_length=100, description="Newest first.")
    viewerVotes: list[Vote] = Field(description="The connected user's votes.")


class VotesList(_Out):
    votes: list[Vote] = Field(max_length=200, description="Largest stake first.")


class BundleStatus(_Out):
    bundleId: str
    signatures: list[str]
    status: str = Field(
        description="The bundle's landing status (processed, confirmed, finalized, failed, pending, invalid)."
    )


class TransactionStatus(_Out):
    signature: str
    status: Literal["pending", "processed", "confirmed", "finalized", "failed", "expired", "not_found"] = Field(
        description="`expired` (added): the service sent it (alone or in a bundle) and its blockhash expired "
        "before it landed."
    )
    slot: int | None
    error: str | None = Field(description="The mapped spec code when `status` is failed; `tx_expired` when expired.")
    bundle: BundleStatus | None


# ------------------------------------------------------------------ transaction lifecycle


class FeePercentiles(_Out):
    p25: str = Field(pattern=r"^[0-9]+$")
    p50: str = Field(pattern=r"^[0-9]+$")
    p75: str = Field(pattern=r"^[0-9]+$")
    p95: str = Field(pattern=r"^[0-9]+$")


class UploadResponse(_Out):
    """A staged image upload: POST `fields`, then the file as the form field `file`, to `url` (the
    standard S3 browser upload, multipart/form-data, no bearer token); then send `uploadId` as
    `imageUploadId` on coins/create or update-content. The policy signed into `fields` pins the key,
    the exact Content-Type, a size of 1 to maxBytes and the expiry."""

    uploadId: str = Field(
        pattern=r"^upl_[A-Za-z0-9_-]{22}$",
        description="Send as `imageUploadId`. Usable once, by this client and user, until expiresAt.",
    )
    url: str = Field(description="Where to POST the form (S3; on the devstack the moto server on 127.0.0.1).")
    fields: dict[str, str] = Field(
        description="Form fields to send first, unchanged (key, Content-Type, policy, "
        "signature...); then the file as `file`."
    )
    expiresAt: int = Field(description="Unix seconds, 15 minutes after creation: upload and launch before.")
    maxBytes: int = Field(description="The largest file the policy accepts: the contentLength sent.")


class FeeLevel(_Out):
    percentile: int = Field(description="The percentile recommended (75).")
    priorityFeeLamports: str = Field(pattern=r"^[0-9]+$", description="Send as `priorityFeeLamports`.")
    computeUnitPriceMicroLamports: str = Field(pattern=r"^[0-9]+$")


class Health(_Out):
    status: Literal["ok"] = Field(description="The function answered; nothing else is checked or told.")


class FeeEstimate(_Out):
    mint: str = _addr("The mint asked about.")
    computeUnitLimit: int = Field(description="The compute-unit limit the service sets on a trade.")
    priorityFeeLamports: FeePercentiles = Field(
        description="Lamports for `priorityFeeLamports` that pay at least the percentile's compute-unit price "
        "at `computeUnitLimit`; never below the minimum (1000)."
    )
    computeUnitPriceMicroLamports: FeePercentiles = Field(
        description="Percentiles (nearest rank) of the recent per-slot prices (micro-lamports per compute unit) "
        "that landed transactions write-locking `accounts` (getRecentPrioritizationFees), over the "
        "slots where that price was above 0."
    )
    tipLamports: str = Field(pattern=r"^[0-9]+$", description="The minimum tip (1000000).")
    slots: int = Field(
        description="How many recent slots the percentiles are drawn from: those where a "
        "transaction writing `accounts` paid a price (0: none; minimums)."
    )
    recommended: FeeLevel = Field(
        description="The service's pick: the 75th percentile (a price that landed in 3 of 4 recent paid slots)."
    )
    sampledSlots: int = Field(description="The recent slots the chain reported (up to 150).")
    accounts: list[str] = Field(
        description="The accounts a trade on the mint write-locks that the estimate read (the "
        "curve, the pool, their vaults and the fee recipients)."
    )


class WebhookEventData(_Out):
    signature: str
    kind: Kind
    mint: str | None
    wallet: str
    slot: int | None
    error: str | None = Field(description="The mapped spec code (failed), `tx_expired` (expired), else null.")


class WebhookEvent(_Out):
    id: str = Field(pattern=r"^evt_[0-9a-f]{32}$", description="Never changes across retries: deduplicate on it.")
    type: Literal["transaction.confirmed", "transaction.finalized", "transaction.failed", "transaction.expired"]
    created: int = Field(description="Unix seconds when the event was made.")
    data: WebhookEventData


class ProfileUser(BaseModel):
    walletSolana: str | None
    twitterHandle: str | None
    tradingEnabled: bool


class ProfileLimits(BaseModel):
    maxTradeLamports: str = Field(
        pattern=r"^[0-9]+$",
        description=(
            "The effective per-trade cap of this grant: the lower of the client's cap and the limit the user chose "
            "(at consent or on /account/apps). A trade above it answers 403 trade_cap_exceeded with this value."
        ),
    )
    dailyVolumeCapLamports: str = Field(
        pattern=r"^[0-9]+$",
        description=(
            "The effective daily volume cap of this grant (UTC day), the lower of the client's and the user's. "
            "A trade past it answers 403 daily_cap_exceeded with this value (or the client's cap, when the "
            "client's own daily volume is what ran out)."
        ),
    )
    spentTodayLamports: str = Field(
        pattern=r"^[0-9]+$",
        description=("What this grant's trades reserved today (UTC), counted against dailyVolumeCapLamports."),
    )


class Profile(BaseModel):  # GET /partner/v1/me (partner.features.profile builds it as a plain dict)
    user: ProfileUser
    client: str | None
    scopes: list[str] = Field(default_factory=list)
    limits: ProfileLimits = Field(
        description="Added: this grant's caps and today's spend, so a partner can show them before a trade."
    )
