"""Governance writes: votes, cancel, withdraw, settle, proposals, finalize-expired, bond withdraw.

The chain state is read in one batch and the program's own checks are mirrored in its order, so the
spec's code comes back before anything is built or spent; the program stays the backstop.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Literal, TypeGuard

from solders.hash import Hash
from solders.instruction import Instruction
from solders.pubkey import Pubkey

from partner.chain import governance_math as GM
from partner.chain import instructions as ix
from partner.chain import ports, unique, units
from partner.chain import programs as P
from partner.chain.layouts import Governance, LayoutError, Proposal, VoteReceipt, decode_owned, token_account_amount
from partner.chain.rpc import AccountData, Rpc
from partner.chain.tx import WriteFees
from partner.core.errors import ApiError
from partner.core.principal import Principal, require_delegation
from partner.features import fees as write_fees
from partner.features.models import Address, PositiveAmount, WriteFields
from partner.send import pipeline
from partner.store.wallets import SealedWalletSigner

TOKEN_ACCOUNT_SIZE = 170  # Token-2022 account with ImmutableOwner (our ATAs)


# ------------------------------------------------------------------ request models


class ProposalRef(WriteFields):
    proposal: Address


class VoteRequest(ProposalRef):
    side: Literal["yes", "no"]
    amount: PositiveAmount


class CancelVoteRequest(ProposalRef):
    pass


class WithdrawVoteRequest(ProposalRef):
    voter: Address | None = None


class SettleRequest(ProposalRef):
    pass


class ProposeFields(WriteFields):
    """Shared by every endpoint of the proposals group (spec: `voteDurationSeconds` string, > 0, default 600)."""

    voteDurationSeconds: PositiveAmount | None = None

    @property
    def vote_duration(self) -> int:
        return (
            int(self.voteDurationSeconds) if self.voteDurationSeconds is not None else GM.DEFAULT_VOTE_DURATION_SECONDS
        )


class ExtendMutabilityRequest(ProposeFields):
    mint: Address
    additionalSeconds: PositiveAmount


class FinalizeMetadataRequest(ProposeFields):
    mint: Address


class FinalizeExpiredRequest(ProposeFields):
    mint: Address  # voteDurationSeconds accepted but ignored (spec)


class BondWithdrawRequest(ProposeFields):
    proposal: Address  # voteDurationSeconds accepted but ignored


# ------------------------------------------------------------------ chain reads


@dataclass(frozen=True)
class Snapshot:
    accounts: list[AccountData | None]
    unix_timestamp: int
    blockhash: Hash
    last_valid_block_height: int


def _read(chain: Rpc, keys: list[Pubkey]) -> Snapshot:
    """`keys` plus the clock and a blockhash, in one batched round trip."""
    accounts_raw, blockhash_raw = chain.batch(
        [chain.multiple_accounts_request([*keys, P.CLOCK_SYSVAR_ID], 1), Rpc.latest_blockhash_request(2)]
    )
    accounts = Rpc.parse_multiple_accounts(accounts_raw)
    blockhash, last_valid = Rpc.parse_latest_blockhash(blockhash_raw)
    clock = accounts[-1]
    if clock is None or len(clock.data) < 40:
        raise ApiError("rpc_unavailable", "The chain clock could not be read.")
    _, _, _, _, unix_ts = struct.unpack_from("<QqQQq", clock.data)
    return Snapshot(accounts[:-1], unix_ts, blockhash, last_valid)


def _owned(account: AccountData | None) -> TypeGuard[AccountData]:
    return account is not None and account.owner == P.LAUNCHPAD_PROGRAM_ID and bool(account.data)


def _governance(account: AccountData | None, mint: Pubkey) -> Governance:
    gov = decode_owned(Governance, account, P.LAUNCHPAD_PROGRAM_ID)
    if gov is None or gov.mint != mint:
        raise ApiError("governance_not_found")
    return gov


def _proposal(account: AccountData | None, key: Pubkey) -> Proposal:
    if not _owned(account):
        raise ApiError("proposal_not_found")
    try:
        proposal = Proposal.decode(account.data)
    except (LayoutError, ValueError, struct.error) as exc:
        raise ApiError("invalid_proposal") from exc
    if P.proposal_pda(proposal.governance, proposal.index)[0] != key:
        raise ApiError("invalid_proposal", "The account is not a proposal of this launchpad.")
    return proposal


def _receipt(account: AccountData | None) -> VoteReceipt | None:
    if not _owned(account):
        return None
    try:
        return VoteReceipt.decode(account.data)
    except (LayoutError, ValueError, struct.error) as exc:
        raise ApiError("invalid_proposal", "The vote receipt is unreadable.") from exc


def _token_balance(account: AccountData | None) -> int | None:
    if account is None or account.owner != P.TOKEN_2022_PROGRAM_ID:
        return None
    return token_account_amount(account.data)


def _lamports(account: AccountData | None) -> int:
    return account.lamports if account else 0


@dataclass(frozen=True)
class ProposalState:
    key: Pubkey
    proposal: Proposal
    governance_key: Pubkey
    governance: Governance
    receipt: VoteReceipt | None
    receipt_lamports: int
    wallet_lamports: int
    token_balance: int | None  # the voter's or the proposer's (`tokens_of`), when asked for
    snapshot: Snapshot

    def voting_closed(self) -> bool:
        return self.proposal.settled or self.snapshot.unix_timestamp >= self.proposal.voting_ends_at


def read_proposal(
    chain: Rpc,
    proposal_key: Pubkey,
    wallet: Pubkey,
    voter: Pubkey | None = None,
    tokens_of: Literal["voter", "proposer"] | None = None,
) -> ProposalState:
    """Proposal, the voter's receipt, the wallet, clock and blockhash; then governance (and the token
    account of the voter or of the proposal's proposer, `tokens_of`), in two batched reads."""
    voter = voter or wallet
    receipt_key = P.vote_pda(proposal_key, voter)[0]
    snap = _read(chain, [proposal_key, receipt_key, wallet])
    proposal = _proposal(snap.accounts[0], proposal_key)
    second = [proposal.governance]
    if tokens_of is not None:
        owner = voter if tokens_of == "voter" else proposal.proposer
        second.append(P.associated_token_address(owner, proposal.mint))
    found = chain.accounts(second)
    governance = _governance(found[0], proposal.mint)
    if P.governance_pda(proposal.mint)[0] != proposal.governance:
        raise ApiError("invalid_proposal", "The proposal's governance does not match its mint.")
    return ProposalState(
        key=proposal_key,
        proposal=proposal,
        governance_key=proposal.governance,
        governance=governance,
        receipt=_receipt(snap.accounts[1]),
        receipt_lamports=_lamports(snap.accounts[1]),
        wallet_lamports=_lamports(snap.accounts[2]),
        token_balance=_token_balance(found[1]) if tokens_of is not None else None,
        snapshot=snap,
    )


@dataclass(frozen=True)
class GovernanceState:
    mint: Pubkey
    key: Pubkey
    governance: Governance
    wallet_lamports: int
    token_balance: int | None
    snapshot: Snapshot


def read_governance(chain: Rpc, mint: Pubkey, wallet: Pubkey) -> GovernanceState:
    key = P.governance_pda(mint)[0]
    snap = _read(chain, [key, P.associated_token_address(wallet, mint), wallet])
    governance = _governance(snap.accounts[0], mint)
    return GovernanceState(mint, key, governance, _lamports(snap.accounts[2]), _token_balance(snap.accounts[1]), snap)


# ------------------------------------------------------------------ landing


@dataclass(frozen=True)
class _Writer:
    """Who sends a governance write (the principal, whose wallet signs), the chain it reads and
    sends through, and the request's fees."""

    principal: Principal
    req: WriteFields
    chain: Rpc
    signer: SealedWalletSigner

    def land(
        self,
        kind: str,
        mint: Pubkey,
        instruction: Instruction | units.Hinted,
        state: ProposalState | GovernanceState,
        rent: int = 0,
    ) -> str:
        """Send `instruction` (with its units' hint) on the blockhash `state` was read with; the wallet
        pays `rent` besides."""
        fees = WriteFees(int(self.req.priorityFeeLamports), int(self.req.tipLamports))
        ix_, hint = instruction if isinstance(instruction, units.Hinted) else (instruction, units.Hint())
        transaction = pipeline.Tx("governance", [ix_], [self.signer], fees, memo=unique.request_memo(), hint=hint)
        ceiling = pipeline.Added(
            lambda: write_fees.check_ceiling(self.principal, fees.priority_fee_lamports, fees.tip_lamports)
        )
        snap = state.snapshot
        write = pipeline.Write(
            kind,
            str(mint),
            [transaction],
            snap.blockhash,
            snap.last_valid_block_height,
            funds=pipeline.Funds(state.wallet_lamports, rent),
            added=[ceiling],
        )
        processed = pipeline.Processed(self.chain, pipeline.tx_engine())
        return pipeline.send(self.principal, write, processed).signature

    def answer_proposal(
        self, kind: str, instruction: Instruction | units.Hinted, state: ProposalState, rent: int = 0
    ) -> dict[str, str]:
        """Land a write on `state`'s proposal; the answer names it with its mint and governance."""
        mint = state.proposal.mint
        return _response(self.land(kind, mint, instruction, state, rent), mint, state.governance_key, state.key)


def _response(signature: str, mint: Pubkey, governance: Pubkey, proposal: Pubkey | None = None) -> dict[str, str]:
    out = {"signature": signature, "status": "processed", "mint": str(mint), "governance": str(governance)}
    if proposal is not None:
        out["proposal"] = str(proposal)
    return out


def _start(principal: Principal, req: WriteFields, chain: Rpc | None) -> _Writer:
    """Delegation (403), before anything is read. (The client's fee ceiling is an added check of the
    send pipeline: after every spec check, so it never pre-empts one.)"""
    require_delegation(principal)
    signer = SealedWalletSigner(principal.user)
    return _Writer(principal, req, pipeline.reading_for(principal, chain or ports.current().rpc()), signer)


# ------------------------------------------------------------------ votes


def cast_vote(principal: Principal, req: VoteRequest, chain: Rpc | None = None) -> dict[str, str]:
    w = _start(principal, req, chain)
    key = Pubkey.from_string(req.proposal)
    state = read_proposal(w.chain, key, w.signer.pubkey, tokens_of="voter")
    amount, gov, p = int(req.amount), state.governance, state.proposal
    if state.voting_closed():
        raise ApiError("proposal_closed")
    if state.receipt is not None and state.receipt.active:
        raise ApiError("already_voted")
    if not state.token_balance:
        raise ApiError("missing_vote_token_account")
    if amount < gov.min_lock_amount or amount > state.token_balance:
        raise ApiError(
            "invalid_vote_amount",
            f"The amount must be at least {gov.min_lock_amount} and at most the balance {state.token_balance}.",
            minLockAmount=str(gov.min_lock_amount),
            availableTokens=str(state.token_balance),
        )
    rent = 0 if state.receipt is not None else max(0, P.rent_exempt_minimum(VoteReceipt.SIZE) - state.receipt_lamports)
    instruction = ix.cast_vote(w.signer.pubkey, p.mint, key, req.side, amount)
    new = () if state.receipt is not None else (P.vote_pda(key, w.signer.pubkey)[0],)
    return w.answer_proposal("vote", units.Hinted(instruction, units.Hint(new=frozenset(new))), state, rent)


def cancel_vote(principal: Principal, req: CancelVoteRequest, chain: Rpc | None = None) -> dict[str, str]:
    w = _start(principal, req, chain)
    key = Pubkey.from_string(req.proposal)
    state = read_proposal(w.chain, key, w.signer.pubkey)
    if state.receipt is None:
        raise ApiError("vote_receipt_not_found")
    if not state.receipt.active:
        raise ApiError("vote_not_active")
    if state.voting_closed():
        raise ApiError("proposal_closed")
    instruction = ix.cancel_vote(w.signer.pubkey, state.proposal.mint, key)
    return w.answer_proposal("vote_cancel", instruction, state)


def withdraw_vote(principal: Principal, req: WithdrawVoteRequest, chain: Rpc | None = None) -> dict[str, str]:
    """Anyone may crank it; the tokens always go to the voter's token account."""
    w = _start(principal, req, chain)
    key = Pubkey.from_string(req.proposal)
    voter = Pubkey.from_string(req.voter) if req.voter else w.signer.pubkey
    state = read_proposal(w.chain, key, w.signer.pubkey, voter=voter, tokens_of="voter")
    receipt = state.receipt
    if receipt is None:
        raise ApiError("vote_receipt_not_found")
    if not receipt.active:
        raise ApiError("vote_not_active")
    if receipt.withdrawn:
        raise ApiError("vote_already_withdrawn")
    if not state.proposal.settled:
        raise ApiError("proposal_not_settled")
    instruction = ix.withdraw_vote(w.signer.pubkey, voter, state.proposal.mint, key)
    # the voter's token account is created when it is gone
    hint = units.Hint(new=_missing(state.token_balance, voter, state.proposal.mint))
    return w.answer_proposal("vote_withdraw", units.Hinted(instruction, hint), state)


def _missing(balance: int | None, owner: Pubkey, mint: Pubkey) -> frozenset[Pubkey]:
    """{owner's token account} when it does not exist (`balance` None), else nothing."""
    return frozenset({P.associated_token_address(owner, mint)}) if balance is None else frozenset()


def settle(principal: Principal, req: SettleRequest, chain: Rpc | None = None) -> dict[str, str]:
    """Permissionless."""
    w = _start(principal, req, chain)
    key = Pubkey.from_string(req.proposal)
    state = read_proposal(w.chain, key, w.signer.pubkey)
    if state.proposal.settled:
        raise ApiError("proposal_already_settled")
    if state.snapshot.unix_timestamp < state.proposal.voting_ends_at:
        raise ApiError("proposal_still_open", votingEndsAtUnix=str(state.proposal.voting_ends_at))
    instruction = ix.settle_proposal(w.signer.pubkey, state.proposal.mint, key)
    hint = units.settle_hint(state.proposal, state.governance, state.snapshot.unix_timestamp)
    return w.answer_proposal("settle", units.Hinted(instruction, hint), state)


def withdraw_bond(principal: Principal, req: BondWithdrawRequest, chain: Rpc | None = None) -> dict[str, str]:
    """Anyone may crank it; the bond always goes to the proposer's token account."""
    w = _start(principal, req, chain)
    key = Pubkey.from_string(req.proposal)
    state = read_proposal(w.chain, key, w.signer.pubkey, tokens_of="proposer")
    p = state.proposal
    if p.bond_amount == 0:
        raise ApiError("no_proposal_bond")
    if p.bond_withdrawn:
        raise ApiError("proposal_bond_already_withdrawn")
    if not p.settled:
        raise ApiError("proposal_not_settled")
    instruction = ix.withdraw_bond(w.signer.pubkey, p.proposer, p.mint, key)
    hint = units.Hint(new=_missing(state.token_balance, p.proposer, p.mint))
    return w.answer_proposal("bond_withdraw", units.Hinted(instruction, hint), state)


# ------------------------------------------------------------------ proposals


def _propose(
    principal: Principal, req: ExtendMutabilityRequest | FinalizeMetadataRequest, chain: Rpc | None
) -> dict[str, str]:
    w = _start(principal, req, chain)
    mint = Pubkey.from_string(req.mint)
    state = read_governance(w.chain, mint, w.signer.pubkey)
    gov, now = state.governance, state.snapshot.unix_timestamp
    extend = isinstance(req, ExtendMutabilityRequest)
    if gov.finalized:
        raise ApiError("governance_finalized")
    if now >= gov.mutable_until:
        raise ApiError("mutability_expired" if extend else "metadata_not_mutable")
    if gov.active_proposal is not None:
        raise ApiError("active_proposal_exists", activeProposal=str(gov.active_proposal))
    if isinstance(req, ExtendMutabilityRequest):
        problem = GM.extension_error(int(req.additionalSeconds), gov.mutability_extended, gov.max_extension_seconds)
        if problem:
            raise ApiError(problem)
    elif GM.ALL_FIELDS_MASK & ~gov.locked_mask == 0:
        raise ApiError("no_metadata_changes")
    duration = req.vote_duration
    problem = GM.vote_duration_error(
        now, duration, gov.mutable_until, gov.min_vote_duration_seconds, gov.max_vote_duration_seconds
    )
    if problem:
        raise ApiError(
            problem,
            minVoteDurationSeconds=str(gov.min_vote_duration_seconds),
            maxVoteDurationSeconds=str(gov.max_vote_duration_seconds),
            mutableUntilUnix=str(gov.mutable_until),
        )
    if not state.token_balance:
        raise ApiError("missing_proposal_token_account")
    bond = gov.proposal_bond(now)
    if state.token_balance < bond:
        raise ApiError("insufficient_proposal_bond", requiredTokens=str(bond), availableTokens=str(state.token_balance))
    index = gov.next_proposal_index
    proposal = P.proposal_pda(state.key, index)[0]
    if isinstance(req, ExtendMutabilityRequest):
        instruction = ix.propose_extend_mutability(
            w.signer.pubkey,
            mint,
            index,
            int(req.additionalSeconds),
            base_content_revision=gov.content_revision,
            vote_duration_seconds=duration,
        )
    else:
        instruction = ix.propose_finalize_metadata(
            w.signer.pubkey, mint, index, base_content_revision=gov.content_revision, vote_duration_seconds=duration
        )
    rent = P.rent_exempt_minimum(Proposal.SIZE) + P.rent_exempt_minimum(TOKEN_ACCOUNT_SIZE)
    kind = "propose_extend_mutability" if extend else "propose_finalize_metadata"
    bumps = {proposal: P.proposal_pda(state.key, index)[1]}
    signature = w.land(kind, mint, units.Hinted(instruction, units.Hint(bumps=bumps)), state, rent)
    return _response(signature, mint, state.key, proposal)


def extend_mutability(principal: Principal, req: ExtendMutabilityRequest, chain: Rpc | None = None) -> dict[str, str]:
    return _propose(principal, req, chain)


def finalize_metadata(principal: Principal, req: FinalizeMetadataRequest, chain: Rpc | None = None) -> dict[str, str]:
    """Proposes locking every field (full finalization)."""
    return _propose(principal, req, chain)


def finalize_expired(principal: Principal, req: FinalizeExpiredRequest, chain: Rpc | None = None) -> dict[str, str]:
    """Records an already-lapsed mutability window; no vote."""
    w = _start(principal, req, chain)
    mint = Pubkey.from_string(req.mint)
    state = read_governance(w.chain, mint, w.signer.pubkey)
    gov = state.governance
    if gov.finalized:
        raise ApiError("governance_finalized")
    if state.snapshot.unix_timestamp < gov.mutable_until:
        raise ApiError("metadata_still_mutable", mutableUntilUnix=str(gov.mutable_until))
    instruction = ix.finalize_expired(w.signer.pubkey, mint)
    signature = w.land("finalize_expired", mint, instruction, state)
    return _response(signature, mint, state.key)
