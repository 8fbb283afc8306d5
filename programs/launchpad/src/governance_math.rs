//! Governance thresholds, integers only, the same results as the service's
//! `partner.chain.governance_math`: the bond, and a settled proposal's outcome (the 128-bit
//! products are the SDK's, `sdk::wide`).

use crate::curve::{mul_div_floor, BPS};
use crate::error::Error;
use crate::sdk::wide::{add128, cmp128, mul128_64, mul64};
use crate::sdk::ProgramError;

/// Outcome (IDL enum; 0 is Pending)
pub const OUTCOME_PASSED: u8 = 1;
pub const OUTCOME_REJECTED: u8 = 2;
pub const OUTCOME_QUORUM_NOT_MET: u8 = 3;

/// Bond a proposer locks: floor(total_supply * bps / 10000).
pub fn bond_amount(total_supply: u64, bond_bps: u64) -> Result<u64, ProgramError> {
    mul_div_floor(total_supply, bond_bps, BPS)
}

// The proposal slot (docs/programs.md "The proposal slot"): the bond of a proposal is the base bond
// shifted left by the coin's bond level. A failed proposal adds its voting days (rounded up), a passed
// one resets it, and each whole day the slot stands free after a voting end takes one off.
pub const DAY: u64 = 86_400;
pub const BOND_LEVEL_MAX: u8 = 32;

/// Seconds from `a` to `b` (0 when b <= a), unsigned (the BPF backend has no signed division).
fn secs_between(a: i64, b: i64) -> u64 {
    if b > a {
        (b as u64).wrapping_sub(a as u64)
    } else {
        0
    }
}

/// The level a proposal created at `now` faces: `level` less the whole days since `level_at`.
pub fn bond_level_now(level: u8, level_at: i64, now: i64) -> u8 {
    let days = secs_between(level_at, now) / DAY;
    if days >= level as u64 {
        0
    } else {
        level - days as u8
    }
}

/// The level after settling a proposal created at `level` that voted `created_at..ends_at`.
pub fn bond_level_after(level: u8, passed: bool, created_at: i64, ends_at: i64) -> u8 {
    if passed {
        return 0;
    }
    let secs = secs_between(created_at, ends_at);
    let days = secs.div_ceil(DAY);
    let max = BOND_LEVEL_MAX as u64;
    if days >= max {
        return BOND_LEVEL_MAX;
    }
    let l = level as u64 + days;
    if l > max {
        BOND_LEVEL_MAX
    } else {
        l as u8
    }
}

/// The bond a proposal must lock: bond_amount << level; None when it is above the total supply
/// (no holder can cover it).
pub fn required_bond(total_supply: u64, bond_bps: u64, level: u8) -> Result<Option<u64>, ProgramError> {
    let base = bond_amount(total_supply, bond_bps)?;
    if level == 0 || base == 0 {
        return Ok(Some(base));
    }
    if level >= 64 || base >> (64 - level as u32) != 0 {
        return Ok(None);
    }
    let b = base << level;
    Ok(if b > total_supply { None } else { Some(b) })
}

pub struct Tally {
    pub yes: u64,
    pub no: u64,
    pub voters: u32,
    pub total_supply: u64,
}

pub struct Thresholds {
    pub min_voter_count: u32,
    pub min_participating_supply_bps: u64,
    pub approval_bps: u64,
}

/// a >= b for 128-bit values; a product past 128 bits (None) is the larger.
fn ge(a: Option<(u64, u64)>, b: (u64, u64)) -> bool {
    match a {
        Some(a) => cmp128(a, b) != core::cmp::Ordering::Less,
        None => true,
    }
}

/// Settlement outcome: quorum (voters, and participating supply > 0 and
/// participating * 10000 >= total * bps), then approval (yes * 10000 >= (yes + no) * bps).
pub fn outcome(t: &Tally, th: &Thresholds) -> u8 {
    // yes + no < 2^65 and the multipliers are at most 10,000: no product overflows 128 bits
    let participating = add128((0, t.yes), (0, t.no)).unwrap_or((u64::MAX, u64::MAX));
    let supply_ok = participating != (0, 0)
        && ge(mul128_64(participating, BPS), mul64(t.total_supply, th.min_participating_supply_bps));
    if t.voters < th.min_voter_count || !supply_ok {
        return OUTCOME_QUORUM_NOT_MET;
    }
    let approval = mul128_64(participating, th.approval_bps).unwrap_or((u64::MAX, u64::MAX));
    if ge(Some(mul64(t.yes, BPS)), approval) {
        OUTCOME_PASSED
    } else {
        OUTCOME_REJECTED
    }
}

/// governance_math.extension_error: a mutability extension of `additional` seconds, once per
/// coin and at most the governance's cap.
pub fn extension_error(additional: u64, extended: bool, max_extension_seconds: i64) -> Result<(), ProgramError> {
    if extended {
        return Err(Error::MutabilityAlreadyExtended.into());
    }
    if max_extension_seconds < 0 || additional > max_extension_seconds as u64 {
        return Err(Error::MutabilityExtensionExceedsCap.into());
    }
    Ok(())
}

/// The governance's vote-duration bounds and its mutability deadline.
pub struct VoteWindow {
    pub min: i64,
    pub max: i64,
    pub mutable_until: i64,
}

/// governance_math.vote_duration_error: a vote of `duration` seconds from `now`, within the
/// bounds and ending before the metadata's mutability does.
pub fn vote_duration_error(now: i64, duration: u64, w: &VoteWindow) -> Result<(), ProgramError> {
    if duration > i64::MAX as u64 || (duration as i64) < w.min || (duration as i64) > w.max {
        return Err(Error::InvalidVoteDuration.into());
    }
    if now.saturating_add(w.min) >= w.mutable_until {
        return Err(Error::ProposalWindowClosing.into());
    }
    if now.saturating_add(duration as i64) >= w.mutable_until {
        return Err(Error::VoteDurationExceedsWindow.into());
    }
    Ok(())
}
