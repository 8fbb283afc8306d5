//! Constant-product pool math: the same integers as `partner.chain.pool_math` (base =
//! token units, quote = lamports; the protocol fee on the SOL side rounded up, amounts out
//! rounded down, amounts in rounded up, every value a u64 or MathOverflow).
use super::sdk::wide::{mul_div_ceil, mul_div_floor};

pub const BPS_DENOMINATOR: u64 = 10_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MathError {
    /// a value past u64 (MathOverflow)
    Overflow,
    /// the pool cannot fill this (InsufficientLiquidity)
    Liquidity,
    /// zero amount or fee bps out of range (InvalidInput)
    Invalid,
}

pub struct SwapResult {
    /// paid by the trader (SOL: fee included; tokens: exact)
    pub amount_in: u64,
    /// received by the trader (SOL: net of fee; tokens: exact)
    pub amount_out: u64,
    /// protocol fee, lamports
    pub fee: u64,
    pub base_after: u64,
    pub quote_after: u64,
}

fn check(amount: u64, fee_bps: u16, base: u64, quote: u64) -> Result<(), MathError> {
    if amount == 0 || fee_bps as u64 >= BPS_DENOMINATOR {
        return Err(MathError::Invalid);
    }
    if base == 0 || quote == 0 {
        return Err(MathError::Liquidity);
    }
    Ok(())
}

/// ceil(amount * bps / 10000) (never above amount: fits).
pub fn fee_on(amount: u64, fee_bps: u16) -> Result<u64, MathError> {
    mul_div_ceil(amount, fee_bps as u64, BPS_DENOMINATOR).ok_or(MathError::Overflow)
}

/// gross -> (net, fee) with fee = ceil(gross * bps / (10000 + bps)).
pub fn fee_inclusive_split(gross: u64, fee_bps: u16) -> Result<(u64, u64), MathError> {
    let fee = mul_div_ceil(gross, fee_bps as u64, BPS_DENOMINATOR + fee_bps as u64).ok_or(MathError::Overflow)?;
    Ok((gross - fee, fee))
}

/// Buy base with `quote_in` lamports in total (fee included).
pub fn swap_quote_in(base: u64, quote: u64, quote_in: u64, fee_bps: u16) -> Result<SwapResult, MathError> {
    check(quote_in, fee_bps, base, quote)?;
    let (net, fee) = fee_inclusive_split(quote_in, fee_bps)?;
    let q = quote.checked_add(net).ok_or(MathError::Overflow)?;
    let out = mul_div_floor(base, net, q).ok_or(MathError::Overflow)?;
    Ok(SwapResult { amount_in: quote_in, amount_out: out, fee, base_after: base - out, quote_after: q })
}

/// Buy exactly `base_out` tokens; at least one token stays in the pool.
pub fn swap_base_out(base: u64, quote: u64, base_out: u64, fee_bps: u16) -> Result<SwapResult, MathError> {
    check(base_out, fee_bps, base, quote)?;
    if base_out >= base {
        return Err(MathError::Liquidity);
    }
    let net = mul_div_ceil(quote, base_out, base - base_out).ok_or(MathError::Overflow)?;
    let fee = fee_on(net, fee_bps)?;
    let total = net.checked_add(fee).ok_or(MathError::Overflow)?;
    let q = quote.checked_add(net).ok_or(MathError::Overflow)?;
    Ok(SwapResult { amount_in: total, amount_out: base_out, fee, base_after: base - base_out, quote_after: q })
}

/// Sell `base_in` tokens for SOL; fee = ceil(gross * bps / 10000) out of the gross.
pub fn swap_base_in(base: u64, quote: u64, base_in: u64, fee_bps: u16) -> Result<SwapResult, MathError> {
    check(base_in, fee_bps, base, quote)?;
    let b = base.checked_add(base_in).ok_or(MathError::Overflow)?;
    let gross = mul_div_floor(quote, base_in, b).ok_or(MathError::Overflow)?;
    let fee = fee_on(gross, fee_bps)?;
    Ok(SwapResult { amount_in: base_in, amount_out: gross - fee, fee, base_after: b, quote_after: quote - gross })
}
