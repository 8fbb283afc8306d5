//! Global [b"global"]: the program's configuration (one account).

use super::{account, bool_fields, le_fields};
use crate::sdk::Pubkey;

#[repr(C)]
pub struct Global {
    discriminator: [u8; 8],
    pub bump: u8,
    pub admin: Pubkey,
    pub fee_recipient: Pubkey,
    protocol_fee_bps: [u8; 2],
    wallet_cap_bps: [u8; 2],
    pool_open_delay_seconds: [u8; 8],
    initial_virtual_token_reserves: [u8; 8],
    initial_virtual_sol_reserves: [u8; 8],
    initial_real_token_reserves: [u8; 8],
    token_total_supply: [u8; 8],
    governance_defaults_set: u8,
    /// the governance params create_coin copies into each new Governance (while
    /// `governance_defaults_set`; else `GovernanceParams::DEFAULTS`)
    pub governance_defaults: GovernanceParams,
    /// the admin set_params proposed (zero: none), until it signs accept_admin
    pub pending_admin: Pubkey,
    reserved: [u8; 45],
}

account!(Global, global);

impl Global {
    le_fields! {
        protocol_fee_bps, set_protocol_fee_bps: u16;
        wallet_cap_bps, set_wallet_cap_bps: u16;
        pool_open_delay_seconds, set_pool_open_delay_seconds: i64;
        initial_virtual_token_reserves, set_initial_virtual_token_reserves: u64;
        initial_virtual_sol_reserves, set_initial_virtual_sol_reserves: u64;
        initial_real_token_reserves, set_initial_real_token_reserves: u64;
        token_total_supply, set_token_total_supply: u64;
    }
    bool_fields! {
        governance_defaults_set, set_governance_defaults_set;
    }

    /// The governance params a new coin gets.
    #[inline(always)]
    pub fn governance_params(&self) -> &GovernanceParams {
        if self.governance_defaults_set() {
            &self.governance_defaults
        } else {
            &GovernanceParams::DEFAULTS
        }
    }
}

/// GovernanceParams (50 bytes): set_governance_params' argument and Global's copy of it.
#[repr(C)]
pub struct GovernanceParams {
    min_voter_count: [u8; 4],
    min_lock_amount: [u8; 8],
    min_participating_supply_bps: [u8; 2],
    approval_bps: [u8; 2],
    proposal_bond_bps: [u8; 2],
    mutability_window_seconds: [u8; 8],
    max_extension_seconds: [u8; 8],
    min_vote_duration_seconds: [u8; 8],
    max_vote_duration_seconds: [u8; 8],
}

const _: () = assert!(core::mem::size_of::<GovernanceParams>() == GovernanceParams::SIZE);

impl GovernanceParams {
    pub const SIZE: usize = 50;

    /// design section 8 defaults (used while Global.governance_defaults_set is false)
    pub const DEFAULTS: GovernanceParams = GovernanceParams {
        min_voter_count: 3u32.to_le_bytes(),
        min_lock_amount: 1_000_000u64.to_le_bytes(),
        min_participating_supply_bps: 500u16.to_le_bytes(),
        approval_bps: 6_000u16.to_le_bytes(),
        proposal_bond_bps: 100u16.to_le_bytes(),
        mutability_window_seconds: (30 * 86_400i64).to_le_bytes(),
        max_extension_seconds: (90 * 86_400i64).to_le_bytes(),
        min_vote_duration_seconds: 60i64.to_le_bytes(),
        max_vote_duration_seconds: (7 * 86_400i64).to_le_bytes(),
    };

    /// The params in `b` (exactly SIZE bytes, else None).
    #[inline(always)]
    pub fn from_bytes(b: &[u8]) -> Option<&GovernanceParams> {
        if b.len() != Self::SIZE {
            return None;
        }
        Some(unsafe { &*(b.as_ptr() as *const GovernanceParams) })
    }

    le_fields! {
        min_voter_count, set_min_voter_count: u32;
        min_lock_amount, set_min_lock_amount: u64;
        min_participating_supply_bps, set_min_participating_supply_bps: u16;
        approval_bps, set_approval_bps: u16;
        proposal_bond_bps, set_proposal_bond_bps: u16;
        mutability_window_seconds, set_mutability_window_seconds: i64;
        max_extension_seconds, set_max_extension_seconds: i64;
        min_vote_duration_seconds, set_min_vote_duration_seconds: i64;
        max_vote_duration_seconds, set_max_vote_duration_seconds: i64;
    }

    /// A copy (the struct is bytes: no Clone derive, which would not be a plain copy).
    #[inline(always)]
    pub fn copy_from(&mut self, other: &GovernanceParams) {
        self.as_bytes_mut().copy_from_slice(other.as_bytes());
    }

    #[inline(always)]
    pub fn as_bytes(&self) -> &[u8] {
        unsafe { core::slice::from_raw_parts(self as *const Self as *const u8, Self::SIZE) }
    }

    #[inline(always)]
    fn as_bytes_mut(&mut self) -> &mut [u8] {
        unsafe { core::slice::from_raw_parts_mut(self as *mut Self as *mut u8, Self::SIZE) }
    }
}
