//! Clock and Rent through their syscalls (no sysvar account needed).
use super::error::ProgramError;
use super::syscalls;

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct Clock {
    pub slot: u64,
    pub epoch_start_timestamp: i64,
    pub epoch: u64,
    pub leader_schedule_epoch: u64,
    pub unix_timestamp: i64,
}

/// A sysvar the runtime writes into a `T` (`get`: its syscall).
#[inline(always)]
fn sysvar<T: Default>(get: unsafe extern "C" fn(*mut u8) -> u64) -> Result<T, ProgramError> {
    let mut v = T::default();
    if unsafe { get(&mut v as *mut T as *mut u8) } != 0 {
        return Err(ProgramError::UnsupportedSysvar);
    }
    Ok(v)
}

#[inline(always)]
pub fn clock() -> Result<Clock, ProgramError> {
    sysvar(syscalls::sol_get_clock_sysvar)
}

/// Rent as the runtime lays it out: (lamports_per_byte_year, exemption_threshold as f64
/// bits, burn_percent). No floating point on BPF: the threshold must be exactly 1.0 or 2.0.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct Rent {
    pub lamports_per_byte_year: u64,
    pub exemption_threshold_bits: u64,
    pub burn_percent: u8,
}

pub const ACCOUNT_STORAGE_OVERHEAD: u64 = 128;
const F64_ONE: u64 = 0x3FF0_0000_0000_0000;
const F64_TWO: u64 = 0x4000_0000_0000_0000;

#[inline(always)]
pub fn rent() -> Result<Rent, ProgramError> {
    sysvar(syscalls::sol_get_rent_sysvar)
}

impl Rent {
    /// Lamports for an account of `len` data bytes to be rent-exempt.
    #[inline(always)]
    pub fn minimum_balance(&self, len: u64) -> Result<u64, ProgramError> {
        let years = match self.exemption_threshold_bits {
            F64_ONE => 1,
            F64_TWO => 2,
            _ => return Err(ProgramError::UnsupportedSysvar),
        };
        len.checked_add(ACCOUNT_STORAGE_OVERHEAD)
            .and_then(|b| super::wide::checked_mul(b, self.lamports_per_byte_year))
            .and_then(|v| v.checked_add(if years == 2 { v } else { 0 }))
            .ok_or(ProgramError::ArithmeticOverflow)
    }
}

#[inline(always)]
pub fn rent_exempt_minimum(len: u64) -> Result<u64, ProgramError> {
    rent()?.minimum_balance(len)
}
