//! BondingCurve [b"bonding-curve", mint]: one coin's curve.

use super::{account, bool_fields, le_fields};
use crate::curve::Reserves;
use crate::sdk::Pubkey;

#[repr(C)]
pub struct BondingCurve {
    discriminator: [u8; 8],
    pub mint: Pubkey,
    pub creator: Pubkey,
    virtual_token_reserves: [u8; 8],
    virtual_sol_reserves: [u8; 8],
    real_token_reserves: [u8; 8],
    real_sol_reserves: [u8; 8],
    token_total_supply: [u8; 8],
    complete: u8,
    migrated: u8,
    pub bump: u8,
    created_slot: [u8; 8],
    created_at: [u8; 8],
    /// the curve's vault (its ATA), stored by create_coin; zero on older curves
    pub vault: Pubkey,
    reserved: [u8; 32],
}

account!(BondingCurve, curve);

impl BondingCurve {
    le_fields! {
        virtual_token_reserves, set_virtual_token_reserves: u64;
        virtual_sol_reserves, set_virtual_sol_reserves: u64;
        real_token_reserves, set_real_token_reserves: u64;
        real_sol_reserves, set_real_sol_reserves: u64;
        token_total_supply, set_token_total_supply: u64;
        created_slot, set_created_slot: u64;
        created_at, set_created_at: i64;
    }
    bool_fields! {
        complete, set_complete;
        migrated, set_migrated;
    }

    /// The reserves the curve math trades on.
    #[inline(always)]
    pub fn reserves(&self) -> Reserves {
        Reserves {
            virtual_token_reserves: self.virtual_token_reserves(),
            virtual_sol_reserves: self.virtual_sol_reserves(),
            real_token_reserves: self.real_token_reserves(),
            real_sol_reserves: self.real_sol_reserves(),
            complete: self.complete(),
        }
    }

    #[inline(always)]
    pub fn set_reserves(&mut self, r: &Reserves) {
        self.set_virtual_token_reserves(r.virtual_token_reserves);
        self.set_virtual_sol_reserves(r.virtual_sol_reserves);
        self.set_real_token_reserves(r.real_token_reserves);
        self.set_real_sol_reserves(r.real_sol_reserves);
        self.set_complete(r.complete);
    }
}
