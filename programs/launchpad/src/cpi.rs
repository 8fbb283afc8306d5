//! The CPIs and lamport moves the instructions share, over the SDK's (`sdk::system`,
//! `sdk::token`): the program's zero-amount rules and its one PDA signer.

use crate::error::Error;
use crate::sdk::sysvar::rent_exempt_minimum;
use crate::sdk::{system, token, AccountInfo, ProgramError, ProgramResult, Pubkey};

pub const TOKEN_DECIMALS: u8 = 6;

/// A new account: `payer` funds `new` (a PDA signed by `seeds`, or a signer) with `lamports`.
pub struct NewAccount<'a> {
    pub payer: &'a AccountInfo,
    pub new: &'a AccountInfo,
    pub system: &'a AccountInfo,
    pub space: usize,
    pub lamports: u64,
    pub owner: &'a Pubkey,
    pub seeds: &'a [&'a [u8]],
}

/// Create `n.new`: a fresh address by CreateAccount; a pre-funded one by top-up, Allocate and
/// Assign (Anchor's `init` keeps lamports someone sent to the address).
pub fn create_account(n: &NewAccount) -> ProgramResult {
    let signers: &[&[&[u8]]] = if n.seeds.is_empty() { &[] } else { &[n.seeds] };
    system::create_funded_account(n.payer, n.new, n.system, n.lamports, n.space as u64, n.owner, signers)
}

/// The rent-exempt minimum of `len` data bytes, from the Rent sysvar.
pub fn rent_exempt(len: usize) -> Result<u64, ProgramError> {
    rent_exempt_minimum(len as u64)
}

/// A System transfer of `lamports` (none when 0) from the signer `from`.
pub fn system_transfer(from: &AccountInfo, to: &AccountInfo, system: &AccountInfo, lamports: u64) -> ProgramResult {
    if lamports == 0 {
        return Ok(());
    }
    system::transfer(from, to, system, lamports, &[])
}

/// A Token-2022 TransferChecked of `amount` (none when 0) from `src` to `dst`, by `authority`
/// (a PDA signing with `seeds`, or a signer: no seeds).
pub struct Transfer<'a> {
    pub src: &'a AccountInfo,
    pub mint: &'a AccountInfo,
    pub dst: &'a AccountInfo,
    pub authority: &'a AccountInfo,
    pub token: &'a AccountInfo,
    pub amount: u64,
    pub seeds: &'a [&'a [u8]],
}

pub fn transfer_checked(t: &Transfer) -> ProgramResult {
    if t.amount == 0 {
        return Ok(());
    }
    let signers: &[&[&[u8]]] = if t.seeds.is_empty() { &[] } else { &[t.seeds] };
    token::transfer_checked(t.src, t.mint, t.dst, t.authority, t.token, t.amount, TOKEN_DECIMALS, signers)
}

/// The programs an instruction passes on to its CPIs.
#[derive(Clone, Copy)]
pub struct Programs<'a> {
    pub system: &'a AccountInfo,
    pub token: &'a AccountInfo,
    pub ata: &'a AccountInfo,
}

/// ATA CreateIdempotent: `payer` creates `wallet`'s token account `ata` of `mint`.
pub fn create_ata(
    payer: &AccountInfo,
    ata: &AccountInfo,
    wallet: &AccountInfo,
    mint: &AccountInfo,
    p: &Programs,
) -> ProgramResult {
    token::create_ata_idempotent(payer, ata, wallet, mint, p.system, p.token, p.ata, &[])
}

/// Debit a program-owned account (never below its rent-exempt minimum), credit `dst`.
pub fn move_lamports(src: &AccountInfo, dst: &AccountInfo, lamports: u64) -> ProgramResult {
    if lamports == 0 {
        return Ok(());
    }
    let keep = rent_exempt(src.data_len())?;
    let left = src.lamports().checked_sub(lamports).ok_or(Error::InsufficientLiquidity)?;
    if left < keep {
        return Err(Error::InsufficientLiquidity.into());
    }
    let credited = dst.lamports().checked_add(lamports).ok_or(Error::MathOverflow)?;
    src.set_lamports(left);
    dst.set_lamports(credited);
    Ok(())
}

/// The part of a trade's `fee` that `to` (the fee recipient) is paid: all of it, or none while
/// crediting it would leave `to` below its rent-exempt minimum (an address at 0 lamports; the
/// runtime would fail the trade with InsufficientFundsForRent). The trader keeps a fee not paid,
/// so the trade lands at its quote or better; the first fee large enough funds the recipient.
pub fn fee_paid(to: &AccountInfo, fee: u64) -> Result<u64, ProgramError> {
    Ok(if to.lamports().saturating_add(fee) < rent_exempt(to.data_len())? { 0 } else { fee })
}
