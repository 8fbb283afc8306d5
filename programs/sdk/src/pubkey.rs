//! Addresses: 32 bytes; program derived addresses through the runtime's syscalls.
use super::error::ProgramError;
use super::syscalls::{sol_create_program_address, sol_try_find_program_address, SolBytes};

pub type Pubkey = [u8; 32];

pub const MAX_SEEDS: usize = 16;
pub const MAX_SEED_LEN: usize = 32;

#[inline(always)]
fn seed_array(seeds: &[&[u8]], out: &mut [SolBytes; MAX_SEEDS]) -> Result<usize, ProgramError> {
    if seeds.len() > MAX_SEEDS {
        return Err(ProgramError::MaxSeedLengthExceeded);
    }
    for (i, s) in seeds.iter().enumerate() {
        if s.len() > MAX_SEED_LEN {
            return Err(ProgramError::MaxSeedLengthExceeded);
        }
        out[i] = SolBytes { addr: s.as_ptr(), len: s.len() as u64 };
    }
    Ok(seeds.len())
}

const EMPTY: SolBytes = SolBytes { addr: core::ptr::null(), len: 0 };

/// The address of `seeds` (bump included) under `program_id`; Err(InvalidSeeds) when the
/// seeds give a point on the curve.
#[inline(always)]
pub fn create_program_address(seeds: &[&[u8]], program_id: &Pubkey) -> Result<Pubkey, ProgramError> {
    let mut arr = [EMPTY; MAX_SEEDS];
    let n = seed_array(seeds, &mut arr)?;
    let mut out = [0u8; 32];
    let rc = unsafe { sol_create_program_address(arr.as_ptr(), n as u64, program_id, &mut out) };
    if rc != 0 {
        return Err(ProgramError::InvalidSeeds);
    }
    Ok(out)
}

/// (address, canonical bump) of `seeds` under `program_id`.
#[inline(always)]
pub fn try_find_program_address(seeds: &[&[u8]], program_id: &Pubkey) -> Result<(Pubkey, u8), ProgramError> {
    let mut arr = [EMPTY; MAX_SEEDS];
    let n = seed_array(seeds, &mut arr)?;
    let mut out = [0u8; 32];
    let mut bump = 0u8;
    let rc = unsafe { sol_try_find_program_address(arr.as_ptr(), n as u64, program_id, &mut out, &mut bump) };
    if rc != 0 {
        return Err(ProgramError::InvalidSeeds);
    }
    Ok((out, bump))
}

/// Well-known program ids.
pub const SYSTEM_PROGRAM_ID: Pubkey = [0; 32];
pub const TOKEN_2022_PROGRAM_ID: Pubkey = [
    6, 221, 246, 225, 238, 117, 143, 222, 24, 66, 93, 188, 228, 108, 205, 218, 182, 26, 252, 77, 131, 185, 13, 39, 254,
    189, 249, 40, 216, 161, 139, 252,
];
pub const TOKEN_PROGRAM_ID: Pubkey = [
    6, 221, 246, 225, 215, 101, 161, 147, 217, 203, 225, 70, 206, 235, 121, 172, 28, 180, 133, 237, 95, 91, 55, 145,
    58, 140, 245, 133, 126, 255, 0, 169,
];
pub const ATA_PROGRAM_ID: Pubkey = [
    140, 151, 37, 143, 78, 36, 137, 241, 187, 61, 16, 41, 20, 142, 13, 131, 11, 90, 19, 153, 218, 255, 16, 132, 4, 142,
    123, 216, 219, 233, 248, 89,
];
// the project's own programs' ids: `ids` (generated from the IDLs by `make idl`)

/// BPFLoaderUpgradeab1e11111111111111111111111: owns every upgradeable program's ProgramData.
pub const BPF_LOADER_UPGRADEABLE_ID: Pubkey = [
    2, 168, 246, 145, 78, 136, 161, 176, 226, 16, 21, 62, 247, 99, 174, 43, 0, 194, 185, 61, 22, 193, 36, 210, 192, 83,
    122, 16, 4, 128, 0, 0,
];

/// The associated token account of (wallet, mint) under Token-2022 (seeds: wallet,
/// Token-2022 id, mint; program: ATA).
#[inline(always)]
pub fn associated_token_address(wallet: &Pubkey, mint: &Pubkey) -> Result<(Pubkey, u8), ProgramError> {
    try_find_program_address(&[wallet, &TOKEN_2022_PROGRAM_ID, mint], &ATA_PROGRAM_ID)
}

/// Equality of two addresses: one `sol_memcmp_` syscall (about 10 CU). Keys sit at any
/// alignment in the loader's input, and BPF has no unaligned loads: a compare in registers
/// reads byte by byte (about 250 instructions) and is far larger.
#[inline(always)]
pub fn pk_eq(a: &Pubkey, b: &Pubkey) -> bool {
    let mut r: i32 = 0;
    unsafe { super::syscalls::sol_memcmp_(a.as_ptr(), b.as_ptr(), 32, &mut r) };
    r == 0
}

/// True when every byte is zero (the "none" address).
#[inline(always)]
pub fn pk_is_zero(a: &Pubkey) -> bool {
    pk_eq(a, &[0u8; 32])
}
