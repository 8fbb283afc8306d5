//! The launchpad program (idl/launchpad.json): coin creation on a Token-2022 mint with its own
//! TokenMetadata, the bonding curve, migration into the pool program, and metadata governance.
//! The same accounts, arguments, errors and state as the Python reference it replaced
//! (devstack/chain/programs/ in the git history; docs/onchain.md).
//!
//! `process_instruction` dispatches on the 8-byte discriminator to `instructions/<name>.rs`;
//! the accounts' views are in `state/`, the curve and governance math in `curve.rs` and
//! `governance_math.rs`, the shared account checks and CPIs in `checks.rs` and `cpi.rs`.
#![no_std]

#[path = "../../sdk/src/lib.rs"]
#[macro_use]
#[allow(dead_code)]
mod sdk;

pub mod checks;
pub mod cpi;
pub mod curve;
pub mod error;
pub mod governance_math;
pub mod instructions;
pub mod metadata;
pub mod state;

use sdk::{AccountInfo, ProgramResult, Pubkey};

const fn disc(b: [u8; 8]) -> u64 {
    u64::from_le_bytes(b)
}

// instruction discriminators (idl/launchpad.json)
const IX_INITIALIZE_GLOBAL: u64 = disc([47, 225, 15, 112, 86, 51, 190, 231]);
const IX_SET_PARAMS: u64 = disc([27, 234, 178, 52, 147, 2, 187, 141]);
const IX_SET_GOVERNANCE_PARAMS: u64 = disc([175, 187, 3, 73, 8, 251, 67, 178]);
const IX_ACCEPT_ADMIN: u64 = disc([112, 42, 45, 90, 116, 181, 13, 170]);
const IX_CREATE_COIN: u64 = disc([208, 85, 34, 37, 235, 182, 111, 78]);
const IX_BUY: u64 = disc([102, 6, 61, 18, 1, 218, 235, 234]);
const IX_BUY_EXACT_OUT: u64 = disc([24, 211, 116, 40, 105, 3, 153, 56]);
const IX_SELL: u64 = disc([51, 230, 133, 164, 1, 127, 131, 173]);
const IX_MIGRATE: u64 = disc([155, 234, 231, 146, 236, 158, 162, 30]);
const IX_CREATE_PROPOSAL: u64 = disc([132, 116, 68, 174, 216, 160, 198, 22]);
const IX_CAST_VOTE: u64 = disc([20, 212, 15, 189, 69, 180, 69, 151]);
const IX_CANCEL_VOTE: u64 = disc([56, 40, 243, 75, 217, 20, 73, 43]);
const IX_WITHDRAW_VOTE: u64 = disc([243, 255, 70, 200, 3, 242, 103, 137]);
const IX_SETTLE_PROPOSAL: u64 = disc([118, 224, 98, 222, 158, 20, 205, 190]);
const IX_FINALIZE_EXPIRED: u64 = disc([21, 150, 28, 185, 252, 241, 109, 117]);
const IX_WITHDRAW_BOND: u64 = disc([222, 199, 141, 31, 188, 93, 155, 40]);

entrypoint!(process_instruction);

pub fn process_instruction(program_id: &Pubkey, accounts: &[AccountInfo], data: &[u8]) -> ProgramResult {
    use instructions::*;
    let [d0, d1, d2, d3, d4, d5, d6, d7, args @ ..] = data else {
        return Err(error::Error::InvalidInput.into());
    };
    match u64::from_le_bytes([*d0, *d1, *d2, *d3, *d4, *d5, *d6, *d7]) {
        IX_INITIALIZE_GLOBAL => initialize_global::process(program_id, accounts, args),
        IX_SET_PARAMS => set_params::process(program_id, accounts, args),
        IX_SET_GOVERNANCE_PARAMS => set_governance_params::process(program_id, accounts, args),
        IX_ACCEPT_ADMIN => accept_admin::process(program_id, accounts, args),
        IX_CREATE_COIN => create_coin::process(program_id, accounts, args),
        IX_BUY => buy::process(program_id, accounts, args),
        IX_BUY_EXACT_OUT => buy_exact_out::process(program_id, accounts, args),
        IX_SELL => sell::process(program_id, accounts, args),
        IX_MIGRATE => migrate::process(program_id, accounts, args),
        IX_CREATE_PROPOSAL => create_proposal::process(program_id, accounts, args),
        IX_CAST_VOTE => cast_vote::process(program_id, accounts, args),
        IX_CANCEL_VOTE => cancel_vote::process(program_id, accounts, args),
        IX_WITHDRAW_VOTE => withdraw_vote::process(program_id, accounts, args),
        IX_SETTLE_PROPOSAL => settle_proposal::process(program_id, accounts, args),
        IX_FINALIZE_EXPIRED => finalize_expired::process(program_id, accounts, args),
        IX_WITHDRAW_BOND => withdraw_bond::process(program_id, accounts, args),
        _ => Err(error::Error::InvalidInput.into()),
    }
}
