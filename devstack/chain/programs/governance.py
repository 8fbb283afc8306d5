"""Metadata governance instructions of the reference `launchpad` program
(devstack only, never deployed). Dispatched from launchpad.process.

Contract: docs/onchain.md "Governance". Rules and thresholds come from
partner.chain.governance_math, layouts from partner.chain.layouts, error
numbers from partner.chain.errors (GovernanceErrorCode, 6100-6199).
Locked tokens (proposal bonds and votes) sit in the proposal's vault, the ATA
of the proposal PDA, and move by SPL Token CPI (out of the vault signed by the
proposal PDA).
"""
from __future__ import annotations

import struct

from solders.pubkey import Pubkey

from devstack.chain.runtime import InvokeContext
from partner.chain import governance_math as GM
from devstack.chain.legacy import layouts as L
from devstack.chain.legacy import programs as P
from partner.chain.errors import GovernanceErrorCode as G
from partner.chain.errors import ProgramErrorCode as E
from partner.chain.governance_math import ActionKind, Outcome, VoteSide

from .launchpad import (
    PROGRAM_ID,
    TOKEN_ACCOUNT_SIZE,
    account,
    check_text,
    check_uri,
    create_account,
    create_ata,
    fail,
    is_token_account,
    require_key,
    require_signer,
    store,
    token_balance,
    token_transfer,
)

_SPEC_TO_ERROR = {
    "invalid_vote_duration": G.InvalidVoteDuration,
    "proposal_window_closing": G.ProposalWindowClosing,
    "vote_duration_exceeds_window": G.VoteDurationExceedsWindow,
    "mutability_already_extended": G.MutabilityAlreadyExtended,
    "mutability_extension_exceeds_cap": G.MutabilityExtensionExceedsCap,
}


# ----------------------------------------------------------------- create_coin hook

def init_governance(ctx: InvokeContext, creator, gov_acc, mint: Pubkey, params: GM.GovernanceParams,
                    total_supply: int) -> None:
    """Create the coin's Governance account (called by create_coin, creator pays the rent)."""
    key, bump = P.governance_pda(mint, PROGRAM_ID)
    require_key(gov_acc, key, "governance")
    create_account(ctx, creator, gov_acc, L.Governance.SIZE, PROGRAM_ID, [P.GOVERNANCE_SEED, bytes(mint), bytes([bump])])
    now = ctx.unix_timestamp
    gov = L.Governance(mint=mint, creator=creator.pubkey, total_supply=total_supply, created_at=now,
                       mutable_until=now + params.mutability_window_seconds, bump=bump)
    gov.set_params(params)
    store(gov_acc, gov)


# ----------------------------------------------------------------- state access

def load_governance(gov_acc, mint: Pubkey | None = None) -> L.Governance:
    if mint is not None:
        require_key(gov_acc, P.governance_pda(mint, PROGRAM_ID)[0], "governance")
    if gov_acc.owner != PROGRAM_ID or not gov_acc.data:
        raise fail(G.GovernanceNotFound)
    try:
        gov = L.Governance.decode(bytes(gov_acc.data))
    except L.LayoutError:
        raise fail(G.GovernanceNotFound, "account is not a governance") from None
    require_key(gov_acc, P.governance_pda(gov.mint, PROGRAM_ID)[0], "governance")
    return gov


def load_proposal(prop_acc, gov_acc) -> L.Proposal:
    if prop_acc.owner != PROGRAM_ID or not prop_acc.data:
        raise fail(G.ProposalNotFound)
    try:
        p = L.Proposal.decode(bytes(prop_acc.data))
    except L.LayoutError:
        raise fail(G.InvalidProposal, "account is not a proposal") from None
    if p.governance != gov_acc.pubkey or prop_acc.pubkey != P.proposal_pda(p.governance, p.index, PROGRAM_ID)[0]:
        raise fail(G.InvalidProposal, "proposal of another governance")
    return p


def proposal_seeds(p: L.Proposal) -> list[bytes]:
    return [P.PROPOSAL_SEED, bytes(p.governance), struct.pack("<Q", p.index), bytes([p.bump])]


def load_receipt(rec_acc, proposal: Pubkey, voter: Pubkey) -> L.VoteReceipt:
    require_key(rec_acc, P.vote_pda(proposal, voter, PROGRAM_ID)[0], "vote receipt")
    if rec_acc.owner != PROGRAM_ID or not rec_acc.data:
        raise fail(G.VoteReceiptNotFound)
    return L.VoteReceipt.decode(bytes(rec_acc.data))


def voting_closed(ctx: InvokeContext, p: L.Proposal) -> bool:
    return p.settled or ctx.unix_timestamp >= p.voting_ends_at


def ensure_ata(ctx: InvokeContext, payer: Pubkey, ata_acc, owner: Pubkey, mint: Pubkey) -> None:
    require_key(ata_acc, P.associated_token_address(owner, mint), "token account")
    if not is_token_account(ata_acc, mint, owner):
        create_ata(ctx, payer, owner, mint)


# ----------------------------------------------------------------- create_proposal

def _parse_create_args(args: dict):
    kind, base_rev, duration = args["action_kind"], args["base_content_revision"], args["vote_duration_seconds"]
    name, symbol, uri = args["name"], args["symbol"], args["uri"]
    if name is not None:
        check_text(name, L.NAME_MAX_BYTES, E.NameEmpty, E.NameTooLong)
    if symbol is not None:
        check_text(symbol, L.SYMBOL_MAX_BYTES, E.SymbolEmpty, E.SymbolTooLong)
    if uri is not None:
        check_uri(uri)
    additional, mask = args["additional_seconds"], args["changed_fields"]
    if mask > GM.ALL_FIELDS_MASK:
        raise fail(E.InvalidInput, "bad field mask")
    has = {f: bool(mask >> i & 1) for i, f in enumerate(GM.CONTENT_FIELDS)}
    if kind == ActionKind.UPDATE_CONTENT:
        if additional is not None:
            raise fail(E.InvalidInput, "update_content takes no additional_seconds")
        if mask == 0:
            raise fail(G.NoMetadataChanges, "no changed field")
        if (name is not None) != has["name"] or (symbol is not None) != has["symbol"]:
            raise fail(E.InvalidInput, "name/symbol must be given exactly when flagged")
        if (uri is not None) != any(has[f] for f in GM.URI_FIELDS):
            raise fail(E.InvalidInput, "uri must be given exactly when a uri field is flagged")
    elif kind == ActionKind.EXTEND_MUTABILITY:
        if name is not None or symbol is not None or uri is not None or mask:
            raise fail(E.InvalidInput, "extend_mutability takes only additional_seconds")
        if not additional:
            raise fail(E.InvalidInput, "additional_seconds must be > 0")
    else:
        if name is not None or symbol is not None or uri is not None or additional is not None:
            raise fail(E.InvalidInput, "finalize_metadata takes only a lock field mask")
    return kind, base_rev, duration, name, symbol, uri, additional, mask


def create_proposal(ctx: InvokeContext, args: dict) -> None:
    proposer, mint, gov_acc, meta_acc, prop_acc, vault, proposer_ata = (account(ctx, i) for i in range(7))
    kind, base_rev, duration, name, symbol, uri, additional, mask = _parse_create_args(args)
    require_signer(proposer)
    gov = load_governance(gov_acc, mint.pubkey)
    require_key(meta_acc, P.metadata_pda(mint.pubkey, PROGRAM_ID)[0], "metadata")
    meta = L.CoinMetadata.decode(bytes(meta_acc.data))
    now = ctx.unix_timestamp

    if gov.finalized:
        raise fail(G.GovernanceFinalized)
    if now >= gov.mutable_until:
        raise fail(G.MutabilityExpired if kind == ActionKind.EXTEND_MUTABILITY else G.MetadataNotMutable)
    if gov.active_proposal is not None:
        raise fail(G.ActiveProposalExists, f"active proposal {gov.active_proposal}")
    if base_rev != gov.content_revision:
        raise fail(G.StaleContentRevision, f"base revision {base_rev} != current {gov.content_revision}")
    if kind == ActionKind.UPDATE_CONTENT:
        if mask & gov.locked_mask:
            raise fail(G.ContentFieldLocked, f"locked: {GM.mask_fields(mask & gov.locked_mask)}")
        if name == meta.name or symbol == meta.symbol or uri == meta.uri:
            raise fail(G.NoMetadataChanges, "a flagged field equals the on-chain value")
    elif kind == ActionKind.EXTEND_MUTABILITY:
        problem = GM.extension_error(additional, gov.mutability_extended, gov.max_extension_seconds)
        if problem:
            raise fail(_SPEC_TO_ERROR[problem])
    else:
        if (mask or GM.ALL_FIELDS_MASK) & ~gov.locked_mask == 0:
            raise fail(G.NoMetadataChanges, "every field to lock is already locked")
    problem = GM.vote_duration_error(now, duration, gov.mutable_until, gov.min_vote_duration_seconds,
                                     gov.max_vote_duration_seconds)
    if problem:
        raise fail(_SPEC_TO_ERROR[problem])

    index = gov.next_proposal_index
    prop_key, prop_bump = P.proposal_pda(gov_acc.pubkey, index, PROGRAM_ID)
    require_key(prop_acc, prop_key, "proposal")
    require_key(vault, P.associated_token_address(prop_key, mint.pubkey), "proposal vault")
    require_key(proposer_ata, P.associated_token_address(proposer.pubkey, mint.pubkey), "proposer token account")
    if prop_acc.data:
        raise fail(E.AlreadyInitialized, "proposal exists")
    if not is_token_account(proposer_ata, mint.pubkey, proposer.pubkey) or token_balance(proposer_ata) == 0:
        raise fail(G.MissingProposalTokenAccount)
    bond = GM.bond_amount(gov.total_supply, gov.proposal_bond_bps)
    held = token_balance(proposer_ata)
    if held < bond:
        raise fail(G.InsufficientProposalBond, f"bond {bond} > balance {held}")
    need = P.rent_exempt_minimum(L.Proposal.SIZE) - prop_acc.lamports + P.rent_exempt_minimum(TOKEN_ACCOUNT_SIZE)
    if proposer.lamports < need:
        raise fail(E.InsufficientSol, f"need {need} lamports for rent")

    p = L.Proposal(
        governance=gov_acc.pubkey, mint=mint.pubkey, proposer=proposer.pubkey, index=index,
        base_content_revision=base_rev, action_kind=kind, action_name=name, action_symbol=symbol,
        action_uri=uri, action_additional_seconds=additional, created_at=now, voting_ends_at=now + duration,
        bond_amount=bond, bump=prop_bump)
    p.set_changed_mask(mask)
    create_account(ctx, proposer, prop_acc, L.Proposal.SIZE, PROGRAM_ID, proposal_seeds(p))
    create_ata(ctx, proposer.pubkey, prop_key, mint.pubkey)
    token_transfer(ctx, proposer_ata.pubkey, vault.pubkey, proposer.pubkey, bond)
    store(prop_acc, p)
    gov.active_proposal = prop_key
    gov.next_proposal_index = index + 1
    store(gov_acc, gov)
    ctx.log(f"create_proposal governance={gov_acc.pubkey} index={index} kind={kind.api_name} bond={bond} "
            f"ends={p.voting_ends_at}")


# ----------------------------------------------------------------- votes

def cast_vote(ctx: InvokeContext, args: dict) -> None:
    voter, mint, gov_acc, prop_acc, vault, rec_acc, voter_ata = (account(ctx, i) for i in range(7))
    side, amount = args["side"], args["amount"]
    if amount == 0:
        raise fail(G.InvalidVoteAmount, "amount must be > 0")
    require_signer(voter)
    gov = load_governance(gov_acc, mint.pubkey)
    p = load_proposal(prop_acc, gov_acc)
    require_key(vault, P.associated_token_address(prop_acc.pubkey, mint.pubkey), "proposal vault")
    require_key(voter_ata, P.associated_token_address(voter.pubkey, mint.pubkey), "voter token account")
    rec_key, rec_bump = P.vote_pda(prop_acc.pubkey, voter.pubkey, PROGRAM_ID)
    require_key(rec_acc, rec_key, "vote receipt")
    if voting_closed(ctx, p):
        raise fail(G.ProposalClosed)
    existing = L.VoteReceipt.decode(bytes(rec_acc.data)) if rec_acc.data else None
    if existing is not None and existing.active:
        raise fail(G.AlreadyVoted)
    if not is_token_account(voter_ata, mint.pubkey, voter.pubkey) or token_balance(voter_ata) == 0:
        raise fail(G.MissingVoteTokenAccount)
    held = token_balance(voter_ata)
    if amount > held:
        raise fail(G.InvalidVoteAmount, f"amount {amount} > balance {held}")
    if existing is None:
        need = P.rent_exempt_minimum(L.VoteReceipt.SIZE) - rec_acc.lamports
        if voter.lamports < need:
            raise fail(E.InsufficientSol, f"need {need} lamports for rent")
        create_account(ctx, voter, rec_acc, L.VoteReceipt.SIZE, PROGRAM_ID,
                       [P.VOTE_SEED, bytes(prop_acc.pubkey), bytes(voter.pubkey), bytes([rec_bump])])
    token_transfer(ctx, voter_ata.pubkey, vault.pubkey, voter.pubkey, amount)
    counted = GM.counted_as_voter(amount, gov.min_lock_amount)
    rec = L.VoteReceipt(prop_acc.pubkey, voter.pubkey, side, amount, counted_as_voter=counted, active=True,
                        withdrawn=False, created_at=ctx.unix_timestamp, bump=rec_bump)
    _tally(p, rec, +1)
    store(rec_acc, rec)
    store(prop_acc, p)
    ctx.log(f"cast_vote proposal={prop_acc.pubkey} voter={voter.pubkey} side={side.api_name} amount={amount} "
            f"counted={counted}")


def _tally(p: L.Proposal, rec: L.VoteReceipt, sign: int) -> None:
    if rec.side == VoteSide.YES:
        p.yes_votes += sign * rec.amount
    else:
        p.no_votes += sign * rec.amount
    p.participating_supply += sign * rec.amount
    if rec.counted_as_voter:
        p.participating_voters += sign


def load_escrow(signer, mint, gov_acc, prop_acc, vault) -> L.Proposal:
    """Checks of the instructions that pay out of a proposal's vault: signer, governance, proposal, vault."""
    require_signer(signer)
    load_governance(gov_acc, mint.pubkey)
    p = load_proposal(prop_acc, gov_acc)
    require_key(vault, P.associated_token_address(prop_acc.pubkey, mint.pubkey), "proposal vault")
    return p


def pay_out(ctx: InvokeContext, payer, owner, owner_ata, mint, vault, prop_acc, p: L.Proposal, amount: int) -> None:
    """Vault -> the owner's ATA (re-created, paid by `payer`, when missing), signed by the proposal PDA."""
    ensure_ata(ctx, payer.pubkey, owner_ata, owner.pubkey, mint.pubkey)
    token_transfer(ctx, vault.pubkey, owner_ata.pubkey, prop_acc.pubkey, amount, proposal_seeds(p))


def cancel_vote(ctx: InvokeContext, args: dict) -> None:
    """Retract an active vote while voting is open: tokens return at once, the receipt becomes inactive."""
    voter, mint, gov_acc, prop_acc, vault, rec_acc, voter_ata = (account(ctx, i) for i in range(7))
    p = load_escrow(voter, mint, gov_acc, prop_acc, vault)
    rec = load_receipt(rec_acc, prop_acc.pubkey, voter.pubkey)
    if not rec.active:
        raise fail(G.VoteNotActive)
    if voting_closed(ctx, p):
        raise fail(G.ProposalClosed)
    pay_out(ctx, voter, voter, voter_ata, mint, vault, prop_acc, p, rec.amount)
    _tally(p, rec, -1)
    rec.active = False
    store(rec_acc, rec)
    store(prop_acc, p)
    ctx.log(f"cancel_vote proposal={prop_acc.pubkey} voter={voter.pubkey} returned={rec.amount}")


def withdraw_vote(ctx: InvokeContext, args: dict) -> None:
    """Permissionless crank after settlement; tokens always go to the voter's ATA."""
    payer, voter, mint, gov_acc, prop_acc, vault, rec_acc, voter_ata = (account(ctx, i) for i in range(8))
    p = load_escrow(payer, mint, gov_acc, prop_acc, vault)
    rec = load_receipt(rec_acc, prop_acc.pubkey, voter.pubkey)
    if not rec.active:
        raise fail(G.VoteNotActive)
    if rec.withdrawn:
        raise fail(G.VoteAlreadyWithdrawn)
    if not p.settled:
        raise fail(G.ProposalNotSettled)
    pay_out(ctx, payer, voter, voter_ata, mint, vault, prop_acc, p, rec.amount)
    rec.withdrawn = True
    store(rec_acc, rec)
    ctx.log(f"withdraw_vote proposal={prop_acc.pubkey} voter={voter.pubkey} amount={rec.amount} by={payer.pubkey}")


# ----------------------------------------------------------------- settlement

def settle_proposal(ctx: InvokeContext, args: dict) -> None:
    payer, gov_acc, prop_acc, meta_acc = (account(ctx, i) for i in range(4))
    require_signer(payer)
    gov = load_governance(gov_acc)
    p = load_proposal(prop_acc, gov_acc)
    if p.settled:
        raise fail(G.ProposalAlreadySettled)
    now = ctx.unix_timestamp
    if now < p.voting_ends_at:
        raise fail(G.ProposalStillOpen, f"voting ends at {p.voting_ends_at}")
    require_key(meta_acc, P.metadata_pda(gov.mint, PROGRAM_ID)[0], "metadata")

    p.outcome = GM.outcome(yes_votes=p.yes_votes, no_votes=p.no_votes, participating_voters=p.participating_voters,
                           total_supply=gov.total_supply, min_voter_count=gov.min_voter_count,
                           min_participating_supply_bps=gov.min_participating_supply_bps,
                           approval_bps=gov.approval_bps)
    why = ""
    if p.outcome == Outcome.PASSED:
        why = _execute(ctx, gov, p, meta_acc)
    p.settled = True
    p.settled_at = now
    if gov.active_proposal == prop_acc.pubkey:
        gov.active_proposal = None
    store(prop_acc, p)
    store(gov_acc, gov)
    ctx.log(f"settle_proposal proposal={prop_acc.pubkey} outcome={p.outcome.api_name} executed={p.executed}"
            + (f" not_executed={why}" if why else ""))


def _execute(ctx: InvokeContext, gov: L.Governance, p: L.Proposal, meta_acc) -> str:
    """Apply a passed proposal; returns why it was not executed ('' when it was)."""
    if gov.finalized:
        return "governance_finalized"
    if ctx.unix_timestamp >= gov.mutable_until:
        return "metadata_not_mutable"
    if p.action_kind == ActionKind.UPDATE_CONTENT:
        if p.base_content_revision != gov.content_revision:
            return "stale_content_revision"
        if p.changed_mask & gov.locked_mask:
            return "content_field_locked"
        meta = L.CoinMetadata.decode(bytes(meta_acc.data))
        before = meta.encode()
        if p.action_name is not None:
            meta.name = p.action_name
        if p.action_symbol is not None:
            meta.symbol = p.action_symbol
        if p.action_uri is not None:
            meta.uri = p.action_uri
        store(meta_acc, meta)
        p.metadata_updated = meta.encode() != before
        gov.content_revision += 1
    elif p.action_kind == ActionKind.EXTEND_MUTABILITY:
        problem = GM.extension_error(p.action_additional_seconds, gov.mutability_extended, gov.max_extension_seconds)
        if problem:
            return problem
        gov.mutable_until += p.action_additional_seconds
        gov.mutability_extended = True
    else:
        gov.lock(p.changed_mask or GM.ALL_FIELDS_MASK)
        if gov.locked_mask == GM.ALL_FIELDS_MASK:
            gov.finalized = True
    p.executed = True
    return ""


def finalize_expired(ctx: InvokeContext, args: dict) -> None:
    """Permissionless: record a lapsed mutability window (finalized by expiry, every field locked)."""
    payer, gov_acc = account(ctx, 0), account(ctx, 1)
    require_signer(payer)
    gov = load_governance(gov_acc)
    if gov.finalized:
        raise fail(G.GovernanceFinalized)
    if ctx.unix_timestamp < gov.mutable_until:
        raise fail(G.MetadataStillMutable, f"mutable until {gov.mutable_until}")
    gov.finalized = True
    gov.finalized_by_expiry = True
    gov.lock(GM.ALL_FIELDS_MASK)
    store(gov_acc, gov)
    ctx.log(f"finalize_expired governance={gov_acc.pubkey}")


def withdraw_bond(ctx: InvokeContext, args: dict) -> None:
    """Permissionless crank after settlement, whatever the outcome; the bond goes to the proposer's ATA."""
    payer, proposer, mint, gov_acc, prop_acc, vault, proposer_ata = (account(ctx, i) for i in range(7))
    p = load_escrow(payer, mint, gov_acc, prop_acc, vault)
    require_key(proposer, p.proposer, "proposer")
    if p.bond_amount == 0:
        raise fail(G.NoProposalBond)
    if p.bond_withdrawn:
        raise fail(G.ProposalBondAlreadyWithdrawn)
    if not p.settled:
        raise fail(G.ProposalNotSettled)
    pay_out(ctx, payer, proposer, proposer_ata, mint, vault, prop_acc, p, p.bond_amount)
    p.bond_withdrawn = True
    store(prop_acc, p)
    ctx.log(f"withdraw_bond proposal={prop_acc.pubkey} amount={p.bond_amount} to={proposer.pubkey}")
