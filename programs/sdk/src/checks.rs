//! Account checks. Each returns the error the caller names, so a program reports its own
//! error numbers (IDL) rather than the runtime's.
use super::account::AccountInfo;
use super::error::ProgramError;
use super::pubkey::{create_program_address, pk_eq, Pubkey};

#[inline(always)]
pub fn require_signer(acc: &AccountInfo, err: ProgramError) -> Result<(), ProgramError> {
    if acc.is_signer() {
        Ok(())
    } else {
        Err(err)
    }
}

#[inline(always)]
pub fn require_writable(acc: &AccountInfo, err: ProgramError) -> Result<(), ProgramError> {
    if acc.is_writable() {
        Ok(())
    } else {
        Err(err)
    }
}

#[inline(always)]
pub fn require_owner(acc: &AccountInfo, owner: &Pubkey, err: ProgramError) -> Result<(), ProgramError> {
    if acc.is_owned_by(owner) {
        Ok(())
    } else {
        Err(err)
    }
}

#[inline(always)]
pub fn require_key(acc: &AccountInfo, key: &Pubkey, err: ProgramError) -> Result<(), ProgramError> {
    if pk_eq(acc.key(), key) {
        Ok(())
    } else {
        Err(err)
    }
}

/// Two roles that must be different accounts (duplicate mutable accounts).
#[inline(always)]
pub fn require_distinct(a: &AccountInfo, b: &AccountInfo, err: ProgramError) -> Result<(), ProgramError> {
    if a.same(b) {
        Err(err)
    } else {
        Ok(())
    }
}

/// `acc` is the PDA of `seeds` + [bump] under `program_id`, with the *stored* bump (one
/// sol_create_program_address, ~1.5k CU, instead of a search).
#[inline(always)]
pub fn require_pda(
    acc: &AccountInfo,
    seeds: &[&[u8]],
    bump: u8,
    program_id: &Pubkey,
    err: ProgramError,
) -> Result<(), ProgramError> {
    let mut all: [&[u8]; 8] = [&[]; 8];
    if seeds.len() >= all.len() {
        return Err(err);
    }
    all[..seeds.len()].copy_from_slice(seeds);
    let b = [bump];
    all[seeds.len()] = &b;
    match create_program_address(&all[..seeds.len() + 1], program_id) {
        Ok(k) if pk_eq(&k, acc.key()) => Ok(()),
        _ => Err(err),
    }
}

/// `acc` is the canonical PDA of `seeds` under `program_id`; returns the canonical bump.
#[inline(always)]
pub fn require_canonical_pda(
    acc: &AccountInfo,
    seeds: &[&[u8]],
    program_id: &Pubkey,
    err: ProgramError,
) -> Result<u8, ProgramError> {
    let (k, bump) = super::pubkey::try_find_program_address(seeds, program_id).map_err(|_| err)?;
    if pk_eq(&k, acc.key()) {
        Ok(bump)
    } else {
        Err(err)
    }
}

/// An initialized account of ours: owned by `program_id`, long enough, starting with
/// `disc` (8-byte discriminator).
#[inline(always)]
pub fn require_state<'a>(
    acc: &'a AccountInfo,
    program_id: &Pubkey,
    disc: &[u8; 8],
    len: usize,
    err: ProgramError,
) -> Result<&'a [u8], ProgramError> {
    let data = acc.data();
    if !acc.is_owned_by(program_id)
        || data.len() < len.max(8)
        || super::borsh::read_u64(data, 0) != u64::from_le_bytes(*disc)
    {
        return Err(err);
    }
    Ok(data)
}

/// Not initialized yet: no data, owned by the System program (re-initialization refused).
#[inline(always)]
pub fn require_uninitialized(acc: &AccountInfo, err: ProgramError) -> Result<(), ProgramError> {
    if acc.data_len() == 0 && acc.is_owned_by(&super::pubkey::SYSTEM_PROGRAM_ID) {
        Ok(())
    } else {
        Err(err)
    }
}
