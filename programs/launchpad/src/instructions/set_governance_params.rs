//! set_governance_params: the admin sets the governance params new coins get.

use crate::error::Error;
use crate::instructions::set_params::AdminAccounts;
use crate::instructions::unpack;
use crate::sdk::log::msg;
use crate::sdk::{AccountInfo, ProgramError, ProgramResult, Pubkey};
use crate::state::GovernanceParams;

pub struct Args<'a> {
    pub params: &'a GovernanceParams,
}

impl<'a> Args<'a> {
    #[inline(always)]
    pub fn unpack(data: &'a [u8]) -> Result<Self, ProgramError> {
        unpack(data, |r| {
            let params = GovernanceParams::from_bytes(r.bytes(GovernanceParams::SIZE)?);
            Ok(Args { params: params.ok_or(ProgramError::InvalidInstructionData)? })
        })
    }

    pub fn validate(&self) -> ProgramResult {
        let p = self.params;
        if p.min_participating_supply_bps() > 10_000
            || p.proposal_bond_bps() > 10_000
            || !(1..=10_000).contains(&p.approval_bps())
            || p.mutability_window_seconds() <= 0
            || p.max_extension_seconds() < 0
            || p.min_vote_duration_seconds() < 1
            || p.min_vote_duration_seconds() > p.max_vote_duration_seconds()
        {
            return Err(Error::InvalidInput.into());
        }
        Ok(())
    }
}

pub fn process(program_id: &Pubkey, accounts: &[AccountInfo], data: &[u8]) -> ProgramResult {
    msg(b"Instruction: set_governance_params");
    let args = Args::unpack(data)?;
    let g = AdminAccounts::unpack(accounts)?.check(program_id)?;
    args.validate()?;
    g.set_governance_defaults_set(true);
    g.governance_defaults.copy_from(args.params);
    Ok(())
}
