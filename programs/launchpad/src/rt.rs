//! The launchpad's own small runtime layer: the loader's input as zero-copy
//! account views, the syscalls it uses, PDAs, CPI with PDA signatures, the
//! Clock sysvar, logging. (Own file of the launchpad, not the shared SDK.)

use crate::err::{Error, Res};

pub type Pubkey = [u8; 32];

extern "C" {
    fn sol_log_(msg: *const u8, len: u64);
    fn sol_log_64_(a: u64, b: u64, c: u64, d: u64, e: u64);
    fn sol_invoke_signed_c(ix: *const CInstruction, infos: *const CAccountInfo, n_infos: u64,
                           seeds: *const CSignerSeeds, n_seeds: u64) -> u64;
    fn sol_create_program_address(seeds: *const CSeed, n: u64, program_id: *const u8, out: *mut u8) -> u64;
    fn sol_try_find_program_address(seeds: *const CSeed, n: u64, program_id: *const u8, out: *mut u8,
                                    bump: *mut u8) -> u64;
    fn sol_get_clock_sysvar(out: *mut u8) -> u64;
    fn sol_memcmp_(a: *const u8, b: *const u8, n: u64, out: *mut i32) -> u64;
    fn sol_memcpy_(dst: *mut u8, src: *const u8, n: u64);
}

/// dst <- src (equal lengths) by the runtime's memcpy: LLVM's BPF backend
/// cannot lower a memcpy of a run-time length.
pub fn copy(dst: &mut [u8], src: &[u8]) {
    assert!(dst.len() == src.len());
    if !src.is_empty() {
        unsafe { sol_memcpy_(dst.as_mut_ptr(), src.as_ptr(), src.len() as u64) }
    }
}

pub fn log(msg: &str) {
    unsafe { sol_log_(msg.as_ptr(), msg.len() as u64) }
}

pub fn log64(a: u64, b: u64, c: u64, d: u64, e: u64) {
    unsafe { sol_log_64_(a, b, c, d, e) }
}

pub fn key_eq(a: &Pubkey, b: &Pubkey) -> bool {
    let mut r: i32 = 0;
    unsafe { sol_memcmp_(a.as_ptr(), b.as_ptr(), 32, &mut r) };
    r == 0
}

pub fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut r: i32 = 0;
    unsafe { sol_memcmp_(a.as_ptr(), b.as_ptr(), a.len() as u64, &mut r) };
    r == 0
}

// ----------------------------------------------------------------- input

/// One account of the instruction: a view on its record in the loader's input
/// (header at +0: dup marker, signer, writable, executable; key +8, owner +40,
/// lamports +72, data length +80, data +88).
#[derive(Clone, Copy)]
pub struct Acc {
    p: *mut u8,
}

impl Acc {
    pub fn key(&self) -> &Pubkey {
        unsafe { &*(self.p.add(8) as *const Pubkey) }
    }
    pub fn owner(&self) -> &Pubkey {
        unsafe { &*(self.p.add(40) as *const Pubkey) }
    }
    pub fn is_signer(&self) -> bool {
        unsafe { *self.p.add(1) != 0 }
    }
    pub fn is_writable(&self) -> bool {
        unsafe { *self.p.add(2) != 0 }
    }
    pub fn executable(&self) -> bool {
        unsafe { *self.p.add(3) != 0 }
    }
    pub fn lamports(&self) -> u64 {
        unsafe { *(self.p.add(72) as *const u64) }
    }
    pub fn set_lamports(&self, v: u64) {
        unsafe { *(self.p.add(72) as *mut u64) = v }
    }
    pub fn data_len(&self) -> usize {
        unsafe { *(self.p.add(80) as *const u64) as usize }
    }
    pub fn data(&self) -> &[u8] {
        unsafe { core::slice::from_raw_parts(self.p.add(88), self.data_len()) }
    }
    pub fn data_mut(&self) -> &mut [u8] {
        unsafe { core::slice::from_raw_parts_mut(self.p.add(88), self.data_len()) }
    }
    pub fn same(&self, o: &Acc) -> bool {
        self.p == o.p
    }
}

pub const MAX_ACCOUNTS: usize = 16;
const MAX_PERMITTED_DATA_INCREASE: usize = 10 * 1024;

pub struct Input<'a> {
    pub accounts: [Acc; MAX_ACCOUNTS],
    pub n: usize,
    pub data: &'a [u8],
    pub program_id: &'a Pubkey,
}

/// Parse the loader's input (duplicates point at their first occurrence).
pub unsafe fn parse<'a>(input: *mut u8) -> Res<Input<'a>> {
    let n = *(input as *const u64) as usize;
    let mut p = input.add(8);
    let mut accounts = [Acc { p: input }; MAX_ACCOUNTS];
    let mut i = 0;
    while i < n {
        let dup = *p;
        if dup != 0xff {
            if i < MAX_ACCOUNTS {
                accounts[i] = accounts[dup as usize];
            }
            p = p.add(8);
        } else {
            if i < MAX_ACCOUNTS {
                accounts[i] = Acc { p };
            }
            let len = *(p.add(80) as *const u64) as usize;
            p = p.add(88 + len + MAX_PERMITTED_DATA_INCREASE);
            p = p.add((8 - (p as usize) % 8) % 8);
            p = p.add(8); // rent epoch
        }
        i += 1;
    }
    let data_len = *(p as *const u64) as usize;
    let data = core::slice::from_raw_parts(p.add(8), data_len);
    let program_id = &*(p.add(8 + data_len) as *const Pubkey);
    Ok(Input { accounts, n: if n > MAX_ACCOUNTS { MAX_ACCOUNTS } else { n }, data, program_id })
}

impl<'a> Input<'a> {
    pub fn acc(&self, i: usize) -> Res<Acc> {
        if i >= self.n {
            return Err(Error::NotEnoughAccountKeys);
        }
        Ok(self.accounts[i])
    }
}

// ----------------------------------------------------------------- PDAs

#[repr(C)]
pub struct CSeed {
    pub addr: *const u8,
    pub len: u64,
}

pub fn seed(s: &[u8]) -> CSeed {
    CSeed { addr: s.as_ptr(), len: s.len() as u64 }
}

/// Canonical PDA and bump of `seeds` under `program_id`.
pub fn find_pda(seeds: &[CSeed], program_id: &Pubkey) -> (Pubkey, u8) {
    let mut out = [0u8; 32];
    let mut bump = 0u8;
    unsafe {
        sol_try_find_program_address(seeds.as_ptr(), seeds.len() as u64, program_id.as_ptr(), out.as_mut_ptr(),
                                     &mut bump);
    }
    (out, bump)
}

/// The PDA of `seeds` (which end with the bump); None when off-curve derivation fails.
pub fn create_pda(seeds: &[CSeed], program_id: &Pubkey) -> Option<Pubkey> {
    let mut out = [0u8; 32];
    let r = unsafe { sol_create_program_address(seeds.as_ptr(), seeds.len() as u64, program_id.as_ptr(),
                                                out.as_mut_ptr()) };
    if r == 0 { Some(out) } else { None }
}

// ----------------------------------------------------------------- CPI

#[repr(C)]
pub struct CMeta {
    pub pubkey: *const Pubkey,
    pub is_writable: bool,
    pub is_signer: bool,
}

#[repr(C)]
struct CInstruction {
    program_id: *const Pubkey,
    accounts: *const CMeta,
    n_accounts: u64,
    data: *const u8,
    data_len: u64,
}

#[repr(C)]
struct CAccountInfo {
    key: *const Pubkey,
    lamports: *mut u64,
    data_len: u64,
    data: *mut u8,
    owner: *const Pubkey,
    rent_epoch: u64,
    is_signer: bool,
    is_writable: bool,
    executable: bool,
}

#[repr(C)]
pub struct CSignerSeeds {
    pub addr: *const CSeed,
    pub len: u64,
}

/// A meta for account `a` (writable / signer as given).
pub fn meta(a: &Acc, writable: bool, signer: bool) -> CMeta {
    CMeta { pubkey: a.key(), is_writable: writable, is_signer: signer }
}

pub const MAX_CPI_ACCOUNTS: usize = 12;

/// Invoke `program` with `metas` and `data`; `accs` are the accounts it touches
/// (the program account included), `signer` the seeds of one PDA that signs.
pub struct Cpi<'a> {
    pub program: &'a Pubkey,
    pub metas: &'a [CMeta],
    pub data: &'a [u8],
    pub accs: &'a [Acc],
    pub signer: Option<&'a [CSeed]>,
}

/// `invoke!(program, metas, data, accs, signer)`
#[macro_export]
macro_rules! invoke {
    ($p:expr, $m:expr, $d:expr, $a:expr, $s:expr) => {
        $crate::rt::invoke(&$crate::rt::Cpi { program: $p, metas: $m, data: $d, accs: $a, signer: $s })
    };
}

pub fn invoke(c: &Cpi) -> Res<()> {
    let (program, metas, data, accs, signer) = (c.program, c.metas, c.data, c.accs, c.signer);
    let mut infos: [core::mem::MaybeUninit<CAccountInfo>; MAX_CPI_ACCOUNTS] =
        unsafe { core::mem::MaybeUninit::uninit().assume_init() };
    let n = if accs.len() > MAX_CPI_ACCOUNTS { MAX_CPI_ACCOUNTS } else { accs.len() };
    let mut i = 0;
    while i < n {
        let a = &accs[i];
        infos[i] = core::mem::MaybeUninit::new(CAccountInfo {
            key: a.key(),
            lamports: unsafe { a.p.add(72) as *mut u64 },
            data_len: a.data_len() as u64,
            data: unsafe { a.p.add(88) },
            owner: a.owner(),
            rent_epoch: 0,
            is_signer: a.is_signer(),
            is_writable: a.is_writable(),
            executable: a.executable(),
        });
        i += 1;
    }
    let ix = CInstruction {
        program_id: program,
        accounts: metas.as_ptr(),
        n_accounts: metas.len() as u64,
        data: data.as_ptr(),
        data_len: data.len() as u64,
    };
    let signers;
    let (sp, sn) = match signer {
        Some(s) => {
            signers = CSignerSeeds { addr: s.as_ptr(), len: s.len() as u64 };
            (&signers as *const CSignerSeeds, 1)
        }
        None => (core::ptr::null(), 0),
    };
    let r = unsafe { sol_invoke_signed_c(&ix, infos.as_ptr() as *const CAccountInfo, n as u64, sp, sn) };
    if r != 0 {
        return Err(Error::CpiFailed);
    }
    Ok(())
}

// ----------------------------------------------------------------- sysvars

pub struct Clock {
    pub slot: u64,
    pub unix_timestamp: i64,
}

pub fn clock() -> Clock {
    let mut buf = [0u64; 5];
    unsafe { sol_get_clock_sysvar(buf.as_mut_ptr() as *mut u8) };
    Clock { slot: buf[0], unix_timestamp: buf[4] as i64 }
}

/// Rent-exempt minimum of `len` data bytes (default rent: 3480 lamports per byte-year, 2 years).
pub fn rent_exempt(len: usize) -> u64 {
    (128 + len as u64).wrapping_mul(3480 * 2)
}
