//! Account checks shared by the instructions, with the program's own errors over the SDK's
//! checks (`sdk::checks`): a missing signer is the runtime's MissingRequiredSignature, any other
//! wrong account InvalidAccount unless the instruction names another error.

use crate::error::Error;
use crate::sdk::borsh::read_pubkey;
use crate::sdk::ids::LAUNCHPAD_PROGRAM_ID;
use crate::sdk::pubkey::{pk_eq, ATA_PROGRAM_ID, SYSTEM_PROGRAM_ID, TOKEN_2022_PROGRAM_ID};
use crate::sdk::token::{self, ACCOUNT_BASE_LEN};
use crate::sdk::{checks, AccountInfo, ProgramError, ProgramResult, Pubkey};
use crate::state::{self, Account, BondingCurve, Global};

#[inline(always)]
pub fn require_signer(a: &AccountInfo) -> ProgramResult {
    checks::require_signer(a, ProgramError::MissingRequiredSignature)
}

#[inline(always)]
pub fn require_writable(a: &AccountInfo) -> ProgramResult {
    checks::require_writable(a, Error::InvalidAccount.into())
}

#[inline(always)]
pub fn require_key(a: &AccountInfo, k: &Pubkey) -> ProgramResult {
    checks::require_key(a, k, Error::InvalidAccount.into())
}

/// The System, Token-2022 and ATA programs, in that order.
#[inline(always)]
pub fn require_programs(system: &AccountInfo, token: &AccountInfo, ata: &AccountInfo) -> ProgramResult {
    require_key(system, &SYSTEM_PROGRAM_ID)?;
    require_key(token, &TOKEN_2022_PROGRAM_ID)?;
    require_key(ata, &ATA_PROGRAM_ID)
}

/// `a` is the PDA of `seeds` with `bump`, its stored bump: one create_program_address, no
/// search. The bump is canonical because only this program writes it, at the creation of the
/// account, from a search; a tampered bump gives another address and is refused with `err`.
#[inline(always)]
pub fn require_pda(a: &AccountInfo, seeds: &[&[u8]], bump: u8, program_id: &Pubkey, err: Error) -> ProgramResult {
    checks::require_pda(a, seeds, bump, program_id, err.into())
}

/// The global config, checked: owner, discriminator, its PDA (at the IDL address a constant;
/// elsewhere the stored bump).
pub fn load_global<'a>(program_id: &Pubkey, a: &'a AccountInfo) -> Result<&'a Global, ProgramError> {
    if !Global::is(a, program_id) {
        return Err(Error::InvalidAccount.into());
    }
    let g = Global::view(a)?;
    if pk_eq(program_id, &LAUNCHPAD_PROGRAM_ID) {
        require_key(a, &state::global::ADDRESS_AT_IDL_ID)?;
    } else {
        require_pda(a, &[state::global::SEED], g.bump, program_id, Error::InvalidAccount)?;
    }
    Ok(g)
}

/// The bonding curve of `mint`, checked: owner, discriminator, its PDA with the stored bump.
pub fn load_curve<'a>(
    program_id: &Pubkey,
    a: &'a AccountInfo,
    mint: &Pubkey,
) -> Result<&'a BondingCurve, ProgramError> {
    if !BondingCurve::is(a, program_id) {
        return Err(Error::InvalidAccount.into());
    }
    let c = BondingCurve::view(a)?;
    require_pda(a, &[state::curve::SEED, mint], c.bump, program_id, Error::InvalidAccount)?;
    Ok(c)
}

/// A trader's (or voter's) token account, checked without deriving its address: when
/// Token-2022 owns it, it must be a token account of `mint` owned by `owner` (else
/// InvalidAccount). Any other account counts as no token account yet: a buy creates the ATA
/// with CreateIdempotent, whose ATA program checks the address itself.
pub fn require_user_token_account(a: &AccountInfo, mint: &Pubkey, owner: &Pubkey) -> ProgramResult {
    if !a.is_owned_by(&TOKEN_2022_PROGRAM_ID) {
        return Ok(());
    }
    let d = a.data();
    if d.len() < ACCOUNT_BASE_LEN || !pk_eq(read_pubkey(d, 0), mint) || !pk_eq(read_pubkey(d, 32), owner) {
        return Err(Error::InvalidAccount.into());
    }
    Ok(())
}

/// The balance of `a` when it is an initialized Token-2022 token account of `mint` owned by
/// `owner`; None otherwise.
pub fn token_balance(a: &AccountInfo, mint: &Pubkey, owner: &Pubkey) -> Option<u64> {
    match token::token_account(a) {
        Ok(t) if pk_eq(t.mint(), mint) && pk_eq(t.owner(), owner) => Some(t.amount()),
        _ => None,
    }
}

/// A token account (any, at least the base) is held by `owner`: the vault a curve or proposal
/// stores must be its own.
pub fn require_held_by(vault: &AccountInfo, owner: &Pubkey) -> ProgramResult {
    let v = vault.data();
    if v.len() < ACCOUNT_BASE_LEN || !pk_eq(read_pubkey(v, 32), owner) {
        return Err(Error::InvalidAccount.into());
    }
    Ok(())
}

/// The standard ATA of `wallet` for `mint` under Token-2022.
pub fn ata_address(wallet: &Pubkey, mint: &Pubkey) -> Result<Pubkey, ProgramError> {
    Ok(crate::sdk::pubkey::associated_token_address(wallet, mint)?.0)
}

/// The canonical PDA and bump of `seeds` under `program_id` (a bump search).
pub fn find_pda(seeds: &[&[u8]], program_id: &Pubkey) -> Result<(Pubkey, u8), ProgramError> {
    crate::sdk::pubkey::try_find_program_address(seeds, program_id)
}
