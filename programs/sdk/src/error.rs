//! Program errors, encoded as the runtime expects: a builtin error in the high 32 bits,
//! `Custom(n)` as n itself (`Custom(0)` as 1 << 32).
//!
//! `ProgramError` is one non-zero u64, so `Result<(), ProgramError>` fits the one return
//! register of BPF (no hidden return pointer, which would count against the 5-argument
//! limit). It reads like an enum: `ProgramError::InvalidArgument`, `ProgramError::Custom(6001)`,
//! and compares with `==`.
use core::num::NonZeroU64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct ProgramError(NonZeroU64);

pub type ProgramResult = Result<(), ProgramError>;

const fn builtin(n: u64) -> ProgramError {
    match NonZeroU64::new(n << 32) {
        Some(v) => ProgramError(v),
        None => panic!("zero error"),
    }
}

#[allow(non_upper_case_globals, non_snake_case)]
impl ProgramError {
    /// The program's own error number (the IDL's `errors`).
    pub const fn Custom(n: u32) -> ProgramError {
        match NonZeroU64::new(n as u64) {
            Some(v) => ProgramError(v),
            None => builtin(1),
        }
    }
    pub const InvalidArgument: ProgramError = builtin(2);
    pub const InvalidInstructionData: ProgramError = builtin(3);
    pub const InvalidAccountData: ProgramError = builtin(4);
    pub const AccountDataTooSmall: ProgramError = builtin(5);
    pub const InsufficientFunds: ProgramError = builtin(6);
    pub const IncorrectProgramId: ProgramError = builtin(7);
    pub const MissingRequiredSignature: ProgramError = builtin(8);
    pub const AccountAlreadyInitialized: ProgramError = builtin(9);
    pub const UninitializedAccount: ProgramError = builtin(10);
    pub const NotEnoughAccountKeys: ProgramError = builtin(11);
    pub const AccountBorrowFailed: ProgramError = builtin(12);
    pub const MaxSeedLengthExceeded: ProgramError = builtin(13);
    pub const InvalidSeeds: ProgramError = builtin(14);
    pub const BorshIoError: ProgramError = builtin(15);
    pub const AccountNotRentExempt: ProgramError = builtin(16);
    pub const UnsupportedSysvar: ProgramError = builtin(17);
    pub const IllegalOwner: ProgramError = builtin(18);
    pub const ArithmeticOverflow: ProgramError = builtin(24);
    pub const Immutable: ProgramError = builtin(25);
    pub const IncorrectAuthority: ProgramError = builtin(26);

    /// What the entrypoint returns.
    #[inline(always)]
    pub const fn to_u64(self) -> u64 {
        self.0.get()
    }
}
