//! withdraw_bond: after settlement, anyone (the payer) returns the proposer's bond to it.

use crate::checks::{require_key, require_programs, require_writable};
use crate::cpi::Programs;
use crate::error::Error;
use crate::instructions::governance::Escrow;
use crate::instructions::{no_args, NOT_ENOUGH_ACCOUNTS};
use crate::sdk::log::msg;
use crate::sdk::{AccountInfo, ProgramError, ProgramResult, Pubkey};
use crate::state::{Account, Proposal};

pub struct Accounts<'a> {
    /// the payer signs
    pub escrow: Escrow<'a>,
    pub proposer: &'a AccountInfo,
    pub proposer_token_account: &'a AccountInfo,
    pub programs: Programs<'a>,
}

impl<'a> Accounts<'a> {
    #[inline(always)]
    pub fn unpack(accounts: &'a [AccountInfo]) -> Result<Self, ProgramError> {
        let [payer, proposer, mint, governance, proposal, vault, proposer_token_account, system, token, ata, ..] =
            accounts
        else {
            return Err(NOT_ENOUGH_ACCOUNTS);
        };
        Ok(Accounts {
            escrow: Escrow { signer: payer, mint, governance, proposal, vault },
            proposer,
            proposer_token_account,
            programs: Programs { system, token, ata },
        })
    }
}

pub fn process(program_id: &Pubkey, accounts: &[AccountInfo], data: &[u8]) -> ProgramResult {
    msg(b"Instruction: withdraw_bond");
    no_args(data)?;
    let a = Accounts::unpack(accounts)?;
    let e = &a.escrow;
    let p = e.load(program_id)?;
    require_key(a.proposer, &p.proposer)?;
    let bond = p.bond_amount();
    if bond == 0 {
        return Err(Error::NoProposalBond.into());
    }
    if p.bond_withdrawn() {
        return Err(Error::ProposalBondAlreadyWithdrawn.into());
    }
    if !p.settled() {
        return Err(Error::ProposalNotSettled.into());
    }
    require_writable(e.proposal)?;
    let pr = &a.programs;
    require_programs(pr.system, pr.token, pr.ata)?;
    e.pay_out(a.proposer, a.proposer_token_account, bond, pr)?;
    Proposal::view_mut(e.proposal)?.set_bond_withdrawn(true);
    Ok(())
}
