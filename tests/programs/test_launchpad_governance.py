"""Metadata governance of the launchpad SBF program in LiteSVM: proposals, votes,
settlement applying update_content to the mint's Token-2022 metadata (decoded from the
published layout), finalization removing the update authority, the bond and vote
withdrawals, and the refusals in the reference's order."""
from __future__ import annotations

import pytest

from partner.chain import governance_math as GM
from partner.chain.governance_math import ActionKind, Outcome, VoteSide

from .launchpad_chain import SOL, Chain, ata, governance_pda, proposal_pda, vote_pda

MIN_LOCK = GM.DEFAULT_MIN_LOCK_AMOUNT
QUORUM_THIRD = 2 * 10**13     # three of these meet the 5% supply quorum of 1e15
NAME, SYMBOL, IMAGE = 1, 2, 4

G_ALREADY_VOTED, G_BAD_AMOUNT, G_NO_VOTE_ATA, G_NOT_ACTIVE, G_WITHDRAWN = 6101, 6102, 6103, 6104, 6105
G_RECEIPT_NOT_FOUND, G_CLOSED, G_STILL_OPEN, G_SETTLED, G_NOT_SETTLED = 6106, 6107, 6108, 6109, 6110
G_ACTIVE_EXISTS, G_BOND, G_NO_PROPOSAL_ATA, G_BOND_WITHDRAWN = 6113, 6114, 6115, 6117
G_WINDOW_CLOSING, G_FINALIZED, G_NOT_MUTABLE, G_STILL_MUTABLE, G_LOCKED, G_NO_CHANGES = 6118, 6119, 6120, 6121, 6122, 6123
G_STALE, G_EXPIRED, G_EXTENDED, G_EXT_CAP, G_DURATION, G_DURATION_WINDOW = 6124, 6125, 6126, 6127, 6128, 6129


class Gov:
    """A coin with three funded holders (each above the bond and min lock)."""

    def __init__(self, chain: Chain | None = None):
        self.c = chain or Chain()
        self.creator, mint = self.c.create_coin(name="Old Name", symbol="OLD", uri="https://x.example/old.json")
        self.mint = mint.pubkey()
        self.gov = governance_pda(self.mint)
        self.c.advance(1, 1)
        self.holders = [self.c.wallet() for _ in range(3)]
        for h in self.holders:
            assert self.c.buy(h, self.mint, 5 * SOL).ok

    def propose(self, who, kind=ActionKind.UPDATE_CONTENT, *, base=None, duration=600, name=None, symbol=None,
                uri=None, additional=None, mask=0, digests=None):
        """`digests`: the uri-borne digests after the change; None: an update_content proposal's follow `mask`
        (a flagged field gets the digest of a new value), the other kinds' are zero."""
        index = self.c.governance(self.mint).next_proposal_index
        if digests is None:
            digests = GM.NO_DIGESTS
            if kind == ActionKind.UPDATE_CONTENT:
                digests = [GM.field_digest(f"new {f} {index}") if mask >> GM.CONTENT_FIELDS.index(f) & 1 else d
                           for f, d in zip(GM.URI_FIELDS, self.c.governance(self.mint).content_digests, strict=True)]
        prop = proposal_pda(self.gov, index)
        ix = self.c.ix("create_proposal", {"proposer": who.pubkey(), "mint": self.mint, "metadata": self.mint,
                                           "proposal": prop},
                       action_kind=kind, base_content_revision=self.c.governance(self.mint).content_revision
                       if base is None else base, vote_duration_seconds=duration, name=name, symbol=symbol, uri=uri,
                       additional_seconds=additional, changed_fields=mask, content_digests=digests)
        return prop, self.c.send([ix], who)

    def vote(self, who, prop, side, amount):
        ix = self.c.ix("cast_vote", {"voter": who.pubkey(), "mint": self.mint, "proposal": prop}, side=side,
                       amount=amount)
        return self.c.send([ix], who)

    def escrow_ix(self, name, who, prop, **extra):
        return self.c.ix(name, {"mint": self.mint, "proposal": prop, **extra})

    def settle(self, prop, payer=None):
        payer = payer or self.c.wallet()
        return self.c.send([self.c.ix("settle_proposal", {"payer": payer.pubkey(), "proposal": prop,
                                                           "metadata": self.mint, "governance.mint": self.mint})], payer)

    def finalize_expired(self):
        payer = self.c.wallet()
        return self.c.send([self.c.ix("finalize_expired", {"payer": payer.pubkey(), "metadata": self.mint,
                                                                 "governance.mint": self.mint})], payer)

    def pass_(self, prop):
        for h in self.holders:
            assert self.vote(h, prop, VoteSide.YES, QUORUM_THIRD).ok
        self.c.advance(10, 601)
        return self.settle(prop)

    def metadata(self):
        return self.c.mint(self.mint).metadata


@pytest.fixture
def g():
    return Gov()


def test_update_content_applies_to_the_token_2022_metadata(g):
    proposer = g.holders[0]
    bond = GM.bond_amount(g.c.governance(g.mint).total_supply, GM.DEFAULT_PROPOSAL_BOND_BPS)
    held = g.c.balance(proposer.pubkey(), g.mint)
    prop, r = g.propose(proposer, name="New Name", uri="https://x.example/new.json", mask=NAME | IMAGE)
    assert r.ok, r.logs
    p = g.c.proposal(prop)
    assert (p.governance, p.mint, p.proposer, p.index, p.action_kind, p.action_name, p.action_symbol, p.action_uri,
            p.bond_amount, p.voting_ends_at) == (g.gov, g.mint, proposer.pubkey(), 0, ActionKind.UPDATE_CONTENT,
                                                 "New Name", None, "https://x.example/new.json", bond, g.c.now + 600)
    assert p.changed_mask == NAME | IMAGE and p.outcome == Outcome.PENDING
    assert g.c.balance(prop, g.mint) == bond and g.c.balance(proposer.pubkey(), g.mint) == held - bond
    gov = g.c.governance(g.mint)
    assert gov.active_proposal == prop and gov.next_proposal_index == 1

    r = g.pass_(prop)
    assert r.ok, r.logs
    p = g.c.proposal(prop)
    assert (p.outcome, p.executed, p.settled, p.metadata_updated, p.settled_at) == (
        Outcome.PASSED, True, True, True, g.c.now)
    assert (p.yes_votes, p.no_votes, p.participating_supply, p.participating_voters) == (
        3 * QUORUM_THIRD, 0, 3 * QUORUM_THIRD, 3)
    md = g.metadata()
    assert (md.name, md.symbol, md.uri) == ("New Name", "OLD", "https://x.example/new.json")
    assert md.update_authority == g.gov
    gov = g.c.governance(g.mint)
    assert gov.content_revision == 1 and gov.active_proposal is None
    # a proposal on the old revision is stale now
    _, r = g.propose(proposer, symbol="NEW", mask=SYMBOL, base=0)
    r.expect(G_STALE)


def test_finalize_metadata_removes_the_update_authority(g):
    prop, r = g.propose(g.holders[0], ActionKind.FINALIZE_METADATA)
    assert r.ok, r.logs
    assert g.pass_(prop).ok
    gov = g.c.governance(g.mint)
    assert gov.finalized and gov.locked_mask == GM.ALL_FIELDS_MASK and not gov.finalized_by_expiry
    md = g.metadata()
    assert md.update_authority is None and md.name == "Old Name"      # immutable for good (the standard's rule)
    _, r = g.propose(g.holders[1], name="Other", mask=NAME)
    r.expect(G_FINALIZED)
    # Token-2022 itself refuses any later change: ImmutableMetadata (901952961)
    anyone = g.c.wallet()
    g.c.send([update_field_ix(g.mint, anyone.pubkey(), 0, "Hijacked")], anyone).expect(901952961)
    assert g.metadata().name == "Old Name"


def update_field_ix(mint, authority, field: int, value: str):
    """TokenMetadata UpdateField (spl-token-metadata-interface), built from its published encoding."""
    import hashlib
    import struct
    from solders.instruction import AccountMeta, Instruction
    from .launchpad_chain import TOKEN_2022
    disc = hashlib.sha256(b"spl_token_metadata_interface:updating_field").digest()[:8]
    raw = value.encode()
    return Instruction(TOKEN_2022, disc + bytes([field]) + struct.pack("<I", len(raw)) + raw,
                       [AccountMeta(mint, False, True), AccountMeta(authority, True, False)])


def test_only_the_governance_pda_may_update_the_metadata(g):
    anyone = g.c.wallet()
    g.c.send([update_field_ix(g.mint, anyone.pubkey(), 0, "Hijacked")], anyone).expect(901952960)
    assert g.metadata().name == "Old Name"


def test_a_partial_lock_keeps_the_update_authority(g):
    prop, r = g.propose(g.holders[0], ActionKind.FINALIZE_METADATA, mask=NAME)
    assert r.ok
    assert g.pass_(prop).ok
    gov = g.c.governance(g.mint)
    assert gov.name_locked and not gov.finalized and g.metadata().update_authority == g.gov
    _, r = g.propose(g.holders[1], name="Other", mask=NAME)
    r.expect(G_LOCKED)
    prop, r = g.propose(g.holders[1], symbol="SYM", mask=SYMBOL)
    assert r.ok
    assert g.pass_(prop).ok
    assert g.metadata().symbol == "SYM"


def test_finalize_expired_locks_the_metadata(g):
    g.finalize_expired().expect(G_STILL_MUTABLE)
    g.c.advance(100, GM.DEFAULT_MUTABILITY_WINDOW_SECONDS)
    assert g.finalize_expired().ok
    gov = g.c.governance(g.mint)
    assert gov.finalized and gov.finalized_by_expiry and gov.locked_mask == GM.ALL_FIELDS_MASK
    assert g.metadata().update_authority is None
    g.finalize_expired().expect(G_FINALIZED)


def test_extend_mutability(g):
    until = g.c.governance(g.mint).mutable_until
    _, r = g.propose(g.holders[0], ActionKind.EXTEND_MUTABILITY, additional=GM.DEFAULT_MAX_EXTENSION_SECONDS + 1)
    r.expect(G_EXT_CAP)
    prop, r = g.propose(g.holders[0], ActionKind.EXTEND_MUTABILITY, additional=86_400)
    assert r.ok
    assert g.pass_(prop).ok
    gov = g.c.governance(g.mint)
    assert gov.mutable_until == until + 86_400 and gov.mutability_extended
    _, r = g.propose(g.holders[0], ActionKind.EXTEND_MUTABILITY, additional=1)
    r.expect(G_EXTENDED)


def test_votes_cancel_withdraw_and_bond(g):
    a, b, c = g.holders
    prop, r = g.propose(a, name="Renamed", mask=NAME)
    assert r.ok
    bal_b = g.c.balance(b.pubkey(), g.mint)
    assert g.vote(b, prop, VoteSide.NO, 2 * MIN_LOCK).ok
    g.vote(b, prop, VoteSide.YES, 1).expect(G_ALREADY_VOTED)
    rec = g.c.receipt(vote_pda(prop, b.pubkey()))
    assert (rec.side, rec.amount, rec.counted_as_voter, rec.active) == (VoteSide.NO, 2 * MIN_LOCK, True, True)
    assert g.c.balance(b.pubkey(), g.mint) == bal_b - 2 * MIN_LOCK
    # cancel: tokens back at once, tally undone, the wallet may vote again
    assert g.c.send([g.escrow_ix("cancel_vote", b, prop, voter=b.pubkey())], b).ok
    assert g.c.balance(b.pubkey(), g.mint) == bal_b
    p = g.c.proposal(prop)
    assert (p.no_votes, p.participating_supply, p.participating_voters) == (0, 0, 0)
    g.c.send([g.escrow_ix("cancel_vote", b, prop, voter=b.pubkey())], b).expect(G_NOT_ACTIVE)
    assert g.vote(b, prop, VoteSide.YES, MIN_LOCK - 1).ok       # below min lock: not counted as a voter
    assert g.vote(c, prop, VoteSide.YES, MIN_LOCK).ok
    g.vote(g.c.wallet(), prop, VoteSide.YES, 1).expect(G_NO_VOTE_ATA)
    g.vote(a, prop, VoteSide.YES, 0).expect(G_BAD_AMOUNT)
    g.vote(a, prop, VoteSide.YES, 10**18).expect(G_BAD_AMOUNT)
    p = g.c.proposal(prop)
    assert (p.yes_votes, p.participating_voters) == (2 * MIN_LOCK - 1, 1)

    cranker = g.c.wallet()
    withdraw_vote = g.escrow_ix("withdraw_vote", cranker, prop, payer=cranker.pubkey(), voter=c.pubkey())
    g.c.send([withdraw_vote], cranker).expect(G_NOT_SETTLED)
    g.settle(prop).expect(G_STILL_OPEN)
    g.c.advance(10, 601)
    g.vote(a, prop, VoteSide.YES, MIN_LOCK).expect(G_CLOSED)
    assert g.settle(prop).ok
    p = g.c.proposal(prop)
    assert p.outcome == Outcome.QUORUM_NOT_MET and not p.executed and g.metadata().name == "Old Name"
    g.settle(prop).expect(G_SETTLED)

    bal_c = g.c.balance(c.pubkey(), g.mint)
    assert g.c.send([withdraw_vote], cranker).ok
    assert g.c.balance(c.pubkey(), g.mint) == bal_c + MIN_LOCK
    g.c.send([g.escrow_ix("withdraw_vote", cranker, prop, payer=cranker.pubkey(), voter=c.pubkey())],
             cranker).expect(G_WITHDRAWN)
    g.c.send([g.escrow_ix("withdraw_vote", cranker, prop, payer=cranker.pubkey(), voter=g.c.wallet().pubkey())],
             cranker).expect(G_RECEIPT_NOT_FOUND)

    bal_a = g.c.balance(a.pubkey(), g.mint)
    bond = g.c.proposal(prop).bond_amount
    withdraw_bond = g.escrow_ix("withdraw_bond", cranker, prop, payer=cranker.pubkey(), proposer=a.pubkey())
    assert g.c.send([withdraw_bond], cranker).ok
    assert g.c.balance(a.pubkey(), g.mint) == bal_a + bond and g.c.proposal(prop).bond_withdrawn
    g.c.send([g.escrow_ix("withdraw_bond", cranker, prop, payer=cranker.pubkey(), proposer=a.pubkey())],
             cranker).expect(G_BOND_WITHDRAWN)


def test_withdraw_recreates_a_closed_token_account(g):
    a, b, _ = g.holders
    prop, r = g.propose(a, name="Renamed", mask=NAME)
    assert r.ok
    assert g.vote(b, prop, VoteSide.YES, MIN_LOCK).ok
    # b empties and closes its token account: Token-2022 Transfer all, then CloseAccount
    from solders.instruction import AccountMeta, Instruction
    from .launchpad_chain import TOKEN_2022
    b_ata = ata(b.pubkey(), g.mint)
    rest = g.c.balance(b.pubkey(), g.mint)
    assert g.c.sell(b, g.mint, rest).ok
    close = Instruction(TOKEN_2022, bytes([9]), [AccountMeta(b_ata, False, True), AccountMeta(b.pubkey(), False, True),
                                                 AccountMeta(b.pubkey(), True, False)])
    g.c.send_ok([close], b)
    assert g.c.account(b_ata) is None
    g.c.advance(10, 601)
    assert g.settle(prop).ok
    cranker = g.c.wallet()
    assert g.c.send([g.escrow_ix("withdraw_vote", cranker, prop, payer=cranker.pubkey(), voter=b.pubkey())],
                    cranker).ok
    assert g.c.balance(b.pubkey(), g.mint) == MIN_LOCK


def test_create_proposal_refusals(g):
    a = g.holders[0]
    prop, r = g.propose(a, name="Old Name", mask=NAME)
    r.expect(G_NO_CHANGES)                                   # equals the on-chain (Token-2022) name
    g.propose(a, symbol="OLD", mask=SYMBOL)[1].expect(G_NO_CHANGES)
    g.propose(a, mask=0)[1].expect(G_NO_CHANGES)
    g.propose(a, name="X", mask=SYMBOL)[1].expect(6000)     # name given without its flag
    g.propose(a, name="X", mask=NAME, duration=59)[1].expect(G_DURATION)
    g.propose(a, name="X", mask=NAME, duration=7 * 86_400 + 1)[1].expect(G_DURATION)
    g.propose(g.c.wallet(), name="X", mask=NAME)[1].expect(G_NO_PROPOSAL_ATA)
    poor = g.c.wallet()
    assert g.c.buy(poor, g.mint, 10**6).ok                   # holds less than the bond
    g.propose(poor, name="X", mask=NAME)[1].expect(G_BOND)
    assert g.c.account(prop) is None
    prop, r = g.propose(a, name="X", mask=NAME)
    assert r.ok
    g.propose(a, symbol="Y", mask=SYMBOL)[1].expect(G_ACTIVE_EXISTS)


def test_window_rules(g):
    until = g.c.governance(g.mint).mutable_until
    g.c.set_clock(g.c.slot + 1, until - 600)
    g.propose(g.holders[0], name="X", mask=NAME, duration=600)[1].expect(G_DURATION_WINDOW)
    g.c.set_clock(g.c.slot + 1, until - 60)
    g.propose(g.holders[0], name="X", mask=NAME, duration=60)[1].expect(G_WINDOW_CLOSING)
    g.c.set_clock(g.c.slot + 1, until)
    g.propose(g.holders[0], name="X", mask=NAME)[1].expect(G_NOT_MUTABLE)
    g.propose(g.holders[0], ActionKind.EXTEND_MUTABILITY, additional=5)[1].expect(G_EXPIRED)


def test_rejected_by_approval(g):
    a, b, c = g.holders
    prop, r = g.propose(a, name="Renamed", mask=NAME)
    assert r.ok
    assert g.vote(a, prop, VoteSide.YES, 3 * 10**13).ok
    assert g.vote(b, prop, VoteSide.NO, 25 * 10**12).ok
    assert g.vote(c, prop, VoteSide.YES, MIN_LOCK).ok
    g.c.advance(10, 601)
    assert g.settle(prop).ok                                  # quorum met, 54.5% yes < 60%
    p = g.c.proposal(prop)
    assert p.outcome == Outcome.REJECTED and not p.executed and g.metadata().name == "Old Name"
    assert g.c.governance(g.mint).active_proposal is None


# ------------------------------------------------- proposals missing, foreign or forced

G_PROPOSAL_NOT_FOUND, G_INVALID_PROPOSAL, G_NO_BOND = 6111, 6112, 6116


def _rewrite(g: Gov, key, **fields):
    """Force fields of a launchpad account (state no instruction can reach)."""
    import dataclasses

    from solders.account import Account

    from .launchpad_chain import LAUNCHPAD_ID

    raw = g.c.account(key)
    cls = type(g.c.proposal(key)) if fields.pop("_proposal", True) else type(g.c.governance(g.mint))
    value = dataclasses.replace(cls.decode(bytes(raw.data)), **fields)
    g.c.svm.set_account(key, Account(raw.lamports, value.encode(), LAUNCHPAD_ID, False, 0))


def test_settle_refuses_a_missing_and_a_foreign_proposal(g):
    a = g.holders[0]
    missing = proposal_pda(g.gov, 7)
    before = g.c.snapshot(g.gov, g.mint)
    g.settle(missing).expect(G_PROPOSAL_NOT_FOUND)
    other = Gov(g.c)                                   # a second coin on the same chain
    foreign, r = other.propose(other.holders[0], name="Other", mask=NAME)
    assert r.ok
    other.c.advance(10, 601)
    g.settle(foreign).expect(G_INVALID_PROPOSAL)      # another governance's proposal
    assert g.c.snapshot(g.gov, g.mint) == before
    assert not g.c.proposal(foreign).settled
    assert g.propose(a, name="Mine", mask=NAME)[1].ok


def test_withdraw_bond_without_a_bond(g):
    a = g.holders[0]
    prop, r = g.propose(a, name="Renamed", mask=NAME)
    assert r.ok
    g.c.advance(10, 601)
    assert g.settle(prop).ok
    _rewrite(g, prop, bond_amount=0)
    cranker = g.c.wallet()
    before = g.c.snapshot(prop, ata(a.pubkey(), g.mint))
    g.c.send([g.escrow_ix("withdraw_bond", cranker, prop, payer=cranker.pubkey(), proposer=a.pubkey())],
             cranker).expect(G_NO_BOND)
    assert g.c.snapshot(prop, ata(a.pubkey(), g.mint)) == before


def test_a_passed_proposal_past_the_mutability_window_is_recorded_not_executed(g):
    a, b, c = g.holders
    prop, r = g.propose(a, name="Too Late", mask=NAME)
    assert r.ok
    for h in (a, b, c):
        assert g.vote(h, prop, VoteSide.YES, QUORUM_THIRD).ok
    until = g.c.governance(g.mint).mutable_until
    g.c.set_clock(g.c.slot + 10, until + 1)           # voting ended; the window closed before settling
    assert g.settle(prop).ok
    p = g.c.proposal(prop)
    assert p.outcome == Outcome.PASSED and p.settled and not p.executed and not p.metadata_updated
    assert g.metadata().name == "Old Name"
    cranker = g.c.wallet()
    bal_a = g.c.balance(a.pubkey(), g.mint)
    assert g.c.send([g.escrow_ix("withdraw_bond", cranker, prop, payer=cranker.pubkey(), proposer=a.pubkey())],
                    cranker).ok
    assert g.c.send([g.escrow_ix("withdraw_vote", cranker, prop, payer=cranker.pubkey(), voter=b.pubkey())],
                    cranker).ok
    assert g.c.balance(a.pubkey(), g.mint) == bal_a + p.bond_amount


def test_a_passed_proposal_on_a_moved_revision_is_recorded_not_executed(g):
    a = g.holders[0]
    prop, r = g.propose(a, name="Stale", mask=NAME)
    assert r.ok
    rev = g.c.governance(g.mint).content_revision
    _rewrite(g, g.gov, _proposal=False, content_revision=rev + 1)  # the content moved meanwhile
    assert g.pass_(prop).ok
    p = g.c.proposal(prop)
    assert p.outcome == Outcome.PASSED and not p.executed and g.metadata().name == "Old Name"
    assert g.c.governance(g.mint).content_revision == rev + 1
