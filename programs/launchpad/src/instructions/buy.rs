//! buy: spend `sol_in` lamports (fee included) on the curve for at least `min_tokens_out`; and
//! the buy both buy and buy_exact_out make once their quote is known.

use crate::checks::token_balance;
use crate::cpi::{create_ata, fee_paid, move_lamports, rent_exempt, system_transfer, transfer_checked, Transfer};
use crate::curve::{self, mul_div_floor, Trade, BPS};
use crate::error::Error;
use crate::instructions::trade::{require_out, TradeAccounts, TradeArgs};
use crate::sdk::log::{log_u64s, msg};
use crate::sdk::{AccountInfo, ProgramResult, Pubkey};
use crate::state::{BondingCurve, Global, ATA_SIZE};

pub fn process(program_id: &Pubkey, accounts: &[AccountInfo], data: &[u8]) -> ProgramResult {
    msg(b"Instruction: buy");
    let args = TradeArgs::unpack(data)?;
    let a = TradeAccounts::unpack(accounts)?;
    let (global, curve) = a.check(program_id)?;
    let q = curve::buy(&curve.reserves(), args.amount, global.protocol_fee_bps() as u64)?;
    require_out(q.tokens, args.bound)?;
    fill(&a, global, curve, &q)
}

/// Fill the quote `q`: the wallet cap, the user's lamports, the user's token account (created
/// when missing), then the moves: one System transfer (the curve's part and the fee), the tokens
/// out of the vault signed by the curve, and the fee out of the curve by lamport arithmetic
/// after the last CPI (the runtime refuses a CPI while the caller's accounts are unbalanced in
/// its view); a fee that would leave the recipient below rent is not charged (`fee_paid`).
/// (`curve`'s reserves are rewritten at the end: only its supply and bump are read here.)
pub fn fill(a: &TradeAccounts, global: &Global, curve: &BondingCurve, q: &Trade) -> ProgramResult {
    let held = token_balance(a.user_token_account, a.mint.key(), a.user.key());
    let cap_bps = global.wallet_cap_bps() as u64;
    if cap_bps < BPS {
        let cap = mul_div_floor(curve.token_total_supply(), cap_bps, BPS)?;
        match held.unwrap_or(0).checked_add(q.tokens) {
            Some(v) if v <= cap => {}
            _ => return Err(Error::BuyLimitExceeded.into()),
        }
    }
    let rent = if held.is_some() { 0 } else { rent_exempt(ATA_SIZE)? };
    let need = q.sol.checked_add(rent).ok_or(Error::MathOverflow)?;
    if a.user.lamports() < need {
        return Err(Error::InsufficientSol.into());
    }
    if held.is_none() {
        create_ata(a.user, a.user_token_account, a.user, a.mint, &a.programs)?;
    }
    let fee = fee_paid(a.fee_recipient, q.fee)?;
    let to_curve = q.sol_curve.checked_add(fee).ok_or(Error::MathOverflow)?;
    system_transfer(a.user, a.bonding_curve, a.programs.system, to_curve)?;
    let bump = [curve.bump];
    transfer_checked(&Transfer {
        src: a.curve_vault,
        mint: a.mint,
        dst: a.user_token_account,
        authority: a.bonding_curve,
        token: a.programs.token,
        amount: q.tokens,
        seeds: &a.curve_seeds(&bump),
    })?;
    move_lamports(a.bonding_curve, a.fee_recipient, fee)?;
    a.save(&q.after)?;
    log_u64s(q.tokens, q.sol_curve + fee, fee, q.sol_curve, q.after.complete as u64);
    Ok(())
}
