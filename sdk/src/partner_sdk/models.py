"""Typed responses. Field names are the spec's, in snake_case; amounts stay integer strings
(base units, exact) as the API sends them. Every object keeps the decoded JSON in `.raw`,
so fields the server adds later are never lost."""

from __future__ import annotations

import re
import time
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, TypeVar

T = TypeVar("T")


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def from_json(cls: type[T], data: dict[str, Any]) -> T:
    """Fill dataclass `cls` from a camelCase JSON object (missing fields take their defaults or None)."""
    values: dict[str, Any] = {}
    for f in fields(cls):  # type: ignore[arg-type]  # T is unbound: callers pass dataclasses
        if f.name == "raw":
            values["raw"] = data
            continue
        key = f.metadata.get("json", _camel(f.name))
        if key in data:
            values[f.name] = data[key]
        elif f.default is MISSING and f.default_factory is MISSING:
            values[f.name] = None
    return cls(**values)


@dataclass
class TokenSet:
    """One user's tokens. `refresh_token` rotates on every refresh: store both values together."""

    access_token: str
    refresh_token: str
    expires_at: float
    scope: str = ""
    token_type: str = "Bearer"

    @classmethod
    def from_response(cls, data: dict[str, Any], now: float | None = None) -> TokenSet:
        now = time.time() if now is None else now
        return cls(
            data["access_token"],
            data["refresh_token"],
            now + float(data.get("expires_in", 1800)),
            data.get("scope", ""),
            data.get("token_type", "Bearer"),
        )

    @property
    def scopes(self) -> list[str]:
        return self.scope.split()

    def expires_within(self, seconds: float, now: float | None = None) -> bool:
        return (time.time() if now is None else now) + seconds >= self.expires_at


@dataclass
class Limits:
    """This grant's effective caps (the lower of the app's and the user's own) and today's spend
    (UTC), in lamports as integer strings."""

    max_trade_lamports: str
    daily_volume_cap_lamports: str
    spent_today_lamports: str
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def remaining_today_lamports(self) -> int:
        return max(0, int(self.daily_volume_cap_lamports) - int(self.spent_today_lamports))


@dataclass
class Profile:
    wallet_solana: str | None
    twitter_handle: str | None
    trading_enabled: bool
    client: str | None
    scopes: list[str]
    raw: dict[str, Any] = field(default_factory=dict, repr=False)
    limits: Limits | None = None  # None from a server without them

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Profile:
        user = data.get("user") or {}
        limits = from_json(Limits, data["limits"]) if isinstance(data.get("limits"), dict) else None
        return cls(
            user.get("walletSolana"),
            user.get("twitterHandle"),
            bool(user.get("tradingEnabled")),
            data.get("client"),
            list(data.get("scopes") or []),
            data,
            limits,
        )


@dataclass
class TradeResult:
    signature: str
    mint: str
    status: str
    raw: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class GovernanceWriteResult:
    signature: str
    status: str
    mint: str | None = None
    governance: str | None = None
    proposal: str | None = None
    metadata_uri: str | None = None
    image_uri: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class InitialBuyPlan:
    kind: str
    authorized_max_sol_in: str
    expected_sol_in: str
    expected_tokens_out: str
    capacity_tokens_out: str
    clamped: bool
    clamp_reasons: list[str]
    raw: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class CoinCreateResult:
    signature: str
    mint: str
    status: str
    metadata_uri: str | None = None
    image_uri: str | None = None
    initial_buy_plan: InitialBuyPlan | None = None
    signatures: list[str] | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CoinCreateResult:
        out = from_json(cls, data)
        if isinstance(data.get("initialBuyPlan"), dict):
            out.initial_buy_plan = from_json(InitialBuyPlan, data["initialBuyPlan"])
        return out


@dataclass
class Governance:
    """`Governance`, `Proposal` and `Vote` carry the on-chain accounts of the launchpad IDL
    (idl/launchpad.json; each account field documented `api: <name>`); a test checks them
    against the IDL field by field."""

    governance: str
    mint: str
    metadata: str
    creator: str
    total_supply: str
    created_at_unix: str
    mutable_until_unix: str
    min_voter_count: int
    min_lock_amount: str
    min_participating_supply_bps: int
    approval_bps: int
    proposal_bond_bps: int
    finalized: bool
    content_revision: str
    mutability_extended: bool
    name_locked: bool = False
    symbol_locked: bool = False
    image_locked: bool = False
    description_locked: bool = False
    website_locked: bool = False
    twitter_locked: bool = False
    telegram_locked: bool = False
    # the bond level decayed to now, and the bond (base units) a proposal created now must lock
    proposal_bond_level: int = 0
    next_proposal_bond_amount: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class Proposal:
    proposal: str
    governance: str
    proposer: str
    proposal_index: str
    base_content_revision: str
    action_kind: str
    action_name: str | None
    action_symbol: str | None
    action_uri: str | None
    action_additional_seconds: str | None
    created_at_unix: str
    voting_ends_at_unix: str
    proposal_bond_amount: str
    proposal_bond_withdrawn: bool
    yes_votes: str
    no_votes: str
    participating_supply: str
    participating_voters: int
    outcome: str
    executed: bool
    settled: bool
    metadata_updated: bool
    signature: str | None = None
    block_time: str | None = None
    changed_name: bool = False
    changed_symbol: bool = False
    changed_image: bool = False
    changed_description: bool = False
    changed_website: bool = False
    changed_twitter: bool = False
    changed_telegram: bool = False
    raw: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class Vote:
    proposal: str
    voter: str
    side: str
    amount: str
    counted_as_voter: bool
    active: bool
    withdrawn: bool
    signature: str | None = None
    block_time: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class GovernanceView:
    """`GET /partner/v1/governance/{mint}`."""

    governance: Governance
    proposals: list[Proposal]
    viewer_votes: list[Vote]
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GovernanceView:
        return cls(
            from_json(Governance, data.get("governance") or {}),
            [from_json(Proposal, p) for p in data.get("proposals") or []],
            [from_json(Vote, v) for v in data.get("viewerVotes") or []],
            data,
        )


PENDING_STATUSES = ("pending", "not_found")
LANDED_STATUSES = ("processed", "confirmed", "finalized")


@dataclass
class TransactionStatus:
    """`GET /partner/v1/transactions/{signature}/status`: `status` is one of `pending`,
    `processed`, `confirmed`, `finalized`, `failed`, `not_found`, and (added) `expired`: the service
    sent it, alone or in a launch bundle, and its blockhash expired before it landed."""

    signature: str
    status: str
    slot: int | None = None
    error: str | None = None
    bundle: dict[str, Any] | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def landed(self) -> bool:
        return self.status in LANDED_STATUSES

    @property
    def failed(self) -> bool:
        return self.status == "failed"

    @property
    def expired(self) -> bool:
        """Never landed and never will (`error` tx_expired): rebuild and resubmit."""
        return self.status == "expired"


def snake_keys(data: dict[str, Any]) -> dict[str, Any]:
    return {_snake(k): v for k, v in data.items()}


@dataclass
class Quote:
    """`POST /partner/v1/trades/quote`: what the trade would do now. Amounts are integer strings;
    per side one pair is set: buy `expected_tokens_out`/`min_tokens_out`, buy-exact-out
    `expected_sol_in`/`max_sol_in` (partner fee included), sell `expected_sol_out`/`min_sol_out`."""

    venue: str
    protocol_fee_lamports: str
    partner_fee_lamports: str
    price_impact_bps: int
    completes_curve: bool
    context_slot: int
    expected_tokens_out: str | None = None
    min_tokens_out: str | None = None
    expected_sol_in: str | None = None
    max_sol_in: str | None = None
    expected_sol_out: str | None = None
    min_sol_out: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def bound(self) -> str:
        """The explicit-mode bound to send with the same trade."""
        return next(v for v in (self.min_tokens_out, self.max_sol_in, self.min_sol_out) if v is not None)
