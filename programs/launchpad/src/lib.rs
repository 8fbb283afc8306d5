//! The launchpad program (idl/launchpad.json): coin creation on a Token-2022 mint
//! with its own TokenMetadata, the bonding curve, migration into the pool
//! program, and metadata governance. The same accounts, arguments, errors and
//! state as the Python reference it replaced (devstack/chain/programs/ in the git history; docs/onchain.md).
#![no_std]
#![allow(clippy::too_many_arguments)]

#[path = "../../sdk/src/lib.rs"]
#[macro_use]
#[allow(dead_code)]
mod sdk;

#[macro_use]
mod rt;
mod args;
mod err;
mod gov;
mod math;
mod state;
mod trade;

use err::{Error, Res};
use rt::{Acc, CSeed, Pubkey};

pub const SYSTEM_PROGRAM: Pubkey = [0; 32];
/// TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb
pub const TOKEN_2022: Pubkey = [
    6, 221, 246, 225, 238, 117, 143, 222, 24, 66, 93, 188, 228, 108, 205, 218, 182, 26, 252, 77, 131, 185, 13, 39, 254,
    189, 249, 40, 216, 161, 139, 252,
];
/// ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL
pub const ATA_PROGRAM: Pubkey = [
    140, 151, 37, 143, 78, 36, 137, 241, 187, 61, 16, 41, 20, 142, 13, 131, 11, 90, 19, 153, 218, 255, 16, 132, 4, 142,
    123, 216, 219, 233, 248, 89,
];
/// 3rqyi8EBdPLANFc9MA5U6aPKHuZoKxmm4voFexqu1R7f (idl/pool.json address)
pub const POOL_PROGRAM: Pubkey = [
    42, 124, 54, 122, 132, 206, 240, 66, 92, 17, 25, 248, 146, 117, 254, 98, 189, 174, 71, 17, 116, 20, 219, 226, 249,
    45, 9, 150, 22, 39, 116, 98,
];
/// BPFLoaderUpgradeab1e11111111111111111111111: owns this program's ProgramData
pub const LOADER_UPGRADEABLE: Pubkey = [
    2, 168, 246, 145, 78, 136, 161, 176, 226, 16, 21, 62, 247, 99, 174, 43, 0, 194, 185, 61, 22, 193, 36, 210, 192, 83,
    122, 16, 4, 128, 0, 0,
];
/// AdgiwJYTCUnNrEKiLFZpZmzWaECUQ7vj6RWi4owGAxoF: the Global PDA ([b"global"], bump 255) of this
/// program at its IDL address, so a trade finds it by a compare
pub const GLOBAL_AT_IDL_ADDRESS: Pubkey = [
    143, 31, 1, 166, 130, 232, 117, 184, 98, 197, 102, 71, 82, 163, 37, 127, 107, 181, 14, 161, 224, 91, 220, 108, 40,
    250, 199, 91, 92, 105, 126, 78,
];
pub const TOKEN_DECIMALS: u8 = 6;
pub const MAX_FEE_BPS: u16 = 1000;

pub const GLOBAL_SEED: &[u8] = b"global";
pub const CURVE_SEED: &[u8] = b"bonding-curve";
pub const POOL_SEED: &[u8] = b"pool";
pub const GOVERNANCE_SEED: &[u8] = b"governance";
pub const PROPOSAL_SEED: &[u8] = b"proposal";
pub const VOTE_SEED: &[u8] = b"vote";

const fn disc(b: [u8; 8]) -> u64 {
    u64::from_le_bytes(b)
}

const IX_INITIALIZE_GLOBAL: u64 = disc([47, 225, 15, 112, 86, 51, 190, 231]);
const IX_SET_PARAMS: u64 = disc([27, 234, 178, 52, 147, 2, 187, 141]);
const IX_SET_GOVERNANCE_PARAMS: u64 = disc([175, 187, 3, 73, 8, 251, 67, 178]);
const IX_CREATE_COIN: u64 = disc([208, 85, 34, 37, 235, 182, 111, 78]);
const IX_BUY: u64 = disc([102, 6, 61, 18, 1, 218, 235, 234]);
const IX_BUY_EXACT_OUT: u64 = disc([24, 211, 116, 40, 105, 3, 153, 56]);
const IX_SELL: u64 = disc([51, 230, 133, 164, 1, 127, 131, 173]);
const IX_MIGRATE: u64 = disc([155, 234, 231, 146, 236, 158, 162, 30]);
const IX_CREATE_PROPOSAL: u64 = disc([132, 116, 68, 174, 216, 160, 198, 22]);
const IX_CAST_VOTE: u64 = disc([20, 212, 15, 189, 69, 180, 69, 151]);
const IX_CANCEL_VOTE: u64 = disc([56, 40, 243, 75, 217, 20, 73, 43]);
const IX_WITHDRAW_VOTE: u64 = disc([243, 255, 70, 200, 3, 242, 103, 137]);
const IX_SETTLE_PROPOSAL: u64 = disc([118, 224, 98, 222, 158, 20, 205, 190]);
const IX_FINALIZE_EXPIRED: u64 = disc([21, 150, 28, 185, 252, 241, 109, 117]);
const IX_WITHDRAW_BOND: u64 = disc([222, 199, 141, 31, 188, 93, 155, 40]);
const IX_ACCEPT_ADMIN: u64 = disc([112, 42, 45, 90, 116, 181, 13, 170]);

entrypoint!(entry);

fn entry(program_id: &Pubkey, accounts: &[Acc], data: &[u8]) -> sdk::ProgramResult {
    process(&rt::Input { accounts, data, program_id }).map_err(Error::to_sdk)
}

fn process(inp: &rt::Input) -> Res<()> {
    if inp.data.len() < 8 {
        return Err(Error::InvalidInput);
    }
    let d = &inp.data[..8];
    let id = u64::from_le_bytes([d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]]);
    let a = args::Reader::new(&inp.data[8..]);
    match id {
        IX_INITIALIZE_GLOBAL => trade::initialize_global(inp, a),
        IX_SET_PARAMS => trade::set_params(inp, a),
        IX_SET_GOVERNANCE_PARAMS => trade::set_governance_params(inp, a),
        IX_CREATE_COIN => trade::create_coin(inp, a),
        IX_BUY => trade::buy(inp, a, false),
        IX_BUY_EXACT_OUT => trade::buy(inp, a, true),
        IX_SELL => trade::sell(inp, a),
        IX_MIGRATE => trade::migrate(inp, a),
        IX_CREATE_PROPOSAL => gov::create_proposal(inp, a),
        IX_CAST_VOTE => gov::cast_vote(inp, a),
        IX_CANCEL_VOTE => gov::cancel_vote(inp, a),
        IX_WITHDRAW_VOTE => gov::withdraw_vote(inp, a),
        IX_SETTLE_PROPOSAL => gov::settle_proposal(inp, a),
        IX_FINALIZE_EXPIRED => gov::finalize_expired(inp, a),
        IX_WITHDRAW_BOND => gov::withdraw_bond(inp, a),
        IX_ACCEPT_ADMIN => trade::accept_admin(inp, a),
        _ => Err(Error::InvalidInput),
    }
}

// ----------------------------------------------------------------- account checks

pub fn require_signer(a: &Acc) -> Res<()> {
    if !a.is_signer() {
        return Err(Error::MissingRequiredSignature);
    }
    Ok(())
}

pub fn require_key(a: &Acc, k: &Pubkey) -> Res<()> {
    if !rt::key_eq(a.key(), k) {
        return Err(Error::InvalidAccount);
    }
    Ok(())
}

pub fn require_writable(a: &Acc) -> Res<()> {
    if !a.is_writable() {
        return Err(Error::InvalidAccount);
    }
    Ok(())
}

/// The account is the program `id`.
pub fn require_program(a: &Acc, id: &Pubkey) -> Res<()> {
    require_key(a, id)
}

/// `a` is the PDA of `seeds` with `bump`, its stored bump: one create_program_address, no
/// search. The bump is canonical because only this program writes it, at the creation of the
/// account, from a search; a tampered bump gives another address and is refused with `err`.
#[inline(always)]
pub fn require_pda(a: &Acc, seeds: &[CSeed], bump: u8, program_id: &Pubkey, err: Error) -> Res<()> {
    let b = [bump];
    let mut all: [CSeed; 4] = [&[]; 4];
    if seeds.len() >= all.len() {
        return Err(err);
    }
    all[..seeds.len()].copy_from_slice(seeds);
    all[seeds.len()] = &b;
    match sdk::pubkey::create_program_address(&all[..seeds.len() + 1], program_id) {
        Ok(k) if sdk::pubkey::pk_eq(&k, a.key()) => Ok(()),
        _ => Err(err),
    }
}

/// A trader's (or voter's) token account, checked without deriving its address: when
/// Token-2022 owns it, it must be a token account of `mint` owned by `owner` (else
/// InvalidAccount). Any other account counts as no token account yet: a buy creates the ATA
/// with CreateIdempotent, whose ATA program checks the address itself.
pub fn require_user_token_account(a: &Acc, mint: &Pubkey, owner: &Pubkey) -> Res<()> {
    if !rt::key_eq(a.owner(), &TOKEN_2022) {
        return Ok(());
    }
    let d = a.data();
    if d.len() < state::TOKEN_ACCOUNT_BASE
        || !rt::key_eq(state::key_at(d, 0), mint)
        || !rt::key_eq(state::key_at(d, 32), owner)
    {
        return Err(Error::InvalidAccount);
    }
    Ok(())
}

/// One of this program's accounts of type `disc` (owner, size, discriminator).
pub fn is_ours(a: &Acc, program_id: &Pubkey, disc: &[u8; 8], size: usize) -> bool {
    rt::key_eq(a.owner(), program_id) && a.data_len() >= size && rt::bytes_eq(&a.data()[..8], disc)
}

/// The standard ATA of `wallet` for `mint` under Token-2022.
pub fn ata_address(wallet: &Pubkey, mint: &Pubkey) -> Pubkey {
    rt::find_pda(&[rt::seed(wallet), rt::seed(&TOKEN_2022), rt::seed(mint)], &ATA_PROGRAM).0
}

/// An initialized Token-2022 token account of `mint` owned by `owner`.
pub fn is_token_account(a: &Acc, mint: &Pubkey, owner: &Pubkey) -> bool {
    if !rt::key_eq(a.owner(), &TOKEN_2022) || a.data_len() < state::TOKEN_ACCOUNT_BASE {
        return false;
    }
    let d = a.data();
    if d.len() > state::TOKEN_ACCOUNT_BASE && d[state::TOKEN_ACCOUNT_BASE] != state::ACCOUNT_TYPE_ACCOUNT {
        return false;
    }
    rt::key_eq(state::key_at(d, 0), mint) && rt::key_eq(state::key_at(d, 32), owner) && d[108] != 0
}

/// Balance of a token account already checked with is_token_account.
pub fn token_amount(a: &Acc) -> u64 {
    state::rd_u64(a.data(), 64)
}

/// Debit a program-owned account (never below its rent-exempt minimum), credit `dst`.
pub fn move_lamports(src: &Acc, dst: &Acc, lamports: u64) -> Res<()> {
    if lamports == 0 {
        return Ok(());
    }
    let keep = rt::rent_exempt(src.data_len());
    let left = src.lamports().checked_sub(lamports).ok_or(Error::InsufficientLiquidity)?;
    if left < keep {
        return Err(Error::InsufficientLiquidity);
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
pub fn fee_paid(to: &Acc, fee: u64) -> u64 {
    if to.lamports().saturating_add(fee) < rt::rent_exempt(to.data_len()) {
        0
    } else {
        fee
    }
}

// ----------------------------------------------------------------- CPI helpers

/// A new account: `payer` funds `new` (a PDA signed by `seeds`, or a signer).
pub struct NewAccount<'a> {
    pub payer: Acc,
    pub new: Acc,
    pub space: usize,
    pub lamports: u64,
    pub owner: &'a Pubkey,
    pub seeds: Option<&'a [CSeed<'a>]>,
    pub system: Acc,
}

/// Create `n.new` (what the reference's create_account does: a fresh address
/// by CreateAccount; a pre-funded one by top-up, Allocate and Assign).
pub fn create_account(n: &NewAccount) -> Res<()> {
    let accs = [n.payer, n.new, n.system];
    if n.new.lamports() == 0 {
        let mut data = [0u8; 52];
        data[4..12].copy_from_slice(&n.lamports.to_le_bytes());
        data[12..20].copy_from_slice(&(n.space as u64).to_le_bytes());
        data[20..52].copy_from_slice(n.owner);
        let metas = [rt::meta(&n.payer, true, true), rt::meta(&n.new, true, true)];
        return invoke!(&SYSTEM_PROGRAM, &metas, &data, &accs, n.seeds);
    }
    if n.new.lamports() < n.lamports {
        system_transfer(&n.payer, &n.new, n.lamports - n.new.lamports(), &n.system)?;
    }
    let mut alloc = [0u8; 12];
    alloc[0] = 8;
    alloc[4..12].copy_from_slice(&(n.space as u64).to_le_bytes());
    let metas = [rt::meta(&n.new, true, true)];
    invoke!(&SYSTEM_PROGRAM, &metas, &alloc, &accs, n.seeds)?;
    let mut assign = [0u8; 36];
    assign[0] = 1;
    assign[4..36].copy_from_slice(n.owner);
    invoke!(&SYSTEM_PROGRAM, &metas, &assign, &accs, n.seeds)
}

pub fn system_transfer(from: &Acc, to: &Acc, lamports: u64, system: &Acc) -> Res<()> {
    if lamports == 0 {
        return Ok(());
    }
    let mut data = [0u8; 12];
    data[0] = 2;
    data[4..12].copy_from_slice(&lamports.to_le_bytes());
    let metas = [rt::meta(from, true, true), rt::meta(to, true, false)];
    invoke!(&SYSTEM_PROGRAM, &metas, &data, &[*from, *to, *system], None)
}

/// A Token-2022 TransferChecked of `amount` from `src` to `dst`, by `authority`
/// (a PDA signing with `seeds`, or a signer).
pub struct Transfer<'a> {
    pub src: Acc,
    pub mint: Acc,
    pub dst: Acc,
    pub authority: Acc,
    pub token: Acc,
    pub amount: u64,
    pub seeds: Option<&'a [CSeed<'a>]>,
}

pub fn transfer_checked(t: &Transfer) -> Res<()> {
    if t.amount == 0 {
        return Ok(());
    }
    let mut data = [0u8; 10];
    data[0] = 12;
    data[1..9].copy_from_slice(&t.amount.to_le_bytes());
    data[9] = TOKEN_DECIMALS;
    let metas = [
        rt::meta(&t.src, true, false),
        rt::meta(&t.mint, false, false),
        rt::meta(&t.dst, true, false),
        rt::meta(&t.authority, false, true),
    ];
    invoke!(&TOKEN_2022, &metas, &data, &[t.src, t.mint, t.dst, t.authority, t.token], t.seeds)
}

/// The programs an instruction passes on to its CPIs.
#[derive(Clone, Copy)]
pub struct Programs {
    pub system: Acc,
    pub token: Acc,
    pub ata: Acc,
}

/// ATA CreateIdempotent: `payer` creates `wallet`'s token account `ata` of `mint`.
pub fn create_ata(payer: &Acc, ata: &Acc, wallet: &Acc, mint: &Acc, p: &Programs) -> Res<()> {
    let metas = [
        rt::meta(payer, true, true),
        rt::meta(ata, true, false),
        rt::meta(wallet, false, false),
        rt::meta(mint, false, false),
        rt::meta(&p.system, false, false),
        rt::meta(&p.token, false, false),
    ];
    invoke!(&ATA_PROGRAM, &metas, &[1], &[*payer, *ata, *wallet, *mint, p.system, p.token, p.ata], None)
}

/// Check accounts `first..first+3` are the System, Token-2022 and ATA programs.
pub fn programs(inp: &rt::Input, first: usize) -> Res<Programs> {
    let p = Programs { system: inp.acc(first)?, token: inp.acc(first + 1)?, ata: inp.acc(first + 2)? };
    require_program(&p.system, &SYSTEM_PROGRAM)?;
    require_program(&p.token, &TOKEN_2022)?;
    require_program(&p.ata, &ATA_PROGRAM)?;
    Ok(p)
}
