//! Program errors, encoded as the runtime expects (builtin errors in the high 32 bits,
//! `Custom(n)` as n itself, `Custom(0)` as 1 << 32).

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgramError {
    Custom(u32),
    InvalidArgument,
    InvalidInstructionData,
    InvalidAccountData,
    AccountDataTooSmall,
    InsufficientFunds,
    IncorrectProgramId,
    MissingRequiredSignature,
    AccountAlreadyInitialized,
    UninitializedAccount,
    NotEnoughAccountKeys,
    AccountBorrowFailed,
    MaxSeedLengthExceeded,
    InvalidSeeds,
    BorshIoError,
    AccountNotRentExempt,
    UnsupportedSysvar,
    IllegalOwner,
    ArithmeticOverflow,
    Immutable,
    IncorrectAuthority,
}

pub type ProgramResult = Result<(), ProgramError>;

impl ProgramError {
    pub fn to_u64(self) -> u64 {
        const fn b(n: u64) -> u64 { n << 32 }
        match self {
            ProgramError::Custom(0) => b(1),
            ProgramError::Custom(n) => n as u64,
            ProgramError::InvalidArgument => b(2),
            ProgramError::InvalidInstructionData => b(3),
            ProgramError::InvalidAccountData => b(4),
            ProgramError::AccountDataTooSmall => b(5),
            ProgramError::InsufficientFunds => b(6),
            ProgramError::IncorrectProgramId => b(7),
            ProgramError::MissingRequiredSignature => b(8),
            ProgramError::AccountAlreadyInitialized => b(9),
            ProgramError::UninitializedAccount => b(10),
            ProgramError::NotEnoughAccountKeys => b(11),
            ProgramError::AccountBorrowFailed => b(12),
            ProgramError::MaxSeedLengthExceeded => b(13),
            ProgramError::InvalidSeeds => b(14),
            ProgramError::BorshIoError => b(15),
            ProgramError::AccountNotRentExempt => b(16),
            ProgramError::UnsupportedSysvar => b(17),
            ProgramError::IllegalOwner => b(18),
            ProgramError::ArithmeticOverflow => b(24),
            ProgramError::Immutable => b(25),
            ProgramError::IncorrectAuthority => b(26),
        }
    }
}
