//! cast_vote: a holder locks `amount` tokens in the proposal's vault for `side` (its receipt
//! created on the first vote; a receipt cancel_vote left is voted again).

use crate::checks::{
    find_pda, require_key, require_signer, require_user_token_account, require_writable, token_balance,
};
use crate::cpi::{create_account, rent_exempt, transfer_checked, NewAccount, Transfer};
use crate::error::Error;
use crate::instructions::governance::{
    load_governance, load_proposal, require_vault, stored_receipt, tally, voting_closed,
};
use crate::instructions::{unpack, NOT_ENOUGH_ACCOUNTS};
use crate::sdk::log::msg;
use crate::sdk::pubkey::{SYSTEM_PROGRAM_ID, TOKEN_2022_PROGRAM_ID};
use crate::sdk::{sysvar, AccountInfo, ProgramError, ProgramResult, Pubkey};
use crate::state::{self, Account, Proposal, VoteReceipt};

pub struct Accounts<'a> {
    pub voter: &'a AccountInfo,
    pub mint: &'a AccountInfo,
    pub governance: &'a AccountInfo,
    pub proposal: &'a AccountInfo,
    pub proposal_vault: &'a AccountInfo,
    pub vote_receipt: &'a AccountInfo,
    pub voter_token_account: &'a AccountInfo,
    pub system_program: &'a AccountInfo,
    pub token_program: &'a AccountInfo,
}

impl<'a> Accounts<'a> {
    #[inline(always)]
    pub fn unpack(accounts: &'a [AccountInfo]) -> Result<Self, ProgramError> {
        let [voter, mint, governance, proposal, proposal_vault, vote_receipt, voter_token_account, system_program, token_program, ..] =
            accounts
        else {
            return Err(NOT_ENOUGH_ACCOUNTS);
        };
        Ok(Accounts {
            voter,
            mint,
            governance,
            proposal,
            proposal_vault,
            vote_receipt,
            voter_token_account,
            system_program,
            token_program,
        })
    }
}

pub struct Args {
    /// VoteSide: 0 yes, 1 no
    pub side: u8,
    pub amount: u64,
}

impl Args {
    #[inline(always)]
    pub fn unpack(data: &[u8]) -> Result<Self, ProgramError> {
        unpack(data, |r| Ok(Args { side: r.variant(2)?, amount: r.u64()? }))
    }
}

pub fn process(program_id: &Pubkey, accounts: &[AccountInfo], data: &[u8]) -> ProgramResult {
    msg(b"Instruction: cast_vote");
    let args = Args::unpack(data)?;
    let a = Accounts::unpack(accounts)?;
    let (voter, mint, prop, rec, voter_ata) = (a.voter, a.mint, a.proposal, a.vote_receipt, a.voter_token_account);
    if args.amount == 0 {
        return Err(Error::InvalidVoteAmount.into());
    }
    require_signer(voter)?;
    let g = load_governance(program_id, a.governance, Some(mint.key()))?;
    let p = load_proposal(program_id, prop, a.governance)?;
    require_vault(a.proposal_vault, p, prop, mint.key())?;
    require_user_token_account(voter_ata, mint.key(), voter.key())?;
    // a receipt of ours by its stored bump; a new one by the search that gives its bump
    let rec_bump = match stored_receipt(program_id, rec, prop.key(), voter.key())? {
        Some(b) => b,
        None => {
            let (rec_key, b) = find_pda(&[state::receipt::SEED, prop.key(), voter.key()], program_id)?;
            require_key(rec, &rec_key)?;
            b
        }
    };
    let clock = sysvar::clock()?;
    if voting_closed(p, clock.unix_timestamp) {
        return Err(Error::ProposalClosed.into());
    }
    let exists = rec.data_len() != 0;
    if exists {
        if !VoteReceipt::is(rec, program_id) || VoteReceipt::view(rec)?.bump != rec_bump {
            return Err(Error::InvalidAccount.into());
        }
        if VoteReceipt::view(rec)?.active() {
            return Err(Error::AlreadyVoted.into());
        }
    }
    let held = match token_balance(voter_ata, mint.key(), voter.key()) {
        Some(v) if v > 0 => v,
        _ => return Err(Error::MissingVoteTokenAccount.into()),
    };
    if args.amount > held {
        return Err(Error::InvalidVoteAmount.into());
    }
    require_writable(prop)?;
    require_key(a.system_program, &SYSTEM_PROGRAM_ID)?;
    require_key(a.token_program, &TOKEN_2022_PROGRAM_ID)?;
    if !exists {
        if voter.lamports() < rent_exempt(state::receipt::SIZE)?.saturating_sub(rec.lamports()) {
            return Err(Error::InsufficientSol.into());
        }
        let b = [rec_bump];
        create_account(&NewAccount {
            payer: voter,
            new: rec,
            system: a.system_program,
            space: state::receipt::SIZE,
            lamports: rent_exempt(state::receipt::SIZE)?,
            owner: program_id,
            seeds: &[state::receipt::SEED, prop.key(), voter.key(), &b],
        })?;
    }
    require_writable(rec)?;
    transfer_checked(&Transfer {
        src: voter_ata,
        mint,
        dst: a.proposal_vault,
        authority: voter,
        token: a.token_program,
        amount: args.amount,
        seeds: &[],
    })?;
    let min_lock = g.min_lock_amount();
    rec.data_mut()[..state::receipt::SIZE].fill(0);
    let r = VoteReceipt::init(rec)?;
    r.proposal = *prop.key();
    r.voter = *voter.key();
    r.side = args.side;
    r.set_amount(args.amount);
    r.set_counted_as_voter(args.amount >= min_lock);
    r.set_active(true);
    r.set_created_at(clock.unix_timestamp);
    r.bump = rec_bump;
    tally(Proposal::view_mut(prop)?, r, true)
}
