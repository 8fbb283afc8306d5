"""Governance math: settlement outcome and thresholds at their exact boundaries
(exactly at a threshold passes, one base unit below fails), bond amount, vote
duration / window rules."""

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from partner.chain import governance_math as GM
from partner.chain.governance_math import Outcome

SUPPLY = 10**15
u64 = st.integers(0, 2**64 - 1)
supplies = st.integers(1, 2**64 - 1)
bps = st.integers(0, 10_000)
approval = st.integers(1, 9_999)


def out(yes, no, voters, supply=SUPPLY, min_voters=3, min_bps=500, approval_bps=6000):
    return GM.outcome(
        yes_votes=yes,
        no_votes=no,
        participating_voters=voters,
        total_supply=supply,
        params=GM.GovernanceParams(
            min_voter_count=min_voters, min_participating_supply_bps=min_bps, approval_bps=approval_bps
        ),
    )


def test_defaults_are_design_section_8():
    p = GM.DEFAULT_PARAMS
    assert (
        p.min_voter_count,
        p.min_lock_amount,
        p.min_participating_supply_bps,
        p.approval_bps,
        p.proposal_bond_bps,
    ) == (3, 1_000_000, 500, 6000, 100)
    assert (p.mutability_window_seconds, p.max_extension_seconds) == (30 * 86_400, 90 * 86_400)
    assert (p.min_vote_duration_seconds, p.max_vote_duration_seconds, GM.DEFAULT_VOTE_DURATION_SECONDS) == (
        60,
        7 * 86_400,
        600,
    )
    assert p.problems() == []
    assert GM.GovernanceParams(approval_bps=0).problems() and GM.GovernanceParams(proposal_bond_bps=10_001).problems()
    assert GM.GovernanceParams(min_vote_duration_seconds=10, max_vote_duration_seconds=5).problems()


def test_default_boundaries_exactly():
    q = 50_000_000 * 10**6  # 5% of supply
    assert GM.min_participating_supply(SUPPLY, 500) == q
    assert out(30_000_000 * 10**6, 20_000_000 * 10**6, 3) == Outcome.PASSED  # all exactly at threshold
    assert out(30_000_000 * 10**6, 20_000_000 * 10**6 - 1, 3) == Outcome.QUORUM_NOT_MET  # supply - 1
    assert out(30_000_000 * 10**6 - 1, 20_000_000 * 10**6 + 1, 3) == Outcome.REJECTED  # approval - 1
    assert out(30_000_000 * 10**6, 20_000_000 * 10**6, 2) == Outcome.QUORUM_NOT_MET  # voters - 1
    assert out(0, 0, 0, min_voters=0, min_bps=0) == Outcome.QUORUM_NOT_MET  # nobody voted: never passes
    assert GM.bond_amount(SUPPLY, 100) == 10_000_000 * 10**6
    assert GM.counted_as_voter(1_000_000, 1_000_000) and not GM.counted_as_voter(999_999, 1_000_000)


@settings(max_examples=500, deadline=None)
@given(supplies, bps)
def test_supply_quorum_boundary(supply, min_bps):
    m = GM.min_participating_supply(supply, min_bps)
    assert GM.supply_quorum_met(m, supply, min_bps)
    if m > 1:
        assert not GM.supply_quorum_met(m - 1, supply, min_bps)
    assert not GM.supply_quorum_met(0, supply, min_bps)


@settings(max_examples=500, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1))
def test_voter_quorum_boundary(min_voters, voters):
    assert GM.voter_quorum_met(min_voters, min_voters)
    if min_voters:
        assert not GM.voter_quorum_met(min_voters - 1, min_voters)
    assert GM.voter_quorum_met(voters, min_voters) == (voters >= min_voters)


@settings(max_examples=1000, deadline=None)
@given(u64, approval)
def test_approval_boundary(no, approval_bps):
    yes = GM.min_yes_votes(no, approval_bps)
    assert GM.approval_met(yes, no, approval_bps)  # exactly at the threshold passes
    if yes:
        assert not GM.approval_met(yes - 1, no, approval_bps)  # one base unit below fails
        # the same total, one unit moved from yes to no, also fails
        assert not GM.approval_met(yes - 1, no + 1, approval_bps)


@settings(max_examples=1000, deadline=None)
@given(st.integers(1, 2**62), approval)
def test_approval_exact_share(total, approval_bps):
    """With yes + no fixed, the passing yes weights are exactly those with yes * 10000 >= total * bps."""
    threshold = -(-total * approval_bps // 10_000)
    assert GM.approval_met(threshold, total - threshold, approval_bps)
    if threshold:
        assert not GM.approval_met(threshold - 1, total - threshold + 1, approval_bps)


def test_approval_unanimity_and_full_bps():
    assert GM.approval_met(5, 0, 10_000) and not GM.approval_met(5, 1, 10_000)
    assert GM.min_yes_votes(0, 10_000) == 0 and GM.min_yes_votes(1, 10_000) == -1


@settings(max_examples=500, deadline=None)
@given(u64, u64, st.integers(0, 100), supplies, st.integers(0, 100), bps, approval)
def test_outcome_is_quorum_then_approval(yes, no, voters, supply, min_voters, min_bps, approval_bps):
    o = out(yes, no, voters, supply, min_voters, min_bps, approval_bps)
    q = GM.quorum_met(voters, yes + no, supply, min_voters, min_bps)
    if not q:
        assert o == Outcome.QUORUM_NOT_MET
    else:
        assert o == (Outcome.PASSED if yes * 10_000 >= (yes + no) * approval_bps else Outcome.REJECTED)
    assert o != Outcome.PENDING


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 2**63), bps, st.integers(0, 2**40), approval)
def test_outcome_boundaries_property(supply, min_bps, extra_no, approval_bps):
    """Build votes sitting exactly on every threshold: passes; one base unit less anywhere: fails."""
    need = GM.min_participating_supply(supply, min_bps)
    no = extra_no
    yes = max(GM.min_yes_votes(no, approval_bps), need - no, 1)
    assume(yes + no <= 2**64 - 1)
    assert out(yes, no, 3, supply, 3, min_bps, approval_bps) == Outcome.PASSED
    assert out(yes, no, 2, supply, 3, min_bps, approval_bps) == Outcome.QUORUM_NOT_MET
    if yes == GM.min_yes_votes(no, approval_bps) and yes > 0:
        assert out(yes - 1, no, 3, supply, 3, min_bps, approval_bps) != Outcome.PASSED
    if yes + no == need and need > 1:
        # one unit less participation (taken from yes keeps approval only if still enough)
        assert out(yes - 1, no, 3, supply, 3, min_bps, approval_bps) != Outcome.PASSED


@settings(max_examples=500, deadline=None)
@given(u64, bps)
def test_bond_amount(supply, bond_bps):
    b = GM.bond_amount(supply, bond_bps)
    assert b * 10_000 <= supply * bond_bps < (b + 1) * 10_000
    assert 0 <= b <= supply


@pytest.mark.parametrize(
    "now,duration,until,expected",
    [
        (0, 60, 61, None),
        (0, 600, 601, None),
        (0, 59, 10_000, "invalid_vote_duration"),
        (0, 7 * 86_400 + 1, 10**9, "invalid_vote_duration"),
        (0, 7 * 86_400, 7 * 86_400 + 1, None),
        (0, 600, 600, "vote_duration_exceeds_window"),  # must end strictly before mutable_until
        (0, 600, 100, "vote_duration_exceeds_window"),  # 60 s would still fit
        (0, 600, 50, "proposal_window_closing"),
        (0, 60, 60, "proposal_window_closing"),
        (100, 60, 161, None),
    ],
)
def test_vote_duration_error(now, duration, until, expected):
    assert GM.vote_duration_error(now, duration, until) == expected


@settings(max_examples=500, deadline=None)
@given(st.integers(0, 2**40), st.integers(0, 10**7), st.integers(0, 10**7))
def test_vote_duration_window_boundary(now, duration, remaining):
    until = now + remaining
    err = GM.vote_duration_error(now, duration, until)
    if not 60 <= duration <= 7 * 86_400:
        assert err == "invalid_vote_duration"
    elif remaining <= 60:
        assert err == "proposal_window_closing"
    elif duration >= remaining:
        assert err == "vote_duration_exceeds_window"
    else:
        assert err is None and now + duration < until


def test_extension_and_field_masks():
    cap = 90 * 86_400
    assert GM.extension_error(cap, False, cap) is None
    assert GM.extension_error(cap + 1, False, cap) == "mutability_extension_exceeds_cap"
    assert GM.extension_error(1, True, cap) == "mutability_already_extended"
    assert GM.field_mask(name=True, telegram=True) == 0b1000001
    assert GM.mask_fields(0b1000001) == ("name", "telegram")
    assert GM.mask_fields(GM.ALL_FIELDS_MASK) == GM.CONTENT_FIELDS
    with pytest.raises(ValueError):
        GM.field_mask(logo=True)
    assert [k.api_name for k in GM.ActionKind] == ["update_content", "extend_mutability", "finalize_metadata"]
    assert [o.api_name for o in GM.Outcome] == ["pending", "passed", "rejected", "quorum_not_met"]
    assert [s.api_name for s in GM.VoteSide] == ["yes", "no"]


def test_the_proposal_slot_bond_level():
    day = GM.DAY
    # decay: one level per whole day since the last voting end, never below 0, none before it
    assert [GM.bond_level_now(3, 1_000, 1_000 + t) for t in (-day, 0, day - 1, day, 2 * day, 5 * day)] == [
        3,
        3,
        3,
        2,
        1,
        0,
    ]
    # settle: passed resets; failed adds the voting days rounded up, at most 32
    assert GM.bond_level_after(5, True, 0, 7 * day) == 0
    assert [GM.bond_level_after(0, False, 0, d) for d in (60, day, day + 1, 7 * day)] == [1, 1, 2, 7]
    assert GM.bond_level_after(30, False, 0, 7 * day) == GM.BOND_LEVEL_MAX == 32
    # the bond: base << level (above the supply at 100 bps from level 7)
    supply = 10**15
    assert [GM.required_bond(supply, 100, lv) for lv in (0, 1, 6, 7)] == [10**13, 2 * 10**13, 64 * 10**13, 128 * 10**13]
    assert GM.required_bond(supply, 100, 7) > supply and GM.required_bond(supply, 0, 32) == 0
