//! set_params: the admin changes the fee recipient, fee, wallet cap and pool open delay, and
//! proposes a new admin (who takes over by accept_admin).

use crate::checks::{load_global, require_signer, require_writable};
use crate::error::Error;
use crate::instructions::{unpack, NOT_ENOUGH_ACCOUNTS};
use crate::sdk::borsh::Reader;
use crate::sdk::log::msg;
use crate::sdk::pubkey::pk_eq;
use crate::sdk::{AccountInfo, ProgramError, ProgramResult, Pubkey};
use crate::state::{Account, Global};

pub const MAX_FEE_BPS: u16 = 1000;

/// Accounts of the admin's instructions (set_params, set_governance_params).
pub struct AdminAccounts<'a> {
    pub admin: &'a AccountInfo,
    pub global: &'a AccountInfo,
}

impl<'a> AdminAccounts<'a> {
    #[inline(always)]
    pub fn unpack(accounts: &'a [AccountInfo]) -> Result<Self, ProgramError> {
        let [admin, global, ..] = accounts else {
            return Err(NOT_ENOUGH_ACCOUNTS);
        };
        Ok(AdminAccounts { admin, global })
    }

    /// The signer is the admin; Global writable. Returns Global, writable.
    #[allow(clippy::mut_from_ref)]
    pub fn check(&self, program_id: &Pubkey) -> Result<&'a mut Global, ProgramError> {
        require_signer(self.admin)?;
        let g = load_global(program_id, self.global)?;
        if !pk_eq(self.admin.key(), &g.admin) {
            return Err(Error::Unauthorized.into());
        }
        require_writable(self.global)?;
        Global::view_mut(self.global)
    }
}

/// The settings `initialize_global` and `set_params` both take, in their arguments' order.
pub struct GlobalParams<'a> {
    pub fee_recipient: &'a Pubkey,
    pub protocol_fee_bps: u16,
    pub wallet_cap_bps: u16,
    pub pool_open_delay_seconds: i64,
}

impl<'a> GlobalParams<'a> {
    #[inline(always)]
    pub fn read(r: &mut Reader<'a>) -> Result<Self, ProgramError> {
        Ok(GlobalParams {
            fee_recipient: r.pubkey()?,
            protocol_fee_bps: r.u16()?,
            wallet_cap_bps: r.u16()?,
            pool_open_delay_seconds: r.i64()?,
        })
    }

    pub fn validate(&self) -> ProgramResult {
        if self.protocol_fee_bps > MAX_FEE_BPS {
            return Err(Error::InvalidFeeBps.into());
        }
        if self.wallet_cap_bps < 1 || self.wallet_cap_bps > 10_000 || self.pool_open_delay_seconds < 0 {
            return Err(Error::InvalidInput.into());
        }
        Ok(())
    }

    pub fn write(&self, g: &mut Global) {
        g.fee_recipient = *self.fee_recipient;
        g.set_protocol_fee_bps(self.protocol_fee_bps);
        g.set_wallet_cap_bps(self.wallet_cap_bps);
        g.set_pool_open_delay_seconds(self.pool_open_delay_seconds);
    }
}

pub struct Args<'a> {
    pub new_admin: &'a Pubkey,
    pub params: GlobalParams<'a>,
}

impl<'a> Args<'a> {
    #[inline(always)]
    pub fn unpack(data: &'a [u8]) -> Result<Self, ProgramError> {
        unpack(data, |r| Ok(Args { new_admin: r.pubkey()?, params: GlobalParams::read(r)? }))
    }
}

pub fn process(program_id: &Pubkey, accounts: &[AccountInfo], data: &[u8]) -> ProgramResult {
    msg(b"Instruction: set_params");
    let args = Args::unpack(data)?;
    let g = AdminAccounts::unpack(accounts)?.check(program_id)?;
    args.params.validate()?;
    // a new admin is only proposed: it takes over when it signs accept_admin (two steps, so a
    // mistyped key cannot take the admin away); naming the admin itself withdraws a proposal
    g.pending_admin = if pk_eq(args.new_admin, &g.admin) { [0; 32] } else { *args.new_admin };
    args.params.write(g);
    Ok(())
}
