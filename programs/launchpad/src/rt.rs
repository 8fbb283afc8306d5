//! The launchpad's view of the shared SDK (programs/sdk): account views, PDAs, CPI with
//! PDA signatures, the Clock, logging, byte compares and copies through the runtime's
//! syscalls. Only what the SDK leaves to programs is written here: the `invoke!` form
//! (accounts by value, at most one signing PDA) and default-rent arithmetic.

use crate::error::{Error, Res};
use crate::sdk;

pub type Pubkey = sdk::Pubkey;
pub type Acc = sdk::AccountInfo;
/// One seed of a PDA.
pub type CSeed<'a> = &'a [u8];
pub type CMeta = sdk::AccountMeta;

pub fn log(msg: &str) {
    sdk::log::msg(msg.as_bytes())
}

pub fn log64(a: u64, b: u64, c: u64, d: u64, e: u64) {
    sdk::log::log_u64s(a, b, c, d, e)
}

pub fn key_eq(a: &Pubkey, b: &Pubkey) -> bool {
    bytes_eq(a, b)
}

pub fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if a.is_empty() {
        return true;
    }
    let mut r: i32 = 0;
    unsafe { sdk::syscalls::sol_memcmp_(a.as_ptr(), b.as_ptr(), a.len() as u64, &mut r) };
    r == 0
}

/// dst <- src (equal lengths) through the runtime's memcpy.
pub fn copy(dst: &mut [u8], src: &[u8]) {
    assert!(dst.len() == src.len());
    if !src.is_empty() {
        unsafe { sdk::syscalls::sol_memcpy_(dst.as_mut_ptr(), src.as_ptr(), src.len() as u64) }
    }
}

// ----------------------------------------------------------------- input

pub struct Input<'a> {
    pub accounts: &'a [Acc],
    pub data: &'a [u8],
    pub program_id: &'a Pubkey,
}

impl<'a> Input<'a> {
    pub fn acc(&self, i: usize) -> Res<Acc> {
        match self.accounts.get(i) {
            Some(a) => Ok(*a),
            None => Err(Error::NotEnoughAccountKeys),
        }
    }

    /// The first `N` accounts, in order: `let [payer, gov, ..] = inp.first()?;`.
    pub fn first<const N: usize>(&self) -> Res<[Acc; N]> {
        self.accounts.get(..N).and_then(|a| a.try_into().ok()).ok_or(Error::NotEnoughAccountKeys)
    }
}

// ----------------------------------------------------------------- PDAs

pub fn seed(s: &[u8]) -> CSeed<'_> {
    s
}

/// Canonical PDA and bump of `seeds` under `program_id`.
pub fn find_pda(seeds: &[CSeed], program_id: &Pubkey) -> (Pubkey, u8) {
    // the seeds are the program's own (<= 3, <= 32 bytes each): this cannot fail
    match sdk::pubkey::try_find_program_address(seeds, program_id) {
        Ok(found) => found,
        Err(_) => unsafe { sdk::syscalls::abort() },
    }
}

// ----------------------------------------------------------------- CPI

/// A meta for account `a` (writable / signer as given).
pub fn meta(a: &Acc, writable: bool, signer: bool) -> CMeta {
    CMeta { pubkey: a.key(), is_writable: writable, is_signer: signer }
}

pub const MAX_CPI_ACCOUNTS: usize = 12;

pub struct Cpi<'a> {
    pub program: &'a Pubkey,
    pub metas: &'a [CMeta],
    pub data: &'a [u8],
    /// the accounts the callee touches, its program account included
    pub accs: &'a [Acc],
    /// the seeds (bump included) of the one PDA that signs, if any
    pub signer: Option<&'a [CSeed<'a>]>,
}

/// `invoke!(program, metas, data, accs, signer)`
#[macro_export]
macro_rules! invoke {
    ($p:expr, $m:expr, $d:expr, $a:expr, $s:expr) => {
        $crate::rt::invoke(&$crate::rt::Cpi { program: $p, metas: $m, data: $d, accs: $a, signer: $s })
    };
}

pub fn invoke(c: &Cpi) -> Res<()> {
    if c.accs.len() > MAX_CPI_ACCOUNTS {
        return Err(Error::CpiFailed);
    }
    let first = &c.accs[0];
    let mut infos: [&Acc; MAX_CPI_ACCOUNTS] = [first; MAX_CPI_ACCOUNTS];
    for (i, a) in c.accs.iter().enumerate() {
        infos[i] = a;
    }
    let ix = sdk::Instruction { program_id: c.program, accounts: c.metas, data: c.data };
    let r = match c.signer {
        Some(s) => sdk::invoke_signed(&ix, &infos[..c.accs.len()], &[s]),
        None => sdk::invoke(&ix, &infos[..c.accs.len()]),
    };
    r.map_err(|_| Error::CpiFailed)
}

// ----------------------------------------------------------------- sysvars

pub struct Clock {
    pub slot: u64,
    pub unix_timestamp: i64,
}

pub fn clock() -> Clock {
    let c = match sdk::sysvar::clock() {
        Ok(c) => c,
        Err(_) => unsafe { sdk::syscalls::abort() },
    };
    Clock { slot: c.slot, unix_timestamp: c.unix_timestamp }
}

/// Rent-exempt minimum of `len` data bytes, from the Rent sysvar (as the pool reads it; on
/// mainnet today (128 + len) * 6,960, partner.chain.programs.rent_exempt_minimum).
pub fn rent_exempt(len: usize) -> u64 {
    match sdk::sysvar::rent_exempt_minimum(len as u64) {
        Ok(v) => v,
        Err(_) => unsafe { sdk::syscalls::abort() },
    }
}
