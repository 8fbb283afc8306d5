//! What buy, buy_exact_out and sell share: their accounts, checked as the reference's _Trade,
//! and their arguments (an amount, then a bound).

use crate::checks::{ata_address, load_curve, load_global, require_key, require_programs, require_signer};
use crate::checks::{require_held_by, require_user_token_account, require_writable};
use crate::cpi::Programs;
use crate::curve::Reserves;
use crate::error::Error;
use crate::instructions::{unpack, NOT_ENOUGH_ACCOUNTS};
use crate::sdk::pubkey::{pk_eq, pk_is_zero};
use crate::sdk::{sysvar, AccountInfo, ProgramError, ProgramResult, Pubkey};
use crate::state::{self, Account, BondingCurve, Global};

pub struct TradeAccounts<'a> {
    pub user: &'a AccountInfo,
    pub global: &'a AccountInfo,
    pub fee_recipient: &'a AccountInfo,
    pub mint: &'a AccountInfo,
    pub bonding_curve: &'a AccountInfo,
    pub curve_vault: &'a AccountInfo,
    pub user_token_account: &'a AccountInfo,
    pub programs: Programs<'a>,
}

impl<'a> TradeAccounts<'a> {
    #[inline(always)]
    pub fn unpack(accounts: &'a [AccountInfo]) -> Result<Self, ProgramError> {
        let [user, global, fee_recipient, mint, bonding_curve, curve_vault, user_token_account, system, token, ata, ..] =
            accounts
        else {
            return Err(NOT_ENOUGH_ACCOUNTS);
        };
        Ok(TradeAccounts {
            user,
            global,
            fee_recipient,
            mint,
            bonding_curve,
            curve_vault,
            user_token_account,
            programs: Programs { system, token, ata },
        })
    }

    /// The reference's checks, in its order: the user signs; Global; the fee recipient it names;
    /// the curve of the mint (open, and not in the slot of its creation unless the creator
    /// trades); its vault; the user's token account; the programs.
    pub fn check(&self, program_id: &Pubkey) -> Result<(&'a Global, &'a BondingCurve), ProgramError> {
        require_signer(self.user)?;
        let global = load_global(program_id, self.global)?;
        require_key(self.fee_recipient, &global.fee_recipient)?;
        let curve = load_curve(program_id, self.bonding_curve, self.mint.key())?;
        require_key(self.mint, &curve.mint)?;
        if pk_is_zero(&curve.vault) {
            // a curve from before BondingCurve.vault
            require_key(self.curve_vault, &ata_address(self.bonding_curve.key(), self.mint.key())?)?;
        } else {
            require_key(self.curve_vault, &curve.vault)?;
            // ... and held by this curve (a curve account elsewhere holding this coin's data names a
            // vault that is not its own)
            require_held_by(self.curve_vault, self.bonding_curve.key())?;
        }
        require_user_token_account(self.user_token_account, self.mint.key(), self.user.key())?;
        if curve.complete() || curve.migrated() {
            return Err(Error::CurveComplete.into());
        }
        let clock = sysvar::clock()?;
        if clock.slot <= curve.created_slot() && !pk_eq(self.user.key(), &curve.creator) {
            return Err(Error::SameSlotTradingBlocked.into());
        }
        require_writable(self.bonding_curve)?;
        require_writable(self.fee_recipient)?;
        let p = &self.programs;
        require_programs(p.system, p.token, p.ata)?;
        Ok((global, curve))
    }

    /// Store the reserves after the trade.
    #[inline(always)]
    pub fn save(&self, after: &Reserves) -> ProgramResult {
        BondingCurve::view_mut(self.bonding_curve)?.set_reserves(after);
        Ok(())
    }

    /// The curve PDA's seeds (it signs for its vault).
    #[inline(always)]
    pub fn curve_seeds<'b>(&'b self, bump: &'b [u8; 1]) -> [&'b [u8]; 3] {
        [state::curve::SEED, self.mint.key(), bump]
    }
}

/// A trade's arguments: its amount (not zero, else InvalidInput), then its bound.
pub struct TradeArgs {
    pub amount: u64,
    pub bound: u64,
}

impl TradeArgs {
    #[inline(always)]
    pub fn unpack(data: &[u8]) -> Result<Self, ProgramError> {
        let args = unpack(data, |r| Ok(TradeArgs { amount: r.u64()?, bound: r.u64()? }))?;
        if args.amount == 0 {
            return Err(Error::InvalidInput.into());
        }
        Ok(args)
    }
}

/// A trade must give something (else InvalidInput), and at least its bound.
#[inline(always)]
pub fn require_out(out: u64, min_out: u64) -> ProgramResult {
    if out == 0 {
        return Err(Error::InvalidInput.into());
    }
    if out < min_out {
        return Err(Error::SlippageExceeded.into());
    }
    Ok(())
}
