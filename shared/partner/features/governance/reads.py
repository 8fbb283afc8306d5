"""Governance reads: a coin's governance, its proposals and the viewer's votes; a proposal's voters.

    governance_view(rpc, mint_text, viewer)   -> {"governance", "proposals", "viewerVotes"}
    votes_view(rpc, proposal_text, limit)     -> {"votes": [...]}

Each is two JSON-RPC round trips (each a batch). A malformed or unknown mint is 404
governance_not_found; a malformed or unknown proposal has no votes. Amounts are integer strings;
`blockTime`s are ISO 8601 UTC with `Z`.
"""

from __future__ import annotations

import base64
import json
import re
import struct
import time
from datetime import UTC, datetime
from typing import Any

import base58
from solders.pubkey import Pubkey

from partner.chain import programs as P
from partner.chain.layouts import Governance, LayoutError, Proposal, TokenMetadata, VoteReceipt
from partner.chain.rpc import LOOKUP, Rpc, unavailable
from partner.core.errors import ApiError

__all__ = [
    "governance_view",
    "votes_view",
    "parse_limit",
    "parse_address",
    "governance_json",
    "proposal_json",
    "vote_json",
    "iso_time",
    "MAX_PROPOSALS",
    "DEFAULT_VOTES",
    "MAX_VOTES",
]

MAX_PROPOSALS = 100
DEFAULT_VOTES = 50
MAX_VOTES = 200
SIGNATURE_PAGE = 1000
MAX_SIGNATURE_PAGES = 20
RECEIPT_SIGNATURES = 50
_BASE58 = re.compile(r"[1-9A-HJ-NP-Za-km-z]{32,44}")  # fullmatch: `$` also matches before "\n"
_DIGITS = re.compile(r"[0-9]+")


def parse_address(text: str | None) -> Pubkey | None:
    """A Base58 public key, or None when malformed (never raises)."""
    if not isinstance(text, str) or not _BASE58.fullmatch(text):
        return None
    try:
        return Pubkey.from_string(text)
    except ValueError:
        return None


def parse_limit(value: str | None) -> int:
    """`limit`: default 50; not a positive integer (0, text, empty, sign, decimals) -> 50; above 200 -> 200."""
    if value is None:
        return DEFAULT_VOTES
    text = value.strip()
    if not _DIGITS.fullmatch(text):
        return DEFAULT_VOTES
    n = int(text[:12]) if len(text) <= 12 else MAX_VOTES + 1
    if n <= 0:
        return DEFAULT_VOTES
    return min(n, MAX_VOTES)


def iso_time(unix: int | None) -> str | None:
    if unix is None:
        return None
    return datetime.fromtimestamp(int(unix), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# ------------------------------------------------------------------ JSON-RPC plumbing


def _batch(chain: Rpc, calls: list[tuple[str, list[Any]]]) -> list[Any]:
    """Several JSON-RPC calls in one round trip; results in call order."""
    if not calls:
        return []
    payload = json.dumps([{"jsonrpc": "2.0", "id": i, "method": m, "params": p} for i, (m, p) in enumerate(calls)])
    body = chain._post(payload)
    if isinstance(body, dict):  # one error for the whole batch
        chain._result(body)
        raise unavailable("Malformed JSON-RPC batch answer.")
    by_id = {item.get("id"): item for item in body if isinstance(item, dict)}
    out = []
    for i in range(len(calls)):
        item = by_id.get(i)
        if item is None:
            raise unavailable("The chain node dropped part of a batch.")
        out.append(chain._result(item)["result"])
    return out


def _program_accounts(cls, *memcmp: tuple[int, bytes]) -> tuple[str, list[Any]]:
    filters: list[dict[str, Any]] = [
        {"dataSize": cls.SIZE},
        {"memcmp": {"offset": 0, "bytes": base58.b58encode(cls.DISCRIMINATOR).decode()}},
    ]
    filters += [{"memcmp": {"offset": off, "bytes": base58.b58encode(value).decode()}} for off, value in memcmp]
    return "getProgramAccounts", [
        str(P.LAUNCHPAD_PROGRAM_ID),
        {"encoding": "base64", "filters": filters, "commitment": "processed"},
    ]


def _signatures(address: str, before: str | None = None, limit: int = SIGNATURE_PAGE) -> tuple[str, list[Any]]:
    config: dict[str, Any] = {"limit": limit, "commitment": LOOKUP}  # the lowest it takes
    if before:
        config["before"] = before
    return "getSignaturesForAddress", [address, config]


def _data(account: dict[str, Any] | None, owner: Pubkey = P.LAUNCHPAD_PROGRAM_ID) -> bytes | None:
    if not account or account.get("owner") != str(owner):
        return None
    data = account.get("data")
    if isinstance(data, list) and data:
        return base64.b64decode(data[0])
    return None


def _decode(cls, account: dict[str, Any] | None):
    data = _data(account)
    if data is None:
        return None
    try:
        return cls.decode(data)
    except (LayoutError, ValueError, struct.error):
        return None


def _token_metadata(account: dict[str, Any] | None, mint: Pubkey) -> TokenMetadata | None:
    """The coin's TokenMetadata, read from its Token-2022 mint account; None when absent."""
    data = _data(account, P.TOKEN_2022_PROGRAM_ID)
    if data is None:
        return None
    try:
        meta = TokenMetadata.from_mint(data)
    except (LayoutError, ValueError, struct.error):
        return None
    return meta if meta.mint == mint else None


def _decoded_program_accounts(cls, result: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    out = []
    for item in result or []:
        decoded = _decode(cls, item.get("account"))
        if decoded is not None:
            out.append((item["pubkey"], decoded))
    return out


# ------------------------------------------------------------------ JSON shapes


def _clock_unix(account: dict[str, Any] | None) -> int:
    """The Clock sysvar's unix_timestamp (the wall clock when the node did not return it)."""
    data = account.get("data") if account else None
    if isinstance(data, list) and data:
        raw = base64.b64decode(data[0])
        if len(raw) >= 40:
            return int(struct.unpack_from("<q", raw, 32)[0])
    return int(time.time())


def governance_json(address: Pubkey, gov: Governance, now: int) -> dict[str, Any]:
    """The spec's Governance object; `now` (chain clock) decays the proposal bond level."""
    return {
        "governance": str(address),
        "mint": str(gov.mint),
        "metadata": str(gov.mint),  # the mint carries its TokenMetadata
        "creator": str(gov.creator),
        "totalSupply": str(gov.total_supply),
        "createdAtUnix": str(gov.created_at),
        "mutableUntilUnix": str(gov.mutable_until),
        "minVoterCount": int(gov.min_voter_count),
        "minLockAmount": str(gov.min_lock_amount),
        "minParticipatingSupplyBps": int(gov.min_participating_supply_bps),
        "approvalBps": int(gov.approval_bps),
        "proposalBondBps": int(gov.proposal_bond_bps),
        "proposalBondLevel": gov.proposal_bond_level(now),
        "nextProposalBondAmount": str(gov.proposal_bond(now)),
        "finalized": bool(gov.finalized),
        "contentRevision": str(gov.content_revision),
        "mutabilityExtended": bool(gov.mutability_extended),
        "nameLocked": bool(gov.name_locked),
        "symbolLocked": bool(gov.symbol_locked),
        "imageLocked": bool(gov.image_locked),
        "descriptionLocked": bool(gov.description_locked),
        "websiteLocked": bool(gov.website_locked),
        "twitterLocked": bool(gov.twitter_locked),
        "telegramLocked": bool(gov.telegram_locked),
    }


def proposal_json(address: str, p: Proposal, signature: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "proposal": address,
        "governance": str(p.governance),
        "proposer": str(p.proposer),
        "proposalIndex": str(p.index),
        "baseContentRevision": str(p.base_content_revision),
        "actionKind": p.action_kind.api_name,
        "actionName": p.action_name,
        "actionSymbol": p.action_symbol,
        "actionUri": p.action_uri,
        "actionAdditionalSeconds": None if p.action_additional_seconds is None else str(p.action_additional_seconds),
        "changedName": bool(p.changed_name),
        "changedSymbol": bool(p.changed_symbol),
        "changedImage": bool(p.changed_image),
        "changedDescription": bool(p.changed_description),
        "changedWebsite": bool(p.changed_website),
        "changedTwitter": bool(p.changed_twitter),
        "changedTelegram": bool(p.changed_telegram),
        "createdAtUnix": str(p.created_at),
        "votingEndsAtUnix": str(p.voting_ends_at),
        "proposalBondAmount": str(p.bond_amount),
        "proposalBondWithdrawn": bool(p.bond_withdrawn),
        "yesVotes": str(p.yes_votes),
        "noVotes": str(p.no_votes),
        "participatingSupply": str(p.participating_supply),
        "participatingVoters": int(p.participating_voters),
        "outcome": p.outcome.api_name,
        "executed": bool(p.executed),
        "settled": bool(p.settled),
        "metadataUpdated": bool(p.metadata_updated),
        "signature": signature["signature"] if signature else None,
        "blockTime": iso_time(signature.get("blockTime")) if signature else None,
    }


def vote_json(v: VoteReceipt, signature: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "proposal": str(v.proposal),
        "voter": str(v.voter),
        "side": v.side.api_name,
        "amount": str(v.amount),
        "countedAsVoter": bool(v.counted_as_voter),
        "active": bool(v.active),
        "withdrawn": bool(v.withdrawn),
        "signature": signature["signature"] if signature else None,
        "blockTime": iso_time(signature.get("blockTime")) if signature else None,
    }


# ------------------------------------------------------------------ signatures


def _successful(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in entries or [] if e.get("err") is None]


def _voting_signature(v: VoteReceipt, entries: list[dict[str, Any]]) -> dict[str, Any] | None:
    ok = _successful(entries)
    at = 0 if v.active and not v.withdrawn else 1
    return ok[at] if len(ok) > at else (ok[-1] if ok else None)


def _creation_signatures(
    chain: Rpc, addresses: list[str], first_pages: list[list[dict[str, Any]]]
) -> dict[str, dict[str, Any] | None]:
    """The oldest successful transaction of each address, paging back (batched) where a page was full."""
    oldest: dict[str, dict[str, Any] | None] = {}
    pending: dict[str, list[dict[str, Any]]] = dict(zip(addresses, first_pages, strict=True))
    for _ in range(MAX_SIGNATURE_PAGES):
        more: list[str] = []
        for address, page in pending.items():
            ok = _successful(page)
            if ok:
                oldest[address] = ok[-1]
            else:
                oldest.setdefault(address, None)
            if len(page) >= SIGNATURE_PAGE:
                more.append(address)
        if not more:
            break
        pages = _batch(chain, [_signatures(a, pending[a][-1]["signature"]) for a in more])
        pending = dict(zip(more, pages, strict=True))
    return oldest


# ------------------------------------------------------------------ the reads


def governance_view(chain: Rpc, mint_text: str, viewer: str | None) -> dict[str, Any]:
    """Two batches:
    1. getMultipleAccounts([Governance, the mint (its TokenMetadata), the Clock sysvar]) + getProgramAccounts(Proposal:
       dataSize, discriminator, governance at 8) + getProgramAccounts(VoteReceipt: dataSize,
       discriminator, voter at 40) for the viewer's receipts;
    2. getSignaturesForAddress for every listed proposal (its creating transaction is the
       oldest successful entry) and for every receipt of the viewer on a listed proposal.
    Proposals are sorted newest first by proposalIndex and cut at 100.
    """
    mint = parse_address(mint_text)
    if mint is None:
        raise ApiError("governance_not_found")
    gov_key = P.governance_pda(mint)[0]
    viewer_key = parse_address(viewer) if viewer else None
    calls: list[tuple[str, list[Any]]] = [
        (
            "getMultipleAccounts",
            [[str(gov_key), str(mint), str(P.CLOCK_SYSVAR_ID)], {"encoding": "base64", "commitment": "processed"}],
        ),
        _program_accounts(Proposal, (8, bytes(gov_key))),
    ]
    if viewer_key is not None:
        calls.append(_program_accounts(VoteReceipt, (40, bytes(viewer_key))))
    results = _batch(chain, calls)
    gov_account, meta_account, clock_account = results[0]["value"]
    gov = _decode(Governance, gov_account)
    meta = _token_metadata(meta_account, mint)
    if gov is None or gov.mint != mint or meta is None:
        raise ApiError("governance_not_found")

    proposals = [
        (a, p) for a, p in _decoded_program_accounts(Proposal, results[1]) if p.governance == gov_key and p.mint == mint
    ]
    proposals.sort(key=lambda item: item[1].index, reverse=True)
    proposals = proposals[:MAX_PROPOSALS]
    listed = {a for a, _ in proposals}
    receipts = []
    if viewer_key is not None:
        receipts = [
            (a, v)
            for a, v in _decoded_program_accounts(VoteReceipt, results[2])
            if str(v.proposal) in listed and v.voter == viewer_key
        ]
        order = {a: i for i, (a, _) in enumerate(proposals)}
        receipts.sort(key=lambda item: order[str(item[1].proposal)])

    sig_calls = [_signatures(a) for a, _ in proposals] + [_signatures(a, limit=RECEIPT_SIGNATURES) for a, _ in receipts]
    pages = _batch(chain, sig_calls)
    created = _creation_signatures(chain, [a for a, _ in proposals], pages[: len(proposals)])
    receipt_pages = pages[len(proposals) :]
    return {
        "governance": governance_json(gov_key, gov, _clock_unix(clock_account)),
        "proposals": [proposal_json(a, p, created.get(a)) for a, p in proposals],
        "viewerVotes": [
            vote_json(v, _voting_signature(v, page)) for (_, v), page in zip(receipts, receipt_pages, strict=True)
        ],
    }


def votes_view(chain: Rpc, proposal_text: str, limit: int) -> dict[str, Any]:
    """Two batches:
    1. getProgramAccounts(VoteReceipt: dataSize, discriminator, proposal at 8);
    2. getSignaturesForAddress for each receipt returned (largest stake first, cut at `limit`).

    A vote's `signature` is its voting transaction: the latest successful `cast_vote` on its
    receipt. Successful transactions on a receipt follow cast (cancel cast)* [withdraw]
    (docs/onchain.md), so newest first it is entry 0 while the vote is active and not
    withdrawn, and entry 1 after a cancel or a withdrawal.
    """
    proposal = parse_address(proposal_text)
    if proposal is None:
        return {"votes": []}
    (found,) = _batch(chain, [_program_accounts(VoteReceipt, (8, bytes(proposal)))])
    receipts = [(a, v) for a, v in _decoded_program_accounts(VoteReceipt, found) if v.proposal == proposal]
    receipts.sort(key=lambda item: (-item[1].amount, str(item[1].voter)))
    receipts = receipts[:limit]
    pages = _batch(chain, [_signatures(a, limit=RECEIPT_SIGNATURES) for a, _ in receipts])
    return {"votes": [vote_json(v, _voting_signature(v, page)) for (_, v), page in zip(receipts, pages, strict=True)]}
