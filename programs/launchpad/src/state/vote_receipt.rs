//! VoteReceipt [b"vote", proposal, voter]: one voter's locked vote on one proposal.

use super::{account, bool_fields, le_fields};
use crate::sdk::Pubkey;

#[repr(C)]
pub struct VoteReceipt {
    discriminator: [u8; 8],
    pub proposal: Pubkey,
    pub voter: Pubkey,
    /// VoteSide: 0 yes, 1 no
    pub side: u8,
    amount: [u8; 8],
    counted_as_voter: u8,
    active: u8,
    withdrawn: u8,
    created_at: [u8; 8],
    pub bump: u8,
    reserved: [u8; 32],
}

account!(VoteReceipt, receipt);

impl VoteReceipt {
    pub const YES: u8 = 0;

    le_fields! {
        amount, set_amount: u64;
        created_at, set_created_at: i64;
    }
    bool_fields! {
        counted_as_voter, set_counted_as_voter;
        active, set_active;
        withdrawn, set_withdrawn;
    }
}
