//! sell: sell `tokens_in` to the curve for at least `min_sol_out` lamports, net of the fee.

use crate::checks::token_balance;
use crate::cpi::{fee_paid, move_lamports, transfer_checked, Transfer};
use crate::curve;
use crate::error::Error;
use crate::instructions::trade::{require_out, TradeAccounts, TradeArgs};
use crate::sdk::log::{log_u64s, msg};
use crate::sdk::{AccountInfo, ProgramResult, Pubkey};

pub fn process(program_id: &Pubkey, accounts: &[AccountInfo], data: &[u8]) -> ProgramResult {
    msg(b"Instruction: sell");
    let args = TradeArgs::unpack(data)?;
    let (tokens_in, min_sol_out) = (args.amount, args.bound);
    let a = TradeAccounts::unpack(accounts)?;
    let (global, curve) = a.check(program_id)?;
    let Some(held) = token_balance(a.user_token_account, a.mint.key(), a.user.key()) else {
        return Err(Error::MissingSellTokenAccount.into());
    };
    if held < tokens_in {
        return Err(Error::InsufficientTokens.into());
    }
    let q = curve::sell(&curve.reserves(), tokens_in, global.protocol_fee_bps() as u64)?;
    require_out(q.sol, min_sol_out)?;
    transfer_checked(&Transfer {
        src: a.user_token_account,
        mint: a.mint,
        dst: a.curve_vault,
        authority: a.user,
        token: a.programs.token,
        amount: tokens_in,
        seeds: &[],
    })?;
    let fee = fee_paid(a.fee_recipient, q.fee)?;
    move_lamports(a.bonding_curve, a.user, q.sol_curve - fee)?;
    move_lamports(a.bonding_curve, a.fee_recipient, fee)?;
    a.save(&q.after)?;
    log_u64s(q.tokens, q.sol_curve - fee, fee, q.sol_curve, 0);
    Ok(())
}
