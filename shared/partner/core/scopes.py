"""The five scopes and their plain-words descriptions for the consent page."""

from __future__ import annotations

from partner.core.errors import ApiError

DESCRIPTIONS: dict[str, str] = {
    "profile:read": "See your wallet address, linked social handle and whether 1-click trading is on",
    "trade:execute": "Buy and sell tokens for SOL with your wallet",
    "governance:vote": "Vote on token metadata proposals, cancel and withdraw your votes, and settle proposals",
    "governance:propose": "Create metadata proposals for tokens you hold, which locks a bond of your tokens",
    "coin:create": "Launch new coins from your wallet, optionally with a first buy",
}
ALL = tuple(DESCRIPTIONS)


def parse(raw: str | None) -> tuple[str, ...]:
    """Split a space-separated scope string; empty or unknown -> invalid_scope."""
    parts = (raw or "").split(" ")
    if not raw or any(p == "" for p in parts):
        raise ApiError("invalid_scope", "scope must be one or more known scopes separated by single spaces.")
    unknown = [p for p in parts if p not in DESCRIPTIONS]
    if unknown:
        raise ApiError("invalid_scope", f"Unknown scope: {unknown[0][:64]}.")
    return tuple(dict.fromkeys(parts))


def check_allowed(requested: tuple[str, ...], approved: tuple[str, ...]) -> None:
    missing = [s for s in requested if s not in approved]
    if missing:
        raise ApiError("scope_not_allowed", f"Scope {missing[0]} is not approved for this client.")
