//! withdraw_vote: after settlement, anyone (the payer) returns a voter's locked tokens to it.

use crate::checks::{require_programs, require_writable};
use crate::cpi::Programs;
use crate::error::Error;
use crate::instructions::governance::{load_receipt, Escrow};
use crate::instructions::{no_args, NOT_ENOUGH_ACCOUNTS};
use crate::sdk::log::msg;
use crate::sdk::{AccountInfo, ProgramError, ProgramResult, Pubkey};
use crate::state::{Account, VoteReceipt};

pub struct Accounts<'a> {
    /// the payer signs
    pub escrow: Escrow<'a>,
    pub voter: &'a AccountInfo,
    pub vote_receipt: &'a AccountInfo,
    pub voter_token_account: &'a AccountInfo,
    pub programs: Programs<'a>,
}

impl<'a> Accounts<'a> {
    #[inline(always)]
    pub fn unpack(accounts: &'a [AccountInfo]) -> Result<Self, ProgramError> {
        let [payer, voter, mint, governance, proposal, vault, vote_receipt, voter_token_account, system, token, ata, ..] =
            accounts
        else {
            return Err(NOT_ENOUGH_ACCOUNTS);
        };
        Ok(Accounts {
            escrow: Escrow { signer: payer, mint, governance, proposal, vault },
            voter,
            vote_receipt,
            voter_token_account,
            programs: Programs { system, token, ata },
        })
    }
}

pub fn process(program_id: &Pubkey, accounts: &[AccountInfo], data: &[u8]) -> ProgramResult {
    msg(b"Instruction: withdraw_vote");
    no_args(data)?;
    let a = Accounts::unpack(accounts)?;
    let (e, rec) = (&a.escrow, a.vote_receipt);
    let p = e.load(program_id)?;
    let r = load_receipt(program_id, rec, e.proposal.key(), a.voter.key())?;
    if !r.active() {
        return Err(Error::VoteNotActive.into());
    }
    if r.withdrawn() {
        return Err(Error::VoteAlreadyWithdrawn.into());
    }
    if !p.settled() {
        return Err(Error::ProposalNotSettled.into());
    }
    require_writable(rec)?;
    let pr = &a.programs;
    require_programs(pr.system, pr.token, pr.ata)?;
    e.pay_out(a.voter, a.voter_token_account, r.amount(), pr)?;
    VoteReceipt::view_mut(rec)?.set_withdrawn(true);
    Ok(())
}
