//! Zero-copy views of the accounts in the loader's input region (the aligned ABI of BPF
//! Loader 2 / Upgradeable). A duplicate account (same key twice in the instruction) is a
//! second view of the first one's bytes, so writes through either are seen by both; the
//! programs refuse duplicate *mutable* accounts where two roles must differ
//! (`checks::require_distinct`).
use super::error::ProgramError;
use super::pubkey::{pk_eq, Pubkey};

/// What the loader writes before each (non-duplicate) account's data.
#[repr(C)]
pub struct RawAccount {
    pub dup: u8,
    pub is_signer: u8,
    pub is_writable: u8,
    pub executable: u8,
    /// zero: the loader writes no original data length here (the SDK has no `resize`: the
    /// one it had bounded growth by this never-filled field; no program resizes an account)
    pub padding: [u8; 4],
    pub key: Pubkey,
    pub owner: Pubkey,
    pub lamports: u64,
    pub data_len: u64,
}

/// How much an account may grow in one instruction (the loader reserves it after the data).
pub const MAX_PERMITTED_DATA_INCREASE: usize = 10 * 1024;

#[derive(Clone, Copy)]
pub struct AccountInfo {
    raw: *mut RawAccount,
}

impl AccountInfo {
    /// # Safety: `raw` points at a serialized account of the input region.
    pub unsafe fn from_raw(raw: *mut RawAccount) -> Self {
        AccountInfo { raw }
    }
    #[inline(always)]
    fn r(&self) -> &RawAccount {
        unsafe { &*self.raw }
    }
    #[inline(always)]
    pub fn key(&self) -> &Pubkey {
        &self.r().key
    }
    #[inline(always)]
    pub fn owner(&self) -> &Pubkey {
        &self.r().owner
    }
    #[inline(always)]
    pub fn is_signer(&self) -> bool {
        self.r().is_signer != 0
    }
    #[inline(always)]
    pub fn is_writable(&self) -> bool {
        self.r().is_writable != 0
    }
    #[inline(always)]
    pub fn executable(&self) -> bool {
        self.r().executable != 0
    }
    #[inline(always)]
    pub fn lamports(&self) -> u64 {
        self.r().lamports
    }
    #[inline(always)]
    pub fn data_len(&self) -> usize {
        self.r().data_len as usize
    }
    #[inline(always)]
    pub fn is_owned_by(&self, program: &Pubkey) -> bool {
        pk_eq(self.owner(), program)
    }
    #[inline(always)]
    pub fn key_is(&self, key: &Pubkey) -> bool {
        pk_eq(self.key(), key)
    }
    /// Same account (same key) as `other`.
    #[inline(always)]
    pub fn same(&self, other: &AccountInfo) -> bool {
        self.raw == other.raw || pk_eq(self.key(), other.key())
    }
    #[inline(always)]
    pub fn data(&self) -> &[u8] {
        unsafe { core::slice::from_raw_parts(self.data_ptr(), self.data_len()) }
    }
    /// The data, writable: the runtime refuses the instruction afterwards if the account was
    /// not writable or not owned by the program, but check first to fail with your error.
    #[allow(clippy::mut_from_ref)]
    #[inline(always)]
    pub fn data_mut(&self) -> &mut [u8] {
        unsafe { core::slice::from_raw_parts_mut(self.data_ptr(), self.data_len()) }
    }
    #[inline(always)]
    pub fn data_ptr(&self) -> *mut u8 {
        unsafe { (self.raw as *mut u8).add(core::mem::size_of::<RawAccount>()) }
    }
    /// Pointer to the lamports field (for CPI account infos).
    pub fn lamports_ptr(&self) -> *mut u64 {
        unsafe { &mut (*self.raw).lamports }
    }
    pub fn set_lamports(&self, lamports: u64) {
        unsafe { (*self.raw).lamports = lamports }
    }
    /// Move `amount` lamports from this (program-owned, writable) account to `to` (writable).
    #[inline(always)]
    pub fn transfer_lamports_to(&self, to: &AccountInfo, amount: u64) -> Result<(), ProgramError> {
        let from = self.lamports().checked_sub(amount).ok_or(ProgramError::InsufficientFunds)?;
        let dst = to.lamports().checked_add(amount).ok_or(ProgramError::ArithmeticOverflow)?;
        self.set_lamports(from);
        to.set_lamports(dst);
        Ok(())
    }
}
