//! Curve and governance math, integers only, the same results as the service's
//! `partner.chain.curve` and `partner.chain.governance_math` (docs/onchain.md
//! "Curve math"): amounts out round down, amounts in and fees round up, every
//! amount and reserve must fit a u64 (else MathOverflow).
//!
//! LLVM's BPF backend has no 128-bit libcalls (`__multi3`, `__udivti3`): the quotients
//! use the SDK's `wide` math; the governance comparisons a 64x64->128 product.

use crate::error::{Error, Res};

pub const BPS: u64 = 10_000;

/// An unsigned 128-bit value as two u64 halves.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct U128 {
    pub hi: u64,
    pub lo: u64,
}

impl U128 {
    pub const fn from(v: u64) -> U128 {
        U128 { hi: 0, lo: v }
    }

    /// self + v (the callers' values stay far below 2^128).
    pub fn add64(self, v: u64) -> U128 {
        let (lo, carry) = self.lo.overflowing_add(v);
        U128 { hi: self.hi + carry as u64, lo }
    }

    pub fn ge(self, o: U128) -> bool {
        self.hi > o.hi || (self.hi == o.hi && self.lo >= o.lo)
    }
}

/// a * b, exact.
pub fn mul(a: u64, b: u64) -> U128 {
    let (a0, a1) = (a & 0xffff_ffff, a >> 32);
    let (b0, b1) = (b & 0xffff_ffff, b >> 32);
    // 32x32 products cannot overflow (wrapping_mul: no overflow check, which would need __multi3)
    let p00 = a0.wrapping_mul(b0);
    let p01 = a0.wrapping_mul(b1);
    let p10 = a1.wrapping_mul(b0);
    let p11 = a1.wrapping_mul(b1);
    let mid = (p00 >> 32) + (p01 & 0xffff_ffff) + (p10 & 0xffff_ffff);
    U128 {
        hi: p11.wrapping_add(p01 >> 32).wrapping_add(p10 >> 32).wrapping_add(mid >> 32),
        lo: (p00 & 0xffff_ffff) | (mid << 32),
    }
}

/// x * m for a small multiplier (m < 2^32) and x < 2^96: exact.
pub fn mul_small(x: U128, m: u64) -> U128 {
    let lo = mul(x.lo, m);
    U128 { hi: x.hi.wrapping_mul(m).wrapping_add(lo.hi), lo: lo.lo }
}

/// floor(a * b / d), MathOverflow past u64 (the SDK's wide math).
pub fn mul_div_floor(a: u64, b: u64, d: u64) -> Res<u64> {
    crate::sdk::wide::mul_div_floor(a, b, d).ok_or(Error::MathOverflow)
}

/// ceil(a * b / d), MathOverflow past u64 (the SDK's wide math).
pub fn mul_div_ceil(a: u64, b: u64, d: u64) -> Res<u64> {
    crate::sdk::wide::mul_div_ceil(a, b, d).ok_or(Error::MathOverflow)
}

fn add(a: u64, b: u64) -> Res<u64> {
    a.checked_add(b).ok_or(Error::MathOverflow)
}

// ----------------------------------------------------------------- bonding curve

#[derive(Clone, Copy)]
pub struct Curve {
    pub virtual_token_reserves: u64,
    pub virtual_sol_reserves: u64,
    pub real_token_reserves: u64,
    pub real_sol_reserves: u64,
    pub complete: bool,
}

#[derive(Clone, Copy)]
pub struct Trade {
    /// buy: tokens to the buyer; sell: tokens in
    pub tokens: u64,
    /// buy: lamports charged in total (fee included); sell: net lamports to the seller
    pub sol: u64,
    pub fee: u64,
    /// buy: lamports to the curve; sell: lamports leaving the curve (net + fee)
    pub sol_curve: u64,
    pub after: Curve,
}

fn check_fee_bps(bps: u64) -> Res<()> {
    if bps >= BPS {
        return Err(Error::InvalidInput);
    }
    Ok(())
}

fn require_open(s: &Curve) -> Res<()> {
    if s.complete || s.real_token_reserves == 0 {
        return Err(Error::CurveComplete);
    }
    Ok(())
}

/// A trade's inputs, in this order: a non-zero amount, a fee under 100%, an open curve.
fn check_trade(s: &Curve, amount: u64, bps: u64) -> Res<()> {
    if amount == 0 {
        return Err(Error::InvalidInput);
    }
    check_fee_bps(bps)?;
    require_open(s)
}

/// Fee on a SOL amount, rounded up: ceil(amount * bps / 10000).
pub fn fee_on(amount: u64, bps: u64) -> Res<u64> {
    mul_div_ceil(amount, bps, BPS)
}

fn after_buy(s: &Curve, tokens: u64, sol_net: u64) -> Res<Curve> {
    let vs = add(s.virtual_sol_reserves, sol_net)?;
    let rs = add(s.real_sol_reserves, sol_net)?;
    let rt = s.real_token_reserves - tokens;
    Ok(Curve {
        virtual_token_reserves: s.virtual_token_reserves - tokens,
        virtual_sol_reserves: vs,
        real_token_reserves: rt,
        real_sol_reserves: rs,
        complete: rt == 0,
    })
}

/// Buy exactly `tokens_out` (capped to the remaining real tokens).
pub fn buy_exact_out(s: &Curve, tokens_out: u64, bps: u64) -> Res<Trade> {
    check_trade(s, tokens_out, bps)?;
    let tokens = if tokens_out > s.real_token_reserves { s.real_token_reserves } else { tokens_out };
    // vT > rT >= tokens always (the virtual part never trades), so the divisor is > 0
    let sol_net = mul_div_ceil(s.virtual_sol_reserves, tokens, s.virtual_token_reserves - tokens)?;
    let fee = fee_on(sol_net, bps)?;
    let total = add(sol_net, fee)?;
    Ok(Trade { tokens, sol: total, fee, sol_curve: sol_net, after: after_buy(s, tokens, sol_net)? })
}

/// Spend `sol_in` lamports in total (fee included); capped at the remaining real tokens.
pub fn buy(s: &Curve, sol_in: u64, bps: u64) -> Res<Trade> {
    check_trade(s, sol_in, bps)?;
    let fee = mul_div_ceil(sol_in, bps, BPS + bps)?;
    let sol_net = sol_in - fee;
    let vs = add(s.virtual_sol_reserves, sol_net)?;
    add(s.real_sol_reserves, sol_net)?;
    let tokens = mul_div_floor(s.virtual_token_reserves, sol_net, vs)?;
    if tokens > s.real_token_reserves {
        return buy_exact_out(s, s.real_token_reserves, bps);
    }
    Ok(Trade { tokens, sol: sol_in, fee, sol_curve: sol_net, after: after_buy(s, tokens, sol_net)? })
}

/// Sell `tokens_in`: gross = floor(vS * t / (vT + t)); fee = ceil(gross * bps / 10000).
pub fn sell(s: &Curve, tokens_in: u64, bps: u64) -> Res<Trade> {
    check_trade(s, tokens_in, bps)?;
    let vt = add(s.virtual_token_reserves, tokens_in)?;
    let rt = add(s.real_token_reserves, tokens_in)?;
    let gross = mul_div_floor(s.virtual_sol_reserves, tokens_in, vt)?;
    if gross > s.real_sol_reserves {
        return Err(Error::InsufficientLiquidity);
    }
    let fee = fee_on(gross, bps)?;
    Ok(Trade {
        tokens: tokens_in,
        sol: gross - fee,
        fee,
        sol_curve: gross,
        after: Curve {
            virtual_token_reserves: vt,
            virtual_sol_reserves: s.virtual_sol_reserves - gross,
            real_token_reserves: rt,
            real_sol_reserves: s.real_sol_reserves - gross,
            complete: s.complete,
        },
    })
}

// ----------------------------------------------------------------- governance

pub const OUTCOME_PASSED: u8 = 1;
pub const OUTCOME_REJECTED: u8 = 2;
pub const OUTCOME_QUORUM_NOT_MET: u8 = 3;

/// Bond a proposer locks: floor(total_supply * bps / 10000).
pub fn bond_amount(total_supply: u64, bond_bps: u64) -> Res<u64> {
    mul_div_floor(total_supply, bond_bps, BPS)
}

// The proposal slot (docs/onchain.md "The proposal slot"): the bond of a proposal is the base bond
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
pub fn required_bond(total_supply: u64, bond_bps: u64, level: u8) -> Res<Option<u64>> {
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

/// Settlement outcome: quorum (voters, and participating supply > 0 and
/// participating * 10000 >= total * bps), then approval (yes * 10000 >= (yes + no) * bps).
pub fn outcome(t: &Tally, th: &Thresholds) -> u8 {
    let participating = U128::from(t.yes).add64(t.no);
    let supply_ok = (participating.hi | participating.lo) != 0
        && mul_small(participating, BPS).ge(mul(t.total_supply, th.min_participating_supply_bps));
    if t.voters < th.min_voter_count || !supply_ok {
        return OUTCOME_QUORUM_NOT_MET;
    }
    if mul(t.yes, BPS).ge(mul_small(participating, th.approval_bps)) {
        OUTCOME_PASSED
    } else {
        OUTCOME_REJECTED
    }
}
