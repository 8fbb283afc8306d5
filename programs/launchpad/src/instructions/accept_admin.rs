//! accept_admin: the admin set_params proposed signs and becomes the admin.

use crate::checks::{load_global, require_signer, require_writable};
use crate::error::Error;
use crate::instructions::{no_args, NOT_ENOUGH_ACCOUNTS};
use crate::sdk::log::msg;
use crate::sdk::pubkey::{pk_eq, pk_is_zero};
use crate::sdk::{AccountInfo, ProgramError, ProgramResult, Pubkey};
use crate::state::{Account, Global};

pub struct Accounts<'a> {
    pub new_admin: &'a AccountInfo,
    pub global: &'a AccountInfo,
}

impl<'a> Accounts<'a> {
    #[inline(always)]
    pub fn unpack(accounts: &'a [AccountInfo]) -> Result<Self, ProgramError> {
        let [new_admin, global, ..] = accounts else {
            return Err(NOT_ENOUGH_ACCOUNTS);
        };
        Ok(Accounts { new_admin, global })
    }
}

pub fn process(program_id: &Pubkey, accounts: &[AccountInfo], data: &[u8]) -> ProgramResult {
    msg(b"Instruction: accept_admin");
    no_args(data)?;
    let a = Accounts::unpack(accounts)?;
    require_signer(a.new_admin)?;
    let g = load_global(program_id, a.global)?;
    if pk_is_zero(&g.pending_admin) || !pk_eq(a.new_admin.key(), &g.pending_admin) {
        return Err(Error::Unauthorized.into());
    }
    require_writable(a.global)?;
    let g = Global::view_mut(a.global)?;
    g.admin = *a.new_admin.key();
    g.pending_admin = [0; 32];
    Ok(())
}
