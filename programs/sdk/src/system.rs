//! System program CPIs: create_account (with the pre-funded-address case), transfer.
use super::account::AccountInfo;
use super::cpi::{invoke_signed, AccountMeta, Instruction};
use super::error::ProgramResult;
use super::pubkey::{Pubkey, SYSTEM_PROGRAM_ID};

#[inline(always)]
pub fn create_account(
    payer: &AccountInfo,
    new: &AccountInfo,
    system: &AccountInfo,
    lamports: u64,
    space: u64,
    owner: &Pubkey,
    signers: &[&[&[u8]]],
) -> ProgramResult {
    let mut data = [0u8; 52];
    data[4..12].copy_from_slice(&lamports.to_le_bytes());
    data[12..20].copy_from_slice(&space.to_le_bytes());
    data[20..52].copy_from_slice(owner);
    let metas = [AccountMeta::writable(payer.key(), true), AccountMeta::writable(new.key(), true)];
    invoke_signed(
        &Instruction { program_id: &SYSTEM_PROGRAM_ID, accounts: &metas, data: &data },
        &[payer, new, system],
        signers,
    )
}

#[inline(always)]
pub fn transfer(
    from: &AccountInfo,
    to: &AccountInfo,
    system: &AccountInfo,
    lamports: u64,
    signers: &[&[&[u8]]],
) -> ProgramResult {
    let mut data = [0u8; 12];
    data[0] = 2;
    data[4..12].copy_from_slice(&lamports.to_le_bytes());
    let metas = [AccountMeta::writable(from.key(), true), AccountMeta::writable(to.key(), false)];
    invoke_signed(
        &Instruction { program_id: &SYSTEM_PROGRAM_ID, accounts: &metas, data: &data },
        &[from, to, system],
        signers,
    )
}

#[inline(always)]
pub fn allocate(account: &AccountInfo, system: &AccountInfo, space: u64, signers: &[&[&[u8]]]) -> ProgramResult {
    let mut data = [0u8; 12];
    data[0] = 8;
    data[4..12].copy_from_slice(&space.to_le_bytes());
    let metas = [AccountMeta::writable(account.key(), true)];
    invoke_signed(
        &Instruction { program_id: &SYSTEM_PROGRAM_ID, accounts: &metas, data: &data },
        &[account, system],
        signers,
    )
}

#[inline(always)]
pub fn assign(account: &AccountInfo, system: &AccountInfo, owner: &Pubkey, signers: &[&[&[u8]]]) -> ProgramResult {
    let mut data = [0u8; 36];
    data[0] = 1;
    data[4..36].copy_from_slice(owner);
    let metas = [AccountMeta::writable(account.key(), true)];
    invoke_signed(
        &Instruction { program_id: &SYSTEM_PROGRAM_ID, accounts: &metas, data: &data },
        &[account, system],
        signers,
    )
}

/// Create `new` (a PDA when `signers` holds its seeds) with `space` bytes owned by `owner`,
/// rent-exempt. An address someone pre-funded (which makes CreateAccount fail) is topped
/// up, allocated and assigned instead.
#[inline(always)]
pub fn create_pda_account(
    payer: &AccountInfo,
    new: &AccountInfo,
    system: &AccountInfo,
    space: u64,
    owner: &Pubkey,
    signers: &[&[&[u8]]],
) -> ProgramResult {
    let need = super::sysvar::rent_exempt_minimum(space)?;
    create_funded_account(payer, new, system, need, space, owner, signers)
}

/// `create_pda_account` with the lamports given (at least the rent-exempt minimum of `space`;
/// more for an account that will grow, such as a Token-2022 mint whose metadata is set later):
/// a fresh address by CreateAccount; a pre-funded one topped up to `lamports`, then allocated
/// and assigned.
#[inline(always)]
pub fn create_funded_account(
    payer: &AccountInfo,
    new: &AccountInfo,
    system: &AccountInfo,
    lamports: u64,
    space: u64,
    owner: &Pubkey,
    signers: &[&[&[u8]]],
) -> ProgramResult {
    if new.lamports() == 0 {
        return create_account(payer, new, system, lamports, space, owner, signers);
    }
    if new.lamports() < lamports {
        transfer(payer, new, system, lamports - new.lamports(), &[])?;
    }
    allocate(new, system, space, signers)?;
    assign(new, system, owner, signers)
}
