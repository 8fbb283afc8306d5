//! Bonding-curve math, integers only, the same results as the service's `partner.chain.curve`
//! (docs/onchain.md "Curve math"): amounts out round down, amounts in and fees round up, every
//! amount and reserve must fit a u64 (else MathOverflow). The 128-bit quotients are the SDK's
//! (`sdk::wide`).

use crate::error::Error;
use crate::sdk::wide;
use crate::sdk::ProgramError;

pub const BPS: u64 = 10_000;

/// floor(a * b / d), MathOverflow past u64.
pub fn mul_div_floor(a: u64, b: u64, d: u64) -> Result<u64, ProgramError> {
    Ok(wide::mul_div_floor(a, b, d).ok_or(Error::MathOverflow)?)
}

/// ceil(a * b / d), MathOverflow past u64.
pub fn mul_div_ceil(a: u64, b: u64, d: u64) -> Result<u64, ProgramError> {
    Ok(wide::mul_div_ceil(a, b, d).ok_or(Error::MathOverflow)?)
}

#[inline(always)]
fn add(a: u64, b: u64) -> Result<u64, ProgramError> {
    Ok(a.checked_add(b).ok_or(Error::MathOverflow)?)
}

/// A curve's reserves (BondingCurve's, read by `BondingCurve::reserves`).
#[derive(Clone, Copy)]
pub struct Reserves {
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
    pub after: Reserves,
}

fn check_fee_bps(bps: u64) -> Result<(), ProgramError> {
    if bps >= BPS {
        return Err(Error::InvalidInput.into());
    }
    Ok(())
}

fn require_open(s: &Reserves) -> Result<(), ProgramError> {
    if s.complete || s.real_token_reserves == 0 {
        return Err(Error::CurveComplete.into());
    }
    Ok(())
}

/// A trade's inputs, in this order: a non-zero amount, a fee under 100%, an open curve.
fn check_trade(s: &Reserves, amount: u64, bps: u64) -> Result<(), ProgramError> {
    if amount == 0 {
        return Err(Error::InvalidInput.into());
    }
    check_fee_bps(bps)?;
    require_open(s)
}

/// Fee on a SOL amount, rounded up: ceil(amount * bps / 10000).
pub fn fee_on(amount: u64, bps: u64) -> Result<u64, ProgramError> {
    mul_div_ceil(amount, bps, BPS)
}

fn after_buy(s: &Reserves, tokens: u64, sol_net: u64) -> Result<Reserves, ProgramError> {
    let vs = add(s.virtual_sol_reserves, sol_net)?;
    let rs = add(s.real_sol_reserves, sol_net)?;
    let rt = s.real_token_reserves - tokens;
    Ok(Reserves {
        virtual_token_reserves: s.virtual_token_reserves - tokens,
        virtual_sol_reserves: vs,
        real_token_reserves: rt,
        real_sol_reserves: rs,
        complete: rt == 0,
    })
}

/// Buy exactly `tokens_out` (capped to the remaining real tokens).
pub fn buy_exact_out(s: &Reserves, tokens_out: u64, bps: u64) -> Result<Trade, ProgramError> {
    check_trade(s, tokens_out, bps)?;
    let tokens = if tokens_out > s.real_token_reserves { s.real_token_reserves } else { tokens_out };
    // vT > rT >= tokens always (the virtual part never trades), so the divisor is > 0
    let sol_net = mul_div_ceil(s.virtual_sol_reserves, tokens, s.virtual_token_reserves - tokens)?;
    let fee = fee_on(sol_net, bps)?;
    let total = add(sol_net, fee)?;
    Ok(Trade { tokens, sol: total, fee, sol_curve: sol_net, after: after_buy(s, tokens, sol_net)? })
}

/// Spend `sol_in` lamports in total (fee included); capped at the remaining real tokens.
pub fn buy(s: &Reserves, sol_in: u64, bps: u64) -> Result<Trade, ProgramError> {
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
pub fn sell(s: &Reserves, tokens_in: u64, bps: u64) -> Result<Trade, ProgramError> {
    check_trade(s, tokens_in, bps)?;
    let vt = add(s.virtual_token_reserves, tokens_in)?;
    let rt = add(s.real_token_reserves, tokens_in)?;
    let gross = mul_div_floor(s.virtual_sol_reserves, tokens_in, vt)?;
    if gross > s.real_sol_reserves {
        return Err(Error::InsufficientLiquidity.into());
    }
    let fee = fee_on(gross, bps)?;
    Ok(Trade {
        tokens: tokens_in,
        sol: gross - fee,
        fee,
        sol_curve: gross,
        after: Reserves {
            virtual_token_reserves: vt,
            virtual_sol_reserves: s.virtual_sol_reserves - gross,
            real_token_reserves: rt,
            real_sol_reserves: s.real_sol_reserves - gross,
            complete: s.complete,
        },
    })
}
