//! migrate: a complete curve's tokens and lamports open its pool in the pool program
//! (initialize_pool, signed by the curve PDA) at the curve's final price.

use crate::checks::{ata_address, find_pda, load_curve, load_global, require_key, require_programs, require_signer};
use crate::checks::{require_writable, token_balance};
use crate::cpi::{move_lamports, rent_exempt, Programs};
use crate::curve::mul_div_floor;
use crate::error::Error;
use crate::instructions::{no_args, NOT_ENOUGH_ACCOUNTS};
use crate::sdk::cpi::{invoke_signed, AccountMeta, Instruction};
use crate::sdk::ids::POOL_PROGRAM_ID;
use crate::sdk::log::{log_u64s, msg};
use crate::sdk::{sysvar, AccountInfo, ProgramError, ProgramResult, Pubkey};
use crate::state::{self, Account, BondingCurve, ATA_SIZE};

/// The pool program's initialize_pool discriminator (idl/pool.json)
const POOL_INITIALIZE: [u8; 8] = [95, 180, 10, 172, 84, 174, 232, 40];

pub struct Accounts<'a> {
    pub payer: &'a AccountInfo,
    pub global: &'a AccountInfo,
    pub mint: &'a AccountInfo,
    pub bonding_curve: &'a AccountInfo,
    pub curve_vault: &'a AccountInfo,
    pub pool: &'a AccountInfo,
    pub pool_base_vault: &'a AccountInfo,
    pub pool_program: &'a AccountInfo,
    pub programs: Programs<'a>,
}

impl<'a> Accounts<'a> {
    #[inline(always)]
    pub fn unpack(accounts: &'a [AccountInfo]) -> Result<Self, ProgramError> {
        let [payer, global, mint, bonding_curve, curve_vault, pool, pool_base_vault, pool_program, system, token, ata, ..] =
            accounts
        else {
            return Err(NOT_ENOUGH_ACCOUNTS);
        };
        Ok(Accounts {
            payer,
            global,
            mint,
            bonding_curve,
            curve_vault,
            pool,
            pool_base_vault,
            pool_program,
            programs: Programs { system, token, ata },
        })
    }
}

pub fn process(program_id: &Pubkey, accounts: &[AccountInfo], data: &[u8]) -> ProgramResult {
    msg(b"Instruction: migrate");
    no_args(data)?;
    let a = Accounts::unpack(accounts)?;
    let (mint, curve_acc) = (a.mint, a.bonding_curve);
    require_signer(a.payer)?;
    let global = load_global(program_id, a.global)?;
    let curve = load_curve(program_id, curve_acc, mint.key())?;
    require_key(mint, &curve.mint)?;
    require_key(a.curve_vault, &ata_address(curve_acc.key(), mint.key())?)?;
    require_key(a.pool_program, &POOL_PROGRAM_ID)?;
    let (pool_key, _) = find_pda(&[state::pool::SEED, mint.key()], &POOL_PROGRAM_ID)?;
    require_key(a.pool, &pool_key)?;
    require_key(a.pool_base_vault, &ata_address(&pool_key, mint.key())?)?;
    if curve.migrated() {
        return Err(Error::AlreadyMigrated.into());
    }
    if !curve.complete() {
        return Err(Error::CurveNotComplete.into());
    }
    if a.payer.lamports() < rent_exempt(state::pool::SIZE)? + rent_exempt(ATA_SIZE)? {
        return Err(Error::InsufficientSol.into());
    }
    require_writable(curve_acc)?;
    let p = &a.programs;
    require_programs(p.system, p.token, p.ata)?;
    let Some(vault_balance) = token_balance(a.curve_vault, mint.key(), curve_acc.key()) else {
        return Err(Error::InvalidAccount.into());
    };
    // the pool's base is the curve's own reserve (supply less the tokens sold), not the vault's
    // balance: tokens sent to the vault stay there and cannot move the pool's opening price
    let sold =
        global.initial_real_token_reserves().checked_sub(curve.real_token_reserves()).ok_or(Error::MathOverflow)?;
    let base = curve.token_total_supply().checked_sub(sold).ok_or(Error::MathOverflow)?;
    if vault_balance < base {
        return Err(Error::InvalidAccount.into());
    }
    let quote = curve.real_sol_reserves();
    // the pool opens at the curve's final price, vS / vT, to within 1 bps (the defaults: 0.68 bps)
    let at_curve_price = mul_div_floor(quote, curve.virtual_token_reserves(), curve.virtual_sol_reserves())?;
    if base.abs_diff(at_curve_price) > at_curve_price / 10_000 {
        return Err(Error::InvalidInput.into());
    }
    let open_time =
        sysvar::clock()?.unix_timestamp.checked_add(global.pool_open_delay_seconds()).ok_or(Error::MathOverflow)?;
    let mut data = [0u8; 8 + 8 + 8 + 8 + 2 + 32 + 32];
    data[..8].copy_from_slice(&POOL_INITIALIZE);
    data[8..16].copy_from_slice(&base.to_le_bytes());
    data[16..24].copy_from_slice(&quote.to_le_bytes());
    data[24..32].copy_from_slice(&open_time.to_le_bytes());
    data[32..34].copy_from_slice(&global.protocol_fee_bps().to_le_bytes());
    data[34..66].copy_from_slice(&global.fee_recipient);
    data[66..98].copy_from_slice(&curve.creator);
    let bump = [curve.bump];
    let seeds: [&[u8]; 3] = [state::curve::SEED, mint.key(), &bump];
    let metas = [
        AccountMeta::writable(a.payer.key(), true),
        AccountMeta::readonly(curve_acc.key(), true),
        AccountMeta::readonly(mint.key(), false),
        AccountMeta::writable(a.pool.key(), false),
        AccountMeta::writable(a.pool_base_vault.key(), false),
        AccountMeta::writable(a.curve_vault.key(), false),
        AccountMeta::readonly(p.system.key(), false),
        AccountMeta::readonly(p.token.key(), false),
        AccountMeta::readonly(p.ata.key(), false),
    ];
    let infos =
        [a.payer, curve_acc, mint, a.pool, a.pool_base_vault, a.curve_vault, p.system, p.token, p.ata, a.pool_program];
    invoke_signed(&Instruction { program_id: &POOL_PROGRAM_ID, accounts: &metas, data: &data }, &infos, &[&seeds])?;
    move_lamports(curve_acc, a.pool, quote)?;
    let c = BondingCurve::view_mut(curve_acc)?;
    c.set_real_sol_reserves(0);
    c.set_real_token_reserves(0);
    c.set_migrated(true);
    log_u64s(base, quote, open_time as u64, 0, 0);
    Ok(())
}
