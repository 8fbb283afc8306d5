//! finalize_expired: once the mutability window has passed, anyone (the payer) finalizes the
//! coin's governance: every field locked and the metadata's update authority removed.

use crate::checks::{require_key, require_signer, require_writable};
use crate::error::Error;
use crate::instructions::governance::{load_governance, MetadataAuthority};
use crate::instructions::{no_args, NOT_ENOUGH_ACCOUNTS};
use crate::sdk::log::msg;
use crate::sdk::pubkey::TOKEN_2022_PROGRAM_ID;
use crate::sdk::{sysvar, AccountInfo, ProgramError, ProgramResult, Pubkey};
use crate::state::{Account, Governance, ALL_FIELDS};

pub struct Accounts<'a> {
    pub payer: &'a AccountInfo,
    pub governance: &'a AccountInfo,
    /// the mint (it holds its own TokenMetadata)
    pub metadata: &'a AccountInfo,
    pub token_program: &'a AccountInfo,
}

impl<'a> Accounts<'a> {
    #[inline(always)]
    pub fn unpack(accounts: &'a [AccountInfo]) -> Result<Self, ProgramError> {
        let [payer, governance, metadata, token_program, ..] = accounts else {
            return Err(NOT_ENOUGH_ACCOUNTS);
        };
        Ok(Accounts { payer, governance, metadata, token_program })
    }
}

pub fn process(program_id: &Pubkey, accounts: &[AccountInfo], data: &[u8]) -> ProgramResult {
    msg(b"Instruction: finalize_expired");
    no_args(data)?;
    let a = Accounts::unpack(accounts)?;
    require_signer(a.payer)?;
    let g = load_governance(program_id, a.governance, None)?;
    if g.finalized() {
        return Err(Error::GovernanceFinalized.into());
    }
    if sysvar::clock()?.unix_timestamp < g.mutable_until() {
        return Err(Error::MetadataStillMutable.into());
    }
    require_key(a.metadata, &g.mint)?;
    require_writable(a.metadata)?;
    require_writable(a.governance)?;
    require_key(a.token_program, &TOKEN_2022_PROGRAM_ID)?;
    Governance::view_mut(a.governance)?.set_finalized_by_expiry(true);
    MetadataAuthority { metadata: a.metadata, governance: a.governance, token: a.token_program }.lock_fields(ALL_FIELDS)
}
