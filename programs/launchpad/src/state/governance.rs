//! Governance [b"governance", mint]: one coin's metadata governance.

use super::{account, bool_fields, le_fields, Digests, FieldFlags, GovernanceParams};
use crate::sdk::Pubkey;

#[repr(C)]
pub struct Governance {
    discriminator: [u8; 8],
    pub mint: Pubkey,
    pub creator: Pubkey,
    total_supply: [u8; 8],
    created_at: [u8; 8],
    mutable_until: [u8; 8],
    min_voter_count: [u8; 4],
    min_lock_amount: [u8; 8],
    min_participating_supply_bps: [u8; 2],
    approval_bps: [u8; 2],
    proposal_bond_bps: [u8; 2],
    max_extension_seconds: [u8; 8],
    min_vote_duration_seconds: [u8; 8],
    max_vote_duration_seconds: [u8; 8],
    finalized: u8,
    finalized_by_expiry: u8,
    content_revision: [u8; 8],
    mutability_extended: u8,
    /// name .. telegram locked
    pub locked: FieldFlags,
    active_proposal_set: u8,
    active_proposal: Pubkey,
    next_proposal_index: [u8; 8],
    pub bump: u8,
    /// the proposal bond's level and the voting end of the last settled proposal
    pub bond_level: u8,
    bond_level_at: [u8; 8],
    /// the uri-borne fields' digests, image .. telegram
    pub digests: Digests,
    reserved: [u8; 55],
}

account!(Governance, gov);

impl Governance {
    le_fields! {
        total_supply, set_total_supply: u64;
        created_at, set_created_at: i64;
        mutable_until, set_mutable_until: i64;
        min_voter_count, set_min_voter_count: u32;
        min_lock_amount, set_min_lock_amount: u64;
        min_participating_supply_bps, set_min_participating_supply_bps: u16;
        approval_bps, set_approval_bps: u16;
        proposal_bond_bps, set_proposal_bond_bps: u16;
        max_extension_seconds, set_max_extension_seconds: i64;
        min_vote_duration_seconds, set_min_vote_duration_seconds: i64;
        max_vote_duration_seconds, set_max_vote_duration_seconds: i64;
        content_revision, set_content_revision: u64;
        next_proposal_index, set_next_proposal_index: u64;
        bond_level_at, set_bond_level_at: i64;
    }
    bool_fields! {
        finalized, set_finalized;
        finalized_by_expiry, set_finalized_by_expiry;
        mutability_extended, set_mutability_extended;
    }

    /// The params a coin's governance keeps (all but the mutability window, which sets
    /// `mutable_until`).
    #[inline(always)]
    pub fn set_rules(&mut self, p: &GovernanceParams) {
        self.set_min_voter_count(p.min_voter_count());
        self.set_min_lock_amount(p.min_lock_amount());
        self.set_min_participating_supply_bps(p.min_participating_supply_bps());
        self.set_approval_bps(p.approval_bps());
        self.set_proposal_bond_bps(p.proposal_bond_bps());
        self.set_max_extension_seconds(p.max_extension_seconds());
        self.set_min_vote_duration_seconds(p.min_vote_duration_seconds());
        self.set_max_vote_duration_seconds(p.max_vote_duration_seconds());
    }

    /// The open proposal, if any.
    #[inline(always)]
    pub fn active_proposal(&self) -> Option<&Pubkey> {
        if self.active_proposal_set != 0 {
            Some(&self.active_proposal)
        } else {
            None
        }
    }

    #[inline(always)]
    pub fn set_active_proposal(&mut self, p: Option<&Pubkey>) {
        match p {
            Some(k) => {
                self.active_proposal_set = 1;
                self.active_proposal = *k;
            }
            None => {
                self.active_proposal_set = 0;
                self.active_proposal = [0; 32];
            }
        }
    }
}
