//! cancel_vote: while the vote is open, the voter takes its tokens back and its vote out of the
//! tally.

use crate::checks::{require_programs, require_writable};
use crate::cpi::Programs;
use crate::error::Error;
use crate::instructions::governance::{load_receipt, tally, voting_closed, Escrow};
use crate::instructions::{no_args, NOT_ENOUGH_ACCOUNTS};
use crate::sdk::log::msg;
use crate::sdk::{sysvar, AccountInfo, ProgramError, ProgramResult, Pubkey};
use crate::state::{Account, Proposal, VoteReceipt};

pub struct Accounts<'a> {
    /// the voter signs
    pub escrow: Escrow<'a>,
    pub vote_receipt: &'a AccountInfo,
    pub voter_token_account: &'a AccountInfo,
    pub programs: Programs<'a>,
}

impl<'a> Accounts<'a> {
    #[inline(always)]
    pub fn unpack(accounts: &'a [AccountInfo]) -> Result<Self, ProgramError> {
        let [voter, mint, governance, proposal, vault, vote_receipt, voter_token_account, system, token, ata, ..] =
            accounts
        else {
            return Err(NOT_ENOUGH_ACCOUNTS);
        };
        Ok(Accounts {
            escrow: Escrow { signer: voter, mint, governance, proposal, vault },
            vote_receipt,
            voter_token_account,
            programs: Programs { system, token, ata },
        })
    }
}

pub fn process(program_id: &Pubkey, accounts: &[AccountInfo], data: &[u8]) -> ProgramResult {
    msg(b"Instruction: cancel_vote");
    no_args(data)?;
    let a = Accounts::unpack(accounts)?;
    let (e, rec) = (&a.escrow, a.vote_receipt);
    let p = e.load(program_id)?;
    let r = load_receipt(program_id, rec, e.proposal.key(), e.signer.key())?;
    if !r.active() {
        return Err(Error::VoteNotActive.into());
    }
    if voting_closed(p, sysvar::clock()?.unix_timestamp) {
        return Err(Error::ProposalClosed.into());
    }
    require_writable(e.proposal)?;
    require_writable(rec)?;
    let pr = &a.programs;
    require_programs(pr.system, pr.token, pr.ata)?;
    e.pay_out(e.signer, a.voter_token_account, r.amount(), pr)?;
    tally(Proposal::view_mut(e.proposal)?, r, false)?;
    VoteReceipt::view_mut(rec)?.set_active(false);
    Ok(())
}
