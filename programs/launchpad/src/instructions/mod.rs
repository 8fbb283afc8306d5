//! One file per instruction, each with its accounts (unpacked from the instruction's account
//! list by a slice pattern, in the IDL's order), its arguments (Borsh, strict: anything short,
//! malformed or followed by trailing bytes is InvalidInput) and `process`, which runs the
//! Python reference's checks in its order, then the instruction.

// admin
pub mod accept_admin;
pub mod initialize_global;
pub mod set_governance_params;
pub mod set_params;
// coins and the curve
pub mod buy;
pub mod buy_exact_out;
pub mod create_coin;
pub mod migrate;
pub mod sell;
pub mod trade;
// metadata governance
pub mod cancel_vote;
pub mod cast_vote;
pub mod create_proposal;
pub mod finalize_expired;
pub mod governance;
pub mod settle_proposal;
pub mod withdraw_bond;
pub mod withdraw_vote;

use crate::error::Error;
use crate::sdk::borsh::Reader;
use crate::sdk::{ProgramError, ProgramResult};

/// Decode an instruction's arguments: `read` over the data, every byte read; any decoding
/// error is InvalidInput.
#[inline(always)]
pub fn unpack<'a, T>(
    data: &'a [u8],
    read: impl FnOnce(&mut Reader<'a>) -> Result<T, ProgramError>,
) -> Result<T, ProgramError> {
    let mut r = Reader::new(data);
    match read(&mut r) {
        Ok(v) if r.finish().is_ok() => Ok(v),
        _ => Err(Error::InvalidInput.into()),
    }
}

/// An instruction without arguments: its data must be empty.
#[inline(always)]
pub fn no_args(data: &[u8]) -> ProgramResult {
    if !data.is_empty() {
        return Err(Error::InvalidInput.into());
    }
    Ok(())
}

/// Too few accounts.
pub const NOT_ENOUGH_ACCOUNTS: ProgramError = ProgramError::NotEnoughAccountKeys;
