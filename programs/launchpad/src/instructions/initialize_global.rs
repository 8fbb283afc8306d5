//! initialize_global: create the Global config; only the program's upgrade authority may.

use crate::checks::{find_pda, require_key, require_signer, require_writable};
use crate::cpi::{create_account, rent_exempt, NewAccount};
use crate::error::Error;
use crate::instructions::set_params::GlobalParams;
use crate::instructions::{unpack, NOT_ENOUGH_ACCOUNTS};
use crate::sdk::log::msg;
use crate::sdk::pubkey::{pk_eq, BPF_LOADER_UPGRADEABLE_ID, SYSTEM_PROGRAM_ID};
use crate::sdk::{AccountInfo, ProgramResult, Pubkey};
use crate::state::{global, Account, Global};

pub struct Accounts<'a> {
    pub admin: &'a AccountInfo,
    pub global: &'a AccountInfo,
    pub system_program: &'a AccountInfo,
    pub program_data: &'a AccountInfo,
}

impl<'a> Accounts<'a> {
    #[inline(always)]
    pub fn unpack(accounts: &'a [AccountInfo]) -> Result<Self, crate::sdk::ProgramError> {
        let [admin, global, system_program, program_data, ..] = accounts else {
            return Err(NOT_ENOUGH_ACCOUNTS);
        };
        Ok(Accounts { admin, global, system_program, program_data })
    }
}

pub struct Args<'a> {
    pub params: GlobalParams<'a>,
    pub initial_virtual_token_reserves: u64,
    pub initial_virtual_sol_reserves: u64,
    pub initial_real_token_reserves: u64,
    pub token_total_supply: u64,
}

impl<'a> Args<'a> {
    #[inline(always)]
    pub fn unpack(data: &'a [u8]) -> Result<Self, crate::sdk::ProgramError> {
        unpack(data, |r| {
            Ok(Args {
                params: GlobalParams::read(r)?,
                initial_virtual_token_reserves: r.u64()?,
                initial_virtual_sol_reserves: r.u64()?,
                initial_real_token_reserves: r.u64()?,
                token_total_supply: r.u64()?,
            })
        })
    }
}

/// The ProgramData account of this program (the loader's PDA of the program id) must name
/// `admin` as the upgrade authority: whoever deployed the program, not whoever is first after
/// the deploy, becomes the admin. ProgramData is bincode's UpgradeableLoaderState::ProgramData:
/// u32 tag 3, u64 slot, Option<Pubkey> (u8 tag 1, then the 32 bytes).
fn require_upgrade_authority(program_id: &Pubkey, program_data: &AccountInfo, admin: &AccountInfo) -> ProgramResult {
    let (key, _) = find_pda(&[program_id], &BPF_LOADER_UPGRADEABLE_ID)?;
    if !pk_eq(program_data.key(), &key) || !program_data.is_owned_by(&BPF_LOADER_UPGRADEABLE_ID) {
        return Err(Error::InvalidAccount.into());
    }
    let d = program_data.data();
    if d.len() < 45 || d[..4] != [3, 0, 0, 0] {
        return Err(Error::InvalidAccount.into());
    }
    if d[12] != 1 || d[13..45] != *admin.key() {
        return Err(Error::Unauthorized.into());
    }
    Ok(())
}

pub fn process(program_id: &Pubkey, accounts: &[AccountInfo], data: &[u8]) -> ProgramResult {
    msg(b"Instruction: initialize_global");
    let args = Args::unpack(data)?;
    let a = Accounts::unpack(accounts)?;
    require_signer(a.admin)?;
    let (key, bump) = find_pda(&[global::SEED], program_id)?;
    require_key(a.global, &key)?;
    require_upgrade_authority(program_id, a.program_data, a.admin)?;
    if a.global.is_owned_by(program_id) && a.global.data_len() > 0 {
        return Err(Error::AlreadyInitialized.into());
    }
    args.params.validate()?;
    // irt < supply: at completion the vault keeps supply - irt tokens, migrate's pool base,
    // which the pool refuses at 0 (a completed curve would be stuck: no migrate, no sell)
    let (ivt, ivs, irt, supply) = (
        args.initial_virtual_token_reserves,
        args.initial_virtual_sol_reserves,
        args.initial_real_token_reserves,
        args.token_total_supply,
    );
    if !(0 < irt && irt < ivt && irt < supply && ivs > 0) {
        return Err(Error::InvalidInput.into());
    }
    require_writable(a.global)?;
    require_key(a.system_program, &SYSTEM_PROGRAM_ID)?;
    let b = [bump];
    create_account(&NewAccount {
        payer: a.admin,
        new: a.global,
        system: a.system_program,
        space: global::SIZE,
        lamports: rent_exempt(global::SIZE)?,
        owner: program_id,
        seeds: &[global::SEED, &b],
    })?;
    let g = Global::init(a.global)?;
    g.bump = bump;
    g.admin = *a.admin.key();
    args.params.write(g);
    g.set_initial_virtual_token_reserves(ivt);
    g.set_initial_virtual_sol_reserves(ivs);
    g.set_initial_real_token_reserves(irt);
    g.set_token_total_supply(supply);
    Ok(())
}
