//! Cross-program invocation through `sol_invoke_signed_c` (the C ABI: no allocation).
use super::account::AccountInfo;
use super::error::{ProgramError, ProgramResult};
use super::pubkey::Pubkey;

/// An account of an instruction (the C ABI's SolAccountMeta).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct AccountMeta {
    pub pubkey: *const Pubkey,
    pub is_writable: bool,
    pub is_signer: bool,
}

impl AccountMeta {
    pub fn writable(key: &Pubkey, signer: bool) -> Self {
        AccountMeta { pubkey: key, is_writable: true, is_signer: signer }
    }
    pub fn readonly(key: &Pubkey, signer: bool) -> Self {
        AccountMeta { pubkey: key, is_writable: false, is_signer: signer }
    }
}

pub struct Instruction<'a> {
    pub program_id: &'a Pubkey,
    pub accounts: &'a [AccountMeta],
    pub data: &'a [u8],
}

#[repr(C)]
struct SolInstruction {
    program_id: *const Pubkey,
    accounts: *const AccountMeta,
    accounts_len: u64,
    data: *const u8,
    data_len: u64,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct SolAccountInfo {
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
#[derive(Clone, Copy)]
struct SolSignerSeed {
    addr: *const u8,
    len: u64,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct SolSignerSeeds {
    addr: *const SolSignerSeed,
    len: u64,
}

/// Most account infos one CPI passes, most PDA signers, most seeds per signer.
pub const MAX_CPI_ACCOUNTS: usize = 16;
pub const MAX_SIGNERS: usize = 2;
pub const MAX_SIGNER_SEEDS: usize = 8;

/// Invoke `ix` with the accounts it needs among `infos` (pass each account the callee
/// touches once; the runtime matches them by key).
pub fn invoke(ix: &Instruction, infos: &[&AccountInfo]) -> ProgramResult {
    invoke_signed(ix, infos, &[])
}

/// Invoke `ix`, the PDAs of `signers` (each a list of seeds, bump included) signing.
pub fn invoke_signed(ix: &Instruction, infos: &[&AccountInfo], signers: &[&[&[u8]]]) -> ProgramResult {
    if infos.len() > MAX_CPI_ACCOUNTS || signers.len() > MAX_SIGNERS {
        return Err(ProgramError::InvalidArgument);
    }
    let empty = SolAccountInfo {
        key: core::ptr::null(),
        lamports: core::ptr::null_mut(),
        data_len: 0,
        data: core::ptr::null_mut(),
        owner: core::ptr::null(),
        rent_epoch: 0,
        is_signer: false,
        is_writable: false,
        executable: false,
    };
    let mut c_infos = [empty; MAX_CPI_ACCOUNTS];
    for (i, a) in infos.iter().enumerate() {
        c_infos[i] = SolAccountInfo {
            key: a.key(),
            lamports: a.lamports_ptr(),
            data_len: a.data_len() as u64,
            data: a.data_ptr(),
            owner: a.owner(),
            rent_epoch: u64::MAX,
            is_signer: a.is_signer(),
            is_writable: a.is_writable(),
            executable: a.executable(),
        };
    }
    let no_seed = SolSignerSeed { addr: core::ptr::null(), len: 0 };
    let mut seeds = [[no_seed; MAX_SIGNER_SEEDS]; MAX_SIGNERS];
    let mut c_signers = [SolSignerSeeds { addr: core::ptr::null(), len: 0 }; MAX_SIGNERS];
    for (i, signer) in signers.iter().enumerate() {
        if signer.len() > MAX_SIGNER_SEEDS {
            return Err(ProgramError::MaxSeedLengthExceeded);
        }
        for (j, s) in signer.iter().enumerate() {
            seeds[i][j] = SolSignerSeed { addr: s.as_ptr(), len: s.len() as u64 };
        }
        c_signers[i] = SolSignerSeeds { addr: seeds[i].as_ptr(), len: signer.len() as u64 };
    }
    let c_ix = SolInstruction {
        program_id: ix.program_id,
        accounts: ix.accounts.as_ptr(),
        accounts_len: ix.accounts.len() as u64,
        data: ix.data.as_ptr(),
        data_len: ix.data.len() as u64,
    };
    let rc = unsafe {
        super::syscalls::sol_invoke_signed_c(
            &c_ix as *const SolInstruction as *const u8,
            c_infos.as_ptr() as *const u8,
            infos.len() as u64,
            c_signers.as_ptr() as *const u8,
            signers.len() as u64,
        )
    };
    // a failing callee aborts the whole transaction before we get here; a non-zero code
    // means the syscall refused the call itself
    if rc != 0 {
        return Err(ProgramError::InvalidArgument);
    }
    Ok(())
}
