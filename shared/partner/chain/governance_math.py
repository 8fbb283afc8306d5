"""Metadata governance math and rules, as the launchpad program applies them (docs/onchain.md,
"Governance"), for the service and the devstack's genesis. Pure functions, integers only.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

BPS = 10_000
DAY = 86_400

# defaults
DEFAULT_MIN_VOTER_COUNT = 3
DEFAULT_MIN_LOCK_AMOUNT = 1_000_000
DEFAULT_MIN_PARTICIPATING_SUPPLY_BPS = 500
DEFAULT_APPROVAL_BPS = 6_000
DEFAULT_PROPOSAL_BOND_BPS = 100
DEFAULT_MUTABILITY_WINDOW_SECONDS = 30 * DAY
DEFAULT_MAX_EXTENSION_SECONDS = 90 * DAY
DEFAULT_MIN_VOTE_DURATION_SECONDS = 60
DEFAULT_MAX_VOTE_DURATION_SECONDS = 7 * DAY
DEFAULT_VOTE_DURATION_SECONDS = 600

# the seven content fields, in flag / bit order (bit i of a field mask)
CONTENT_FIELDS = ("name", "symbol", "image", "description", "website", "twitter", "telegram")
ALL_FIELDS_MASK = (1 << len(CONTENT_FIELDS)) - 1
# URI_FIELDS live in the JSON at `uri`; name and symbol are stored on-chain in the mint's TokenMetadata
URI_FIELDS = ("image", "description", "website", "twitter", "telegram")


# The program's commitment to the uri-borne fields (docs/programs.md "The uri-borne locks"): 16 bytes
# of sha256 per field, of the exact string the metadata JSON carries (absent, empty or not a string:
# of the empty string), in URI_FIELDS order.
DIGEST_BYTES = 16
NO_DIGESTS = (bytes(DIGEST_BYTES),) * len(URI_FIELDS)  # what extend / finalize proposals carry


def field_digest(value: Any) -> bytes:
    """digest(value) = sha256(value as UTF-8)[:16]; a non-string (absent, null, number) is the empty string."""
    text = value if isinstance(value, str) else ""
    return hashlib.sha256(text.encode()).digest()[:DIGEST_BYTES]


def content_digests(document: Mapping[str, Any]) -> list[bytes]:
    """The five digests of a metadata JSON document (image, description, website, twitter, telegram)."""
    return [field_digest(document.get(name)) for name in URI_FIELDS]


def digest_mask(old: Sequence[bytes], new: Sequence[bytes]) -> int:
    """The change set (bits of CONTENT_FIELDS) of the uri-borne fields whose digests differ."""
    first = CONTENT_FIELDS.index(URI_FIELDS[0])
    return sum(1 << (first + i) for i, (a, b) in enumerate(zip(old, new, strict=True)) if bytes(a) != bytes(b))


class _ApiEnum(IntEnum):
    @property
    def api_name(self) -> str:
        """The spec's string for this value."""
        return self.name.lower()


class ActionKind(_ApiEnum):
    """Proposal.action_kind (u8)."""

    UPDATE_CONTENT = 0
    EXTEND_MUTABILITY = 1
    FINALIZE_METADATA = 2


class Outcome(_ApiEnum):
    """Proposal.outcome (u8)."""

    PENDING = 0
    PASSED = 1
    REJECTED = 2
    QUORUM_NOT_MET = 3


class VoteSide(_ApiEnum):
    """VoteReceipt.side / cast_vote side (u8)."""

    YES = 0
    NO = 1


@dataclass(frozen=True)
class GovernanceParams:
    """Per-coin governance settings (copied from Global into each Governance at create_coin)."""

    min_voter_count: int = DEFAULT_MIN_VOTER_COUNT
    min_lock_amount: int = DEFAULT_MIN_LOCK_AMOUNT
    min_participating_supply_bps: int = DEFAULT_MIN_PARTICIPATING_SUPPLY_BPS
    approval_bps: int = DEFAULT_APPROVAL_BPS
    proposal_bond_bps: int = DEFAULT_PROPOSAL_BOND_BPS
    mutability_window_seconds: int = DEFAULT_MUTABILITY_WINDOW_SECONDS
    max_extension_seconds: int = DEFAULT_MAX_EXTENSION_SECONDS
    min_vote_duration_seconds: int = DEFAULT_MIN_VOTE_DURATION_SECONDS
    max_vote_duration_seconds: int = DEFAULT_MAX_VOTE_DURATION_SECONDS

    def problems(self) -> list[str]:
        """Why these params are unusable (empty when valid)."""
        out = []
        for name in ("min_participating_supply_bps", "proposal_bond_bps"):
            if not 0 <= getattr(self, name) <= BPS:
                out.append(f"{name} outside 0..10000")
        if not 1 <= self.approval_bps <= BPS:
            out.append("approval_bps outside 1..10000")
        if self.min_voter_count < 0 or self.min_lock_amount < 0:
            out.append("negative voter count or lock amount")
        if self.mutability_window_seconds <= 0 or self.max_extension_seconds < 0:
            out.append("bad mutability window or extension cap")
        if not 1 <= self.min_vote_duration_seconds <= self.max_vote_duration_seconds:
            out.append("bad vote duration bounds")
        return out


DEFAULT_PARAMS = GovernanceParams()


# ----------------------------------------------------------------- amounts and thresholds


def bond_amount(total_supply: int, proposal_bond_bps: int) -> int:
    """Bond a proposer locks: floor(total_supply * bps / 10000) base units."""
    return total_supply * proposal_bond_bps // BPS


# The proposal slot (docs/programs.md "The proposal slot"; programs/launchpad/src/governance_math.rs): the bond a
# proposal locks is bond_amount shifted left by the coin's bond level. A rejected or quorum_not_met
# proposal adds its voting days (rounded up, at most BOND_LEVEL_MAX), a passed one resets it, and each
# whole day the slot stands free after the last voting end takes one level off.
BOND_LEVEL_MAX = 32


def bond_level_now(bond_level: int, bond_level_at: int, now: int) -> int:
    """The level a proposal created at `now` faces: the stored level less the whole free days."""
    days = (now - bond_level_at) // DAY if now > bond_level_at else 0
    return max(0, bond_level - days)


def bond_level_after(level: int, passed: bool, created_at: int, voting_ends_at: int) -> int:
    """Governance.bond_level after settling a proposal created at `level`."""
    if passed:
        return 0
    days = -(-max(0, voting_ends_at - created_at) // DAY)
    return min(level + days, BOND_LEVEL_MAX)


def required_bond(total_supply: int, proposal_bond_bps: int, level: int) -> int:
    """The bond a proposal created at bond level `level` must lock (base units). Above the total supply
    no holder can cover it: the program answers insufficient_proposal_bond as for any uncovered bond."""
    return bond_amount(total_supply, proposal_bond_bps) << level


def counted_as_voter(amount: int, min_lock_amount: int) -> bool:
    """A vote counts toward min_voter_count when it locks at least min_lock_amount."""
    return amount >= min_lock_amount


def min_participating_supply(total_supply: int, min_participating_supply_bps: int) -> int:
    """Smallest participating supply meeting the supply quorum (>= 1)."""
    return max(1, -(-total_supply * min_participating_supply_bps // BPS))


def voter_quorum_met(participating_voters: int, min_voter_count: int) -> bool:
    return participating_voters >= min_voter_count


def supply_quorum_met(participating_supply: int, total_supply: int, min_participating_supply_bps: int) -> bool:
    return participating_supply > 0 and participating_supply * BPS >= total_supply * min_participating_supply_bps


def quorum_met(
    participating_voters: int,
    participating_supply: int,
    total_supply: int,
    min_voter_count: int,
    min_participating_supply_bps: int,
) -> bool:
    """Thresholds (the defaults):

    * quorum: ``participating_voters >= min_voter_count`` (only votes of at least
      ``min_lock_amount`` count as voters) AND
      ``participating_supply * 10000 >= total_supply * min_participating_supply_bps``
      AND ``participating_supply > 0`` (a proposal nobody voted on never meets quorum);
    * approval: ``yes * 10000 >= (yes + no) * approval_bps``;
    * exactly at a threshold passes, one base unit below fails.
    """
    return voter_quorum_met(participating_voters, min_voter_count) and supply_quorum_met(
        participating_supply, total_supply, min_participating_supply_bps
    )


def approval_met(yes_votes: int, no_votes: int, approval_bps: int) -> bool:
    return yes_votes * BPS >= (yes_votes + no_votes) * approval_bps


def min_yes_votes(no_votes: int, approval_bps: int) -> int:
    """Smallest yes weight that passes against `no_votes` (approval_bps < 10000)."""
    if approval_bps >= BPS:
        return 0 if no_votes == 0 else -1  # impossible with any no vote
    return -(-no_votes * approval_bps // (BPS - approval_bps))


def outcome(
    *, yes_votes: int, no_votes: int, participating_voters: int, total_supply: int, params: GovernanceParams
) -> Outcome:
    """Settlement outcome by the thresholds of `params`. participating supply is yes + no."""
    participating = yes_votes + no_votes
    if not quorum_met(
        participating_voters, participating, total_supply, params.min_voter_count, params.min_participating_supply_bps
    ):
        return Outcome.QUORUM_NOT_MET
    return Outcome.PASSED if approval_met(yes_votes, no_votes, params.approval_bps) else Outcome.REJECTED


# ----------------------------------------------------------------- proposal checks (spec codes)


def vote_duration_error(
    now: int,
    duration: int,
    mutable_until: int,
    min_duration: int = DEFAULT_MIN_VOTE_DURATION_SECONDS,
    max_duration: int = DEFAULT_MAX_VOTE_DURATION_SECONDS,
) -> str | None:
    """Spec code why a proposal created at `now` with this vote duration is refused, else None.

    Voting must end strictly before `mutable_until`:
    * ``invalid_vote_duration``: outside [min_duration, max_duration];
    * ``proposal_window_closing``: even the shortest vote would not end before
      the window closes (``now + min_duration >= mutable_until``);
    * ``vote_duration_exceeds_window``: this duration would not
      (``now + duration >= mutable_until``) although a shorter one would.
    """
    if not min_duration <= duration <= max_duration:
        return "invalid_vote_duration"
    if now + min_duration >= mutable_until:
        return "proposal_window_closing"
    if now + duration >= mutable_until:
        return "vote_duration_exceeds_window"
    return None


def extension_error(additional_seconds: int, mutability_extended: bool, max_extension_seconds: int) -> str | None:
    if mutability_extended:
        return "mutability_already_extended"
    if additional_seconds > max_extension_seconds:
        return "mutability_extension_exceeds_cap"
    return None


def field_mask(**changed: bool) -> int:
    """Bit mask of the named content fields (name=True, image=True, ...)."""
    unknown = set(changed) - set(CONTENT_FIELDS)
    if unknown:
        raise ValueError(f"unknown content fields: {sorted(unknown)}")
    return sum(1 << i for i, f in enumerate(CONTENT_FIELDS) if changed.get(f))


def mask_fields(mask: int) -> tuple[str, ...]:
    return tuple(f for i, f in enumerate(CONTENT_FIELDS) if mask >> i & 1)
