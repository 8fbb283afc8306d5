//! The program's errors: the IDL's custom codes (idl/launchpad.json "errors", the same numbers
//! as partner.chain.errors). The runtime's own (`MissingRequiredSignature`,
//! `NotEnoughAccountKeys`, ...) are the SDK's `ProgramError` constants.

use crate::sdk::ProgramError;

/// The whole IDL table (the pool-only codes included: one numbering for both programs).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u32)]
#[allow(dead_code)]
pub enum Error {
    // 6000-6049: trading, shared with the pool program
    InvalidInput = 6000,
    SlippageExceeded = 6001,
    CurveComplete = 6002,
    MigrationPending = 6003,
    BuyLimitExceeded = 6004,
    SameSlotTradingBlocked = 6005,
    MathOverflow = 6006,
    InsufficientLiquidity = 6007,
    InsufficientSol = 6008,
    InsufficientTokens = 6009,
    PoolNotOpen = 6010,
    MissingSellTokenAccount = 6011,
    NameEmpty = 6012,
    NameTooLong = 6013,
    SymbolEmpty = 6014,
    SymbolTooLong = 6015,
    UriTooLong = 6016,
    Unauthorized = 6017,
    InvalidAccount = 6018,
    AlreadyInitialized = 6019,
    CurveNotComplete = 6020,
    AlreadyMigrated = 6021,
    InvalidFeeBps = 6022,
    // 6100-6199: metadata governance
    GovernanceNotFound = 6100,
    AlreadyVoted = 6101,
    InvalidVoteAmount = 6102,
    MissingVoteTokenAccount = 6103,
    VoteNotActive = 6104,
    VoteAlreadyWithdrawn = 6105,
    VoteReceiptNotFound = 6106,
    ProposalClosed = 6107,
    ProposalStillOpen = 6108,
    ProposalAlreadySettled = 6109,
    ProposalNotSettled = 6110,
    ProposalNotFound = 6111,
    InvalidProposal = 6112,
    ActiveProposalExists = 6113,
    InsufficientProposalBond = 6114,
    MissingProposalTokenAccount = 6115,
    NoProposalBond = 6116,
    ProposalBondAlreadyWithdrawn = 6117,
    ProposalWindowClosing = 6118,
    GovernanceFinalized = 6119,
    MetadataNotMutable = 6120,
    MetadataStillMutable = 6121,
    ContentFieldLocked = 6122,
    NoMetadataChanges = 6123,
    StaleContentRevision = 6124,
    MutabilityExpired = 6125,
    MutabilityAlreadyExtended = 6126,
    MutabilityExtensionExceedsCap = 6127,
    InvalidVoteDuration = 6128,
    VoteDurationExceedsWindow = 6129,
}

impl From<Error> for ProgramError {
    #[inline(always)]
    fn from(e: Error) -> ProgramError {
        ProgramError::Custom(e as u32)
    }
}
