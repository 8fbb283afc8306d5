//! The program's accounts (idl/launchpad.json "accounts" and "types"; the same bytes as
//! partner.chain.layouts). Each kind's PDA seed, discriminator and size are here; its typed
//! zero-copy view is in `state/`: a `#[repr(C)]` struct of byte arrays (alignment 1, no padding,
//! its size the IDL's, checked at compile time) read and written in place in the account's data,
//! with typed getters and setters for the little-endian numbers.

mod bonding_curve;
mod global_config;
mod governance;
mod proposal;
mod token;
mod vote_receipt;

pub use bonding_curve::BondingCurve;
pub use global_config::{Global, GovernanceParams};
pub use governance::Governance;
pub use proposal::{ActionKind, Proposal};
pub use token::*;
pub use vote_receipt::VoteReceipt;

use crate::error::Error;
use crate::sdk::pubkey::pk_eq;
use crate::sdk::{AccountInfo, ProgramError, Pubkey};

/// Global [b"global"]
pub mod global {
    pub const SEED: &[u8] = b"global";
    pub const DISC: [u8; 8] = [167, 232, 232, 177, 200, 108, 114, 127];
    pub const SIZE: usize = 245;
    /// AdgiwJYTCUnNrEKiLFZpZmzWaECUQ7vj6RWi4owGAxoF: the Global PDA ([b"global"], bump 255) of this
    /// program at its IDL address, so a trade finds it by a compare
    pub const ADDRESS_AT_IDL_ID: crate::sdk::Pubkey = [
        143, 31, 1, 166, 130, 232, 117, 184, 98, 197, 102, 71, 82, 163, 37, 127, 107, 181, 14, 161, 224, 91, 220, 108,
        40, 250, 199, 91, 92, 105, 126, 78,
    ];
}

/// BondingCurve [b"bonding-curve", mint]
pub mod curve {
    pub const SEED: &[u8] = b"bonding-curve";
    pub const DISC: [u8; 8] = [23, 183, 248, 55, 96, 216, 172, 96];
    pub const SIZE: usize = 195;
}

/// Governance [b"governance", mint]
pub mod gov {
    pub const SEED: &[u8] = b"governance";
    pub const DISC: [u8; 8] = [18, 143, 88, 13, 73, 217, 47, 49];
    pub const SIZE: usize = 342;
}

/// Proposal [b"proposal", governance, index u64 LE]
pub mod prop {
    pub const SEED: &[u8] = b"proposal";
    pub const DISC: [u8; 8] = [26, 94, 189, 187, 116, 136, 53, 33];
    pub const SIZE: usize = 595;
}

/// VoteReceipt [b"vote", proposal, voter]
pub mod receipt {
    pub const SEED: &[u8] = b"vote";
    pub const DISC: [u8; 8] = [104, 20, 204, 252, 45, 84, 37, 195];
    pub const SIZE: usize = 125;
}

/// The pool program's Pool [b"pool", mint] (its seed for migrate's address check, its size for
/// migrate's rent check)
pub mod pool {
    pub const SEED: &[u8] = b"pool";
    pub const SIZE: usize = 235;
}

/// The digests of the uri-borne fields (image, description, website, twitter, telegram): 16 bytes
/// each, sha256(value)[:16] of the value the metadata JSON carries, computed off-chain.
pub const DIGEST_LEN: usize = 16;
pub type Digests = [[u8; DIGEST_LEN]; 5];

/// The digests in `b` (exactly 80 bytes, else None).
#[inline(always)]
pub fn digests_from(b: &[u8]) -> Option<&Digests> {
    if b.len() != core::mem::size_of::<Digests>() {
        return None;
    }
    Some(unsafe { &*(b.as_ptr() as *const Digests) })
}

/// The mask (bits 2..6, image .. telegram) of the uri-borne fields whose digests differ.
pub fn digest_diff(a: &Digests, b: &Digests) -> u8 {
    let mut m = 0u8;
    let mut i = 0;
    while i < 5 {
        // as slices: one memcmp syscall each (an array compare loads both arrays byte by byte: BPF
        // has no unaligned loads)
        if a[i][..] != b[i][..] {
            m |= 1 << (i + 2);
        }
        i += 1;
    }
    m
}

/// One of this program's account kinds, `Self` its view.
///
/// # Safety
/// `Self` is `#[repr(C)]` of byte arrays only (alignment 1, no padding) and `SIZE` bytes long.
pub unsafe trait Account: Sized {
    const DISC: [u8; 8];
    const SIZE: usize;

    /// An account of this kind of ours: owner, size (at least), discriminator.
    #[inline(always)]
    fn is(a: &AccountInfo, program_id: &Pubkey) -> bool {
        pk_eq(a.owner(), program_id) && a.data_len() >= Self::SIZE && a.data()[..8] == Self::DISC
    }

    /// The view of `a`'s data (InvalidAccount when shorter than the kind).
    #[inline(always)]
    fn view(a: &AccountInfo) -> Result<&Self, ProgramError> {
        if a.data_len() < Self::SIZE {
            return Err(Error::InvalidAccount.into());
        }
        Ok(unsafe { &*(a.data_ptr() as *const Self) })
    }

    /// The view of `a`'s data, writable (the account must be writable and ours, checked before).
    #[allow(clippy::mut_from_ref)]
    #[inline(always)]
    fn view_mut(a: &AccountInfo) -> Result<&mut Self, ProgramError> {
        if a.data_len() < Self::SIZE {
            return Err(Error::InvalidAccount.into());
        }
        Ok(unsafe { &mut *(a.data_ptr() as *mut Self) })
    }

    /// A new account's view: the discriminator written, every other byte left as created (zero).
    #[allow(clippy::mut_from_ref)]
    #[inline(always)]
    fn init(a: &AccountInfo) -> Result<&mut Self, ProgramError> {
        a.data_mut()[..8].copy_from_slice(&Self::DISC);
        Self::view_mut(a)
    }
}

/// `pub fn name(&self) -> T` and `pub fn set_name(&mut self, v: T)` for fields stored as
/// little-endian byte arrays.
macro_rules! le_fields {
    ($($field:ident, $set:ident: $t:ty;)*) => {$(
        #[inline(always)]
        pub fn $field(&self) -> $t {
            <$t>::from_le_bytes(self.$field)
        }
        #[inline(always)]
        pub fn $set(&mut self, v: $t) {
            self.$field = v.to_le_bytes();
        }
    )*};
}

/// `pub fn name(&self) -> bool` and `pub fn set_name(&mut self, v: bool)` for Borsh bools.
macro_rules! bool_fields {
    ($($field:ident, $set:ident;)*) => {$(
        #[inline(always)]
        pub fn $field(&self) -> bool {
            self.$field != 0
        }
        #[inline(always)]
        pub fn $set(&mut self, v: bool) {
            self.$field = v as u8;
        }
    )*};
}

pub(crate) use {bool_fields, le_fields};

/// The size of a view is its kind's (compile-time check).
macro_rules! account {
    ($view:ty, $kind:ident) => {
        const _: () = assert!(core::mem::size_of::<$view>() == $crate::state::$kind::SIZE);
        const _: () = assert!(core::mem::align_of::<$view>() == 1);
        unsafe impl $crate::state::Account for $view {
            const DISC: [u8; 8] = $crate::state::$kind::DISC;
            const SIZE: usize = $crate::state::$kind::SIZE;
        }
    };
}

pub(crate) use account;

/// Seven content-field flags (name, symbol, image, description, website, twitter, telegram)
/// as Borsh bools, read and written as a bit mask (bit i: field i).
#[repr(C)]
pub struct FieldFlags([u8; 7]);

pub const ALL_FIELDS: u8 = 0x7f;

impl FieldFlags {
    #[inline(always)]
    pub fn mask(&self) -> u8 {
        let mut m = 0u8;
        let mut i = 0;
        while i < 7 {
            if self.0[i] != 0 {
                m |= 1 << i;
            }
            i += 1;
        }
        m
    }

    /// Set the flags of `mask` (the others are left as they are).
    #[inline(always)]
    pub fn set(&mut self, mask: u8) {
        let mut i = 0;
        while i < 7 {
            if mask >> i & 1 != 0 {
                self.0[i] = 1;
            }
            i += 1;
        }
    }
}
