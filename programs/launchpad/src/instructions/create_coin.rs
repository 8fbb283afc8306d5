//! create_coin: a Token-2022 mint whose TokenMetadata is the coin's (update authority: the
//! coin's governance PDA), its bonding curve holding the whole supply in its vault, and its
//! Governance.

use crate::checks::{
    ata_address, find_pda, load_global, require_key, require_programs, require_signer, require_writable,
};
use crate::cpi::{create_account, create_ata, rent_exempt, NewAccount, Programs, TOKEN_DECIMALS};
use crate::error::Error;
use crate::instructions::{unpack, NOT_ENOUGH_ACCOUNTS};
use crate::metadata::{check_name, check_symbol, check_uri, NAME_MAX, SYMBOL_MAX, URI_MAX};
use crate::sdk::log::msg;
use crate::sdk::pubkey::{SYSTEM_PROGRAM_ID, TOKEN_2022_PROGRAM_ID};
use crate::sdk::{sysvar, token, AccountInfo, ProgramError, ProgramResult, Pubkey};
use crate::state::{
    self, digests_from, Account, BondingCurve, Digests, Global, Governance, ATA_SIZE, MINT_METADATA_FIXED,
    MINT_WITH_POINTER_SIZE,
};
use core::mem::size_of;

pub struct Accounts<'a> {
    pub creator: &'a AccountInfo,
    pub mint: &'a AccountInfo,
    pub global: &'a AccountInfo,
    pub bonding_curve: &'a AccountInfo,
    pub curve_vault: &'a AccountInfo,
    /// the mint again (it holds its own TokenMetadata)
    pub metadata: &'a AccountInfo,
    pub programs: Programs<'a>,
    pub governance: &'a AccountInfo,
}

impl<'a> Accounts<'a> {
    #[inline(always)]
    pub fn unpack(accounts: &'a [AccountInfo]) -> Result<Self, ProgramError> {
        let [creator, mint, global, bonding_curve, curve_vault, metadata, system, token, ata, governance, ..] =
            accounts
        else {
            return Err(NOT_ENOUGH_ACCOUNTS);
        };
        Ok(Accounts {
            creator,
            mint,
            global,
            bonding_curve,
            curve_vault,
            metadata,
            programs: Programs { system, token, ata },
            governance,
        })
    }
}

pub struct Args<'a> {
    pub name: &'a str,
    pub symbol: &'a str,
    pub uri: &'a str,
    /// the uri-borne fields' digests (image .. telegram)
    pub digests: &'a Digests,
}

impl<'a> Args<'a> {
    #[inline(always)]
    pub fn unpack(data: &'a [u8]) -> Result<Self, ProgramError> {
        unpack(data, |r| {
            Ok(Args {
                name: r.str(usize::MAX)?,
                symbol: r.str(usize::MAX)?,
                uri: r.str(usize::MAX)?,
                digests: digests_from(r.bytes(size_of::<Digests>())?).ok_or(ProgramError::InvalidInstructionData)?,
            })
        })
    }
}

/// Rent the mint is funded with at creation: its size with the longest name, symbol and uri,
/// so later metadata updates never need more lamports.
pub fn mint_rent() -> Result<u64, ProgramError> {
    rent_exempt(MINT_METADATA_FIXED + NAME_MAX + SYMBOL_MAX + URI_MAX)
}

/// The Token-2022 mint with MetadataPointer (to itself, no authority), the curve PDA as mint
/// authority, and TokenMetadata (update authority: the governance PDA).
fn create_mint(a: &Accounts, args: &Args, curve_seeds: &[&[u8]]) -> ProgramResult {
    let (mint, p) = (a.mint, &a.programs);
    create_account(&NewAccount {
        payer: a.creator,
        new: mint,
        system: p.system,
        space: MINT_WITH_POINTER_SIZE,
        lamports: mint_rent()?,
        owner: &TOKEN_2022_PROGRAM_ID,
        seeds: &[],
    })?;
    token::initialize_metadata_pointer(mint, p.token, &[0; 32], mint.key())?;
    token::initialize_mint2(mint, p.token, TOKEN_DECIMALS, a.bonding_curve.key(), None)?;
    token::metadata_initialize(
        mint,
        a.governance,
        a.bonding_curve,
        p.token,
        args.name.as_bytes(),
        args.symbol.as_bytes(),
        args.uri.as_bytes(),
        &[curve_seeds],
    )
}

pub fn process(program_id: &Pubkey, accounts: &[AccountInfo], data: &[u8]) -> ProgramResult {
    msg(b"Instruction: create_coin");
    let args = Args::unpack(data)?;
    let a = Accounts::unpack(accounts)?;
    let (creator, mint, curve, gov) = (a.creator, a.mint, a.bonding_curve, a.governance);
    check_name(args.name)?;
    check_symbol(args.symbol)?;
    check_uri(args.uri)?;
    require_signer(creator)?;
    require_signer(mint)?;
    let global = load_global(program_id, a.global)?;
    let (curve_key, curve_bump) = find_pda(&[state::curve::SEED, mint.key()], program_id)?;
    require_key(curve, &curve_key)?;
    require_key(a.metadata, mint.key())?;
    let vault_key = ata_address(&curve_key, mint.key())?;
    require_key(a.curve_vault, &vault_key)?;
    let (gov_key, gov_bump) = find_pda(&[state::gov::SEED, mint.key()], program_id)?;
    require_key(gov, &gov_key)?;
    // lamports already at the mint's address (anyone may send them) are kept, as Anchor's `init`
    // does: create_account tops them up, allocates and assigns
    if !mint.is_owned_by(&SYSTEM_PROGRAM_ID) || mint.data_len() != 0 || curve.data_len() != 0 || gov.data_len() != 0 {
        return Err(Error::AlreadyInitialized.into());
    }
    let funded = curve.lamports().saturating_add(gov.lamports()).saturating_add(mint.lamports().min(mint_rent()?));
    let need =
        (mint_rent()? + rent_exempt(state::curve::SIZE)? + rent_exempt(ATA_SIZE)? + rent_exempt(state::gov::SIZE)?)
            .saturating_sub(funded);
    if creator.lamports() < need {
        return Err(Error::InsufficientSol.into());
    }
    require_writable(curve)?;
    require_writable(gov)?;
    let p = &a.programs;
    require_programs(p.system, p.token, p.ata)?;
    let cb = [curve_bump];
    let curve_seeds: [&[u8]; 3] = [state::curve::SEED, mint.key(), &cb];
    create_mint(&a, &args, &curve_seeds)?;
    create_account(&NewAccount {
        payer: creator,
        new: curve,
        system: p.system,
        space: state::curve::SIZE,
        lamports: rent_exempt(state::curve::SIZE)?,
        owner: program_id,
        seeds: &curve_seeds,
    })?;
    create_ata(creator, a.curve_vault, curve, mint, p)?;
    let supply = global.token_total_supply();
    token::mint_to(mint, a.curve_vault, curve, p.token, supply, &[&curve_seeds])?;
    token::set_authority(mint, curve, p.token, 0, None, &[&curve_seeds])?;

    let clock = sysvar::clock()?;
    let c = BondingCurve::init(curve)?;
    c.mint = *mint.key();
    c.creator = *creator.key();
    c.set_virtual_token_reserves(global.initial_virtual_token_reserves());
    c.set_virtual_sol_reserves(global.initial_virtual_sol_reserves());
    c.set_real_token_reserves(global.initial_real_token_reserves());
    c.set_token_total_supply(supply);
    c.bump = curve_bump;
    c.vault = vault_key;
    c.set_created_slot(clock.slot);
    c.set_created_at(clock.unix_timestamp);
    create_governance(program_id, &a, global, gov_bump)?;
    Governance::view_mut(gov)?.digests = *args.digests;
    Ok(())
}

/// The coin's Governance (the creator pays) with Global's governance params.
fn create_governance(program_id: &Pubkey, a: &Accounts, global: &Global, bump: u8) -> ProgramResult {
    let b = [bump];
    create_account(&NewAccount {
        payer: a.creator,
        new: a.governance,
        system: a.programs.system,
        space: state::gov::SIZE,
        lamports: rent_exempt(state::gov::SIZE)?,
        owner: program_id,
        seeds: &[state::gov::SEED, a.mint.key(), &b],
    })?;
    let params = global.governance_params();
    let now = sysvar::clock()?.unix_timestamp;
    let until = now.checked_add(params.mutability_window_seconds()).ok_or(Error::MathOverflow)?;
    let g = Governance::init(a.governance)?;
    g.mint = *a.mint.key();
    g.creator = *a.creator.key();
    g.set_total_supply(global.token_total_supply());
    g.set_created_at(now);
    g.set_mutable_until(until);
    g.set_rules(params);
    g.bump = bump;
    Ok(())
}
