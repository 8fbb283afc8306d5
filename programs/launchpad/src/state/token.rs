//! Token-2022 accounts as this program reads them: token accounts (base fields) and the mint's
//! MetadataPointer and TokenMetadata extensions, found by walking its TLV entries.

use crate::sdk::borsh::read_pubkey;
use crate::sdk::token::ACCOUNT_BASE_LEN;

/// An ATA of a Token-2022 mint (base + account type + ImmutableOwner).
pub const ATA_SIZE: usize = 170;
pub const EXT_METADATA_POINTER: u16 = 18;
pub const EXT_TOKEN_METADATA: u16 = 19;
/// The mint with its MetadataPointer, before TokenMetadata (base 82, padding to 165, account
/// type, one TLV of 4 + 64).
pub const MINT_WITH_POINTER_SIZE: usize = 234;
/// TokenMetadata's fixed part: TLV header 4 + authority 32 + mint 32 + three u32 lengths + an
/// empty additional-metadata vec (u32).
pub const MINT_METADATA_FIXED: usize = MINT_WITH_POINTER_SIZE + 4 + 32 + 32 + 12 + 4;

#[inline(always)]
fn rd_u16(d: &[u8], o: usize) -> u16 {
    u16::from_le_bytes([d[o], d[o + 1]])
}

/// The value of TLV extension `ty` of a Token-2022 mint or account.
pub fn extension(d: &[u8], ty: u16) -> Option<&[u8]> {
    let mut at = ACCOUNT_BASE_LEN + 1;
    while at + 4 <= d.len() {
        let t = rd_u16(d, at);
        let n = rd_u16(d, at + 2) as usize;
        if at + 4 + n > d.len() {
            return None;
        }
        if t == ty {
            return Some(&d[at + 4..at + 4 + n]);
        }
        if t == 0 {
            return None;
        }
        at += 4 + n;
    }
    None
}

/// The address a MetadataPointer extension value points at (authority 32, then the address).
pub fn metadata_pointer_address(v: &[u8]) -> Option<&[u8; 32]> {
    if v.len() != 64 {
        return None;
    }
    Some(read_pubkey(v, 32))
}

/// name, symbol, uri of a TokenMetadata extension value (update authority 32, mint 32, then
/// three Borsh strings).
pub fn metadata_fields(v: &[u8]) -> Option<[&[u8]; 3]> {
    let mut at = 64;
    let mut out: [&[u8]; 3] = [&[], &[], &[]];
    let mut i = 0;
    while i < 3 {
        if at + 4 > v.len() {
            return None;
        }
        let n = u32::from_le_bytes([v[at], v[at + 1], v[at + 2], v[at + 3]]) as usize;
        if n > v.len() - at - 4 {
            return None;
        }
        out[i] = &v[at + 4..at + 4 + n];
        at += 4 + n;
        i += 1;
    }
    Some(out)
}
