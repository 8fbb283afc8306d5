//! The governance instructions' helpers until they move to `instructions/` (the launchpad's
//! former lib.rs helpers, over `rt`).

use crate::error::{Error, Res};
use crate::layout as state;
use crate::rt::{self, Acc, CSeed, Pubkey};
use crate::sdk;

pub use crate::sdk::pubkey::TOKEN_2022_PROGRAM_ID as TOKEN_2022;
pub use crate::sdk::pubkey::{ATA_PROGRAM_ID as ATA_PROGRAM, SYSTEM_PROGRAM_ID as SYSTEM_PROGRAM};
pub const TOKEN_DECIMALS: u8 = 6;
pub const GOVERNANCE_SEED: &[u8] = b"governance";
pub const PROPOSAL_SEED: &[u8] = b"proposal";
pub const VOTE_SEED: &[u8] = b"vote";

/// TokenMetadata instruction discriminators (sha256("spl_token_metadata_interface:<name>")[..8]).
pub const TM_UPDATE_FIELD: [u8; 8] = [221, 233, 49, 45, 181, 202, 220, 200];
pub const TM_UPDATE_AUTHORITY: [u8; 8] = [215, 228, 166, 228, 84, 100, 86, 123];

/// Append a Borsh string to `buf` at `at`; returns the new end.
pub fn put_str(buf: &mut [u8], at: usize, s: &[u8]) -> usize {
    buf[at..at + 4].copy_from_slice(&(s.len() as u32).to_le_bytes());
    rt::copy(&mut buf[at + 4..at + 4 + s.len()], s);
    at + 4 + s.len()
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
