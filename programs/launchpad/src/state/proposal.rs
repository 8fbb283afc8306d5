//! Proposal [b"proposal", governance, index u64 LE]: one metadata-governance proposal.

use super::{account, bool_fields, le_fields, Digests, FieldFlags};
use crate::sdk::Pubkey;

/// ActionKind (IDL enum)
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum ActionKind {
    UpdateContent = 0,
    ExtendMutability = 1,
    FinalizeMetadata = 2,
}

impl ActionKind {
    pub const COUNT: u8 = 3;

    #[inline(always)]
    pub fn from_u8(v: u8) -> ActionKind {
        match v {
            0 => ActionKind::UpdateContent,
            1 => ActionKind::ExtendMutability,
            _ => ActionKind::FinalizeMetadata,
        }
    }
}

/// OptionalFixedString<N> (IDL OptionalFixedString32 / 10 / 200): is_some, len, bytes.
#[repr(C)]
pub struct OptionalFixedString<const N: usize> {
    is_some: u8,
    len: u8,
    data: [u8; N],
}

impl<const N: usize> OptionalFixedString<N> {
    #[inline(always)]
    pub fn get(&self) -> Option<&[u8]> {
        if self.is_some == 0 {
            return None;
        }
        Some(&self.data[..(self.len as usize).min(N)])
    }

    /// Store `v` (at most N bytes: checked by the caller); None leaves the field empty.
    #[inline(always)]
    pub fn set(&mut self, v: Option<&str>) {
        if let Some(s) = v {
            self.is_some = 1;
            self.len = s.len() as u8;
            self.data[..s.len()].copy_from_slice(s.as_bytes());
        }
    }
}

/// OptionalU64: is_some, value.
#[repr(C)]
pub struct OptionalU64 {
    is_some: u8,
    value: [u8; 8],
}

impl OptionalU64 {
    /// The value (0 when absent, as the stored bytes are).
    #[inline(always)]
    pub fn value(&self) -> u64 {
        u64::from_le_bytes(self.value)
    }

    #[inline(always)]
    pub fn set(&mut self, v: Option<u64>) {
        if let Some(v) = v {
            self.is_some = 1;
            self.value = v.to_le_bytes();
        }
    }
}

#[repr(C)]
pub struct Proposal {
    discriminator: [u8; 8],
    pub governance: Pubkey,
    pub mint: Pubkey,
    pub proposer: Pubkey,
    index: [u8; 8],
    base_content_revision: [u8; 8],
    action_kind: u8,
    pub action_name: OptionalFixedString<32>,
    pub action_symbol: OptionalFixedString<10>,
    pub action_uri: OptionalFixedString<200>,
    pub action_additional_seconds: OptionalU64,
    /// name .. telegram changed
    pub changed: FieldFlags,
    created_at: [u8; 8],
    voting_ends_at: [u8; 8],
    bond_amount: [u8; 8],
    bond_withdrawn: u8,
    yes_votes: [u8; 8],
    no_votes: [u8; 8],
    participating_supply: [u8; 8],
    participating_voters: [u8; 4],
    pub outcome: u8,
    executed: u8,
    settled: u8,
    metadata_updated: u8,
    settled_at: [u8; 8],
    pub bump: u8,
    /// the proposal's vault (its ATA), stored by create_proposal; zero on older proposals
    pub vault: Pubkey,
    /// update_content: the uri-borne fields' digests after the change, image .. telegram
    pub digests: Digests,
    reserved: [u8; 32],
}

account!(Proposal, prop);

impl Proposal {
    le_fields! {
        base_content_revision, set_base_content_revision: u64;
        created_at, set_created_at: i64;
        voting_ends_at, set_voting_ends_at: i64;
        bond_amount, set_bond_amount: u64;
        yes_votes, set_yes_votes: u64;
        no_votes, set_no_votes: u64;
        participating_supply, set_participating_supply: u64;
        participating_voters, set_participating_voters: u32;
        settled_at, set_settled_at: i64;
    }
    bool_fields! {
        bond_withdrawn, set_bond_withdrawn;
        executed, set_executed;
        settled, set_settled;
        metadata_updated, set_metadata_updated;
    }

    #[inline(always)]
    pub fn index(&self) -> u64 {
        u64::from_le_bytes(self.index)
    }

    /// The index as its PDA seed (u64 LE).
    #[inline(always)]
    pub fn index_seed(&self) -> &[u8; 8] {
        &self.index
    }

    #[inline(always)]
    pub fn set_index(&mut self, v: u64) {
        self.index = v.to_le_bytes();
    }

    #[inline(always)]
    pub fn action_kind(&self) -> ActionKind {
        ActionKind::from_u8(self.action_kind)
    }

    #[inline(always)]
    pub fn set_action_kind(&mut self, k: ActionKind) {
        self.action_kind = k as u8;
    }
}
