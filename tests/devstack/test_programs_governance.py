"""Integration: metadata governance of the reference launchpad program on the
devstack chain, driven over JSON-RPC: every row of the spec's Vote / Proposal /
Metadata governance state tables, token balances of voters and proposers, and
the quorum / approval boundaries exactly and one base unit below."""
from __future__ import annotations

import base64

import httpx
import pytest
from solders.hash import Hash
from solders.instruction import AccountMeta, Instruction
from solders.keypair import Keypair
from solders.message import MessageV0
from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction

from partner.chain import governance_math as GM
from devstack.chain.legacy import instructions as I
from devstack.chain.legacy import layouts as L
from devstack.chain.legacy import programs as P
from partner.chain.errors import GOVERNANCE_ERRORS
from partner.chain.errors import GovernanceErrorCode as G
from partner.chain.errors import ProgramErrorCode as E
from partner.chain.errors import spec_code_for_transaction_error
from partner.chain.governance_math import ActionKind, Outcome, VoteSide

devstack_programs = pytest.importorskip("devstack.chain.programs")
server = pytest.importorskip("devstack.chain.server")

FEE_RECIPIENT = devstack_programs.FEE_RECIPIENT
SIG_FEE = 5000
T = 10**6                       # one token in base units
SUPPLY = 10**15
BOND = SUPPLY * 100 // 10_000   # 1% of supply = 10M tokens
QUORUM_SUPPLY = SUPPLY * 500 // 10_000  # 5% = 50M tokens
DAY = 86_400
YES, NO = VoteSide.YES, VoteSide.NO
GM_SPEC = {G(code): spec for code, (spec, _) in GOVERNANCE_ERRORS.items()}


class Chain:
    def __init__(self, handle):
        self.h = handle
        self.http = httpx.Client(timeout=10)

    def call(self, method, *params):
        body = self.http.post(self.h.url, json={"jsonrpc": "2.0", "id": 1, "method": method,
                                                "params": list(params)}).json()
        assert "error" not in body, body
        return body["result"]

    def warp(self, seconds):
        with self.h.bank.lock:
            self.h.bank.warp(seconds)

    @property
    def now(self) -> int:
        return self.h.bank.unix_timestamp

    def fund(self, kp=None, sol=100):
        kp = kp or Keypair()
        self.call("requestAirdrop", str(kp.pubkey()), sol * 10**9)
        return kp

    def tx(self, payer, ixs, signers):
        bh = self.call("getLatestBlockhash")["value"]["blockhash"]
        return VersionedTransaction(MessageV0.try_compile(payer.pubkey(), ixs, [], Hash.from_string(bh)), signers)

    def send(self, payer, ixs, signers=None):
        tx = self.tx(payer, ixs if isinstance(ixs, list) else [ixs], signers or [payer])
        sig = self.call("sendTransaction", base64.b64encode(bytes(tx)).decode(), {"encoding": "base64"})
        st = self.call("getSignatureStatuses", [sig])["value"][0]
        assert st is not None and st["err"] is None, (st, self.logs(sig))
        return sig

    def logs(self, sig):
        t = self.call("getTransaction", sig, {"encoding": "json", "maxSupportedTransactionVersion": 0})
        return t and t["meta"]["logMessages"]

    def fails(self, payer, ixs, signers=None):
        tx = self.tx(payer, ixs if isinstance(ixs, list) else [ixs], signers or [payer])
        v = self.call("simulateTransaction", base64.b64encode(bytes(tx)).decode(),
                      {"encoding": "base64", "sigVerify": True})["value"]
        assert v["err"] is not None, v.get("logs")
        return v["err"]

    def expect(self, payer, ixs, code, signers=None):
        """The transaction fails with program error `code`, which maps to its spec code."""
        err = self.fails(payer, ixs, signers)
        assert "InstructionError" in err, err
        assert err["InstructionError"][1] == {"Custom": int(code)}, (err, code)
        if isinstance(code, G):
            assert spec_code_for_transaction_error(err) == GM_SPEC[code]
        return err

    def lamports(self, pk) -> int:
        return self.call("getBalance", str(pk))["value"]

    def data(self, pk) -> bytes:
        v = self.call("getAccountInfo", str(pk), {"encoding": "base64"})["value"]
        return base64.b64decode(v["data"][0]) if v else b""

    def tokens(self, owner, mint) -> int:
        ata = P.associated_token_address(owner, mint)
        if not self.data(ata):
            return 0
        return int(self.call("getTokenAccountBalance", str(ata))["value"]["amount"])

    def governance(self, mint) -> L.Governance:
        return L.Governance.decode(self.data(P.governance_pda(mint)[0]))

    def proposal(self, pk) -> L.Proposal:
        return L.Proposal.decode(self.data(pk))

    def receipt(self, proposal, voter) -> L.VoteReceipt:
        return L.VoteReceipt.decode(self.data(P.vote_pda(proposal, voter)[0]))

    def metadata(self, mint) -> L.CoinMetadata:
        return L.CoinMetadata.decode(self.data(P.metadata_pda(mint)[0]))




@pytest.fixture(scope="module")
def chain():
    h = server.start_chain(port=0, engine="python")  # the Python reference programs (the oracle)
    try:
        yield Chain(h)
    finally:
        h.stop()


class Coin:
    """A fresh coin whose holders bought exact token amounts on the curve."""

    def __init__(self, chain: Chain, holdings: dict[str, int], name="Gov Coin", symbol="GOV",
                 uri="ipfs://meta-v0"):
        self.chain = chain
        self.creator = chain.fund()
        mint = Keypair()
        self.mint = mint.pubkey()
        chain.send(self.creator, I.create_coin(self.creator.pubkey(), self.mint, name, symbol, uri),
                   [self.creator, mint])
        chain.warp(1)
        self.kp: dict[str, Keypair] = {}
        for who, amount in holdings.items():
            kp = self.kp[who] = chain.fund()
            if amount:
                chain.send(kp, I.buy_exact_out(kp.pubkey(), self.mint, FEE_RECIPIENT, amount, 2**63))
                assert chain.tokens(kp.pubkey(), self.mint) == amount

    def __getitem__(self, who) -> Keypair:
        return self.kp[who]

    def pk(self, who) -> Pubkey:
        return self.kp[who].pubkey()

    def tokens(self, who) -> int:
        return self.chain.tokens(self.pk(who), self.mint)

    @property
    def gov(self) -> L.Governance:
        return self.chain.governance(self.mint)

    def vault_tokens(self, proposal) -> int:
        return self.chain.tokens(proposal, self.mint)

    def next_proposal(self) -> Pubkey:
        return P.proposal_pda(P.governance_pda(self.mint)[0], self.gov.next_proposal_index)[0]

    # builders bound to this coin
    def propose_ix(self, who, kind=ActionKind.UPDATE_CONTENT, *, base=None, duration=600, **kw):
        g = self.gov
        return I.create_proposal(self.pk(who), self.mint, g.next_proposal_index, kind,
                                 base_content_revision=g.content_revision if base is None else base,
                                 vote_duration_seconds=duration, **kw)

    def propose(self, who, kind=ActionKind.UPDATE_CONTENT, **kw) -> Pubkey:
        pk = self.next_proposal()
        self.chain.send(self[who], self.propose_ix(who, kind, **kw))
        return pk

    def vote_ix(self, who, proposal, side, amount):
        return I.cast_vote(self.pk(who), self.mint, proposal, side, amount)

    def vote(self, who, proposal, side, amount):
        return self.chain.send(self[who], self.vote_ix(who, proposal, side, amount))

    def cancel_ix(self, who, proposal):
        return I.cancel_vote(self.pk(who), self.mint, proposal)

    def withdraw_ix(self, cranker: Keypair, who, proposal):
        return I.withdraw_vote(cranker.pubkey(), self.pk(who), self.mint, proposal)

    def settle_ix(self, cranker: Keypair, proposal):
        return I.settle_proposal(cranker.pubkey(), self.mint, proposal)

    def bond_ix(self, cranker: Keypair, who, proposal):
        return I.withdraw_bond(cranker.pubkey(), self.pk(who), self.mint, proposal)

    def pass_proposal(self, proposer, voters, **kw) -> L.Proposal:
        """Create, vote yes with every voter's whole balance, close, settle, reclaim everything."""
        proposal = self.propose(proposer, duration=60, **kw)
        for v in voters:
            self.vote(v, proposal, YES, self.tokens(v))
        self.chain.warp(61)
        cranker = self[voters[0]]
        self.chain.send(cranker, self.settle_ix(cranker, proposal))
        for v in voters:
            self.chain.send(cranker, self.withdraw_ix(cranker, v, proposal))
        self.chain.send(cranker, self.bond_ix(cranker, proposer, proposal))
        assert self.vault_tokens(proposal) == 0
        return self.chain.proposal(proposal)


def rename(coin: Coin, name: str) -> dict:
    return dict(name=name, changed_fields=["name"])


# ----------------------------------------------------------------- create_coin

def test_create_coin_creates_governance(chain):
    coin = Coin(chain, {})
    g = coin.gov
    c = L.BondingCurve.decode(chain.data(P.bonding_curve_pda(coin.mint)[0]))
    assert (g.mint, g.creator, g.total_supply) == (coin.mint, coin.creator.pubkey(), SUPPLY)
    assert g.created_at == c.created_at and g.mutable_until == g.created_at + 30 * DAY
    assert (g.min_voter_count, g.min_lock_amount, g.min_participating_supply_bps, g.approval_bps,
            g.proposal_bond_bps) == (3, 1_000_000, 500, 6000, 100)
    assert (g.max_extension_seconds, g.min_vote_duration_seconds, g.max_vote_duration_seconds) == \
        (90 * DAY, 60, 7 * DAY)
    assert (g.content_revision, g.next_proposal_index, g.active_proposal) == (0, 0, None)
    assert not (g.finalized or g.finalized_by_expiry or g.mutability_extended) and g.locked_mask == 0
    assert g.bump == P.governance_pda(coin.mint)[1]
    info = chain.call("getAccountInfo", str(P.governance_pda(coin.mint)[0]), {"encoding": "base64"})["value"]
    assert info["owner"] == str(P.LAUNCHPAD_PROGRAM_ID)
    assert info["lamports"] == P.rent_exempt_minimum(L.Governance.SIZE)
    # a mint without governance
    k = chain.fund()
    err = chain.expect(k, I.finalize_expired(k.pubkey(), Keypair().pubkey()), G.GovernanceNotFound)
    assert spec_code_for_transaction_error(err) == "governance_not_found"


# ----------------------------------------------------------------- votes (state table) and balances

def test_vote_states_and_balances(chain):
    coin = Coin(chain, {"prop": 20_000_000 * T, "a": 30_000_000 * T, "b": 25_000_000 * T, "c": 999_999,
                        "d": 5_000_000 * T, "k": 0})
    k = coin["k"]
    # --- create: bond locked from the proposer into the proposal vault
    lam = chain.lamports(coin.pk("prop"))
    proposal = coin.propose("prop", **rename(coin, "Renamed Coin"))
    assert chain.lamports(coin.pk("prop")) == lam - SIG_FEE - P.rent_exempt_minimum(L.Proposal.SIZE) \
        - P.rent_exempt_minimum(165)
    assert coin.tokens("prop") == 20_000_000 * T - BOND
    assert coin.vault_tokens(proposal) == BOND
    p = chain.proposal(proposal)
    assert (p.proposer, p.index, p.base_content_revision, p.action_kind) == \
        (coin.pk("prop"), 0, 0, ActionKind.UPDATE_CONTENT)
    assert (p.action_name, p.action_symbol, p.action_uri, p.action_additional_seconds) == \
        ("Renamed Coin", None, None, None)
    assert p.changed_name and not (p.changed_symbol or p.changed_image) and p.changed_mask == 1
    assert p.voting_ends_at == p.created_at + 600 and p.bond_amount == BOND and not p.bond_withdrawn
    assert (p.outcome, p.settled, p.executed, p.metadata_updated) == (Outcome.PENDING, False, False, False)
    g = coin.gov
    assert g.active_proposal == proposal and g.next_proposal_index == 1

    # --- cast: tokens locked, receipt, tallies
    lam = chain.lamports(coin.pk("a"))
    coin.vote("a", proposal, YES, 30_000_000 * T)
    assert chain.lamports(coin.pk("a")) == lam - SIG_FEE - P.rent_exempt_minimum(L.VoteReceipt.SIZE)
    assert coin.tokens("a") == 0 and coin.vault_tokens(proposal) == BOND + 30_000_000 * T
    r = chain.receipt(proposal, coin.pk("a"))
    assert (r.proposal, r.voter, r.side, r.amount, r.counted_as_voter, r.active, r.withdrawn) == \
        (proposal, coin.pk("a"), YES, 30_000_000 * T, True, True, False)
    # second vote: already_voted
    chain.expect(coin["a"], coin.vote_ix("a", proposal, NO, 1), G.AlreadyVoted)

    # --- amounts and token accounts
    chain.expect(coin["d"], coin.vote_ix("d", proposal, YES, 0), G.InvalidVoteAmount)
    chain.expect(coin["d"], coin.vote_ix("d", proposal, YES, 5_000_000 * T + 1), G.InvalidVoteAmount)
    chain.expect(k, coin.vote_ix("k", proposal, YES, 1), G.MissingVoteTokenAccount)
    # below minLockAmount: weight counts, voter does not
    coin.vote("c", proposal, YES, 999_999)
    assert chain.receipt(proposal, coin.pk("c")).counted_as_voter is False
    p = chain.proposal(proposal)
    assert (p.yes_votes, p.no_votes, p.participating_supply, p.participating_voters) == \
        (30_000_000 * T + 999_999, 0, 30_000_000 * T + 999_999, 1)

    # --- cancel while open returns the tokens at once and takes the weight back
    coin.vote("b", proposal, NO, 25_000_000 * T)
    assert coin.tokens("b") == 0
    assert chain.proposal(proposal).no_votes == 25_000_000 * T
    chain.send(coin["b"], coin.cancel_ix("b", proposal))
    assert coin.tokens("b") == 25_000_000 * T
    r = chain.receipt(proposal, coin.pk("b"))
    assert (r.active, r.withdrawn) == (False, False)
    p = chain.proposal(proposal)
    assert (p.no_votes, p.participating_voters) == (0, 1)
    chain.expect(coin["b"], coin.cancel_ix("b", proposal), G.VoteNotActive)
    chain.expect(k, coin.withdraw_ix(k, "b", proposal), G.VoteNotActive)  # cancelled -> withdraw fails
    # no receipt at all
    chain.expect(k, coin.cancel_ix("k", proposal), G.VoteReceiptNotFound)
    chain.expect(k, coin.withdraw_ix(k, "k", proposal), G.VoteReceiptNotFound)
    # a cancelled vote may be cast again (no active vote by the user)
    coin.vote("b", proposal, YES, 20_000_000 * T)
    assert chain.receipt(proposal, coin.pk("b")).active
    coin.vote("d", proposal, NO, 5_000_000 * T)

    # --- before the end: no withdrawal, no settlement
    chain.expect(k, coin.withdraw_ix(k, "a", proposal), G.ProposalNotSettled)
    chain.expect(k, coin.settle_ix(k, proposal), G.ProposalStillOpen)
    chain.expect(k, coin.bond_ix(k, "prop", proposal), G.ProposalNotSettled)

    # --- voting closed
    chain.warp(601)
    chain.expect(coin["prop"], coin.vote_ix("prop", proposal, YES, T), G.ProposalClosed)
    chain.expect(coin["d"], coin.cancel_ix("d", proposal), G.ProposalClosed)
    chain.expect(k, coin.withdraw_ix(k, "a", proposal), G.ProposalNotSettled)

    # --- settle (permissionless): 3 counted voters (a, b, d), 55M + 0.999999 tokens, 91% yes
    chain.send(k, coin.settle_ix(k, proposal))
    p = chain.proposal(proposal)
    assert (p.outcome, p.settled, p.executed, p.metadata_updated) == (Outcome.PASSED, True, True, True)
    assert p.participating_voters == 3 and p.participating_supply == 55_000_000 * T + 999_999
    assert chain.metadata(coin.mint).name == "Renamed Coin"
    g = coin.gov
    assert g.content_revision == 1 and g.active_proposal is None
    chain.expect(k, coin.settle_ix(k, proposal), G.ProposalAlreadySettled)

    # --- withdraw cranked by someone else: tokens go to the voter, not the caller
    chain.send(k, coin.withdraw_ix(k, "a", proposal))
    assert coin.tokens("a") == 30_000_000 * T and coin.tokens("k") == 0
    r = chain.receipt(proposal, coin.pk("a"))
    assert (r.active, r.withdrawn) == (True, True)
    chain.expect(k, coin.withdraw_ix(k, "a", proposal), G.VoteAlreadyWithdrawn)
    for who in ("b", "c", "d"):
        chain.send(coin[who], coin.withdraw_ix(coin[who], who, proposal))
    assert (coin.tokens("b"), coin.tokens("c"), coin.tokens("d")) == (25_000_000 * T, 999_999, 5_000_000 * T)

    # --- bond back to the proposer whatever the caller, once
    chain.send(k, coin.bond_ix(k, "prop", proposal))
    assert coin.tokens("prop") == 20_000_000 * T and coin.tokens("k") == 0
    assert chain.proposal(proposal).bond_withdrawn
    chain.expect(k, coin.bond_ix(k, "prop", proposal), G.ProposalBondAlreadyWithdrawn)
    assert coin.vault_tokens(proposal) == 0


def test_withdraw_recreates_a_closed_voter_account(chain):
    """Tokens always go to the voter's ATA, re-created (cranker pays) if the voter closed it."""
    coin = Coin(chain, {"prop": 15_000_000 * T, "a": 2 * T, "k": 0})
    k = coin["k"]
    proposal = coin.propose("prop", **rename(coin, "X"))
    coin.vote("a", proposal, NO, 2 * T)
    ata = P.associated_token_address(coin.pk("a"), coin.mint)
    close = Instruction(P.TOKEN_PROGRAM_ID, bytes([9]), [  # SPL Token CloseAccount (empty account)
        AccountMeta(ata, False, True), AccountMeta(coin.pk("a"), False, True), AccountMeta(coin.pk("a"), True, False)])
    chain.send(coin["a"], close)
    assert chain.data(ata) == b""
    chain.warp(601)
    chain.send(k, coin.settle_ix(k, proposal))
    assert chain.proposal(proposal).outcome == Outcome.QUORUM_NOT_MET
    chain.send(k, coin.withdraw_ix(k, "a", proposal))
    assert coin.tokens("a") == 2 * T


# ----------------------------------------------------------------- proposals (state table)

def test_proposal_create_errors(chain):
    coin = Coin(chain, {"rich": 30_000_000 * T, "poor": BOND - 1, "k": 0})
    k, rich = coin["k"], coin["rich"]
    chain.expect(k, coin.propose_ix("k", **rename(coin, "N")), G.MissingProposalTokenAccount)
    chain.expect(coin["poor"], coin.propose_ix("poor", **rename(coin, "N")), G.InsufficientProposalBond)
    # nothing differs / nothing flagged
    chain.expect(rich, coin.propose_ix("rich", **rename(coin, "Gov Coin")), G.NoMetadataChanges)
    chain.expect(rich, coin.propose_ix("rich", symbol="GOV", changed_fields=["symbol"]), G.NoMetadataChanges)
    chain.expect(rich, coin.propose_ix("rich", uri="ipfs://meta-v0", changed_fields=["image"]), G.NoMetadataChanges)
    chain.expect(rich, coin.propose_ix("rich", changed_fields=[]), G.NoMetadataChanges)
    # flags and values must agree
    chain.expect(rich, coin.propose_ix("rich", name="N", changed_fields=["symbol"]), E.InvalidInput)
    chain.expect(rich, coin.propose_ix("rich", changed_fields=["website"]), E.InvalidInput)
    chain.expect(rich, coin.propose_ix("rich", name=" ", changed_fields=["name"]), E.NameEmpty)
    chain.expect(rich, coin.propose_ix("rich", ActionKind.EXTEND_MUTABILITY, additional_seconds=0), E.InvalidInput)
    # authored against another revision
    chain.expect(rich, coin.propose_ix("rich", base=1, **rename(coin, "N")), G.StaleContentRevision)
    # durations
    chain.expect(rich, coin.propose_ix("rich", duration=59, **rename(coin, "N")), G.InvalidVoteDuration)
    chain.expect(rich, coin.propose_ix("rich", duration=7 * DAY + 1, **rename(coin, "N")), G.InvalidVoteDuration)
    chain.expect(rich, coin.propose_ix("rich", duration=0, **rename(coin, "N")), G.InvalidVoteDuration)
    # extension over the cap
    chain.expect(rich, coin.propose_ix("rich", ActionKind.EXTEND_MUTABILITY, additional_seconds=90 * DAY + 1),
                 G.MutabilityExtensionExceedsCap)
    # window still open
    chain.expect(k, I.finalize_expired(k.pubkey(), coin.mint), G.MetadataStillMutable)

    # one active proposal per governance
    proposal = coin.propose("rich", duration=60, **rename(coin, "N"))
    assert coin.tokens("rich") == 20_000_000 * T
    chain.expect(rich, coin.propose_ix("rich", ActionKind.FINALIZE_METADATA), G.ActiveProposalExists)
    # unknown / unreadable proposals
    chain.expect(k, coin.settle_ix(k, Keypair().pubkey()), G.ProposalNotFound)
    chain.expect(k, coin.settle_ix(k, P.governance_pda(coin.mint)[0]), G.InvalidProposal)
    other = Coin(chain, {"x": 20_000_000 * T})
    other_proposal = other.propose("x", duration=60, **rename(other, "Other"))
    chain.expect(k, coin.settle_ix(k, other_proposal), G.InvalidProposal)
    chain.expect(k, coin.vote_ix("k", other_proposal, YES, 1), G.InvalidProposal)
    # no votes: quorum not met; bond still returned
    chain.warp(61)
    chain.send(k, coin.settle_ix(k, proposal))
    p = chain.proposal(proposal)
    assert (p.outcome, p.executed, p.participating_supply) == (Outcome.QUORUM_NOT_MET, False, 0)
    assert chain.metadata(coin.mint).name == "Gov Coin" and coin.gov.content_revision == 0
    chain.send(k, coin.bond_ix(k, "rich", proposal))
    assert coin.tokens("rich") == 30_000_000 * T
    # after settlement a new proposal may be created (index 1)
    assert coin.propose("rich", ActionKind.FINALIZE_METADATA) == P.proposal_pda(P.governance_pda(coin.mint)[0], 1)[0]


# ----------------------------------------------------------------- quorum and approval boundaries

Q = QUORUM_SUPPLY  # 50M tokens: supply quorum exactly


@pytest.mark.parametrize("case,votes,expected", [
    # exactly at both thresholds: 3 voters, 5% of supply, 60% yes
    ("exact", [("v1", YES, 2 * Q // 5), ("v2", YES, Q // 5), ("v3", NO, 2 * Q // 5)], Outcome.PASSED),
    # participating supply one base unit below 5%
    ("supply-1", [("v1", YES, 2 * Q // 5), ("v2", YES, Q // 5), ("v3", NO, 2 * Q // 5 - 1)], Outcome.QUORUM_NOT_MET),
    # yes share one base unit below 60% at the same participation
    ("approval-1", [("v1", YES, 2 * Q // 5), ("v2", YES, Q // 5 - 1), ("v3", NO, 2 * Q // 5 + 1)], Outcome.REJECTED),
    # third voter locks exactly minLockAmount: counted
    ("voters", [("v1", YES, 3 * Q // 5), ("v2", NO, 2 * Q // 5 - 1_000_000), ("v3", NO, 1_000_000)], Outcome.PASSED),
    # third voter one base unit below minLockAmount: weight only, 2 voters
    ("voters-1", [("v1", YES, 3 * Q // 5), ("v2", NO, 2 * Q // 5 - 999_999), ("v3", NO, 999_999)],
     Outcome.QUORUM_NOT_MET),
])
def test_quorum_and_approval_boundaries(chain, case, votes, expected):
    coin = Coin(chain, {"prop": BOND, **{v: amount for v, _, amount in votes}})
    proposal = coin.propose("prop", duration=60, name="Boundary", uri="ipfs://meta-v1",
                            changed_fields=["name", "image", "description"])
    assert coin.tokens("prop") == 0
    for v, side, amount in votes:
        coin.vote(v, proposal, side, amount)
        assert coin.tokens(v) == 0
    total = sum(a for _, _, a in votes)
    assert coin.vault_tokens(proposal) == BOND + total
    chain.warp(61)
    crank = coin["v1"]
    chain.send(crank, coin.settle_ix(crank, proposal))
    p = chain.proposal(proposal)
    assert p.outcome == expected, case
    assert p.participating_supply == total
    assert p.outcome == GM.outcome(yes_votes=p.yes_votes, no_votes=p.no_votes,
                                   participating_voters=p.participating_voters, total_supply=SUPPLY,
                                   min_voter_count=3, min_participating_supply_bps=500, approval_bps=6000)
    meta, g = chain.metadata(coin.mint), coin.gov
    if expected == Outcome.PASSED:
        assert p.executed and p.metadata_updated and g.content_revision == 1
        assert (meta.name, meta.uri) == ("Boundary", "ipfs://meta-v1")
    else:
        assert not p.executed and not p.metadata_updated and g.content_revision == 0
        assert (meta.name, meta.uri) == ("Gov Coin", "ipfs://meta-v0")
    # bonds and votes come back whatever the outcome
    chain.send(crank, coin.bond_ix(crank, "prop", proposal))
    assert coin.tokens("prop") == BOND
    for v, _, amount in votes:
        chain.send(crank, coin.withdraw_ix(crank, v, proposal))
        assert coin.tokens(v) == amount
    assert coin.vault_tokens(proposal) == 0


# ----------------------------------------------------------------- metadata governance (state table)

def test_metadata_governance_flow(chain):
    voters = ["a", "b", "c"]
    coin = Coin(chain, {v: 40_000_000 * T for v in voters})
    a = coin["a"]
    g0 = coin.gov

    # content change applied, contentRevision increments
    p = coin.pass_proposal("a", voters, name="New Name", uri="ipfs://meta-v1", changed_fields=["name", "image"])
    assert (p.outcome, p.executed, p.metadata_updated) == (Outcome.PASSED, True, True)
    assert (p.changed_name, p.changed_image, p.changed_symbol) == (True, True, False)
    meta = chain.metadata(coin.mint)
    assert (meta.name, meta.symbol, meta.uri) == ("New Name", "GOV", "ipfs://meta-v1")
    assert coin.gov.content_revision == 1
    # a proposal authored against revision 0 is stale now
    chain.expect(a, coin.propose_ix("a", base=0, symbol="NEW", changed_fields=["symbol"]), G.StaleContentRevision)

    # extend once ...
    p = coin.pass_proposal("a", voters, kind=ActionKind.EXTEND_MUTABILITY, additional_seconds=10 * DAY)
    assert p.executed and not p.metadata_updated and p.action_additional_seconds == 10 * DAY
    g = coin.gov
    assert g.mutability_extended and g.mutable_until == g0.mutable_until + 10 * DAY
    assert g.content_revision == 1
    # ... then mutability_already_extended
    chain.expect(a, coin.propose_ix("a", ActionKind.EXTEND_MUTABILITY, additional_seconds=1),
                 G.MutabilityAlreadyExtended)

    # lock one field (finalize_metadata with a field subset)
    p = coin.pass_proposal("a", voters, kind=ActionKind.FINALIZE_METADATA, changed_fields=["name"])
    g = coin.gov
    assert p.executed and g.name_locked and not g.symbol_locked and not g.finalized
    chain.expect(a, coin.propose_ix("a", name="Other", changed_fields=["name"]), G.ContentFieldLocked)
    chain.expect(a, coin.propose_ix("a", ActionKind.FINALIZE_METADATA, changed_fields=["name"]),
                 G.NoMetadataChanges)
    # other fields still change
    p = coin.pass_proposal("a", voters, symbol="NEW", changed_fields=["symbol"])
    assert chain.metadata(coin.mint).symbol == "NEW" and coin.gov.content_revision == 2

    # finalize: everything locked, no further proposals
    p = coin.pass_proposal("a", voters, kind=ActionKind.FINALIZE_METADATA)
    g = coin.gov
    assert p.executed and g.finalized and not g.finalized_by_expiry and g.locked_mask == GM.ALL_FIELDS_MASK
    assert g.content_revision == 2 and g.next_proposal_index == 5
    chain.expect(a, coin.propose_ix("a", symbol="X", changed_fields=["symbol"]), G.GovernanceFinalized)
    chain.expect(a, coin.propose_ix("a", ActionKind.EXTEND_MUTABILITY, additional_seconds=1), G.GovernanceFinalized)
    chain.expect(a, I.finalize_expired(a.pubkey(), coin.mint), G.GovernanceFinalized)


def test_mutability_window_and_finalize_expired(chain):
    coin = Coin(chain, {"a": 20_000_000 * T})
    a = coin["a"]
    mutable_until = coin.gov.mutable_until
    chain.warp(mutable_until - chain.now - 100)
    # 600 s would end after the window; 60 s would still fit
    chain.expect(a, coin.propose_ix("a", duration=600, **rename(coin, "N")), G.VoteDurationExceedsWindow)
    chain.warp(70)   # about 30 s left: not even the shortest vote fits
    chain.expect(a, coin.propose_ix("a", duration=60, **rename(coin, "N")), G.ProposalWindowClosing)
    chain.expect(a, coin.propose_ix("a", ActionKind.EXTEND_MUTABILITY, duration=60, additional_seconds=DAY),
                 G.ProposalWindowClosing)
    chain.expect(a, I.finalize_expired(a.pubkey(), coin.mint), G.MetadataStillMutable)
    chain.warp(mutable_until - chain.now + 1)
    # window lapsed
    chain.expect(a, coin.propose_ix("a", **rename(coin, "N")), G.MetadataNotMutable)
    chain.expect(a, coin.propose_ix("a", ActionKind.FINALIZE_METADATA), G.MetadataNotMutable)
    chain.expect(a, coin.propose_ix("a", ActionKind.EXTEND_MUTABILITY, additional_seconds=DAY),
                 G.MutabilityExpired)
    # finalize-expired (permissionless)
    k = chain.fund()
    chain.send(k, I.finalize_expired(k.pubkey(), coin.mint))
    g = coin.gov
    assert g.finalized and g.finalized_by_expiry and g.locked_mask == GM.ALL_FIELDS_MASK
    chain.expect(k, I.finalize_expired(k.pubkey(), coin.mint), G.GovernanceFinalized)
    chain.expect(a, coin.propose_ix("a", **rename(coin, "N")), G.GovernanceFinalized)


def test_passed_proposal_settled_after_the_window_is_not_executed(chain):
    voters = ["a", "b", "c"]
    coin = Coin(chain, {v: 30_000_000 * T for v in voters})
    chain.warp(coin.gov.mutable_until - chain.now - 100)
    proposal = coin.propose("a", duration=60, **rename(coin, "Late"))
    for v in voters:
        coin.vote(v, proposal, YES, coin.tokens(v))
    chain.warp(200)
    chain.send(coin["b"], coin.settle_ix(coin["b"], proposal))
    p = chain.proposal(proposal)
    assert (p.outcome, p.settled, p.executed, p.metadata_updated) == (Outcome.PASSED, True, False, False)
    assert chain.metadata(coin.mint).name == "Gov Coin" and coin.gov.content_revision == 0
    chain.send(coin["b"], coin.bond_ix(coin["b"], "a", proposal))
    chain.send(coin["b"], coin.withdraw_ix(coin["b"], "a", proposal))
    assert coin.tokens("a") == 30_000_000 * T


def test_stale_revision_at_settlement_is_recorded_not_executed(chain):
    """If the revision moved between creation and settlement the outcome is recorded, not executed.
    (Unreachable through instructions while one proposal is active; forced by editing the account.)"""
    voters = ["a", "b", "c"]
    coin = Coin(chain, {v: 30_000_000 * T for v in voters})
    proposal = coin.propose("a", duration=60, **rename(coin, "Stale"))
    for v in voters:
        coin.vote(v, proposal, YES, coin.tokens(v))
    gov_pk = P.governance_pda(coin.mint)[0]
    with chain.h.bank.lock:
        acct = chain.h.bank.get_account(gov_pk)
        g = L.Governance.decode(bytes(acct.data))
        g.content_revision = 7
        chain.h.bank.set_account(gov_pk, acct.lamports, g.encode(), acct.owner)
    chain.warp(61)
    chain.send(coin["b"], coin.settle_ix(coin["b"], proposal))
    p = chain.proposal(proposal)
    assert (p.outcome, p.executed, p.metadata_updated) == (Outcome.PASSED, False, False)
    assert chain.metadata(coin.mint).name == "Gov Coin" and coin.gov.content_revision == 7


# ----------------------------------------------------------------- settings: no bond, admin params

def test_governance_params_and_no_bond():
    h = server.start_chain(port=0, engine="python")  # the Python reference programs (the oracle)
    try:
        ch = Chain(h)
        admin = ch.fund(devstack_programs.ADMIN_KEYPAIR, 10)
        params = GM.GovernanceParams(min_voter_count=1, min_lock_amount=1, min_participating_supply_bps=0,
                                     approval_bps=5000, proposal_bond_bps=0, mutability_window_seconds=DAY,
                                     max_extension_seconds=DAY, min_vote_duration_seconds=10,
                                     max_vote_duration_seconds=3600)
        stranger = ch.fund()
        ch.expect(stranger, I.set_governance_params(stranger.pubkey(), params), E.Unauthorized)
        bad = GM.GovernanceParams(approval_bps=10_001)
        ch.expect(admin, I.set_governance_params(admin.pubkey(), bad), E.InvalidInput)
        ch.send(admin, I.set_governance_params(admin.pubkey(), params))
        assert L.Global.decode(ch.data(P.global_pda()[0])).governance_params() == params

        coin = Coin(ch, {"a": 5 * T, "k": 0})
        g = coin.gov
        assert (g.min_voter_count, g.proposal_bond_bps, g.mutable_until - g.created_at) == (1, 0, DAY)
        # the proposer must still hold the token, even with no bond
        ch.expect(coin["k"], coin.propose_ix("k", duration=10, **rename(coin, "N")), G.MissingProposalTokenAccount)
        proposal = coin.propose("a", duration=10, **rename(coin, "One Voter"))
        p = ch.proposal(proposal)
        assert p.bond_amount == 0 and coin.tokens("a") == 5 * T
        coin.vote("a", proposal, YES, 1)
        ch.warp(11)
        k = coin["k"]
        ch.send(k, coin.settle_ix(k, proposal))
        assert ch.proposal(proposal).outcome == Outcome.PASSED
        assert ch.metadata(coin.mint).name == "One Voter"
        ch.expect(k, coin.bond_ix(k, "a", proposal), G.NoProposalBond)
    finally:
        h.stop()
