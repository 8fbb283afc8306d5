//! buy_exact_out: buy exactly `tokens_out` (capped at the curve's remaining tokens) for at most
//! `max_sol_in` lamports, fee included.

use crate::curve;
use crate::error::Error;
use crate::instructions::buy::fill;
use crate::instructions::trade::{require_out, TradeAccounts, TradeArgs};
use crate::sdk::log::msg;
use crate::sdk::{AccountInfo, ProgramResult, Pubkey};

pub fn process(program_id: &Pubkey, accounts: &[AccountInfo], data: &[u8]) -> ProgramResult {
    msg(b"Instruction: buy_exact_out");
    let args = TradeArgs::unpack(data)?;
    let a = TradeAccounts::unpack(accounts)?;
    let (global, curve) = a.check(program_id)?;
    let q = curve::buy_exact_out(&curve.reserves(), args.amount, global.protocol_fee_bps() as u64)?;
    require_out(q.tokens, 0)?;
    if q.sol > args.bound {
        return Err(Error::SlippageExceeded.into());
    }
    fill(&a, global, curve, &q)
}
