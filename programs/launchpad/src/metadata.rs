//! A coin's name, symbol and uri: the limits and checks create_coin and create_proposal apply
//! (the same as partner.chain.layouts'), and the rent the mint is funded with for them.

use crate::error::Error;
use crate::sdk::ProgramError;

pub const NAME_MAX: usize = 32;
pub const SYMBOL_MAX: usize = 10;
pub const URI_MAX: usize = 200;

/// Python's `str.strip()` whitespace: Unicode White_Space plus U+001C..U+001F.
fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// The reference's check_text: blank -> `empty`, over `limit` bytes -> `too_long`.
fn check_text(text: &str, limit: usize, empty: Error, too_long: Error) -> Result<(), ProgramError> {
    if text.chars().all(py_space) {
        return Err(empty.into());
    }
    if text.len() > limit {
        return Err(too_long.into());
    }
    Ok(())
}

pub fn check_name(s: &str) -> Result<(), ProgramError> {
    check_text(s, NAME_MAX, Error::NameEmpty, Error::NameTooLong)
}

pub fn check_symbol(s: &str) -> Result<(), ProgramError> {
    check_text(s, SYMBOL_MAX, Error::SymbolEmpty, Error::SymbolTooLong)
}

pub fn check_uri(s: &str) -> Result<(), ProgramError> {
    if s.len() > URI_MAX {
        return Err(Error::UriTooLong.into());
    }
    Ok(())
}
