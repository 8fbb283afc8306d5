"""Governance accounts, instruction encodings and error table: fixed bytes at the
offsets documented in docs/onchain.md "Governance", round-trips, one spec code per error."""

import pathlib
import re
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from solders.pubkey import Pubkey

from partner.chain import errors as ERR
from partner.chain import governance_math as GM
from partner.chain import instructions as I
from partner.chain import layouts as L
from partner.chain import programs as P
from partner.chain.governance_math import ActionKind, Outcome, VoteSide
from testkit.helpers import catalogue_section
from tests.goldens import (
    CPI_PROGRAMS,
    GLOBAL,
    GOVERNANCE,
    META,
    MINT,
    PROP0,
    TOK,
    USER,
    USER_ATA,
    VAULT0,
    VOTE0,
    A,
    B,
    C,
    metas,
)

# ----------------------------------------------------------------- accounts


def at(offsets: dict[str, int], names: str) -> tuple[int, ...]:
    """The offsets of the space-separated field `names` in a layout's OFFSETS."""
    return tuple(offsets[name] for name in names.split())


def test_documented_offsets():
    g = L.Governance.OFFSETS
    assert at(g, "mint creator total_supply created_at mutable_until") == (8, 40, 72, 80, 88)
    assert at(g, "min_voter_count min_lock_amount min_participating_supply_bps") == (96, 100, 108)
    assert at(g, "approval_bps proposal_bond_bps") == (110, 112)
    assert at(g, "max_extension_seconds min_vote_duration_seconds max_vote_duration_seconds") == (114, 122, 130)
    assert at(g, "finalized finalized_by_expiry content_revision mutability_extended") == (138, 139, 140, 148)
    assert [g[f] for f in L.LOCK_FIELDS] == list(range(149, 156))
    assert at(g, "active_proposal next_proposal_index bump bond_level bond_level_at content_digests reserved") == (
        156,
        189,
        197,
        198,
        199,
        207,
        287,
    )
    p = L.Proposal.OFFSETS
    assert at(p, "governance mint proposer index base_content_revision action_kind") == (8, 40, 72, 104, 112, 120)
    assert at(p, "action_name action_symbol action_uri action_additional_seconds") == (121, 155, 167, 369)
    assert [p[f] for f in L.CHANGED_FIELDS] == list(range(378, 385))
    assert at(
        p,
        "created_at voting_ends_at bond_amount bond_withdrawn yes_votes no_votes participating_supply "
        "participating_voters outcome executed settled metadata_updated settled_at bump vault "
        "proposed_digests reserved",
    ) == (385, 393, 401, 409, 410, 418, 426, 434, 438, 439, 440, 441, 442, 450, 451, 483, 563)
    v = L.VoteReceipt.OFFSETS
    assert at(v, "proposal voter side amount counted_as_voter") == (8, 40, 72, 73, 81)
    assert at(v, "active withdrawn created_at bump reserved") == (82, 83, 84, 92, 93)


def test_governance_golden():
    defaults = {k: v for k, v in vars(GM.DEFAULT_PARAMS).items() if k != "mutability_window_seconds"}
    g = L.Governance(B, A, 10**15, 1_700_000_000, 1_700_000_000 + 30 * 86_400, bump=254, **defaults)
    raw = g.encode()
    assert raw.hex() == (
        "128f580d49d92f31" + "02" * 32 + "01" * 32 + "0080c6a47e8d0300"
        "00f1536500000000"
        "007e7b6500000000"
        "03000000"
        "40420f0000000000"
        "f401"
        "7017"
        "6400"
        "00a7760000000000"
        "3c00000000000000"
        "803a090000000000"
        "00"
        "00"
        "0000000000000000"
        "00" + "00" * 7 + "00" + "00" * 32 + "0000000000000000"
        "fe" + "00" + "00" * 8 + "00" * 80 + "00" * 55  # bump, bond level and its time, digests, reserved
    )
    assert L.Governance.decode(raw) == g
    g.active_proposal, g.next_proposal_index, g.content_revision = C, 5, 2
    g.finalized = True
    g.lock(0b1000001)
    raw = g.encode()
    assert raw[156] == 1 and raw[157:189] == bytes(C) and struct.unpack_from("<Q", raw, 189)[0] == 5
    assert raw[138] == 1 and raw[149] == 1 and raw[150:155] == bytes(5) and raw[155] == 1
    assert struct.unpack_from("<Q", raw, 140)[0] == 2
    assert g.locked_mask == 0b1000001 and L.Governance.decode(raw) == g
    assert isinstance(L.decode_account(raw), L.Governance)


def test_proposal_golden():
    p = L.Proposal(
        C,
        B,
        A,
        7,
        3,
        ActionKind.UPDATE_CONTENT,
        action_name="New",
        action_uri="ipfs://x",
        created_at=100,
        voting_ends_at=700,
        bond_amount=10**13,
        yes_votes=5,
        no_votes=6,
        participating_supply=11,
        participating_voters=2,
        bump=253,
    )
    p.set_changed_mask(GM.field_mask(name=True, image=True, telegram=True))
    raw = p.encode()
    assert len(raw) == 595
    assert raw[:120].hex() == (
        "1a5ebdbb74883521" + "03" * 32 + "02" * 32 + "01" * 32 + "07000000000000000300000000000000"
    )
    assert raw[120] == 0
    assert raw[121:155].hex() == "0103" + "4e6577".ljust(64, "0")  # Some("New")
    assert raw[155:167].hex() == "00" * 12  # None symbol
    assert raw[167:369].hex() == "0108" + "697066733a2f2f78".ljust(400, "0")
    assert raw[369:378].hex() == "00" * 9  # None additional seconds
    assert raw[378:385].hex() == "01000100000001"
    assert raw[385:451].hex() == (
        "6400000000000000"
        "bc02000000000000"
        "00a0724e18090000"
        "00"
        "0500000000000000"
        "0600000000000000"
        "0b00000000000000"
        "02000000"
        "00"
        "00"
        "00"
        "00"
        "0000000000000000"
        "fd"
    )
    d = L.Proposal.decode(raw)
    assert d == p and d.action_kind is ActionKind.UPDATE_CONTENT and d.outcome is Outcome.PENDING
    assert d.changed_mask == 0b1000101 and (d.changed_name, d.changed_image, d.changed_telegram) == (True,) * 3
    e = L.Proposal(C, B, A, 0, 0, ActionKind.EXTEND_MUTABILITY, action_additional_seconds=86_400)
    raw = e.encode()
    assert raw[369:378].hex() == "018051010000000000"
    assert L.Proposal.decode(raw).action_additional_seconds == 86_400
    bad = bytearray(raw)
    bad[120] = 3
    with pytest.raises(L.LayoutError):
        L.Proposal.decode(bytes(bad))
    bad = bytearray(raw)
    bad[438] = 4
    with pytest.raises(L.LayoutError):
        L.Proposal.decode(bytes(bad))
    bad = bytearray(raw)
    bad[440] = 2  # bool
    with pytest.raises(L.LayoutError):
        L.Proposal.decode(bytes(bad))


def test_vote_receipt_golden():
    v = L.VoteReceipt(
        C, A, VoteSide.NO, 1_000_000, counted_as_voter=True, active=True, created_at=1_700_000_000, bump=252
    )
    raw = v.encode()
    assert raw.hex() == (
        "6814ccfc2d5425c3" + "03" * 32 + "01" * 32 + "0140420f000000000001010000f1536500000000fc" + "00" * 32
    )
    assert L.VoteReceipt.decode(raw) == v
    bad = bytearray(raw)
    bad[72] = 2
    with pytest.raises(L.LayoutError):
        L.VoteReceipt.decode(bytes(bad))


def test_fixed_strings_limits_and_wrong_discriminator():
    with pytest.raises(L.LayoutError):
        L.Proposal(C, B, A, 0, 0, 0, action_name="x" * 33).encode()
    with pytest.raises(L.LayoutError):
        L.Proposal(C, B, A, 0, 0, 0, action_symbol="x" * 11).encode()
    L.Proposal(C, B, A, 0, 0, 0, action_uri="u" * 200, action_name="é" * 16).encode()
    raw = L.VoteReceipt(C, A, 0, 1).encode()
    with pytest.raises(L.LayoutError):
        L.Governance.decode(raw + bytes(200))
    with pytest.raises(L.LayoutError):
        L.VoteReceipt.decode(raw[:-1])


def test_global_governance_params():
    g = L.Global(admin=A, fee_recipient=B)
    assert g.governance_params() == GM.DEFAULT_PARAMS  # zero bytes: design section 8 defaults
    custom = GM.GovernanceParams(1, 2, 3, 4, 5, 6, 7, 8, 9)
    g.set_governance_params(custom)
    raw = g.encode()
    assert len(raw) == 245
    assert raw[117:168].hex() == (
        "010100000002000000000000000300040005000600000000000000070000000000000008000000000000000900000000000000"
    )
    assert raw[168:] == bytes(77)
    assert L.Global.decode(raw).governance_params() == custom
    g.set_governance_params(None)
    assert g.encode() == L.Global(admin=A, fee_recipient=B).encode()


keys = st.binary(min_size=32, max_size=32).map(Pubkey)
u64 = st.integers(0, 2**64 - 1)
i64 = st.integers(-(2**63), 2**63 - 1)
opt = st.none() | st.text(max_size=8)


@settings(max_examples=150, deadline=None)
@given(
    keys,
    keys,
    u64,
    i64,
    i64,
    st.integers(0, 2**32 - 1),
    u64,
    st.lists(st.booleans(), min_size=10, max_size=10),
    st.none() | keys,
    u64,
    u64,
)
def test_governance_roundtrip(mint, creator, supply, created, until, voters, lock, flags, active, rev, nxt):
    g = L.Governance(
        mint,
        creator,
        supply,
        created,
        until,
        voters,
        lock,
        finalized=flags[0],
        finalized_by_expiry=flags[1],
        content_revision=rev,
        mutability_extended=flags[2],
        active_proposal=active,
        next_proposal_index=nxt,
    )
    for f, v in zip(L.LOCK_FIELDS, flags[3:], strict=True):
        setattr(g, f, v)
    assert L.Governance.decode(g.encode()) == g


@settings(max_examples=150, deadline=None)
@given(
    keys,
    keys,
    keys,
    u64,
    u64,
    st.sampled_from(list(ActionKind)),
    opt,
    st.none() | st.text(max_size=2),
    opt,
    st.none() | u64,
    st.integers(0, 127),
    u64,
    u64,
    st.integers(0, 2**32 - 1),
    st.sampled_from(list(Outcome)),
    st.lists(st.booleans(), min_size=4, max_size=4),
)
def test_proposal_roundtrip(
    gov, mint, proposer, index, base, kind, name, symbol, uri, extra, mask, yes, no, voters, outcome, flags
):
    p = L.Proposal(
        gov,
        mint,
        proposer,
        index,
        base,
        kind,
        name,
        symbol,
        uri,
        extra,
        yes_votes=yes,
        no_votes=no,
        participating_voters=voters,
        outcome=outcome,
        bond_withdrawn=flags[0],
        executed=flags[1],
        settled=flags[2],
        metadata_updated=flags[3],
    )
    p.set_changed_mask(mask)
    d = L.Proposal.decode(p.encode())
    assert d == p and d.changed_mask == mask


@settings(max_examples=100, deadline=None)
@given(keys, keys, st.sampled_from(list(VoteSide)), u64, st.booleans(), st.booleans(), st.booleans(), i64)
def test_vote_receipt_roundtrip(prop, voter, side, amount, counted, active, withdrawn, ts):
    v = L.VoteReceipt(prop, voter, side, amount, counted, active, withdrawn, ts)
    assert L.VoteReceipt.decode(v.encode()) == v


# ----------------------------------------------------------------- instructions


@pytest.mark.parametrize(
    "name,hexdisc",
    [
        ("create_proposal", "847444aed8a0c616"),
        ("cast_vote", "14d40fbd45b44597"),
        ("cancel_vote", "3828f34bd914492b"),
        ("withdraw_vote", "f3ff46c803f26789"),
        ("settle_proposal", "76e062de9e14cdbe"),
        ("finalize_expired", "15961cb9fcf16d75"),
        ("withdraw_bond", "dec78d1fbc5d9b28"),
        ("set_governance_params", "afbb034908fb43b2"),
    ],
)
def test_discriminators(name, hexdisc):
    assert I.instruction_discriminator(name).hex() == hexdisc
    assert set(I.GOVERNANCE_INSTRUCTION_NAMES) <= set(I.RESERVED_INSTRUCTION_NAMES)


def test_governance_pdas():
    assert str(P.governance_pda(MINT)[0]) == GOVERNANCE
    assert str(P.proposal_pda(GOVERNANCE, 0)[0]) == PROP0
    assert str(I.proposal_vault(Pubkey.from_string(PROP0), MINT)) == VAULT0
    assert str(P.vote_pda(PROP0, USER)[0]) == VOTE0


def test_create_proposal_update_content():
    ix = I.propose_update_content(
        USER,
        MINT,
        0,
        I.ContentChange(changed_fields=["name", "image"], name="New", uri="ipfs://x"),
        base_content_revision=2,
        vote_duration_seconds=600,
    )
    assert ix.program_id == P.LAUNCHPAD_PROGRAM_ID
    assert bytes(ix.data).hex() == (
        "847444aed8a0c616000200000000000000580200000000000001030000004e6577000108000000697066733a2f2f780005"
        + "00" * 80  # no content digests given: zero
    )
    assert metas(ix) == [
        (str(USER), True, True),
        (str(MINT), False, False),
        (GOVERNANCE, False, True),
        (META, False, False),
        (PROP0, False, True),
        (VAULT0, False, True),
        (USER_ATA, False, True),
        *CPI_PROGRAMS,
    ]
    assert ix == I.create_proposal(
        USER,
        MINT,
        0,
        I.ProposalTerms(
            0, base_content_revision=2, content=I.ContentChange(changed_fields=0b101, name="New", uri="ipfs://x")
        ),
    )
    with pytest.raises(ValueError):
        I.propose_update_content(
            USER, MINT, 0, I.ContentChange(changed_fields=["name"], name="x" * 33), base_content_revision=0
        )
    with pytest.raises(ValueError):
        I.create_proposal(
            USER, MINT, 0, I.ProposalTerms(0, base_content_revision=0, content=I.ContentChange(changed_fields=["logo"]))
        )
    with pytest.raises(ValueError):
        I.create_proposal(
            USER, MINT, 0, I.ProposalTerms(0, base_content_revision=0, content=I.ContentChange(changed_fields=128))
        )
    with pytest.raises(ValueError):
        I.create_proposal(USER, MINT, 0, I.ProposalTerms(5, base_content_revision=0))


def test_create_proposal_other_kinds():
    ix = I.propose_extend_mutability(USER, MINT, 1, 86_400, base_content_revision=0, vote_duration_seconds=60)
    assert bytes(ix.data).hex() == (
        "847444aed8a0c6160100000000000000003c0000000000000000000001805101000000000000" + "00" * 80
    )
    assert metas(ix)[4] == (str(P.proposal_pda(GOVERNANCE, 1)[0]), False, True)
    ix = I.propose_finalize_metadata(USER, MINT, 0, base_content_revision=1)
    assert bytes(ix.data).hex() == ("847444aed8a0c61602010000000000000058020000000000000000000000" + "00" * 80)
    ix = I.propose_finalize_metadata(USER, MINT, 0, base_content_revision=1, lock_fields=["name", "symbol"])
    assert bytes(ix.data)[-81] == 0b11  # the mask, then the (zero) content digests


# a cranker (C, paying) acting for USER's vote or bond on MINT's governance: the accounts they start with
CRANKER_FOR_USER = [
    (str(C), True, True),
    (str(USER), False, False),
    (str(MINT), False, False),
    (GOVERNANCE, False, False),
]


def test_vote_instructions():
    prop = Pubkey.from_string(PROP0)
    ix = I.cast_vote(USER, MINT, prop, "no", 1_000_000)
    assert bytes(ix.data).hex() == "14d40fbd45b445970140420f0000000000"
    assert I.cast_vote(USER, MINT, prop, VoteSide.YES, 1).data[8] == 0
    voter = [(str(USER), True, True), (str(MINT), False, False), (GOVERNANCE, False, False), (PROP0, False, True)]
    voter += [(VAULT0, False, True), (VOTE0, False, True), (USER_ATA, False, True)]
    assert metas(ix) == [*voter, *CPI_PROGRAMS[:2]]  # System and Token-2022
    with pytest.raises(ValueError):
        I.cast_vote(USER, MINT, prop, 2, 1)
    with pytest.raises(ValueError):
        I.cast_vote(USER, MINT, prop, "yes", 2**64)
    ix = I.cancel_vote(USER, MINT, prop)
    assert bytes(ix.data).hex() == "3828f34bd914492b"
    assert metas(ix) == [*voter, *CPI_PROGRAMS]
    ix = I.withdraw_vote(C, USER, MINT, prop)
    assert bytes(ix.data).hex() == "f3ff46c803f26789"
    withdrawn = [(PROP0, False, False), (VAULT0, False, True), (VOTE0, False, True), (USER_ATA, False, True)]
    assert metas(ix) == [*CRANKER_FOR_USER, *withdrawn, *CPI_PROGRAMS]


def test_settlement_instructions():
    prop = Pubkey.from_string(PROP0)
    ix = I.settle_proposal(C, MINT, prop)
    assert bytes(ix.data).hex() == "76e062de9e14cdbe"
    assert metas(ix) == [
        (str(C), True, False),
        (GOVERNANCE, False, True),
        (PROP0, False, True),
        (META, False, True),
        (TOK, False, False),
    ]
    ix = I.finalize_expired(C, MINT)
    assert bytes(ix.data).hex() == "15961cb9fcf16d75"
    assert metas(ix) == [(str(C), True, False), (GOVERNANCE, False, True), (META, False, True), (TOK, False, False)]
    ix = I.withdraw_bond(C, USER, MINT, prop)
    assert bytes(ix.data).hex() == "dec78d1fbc5d9b28"
    bond = [(PROP0, False, True), (VAULT0, False, True), (USER_ATA, False, True)]
    assert metas(ix) == [*CRANKER_FOR_USER, *bond, *CPI_PROGRAMS]
    ix = I.set_governance_params(USER, GM.DEFAULT_PARAMS)
    assert bytes(ix.data).hex() == (
        "afbb034908fb43b2"
        "03000000"
        "40420f0000000000"
        "f401"
        "7017"
        "6400"
        "008d270000000000"
        "00a7760000000000"
        "3c00000000000000"
        "803a090000000000"
    )
    assert metas(ix) == [(str(USER), True, False), (GLOBAL, False, True)]


# ----------------------------------------------------------------- errors

# the catalogue's governance section, in order
GOVERNANCE_SPEC_CODES = catalogue_section("governance_not_found", "vote_duration_exceeds_window")
SPEC_FILE = pathlib.Path("/work/shared/spec/partner-api.md")


def test_governance_errors_numbered_and_one_to_one():
    codes = [int(c) for c in ERR.GovernanceErrorCode]
    assert codes == list(range(6100, 6100 + len(codes)))
    assert set(ERR.GOVERNANCE_ERRORS) == set(codes)
    spec = [ERR.spec_code_for_program_error(c) for c in codes]
    assert spec == GOVERNANCE_SPEC_CODES  # one spec code per error, each once, in numbering order
    assert not set(ERR.GOVERNANCE_ERRORS) & set(ERR.PROGRAM_ERRORS)
    for name, code in ERR.GOVERNANCE_CODE_FOR_SPEC.items():
        assert ERR.spec_code_for_program_error(code) == name
    f = ERR.spec_code_for_transaction_error
    assert f({"InstructionError": [2, {"Custom": 6101}]}) == "already_voted"
    assert (
        f(
            {"InstructionError": [2, {"Custom": 6129}]},
            [P.COMPUTE_BUDGET_PROGRAM_ID, P.SYSTEM_PROGRAM_ID, P.LAUNCHPAD_PROGRAM_ID],
        )
        == "vote_duration_exceeds_window"
    )
    assert f({"InstructionError": [0, {"Custom": 6130}]}) == "tx_failed"
    assert ERR.error_message(6104) == "the vote was cancelled"


@pytest.mark.skipif(not SPEC_FILE.exists(), reason="spec not available")
def test_governance_codes_are_the_spec_governance_table():
    text = SPEC_FILE.read_text()
    section = text.split("### Governance\n", 1)[1].split("\n### ", 1)[0]
    table = re.findall(r"^\|\s*\d{3}\s*\|\s*`([a-z_]+)`", section, re.M)
    assert sorted(table) == sorted(GOVERNANCE_SPEC_CODES)
