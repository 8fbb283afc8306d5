//! The constant-product `pool` program (idl/pool.json; docs/onchain.md), SBPF v0.
//!
//! Base = the coin (Token-2022 tokens in the base vault, the ATA of the pool PDA);
//! quote = native SOL held as lamports by the pool account above its rent-exempt minimum.
//! Same accounts, arguments, errors and state as the Python reference
//! (devstack/chain/programs/pool.py in the git history), except the token standard: Token-2022 accounts and
//! TransferChecked. Math: `math.rs` (= partner.chain.pool_math).
#![no_std]
#[path = "../../sdk/src/lib.rs"]
#[macro_use]
#[allow(dead_code)]
mod sdk;
mod math;

use math::{MathError, SwapResult};
use sdk::borsh::{read_pubkey, read_u64, write_u64, Reader};
use sdk::checks::{require_key, require_pda};
use sdk::ids::LAUNCHPAD_PROGRAM_ID;
use sdk::log::{msg, Line};
use sdk::pubkey::{
    associated_token_address, pk_eq, try_find_program_address, ATA_PROGRAM_ID, SYSTEM_PROGRAM_ID, TOKEN_2022_PROGRAM_ID,
};
use sdk::{system, token, AccountInfo, ProgramError, ProgramResult, Pubkey};

entrypoint!(process);

// errors (idl/pool.json "errors"; shared numbering with the launchpad)
const INVALID_INPUT: ProgramError = ProgramError::Custom(6000);
const SLIPPAGE_EXCEEDED: ProgramError = ProgramError::Custom(6001);
const MIGRATION_PENDING: ProgramError = ProgramError::Custom(6003);
const MATH_OVERFLOW: ProgramError = ProgramError::Custom(6006);
const INSUFFICIENT_LIQUIDITY: ProgramError = ProgramError::Custom(6007);
const INSUFFICIENT_SOL: ProgramError = ProgramError::Custom(6008);
const INSUFFICIENT_TOKENS: ProgramError = ProgramError::Custom(6009);
const POOL_NOT_OPEN: ProgramError = ProgramError::Custom(6010);
const MISSING_SELL_TOKEN_ACCOUNT: ProgramError = ProgramError::Custom(6011);
const UNAUTHORIZED: ProgramError = ProgramError::Custom(6017);
const INVALID_ACCOUNT: ProgramError = ProgramError::Custom(6018);
const ALREADY_INITIALIZED: ProgramError = ProgramError::Custom(6019);

// instruction discriminators (idl/pool.json), little-endian u64
const IX_INITIALIZE_POOL: [u8; 8] = [95, 180, 10, 172, 84, 174, 232, 40];
const IX_SWAP: [u8; 8] = [248, 198, 158, 145, 225, 117, 135, 200];
const IX_SWAP_EXACT_OUT: [u8; 8] = [250, 73, 101, 33, 38, 207, 75, 184];

const POOL_SEED: &[u8] = b"pool";
const BONDING_CURVE_SEED: &[u8] = b"bonding-curve";

/// Pool account: 8-byte discriminator + the IDL's Pool struct (Borsh).
mod layout {
    pub const DISCRIMINATOR: [u8; 8] = [241, 154, 109, 4, 17, 177, 109, 188];
    pub const MINT: usize = 8;
    pub const BASE_VAULT: usize = 40;
    pub const CREATOR: usize = 72;
    pub const FEE_RECIPIENT: usize = 104;
    pub const BASE_RESERVE: usize = 136;
    pub const QUOTE_RESERVE: usize = 144;
    pub const FEE_BPS: usize = 152;
    pub const OPEN_TIME: usize = 154;
    pub const CREATED_SLOT: usize = 162;
    pub const BUMP: usize = 170;
    pub const SIZE: usize = 171 + 64; // + reserved
}

/// Token-2022 ATA: 165 bytes + account type + the ImmutableOwner extension.
const ATA_SIZE: u64 = 170;

/// The first `N` accounts, in order: `let [payer, pool, ..] = first(accounts)?;`.
fn first<const N: usize>(accounts: &[AccountInfo]) -> Result<&[AccountInfo; N], ProgramError> {
    accounts.get(..N).and_then(|a| a.try_into().ok()).ok_or(ProgramError::NotEnoughAccountKeys)
}

fn require_signer(acc: &AccountInfo) -> ProgramResult {
    if acc.is_signer() {
        Ok(())
    } else {
        Err(ProgramError::MissingRequiredSignature)
    }
}

/// The accounts an instruction changes must come writable (else InvalidAccount, before any
/// change; the runtime would refuse the write afterwards anyway).
fn require_writable(accs: &[&AccountInfo]) -> ProgramResult {
    if accs.iter().all(|a| a.is_writable()) {
        Ok(())
    } else {
        Err(INVALID_ACCOUNT)
    }
}

fn math_error(e: MathError) -> ProgramError {
    match e {
        MathError::Overflow => MATH_OVERFLOW,
        MathError::Liquidity => INSUFFICIENT_LIQUIDITY,
        MathError::Invalid => INVALID_INPUT,
    }
}

fn process(program_id: &Pubkey, accounts: &[AccountInfo], data: &[u8]) -> ProgramResult {
    if data.len() < 8 {
        return Err(INVALID_INPUT);
    }
    let disc = read_u64(data, 0);
    if disc == u64::from_le_bytes(IX_SWAP) {
        msg(b"Instruction: swap");
        let (base_in, amount_in, min_out) = swap_args(&data[8..]).map_err(|_| INVALID_INPUT)?;
        swap(program_id, accounts, base_in, amount_in, min_out)
    } else if disc == u64::from_le_bytes(IX_SWAP_EXACT_OUT) {
        msg(b"Instruction: swap_exact_out");
        let (base_out, max_in) = exact_out_args(&data[8..]).map_err(|_| INVALID_INPUT)?;
        swap_exact_out(program_id, accounts, base_out, max_in)
    } else if disc == u64::from_le_bytes(IX_INITIALIZE_POOL) {
        msg(b"Instruction: initialize_pool");
        initialize_pool(program_id, accounts, &data[8..])
    } else {
        Err(INVALID_INPUT)
    }
}

// Arguments decode strictly (short data, a bool not 0/1, or trailing bytes: InvalidInput).

fn swap_args(data: &[u8]) -> Result<(bool, u64, u64), ProgramError> {
    let mut r = Reader::new(data);
    let v = (r.bool()?, r.u64()?, r.u64()?);
    r.finish()?;
    Ok(v)
}

fn exact_out_args(data: &[u8]) -> Result<(u64, u64), ProgramError> {
    let mut r = Reader::new(data);
    let v = (r.u64()?, r.u64()?);
    r.finish()?;
    Ok(v)
}

// ------------------------------------------------------------------ initialize_pool

struct InitArgs<'a> {
    base_amount: u64,
    quote_amount: u64,
    open_time: i64,
    fee_bps: u16,
    fee_recipient: &'a Pubkey,
    creator: &'a Pubkey,
}

fn init_args(data: &[u8]) -> Result<InitArgs<'_>, ProgramError> {
    let mut r = Reader::new(data);
    let a = InitArgs {
        base_amount: r.u64()?,
        quote_amount: r.u64()?,
        open_time: r.i64()?,
        fee_bps: r.u16()?,
        fee_recipient: r.pubkey()?,
        creator: r.pubkey()?,
    };
    r.finish()?;
    Ok(a)
}

fn initialize_pool(program_id: &Pubkey, accounts: &[AccountInfo], data: &[u8]) -> ProgramResult {
    let args = init_args(data).map_err(|_| INVALID_INPUT)?;
    let [payer, authority, mint, pool, base_vault, source, system_program, token_program, ata_program] =
        first(accounts)?;
    require_signer(payer)?;
    require_signer(authority)?;
    let (curve, _) = try_find_program_address(&[BONDING_CURVE_SEED, mint.key()], &LAUNCHPAD_PROGRAM_ID)?;
    if !pk_eq(authority.key(), &curve) {
        return Err(UNAUTHORIZED);
    }
    let (pool_key, bump) = try_find_program_address(&[POOL_SEED, mint.key()], program_id)?;
    require_key(pool, &pool_key, INVALID_ACCOUNT)?;
    let (vault_key, _) = associated_token_address(&pool_key, mint.key())?;
    require_key(base_vault, &vault_key, INVALID_ACCOUNT)?;
    if pool.data_len() != 0 {
        return Err(ALREADY_INITIALIZED);
    }
    if args.base_amount == 0 || args.quote_amount == 0 {
        return Err(INVALID_INPUT);
    }
    require_key(system_program, &SYSTEM_PROGRAM_ID, INVALID_ACCOUNT)?;
    require_key(token_program, &TOKEN_2022_PROGRAM_ID, INVALID_ACCOUNT)?;
    require_key(ata_program, &ATA_PROGRAM_ID, INVALID_ACCOUNT)?;
    require_writable(&[payer, pool, base_vault, source])?;
    if pool.lamports() != 0 && !pool.is_owned_by(&SYSTEM_PROGRAM_ID) {
        return Err(ALREADY_INITIALIZED);
    }
    let decimals = token::mint(mint).map_err(|_| INVALID_ACCOUNT)?.decimals();

    let b = [bump];
    let seeds: &[&[u8]] = &[POOL_SEED, mint.key(), &b];
    system::create_pda_account(payer, pool, system_program, layout::SIZE as u64, program_id, &[seeds])?;
    token::create_ata_idempotent(payer, base_vault, pool, mint, system_program, token_program, ata_program, &[])?;
    token::transfer_checked(source, mint, base_vault, authority, token_program, args.base_amount, decimals, &[])?;

    let slot = sdk::sysvar::clock()?.slot;
    let d = pool.data_mut();
    d[..8].copy_from_slice(&layout::DISCRIMINATOR);
    d[layout::MINT..layout::MINT + 32].copy_from_slice(mint.key());
    d[layout::BASE_VAULT..layout::BASE_VAULT + 32].copy_from_slice(base_vault.key());
    d[layout::CREATOR..layout::CREATOR + 32].copy_from_slice(args.creator);
    d[layout::FEE_RECIPIENT..layout::FEE_RECIPIENT + 32].copy_from_slice(args.fee_recipient);
    write_u64(d, layout::BASE_RESERVE, args.base_amount);
    write_u64(d, layout::QUOTE_RESERVE, args.quote_amount);
    d[layout::FEE_BPS..layout::FEE_BPS + 2].copy_from_slice(&args.fee_bps.to_le_bytes());
    write_u64(d, layout::OPEN_TIME, args.open_time as u64);
    write_u64(d, layout::CREATED_SLOT, slot);
    d[layout::BUMP] = bump;
    Line::new()
        .s(b"initialize_pool base=")
        .u(args.base_amount)
        .s(b" quote=")
        .u(args.quote_amount)
        .s(b" open_time=")
        .u(args.open_time as u64)
        .log();
    Ok(())
}

// ------------------------------------------------------------------ swaps

struct Swap<'a> {
    user: &'a AccountInfo,
    pool: &'a AccountInfo,
    mint: &'a AccountInfo,
    base_vault: &'a AccountInfo,
    user_ata: &'a AccountInfo,
    fee_recipient: &'a AccountInfo,
    system_program: &'a AccountInfo,
    token_program: &'a AccountInfo,
    ata_program: &'a AccountInfo,
    base_reserve: u64,
    quote_reserve: u64,
    fee_bps: u16,
    bump: u8,
    decimals: u8,
    /// the trader's token balance (None: no token account yet)
    user_tokens: Option<u64>,
}

/// The accounts and the pool of a swap, checked in the reference's order.
fn load_swap<'a>(program_id: &Pubkey, accounts: &'a [AccountInfo]) -> Result<Swap<'a>, ProgramError> {
    let [user, pool, mint, base_vault, user_ata, fee_recipient, system_program, token_program, ata_program] =
        first(accounts)?;
    require_signer(user)?;
    // the pool: owned by this program and initialised, else MigrationPending; its address
    // is the PDA of [pool, mint] with the stored bump (a tampered bump or another mint's
    // pool: InvalidAccount)
    if !pool.is_owned_by(program_id) || pool.data_len() == 0 {
        let (key, _) = try_find_program_address(&[POOL_SEED, mint.key()], program_id)?;
        require_key(pool, &key, INVALID_ACCOUNT)?;
        return Err(MIGRATION_PENDING);
    }
    let d = pool.data();
    if d.len() != layout::SIZE || read_u64(d, 0) != u64::from_le_bytes(layout::DISCRIMINATOR) {
        return Err(INVALID_ACCOUNT);
    }
    let bump = d[layout::BUMP];
    if !pk_eq(read_pubkey(d, layout::MINT), mint.key()) {
        return Err(INVALID_ACCOUNT);
    }
    require_pda(pool, &[POOL_SEED, mint.key()], bump, program_id, INVALID_ACCOUNT)?;
    require_key(base_vault, read_pubkey(d, layout::BASE_VAULT), INVALID_ACCOUNT)?;
    require_key(fee_recipient, read_pubkey(d, layout::FEE_RECIPIENT), INVALID_ACCOUNT)?;
    let user_tokens = user_token_balance(user_ata, mint, user)?;
    require_key(system_program, &SYSTEM_PROGRAM_ID, INVALID_ACCOUNT)?;
    require_key(token_program, &TOKEN_2022_PROGRAM_ID, INVALID_ACCOUNT)?;
    require_key(ata_program, &ATA_PROGRAM_ID, INVALID_ACCOUNT)?;
    require_writable(&[user, pool, base_vault, user_ata, fee_recipient])?;
    let open_time = read_u64(d, layout::OPEN_TIME) as i64;
    if sdk::sysvar::clock()?.unix_timestamp < open_time {
        return Err(POOL_NOT_OPEN);
    }
    let decimals = token::mint(mint).map_err(|_| INVALID_ACCOUNT)?.decimals();
    Ok(Swap {
        user,
        pool,
        mint,
        base_vault,
        user_ata,
        fee_recipient,
        system_program,
        token_program,
        ata_program,
        base_reserve: read_u64(d, layout::BASE_RESERVE),
        quote_reserve: read_u64(d, layout::QUOTE_RESERVE),
        fee_bps: u16::from_le_bytes([d[layout::FEE_BPS], d[layout::FEE_BPS + 1]]),
        bump,
        decimals,
        user_tokens,
    })
}

/// The trader's token account, checked without deriving its address (no bump search): a
/// Token-2022 account must be a token account of `mint` owned by `user` (else InvalidAccount):
/// Some(balance). Anything else is "no token account" (None): a sell is refused, a buy creates
/// the ATA with CreateIdempotent, and the ATA program checks the address itself.
fn user_token_balance(
    user_ata: &AccountInfo,
    mint: &AccountInfo,
    user: &AccountInfo,
) -> Result<Option<u64>, ProgramError> {
    if !user_ata.is_owned_by(&TOKEN_2022_PROGRAM_ID) {
        return Ok(None);
    }
    match token::token_account(user_ata) {
        Ok(ta) if pk_eq(ta.mint(), mint.key()) && pk_eq(ta.owner(), user.key()) => Ok(Some(ta.amount())),
        _ => Err(INVALID_ACCOUNT),
    }
}

impl Swap<'_> {
    fn save(&self, r: &SwapResult) {
        let d = self.pool.data_mut();
        write_u64(d, layout::BASE_RESERVE, r.base_after);
        write_u64(d, layout::QUOTE_RESERVE, r.quote_after);
    }

    fn buy(&self, r: &SwapResult) -> ProgramResult {
        let has_ata = self.user_tokens.is_some();
        let rent = if has_ata { 0 } else { sdk::sysvar::rent_exempt_minimum(ATA_SIZE)? };
        let need = r.amount_in.checked_add(rent).ok_or(INSUFFICIENT_SOL)?;
        if self.user.lamports() < need {
            return Err(INSUFFICIENT_SOL);
        }
        if !has_ata {
            token::create_ata_idempotent(
                self.user,
                self.user_ata,
                self.user,
                self.mint,
                self.system_program,
                self.token_program,
                self.ata_program,
                &[],
            )?;
        }
        let to_pool = r.amount_in - r.fee;
        if to_pool > 0 {
            system::transfer(self.user, self.pool, self.system_program, to_pool, &[])?;
        }
        let fee = self.fee_paid(r.fee)?;
        if fee > 0 {
            system::transfer(self.user, self.fee_recipient, self.system_program, fee, &[])?;
        }
        let b = [self.bump];
        let seeds: &[&[u8]] = &[POOL_SEED, self.mint.key(), &b];
        token::transfer_checked(
            self.base_vault,
            self.mint,
            self.user_ata,
            self.pool,
            self.token_program,
            r.amount_out,
            self.decimals,
            &[seeds],
        )?;
        self.save(r);
        Line::new().s(b"swap buy sol_in=").u(to_pool + fee).s(b" tokens_out=").u(r.amount_out).s(b" fee=").u(fee).log();
        Ok(())
    }

    /// The part of a swap's `fee` the fee recipient is paid: all of it, or none while crediting it
    /// would leave the recipient below its rent-exempt minimum (an address at 0 lamports): the
    /// trader keeps it, the swap lands at its quote or better (launchpad's `fee_paid`).
    fn fee_paid(&self, fee: u64) -> Result<u64, ProgramError> {
        let floor = sdk::sysvar::rent_exempt_minimum(self.fee_recipient.data_len() as u64)?;
        Ok(if self.fee_recipient.lamports().saturating_add(fee) < floor { 0 } else { fee })
    }

    /// Lamports out of the pool account, never below its rent-exempt minimum.
    fn pay_out(&self, to: &AccountInfo, lamports: u64) -> ProgramResult {
        if lamports == 0 {
            return Ok(());
        }
        let floor = sdk::sysvar::rent_exempt_minimum(self.pool.data_len() as u64)?;
        match self.pool.lamports().checked_sub(lamports) {
            Some(left) if left >= floor => self.pool.transfer_lamports_to(to, lamports),
            _ => Err(INSUFFICIENT_LIQUIDITY),
        }
    }
}

fn require_out(out: u64, min_out: u64) -> ProgramResult {
    if out == 0 {
        return Err(INVALID_INPUT);
    }
    if out < min_out {
        return Err(SLIPPAGE_EXCEEDED);
    }
    Ok(())
}

fn swap(program_id: &Pubkey, accounts: &[AccountInfo], base_in: bool, amount_in: u64, min_out: u64) -> ProgramResult {
    if amount_in == 0 {
        return Err(INVALID_INPUT);
    }
    let s = load_swap(program_id, accounts)?;
    if !base_in {
        let r = math::swap_quote_in(s.base_reserve, s.quote_reserve, amount_in, s.fee_bps).map_err(math_error)?;
        require_out(r.amount_out, min_out)?;
        return s.buy(&r);
    }
    match s.user_tokens {
        None => return Err(MISSING_SELL_TOKEN_ACCOUNT),
        Some(held) if held < amount_in => return Err(INSUFFICIENT_TOKENS),
        Some(_) => {}
    }
    let r = math::swap_base_in(s.base_reserve, s.quote_reserve, amount_in, s.fee_bps).map_err(math_error)?;
    require_out(r.amount_out, min_out)?;
    token::transfer_checked(s.user_ata, s.mint, s.base_vault, s.user, s.token_program, amount_in, s.decimals, &[])?;
    let fee = s.fee_paid(r.fee)?;
    let sol_out = r.amount_out + (r.fee - fee);
    s.pay_out(s.user, sol_out)?;
    s.pay_out(s.fee_recipient, fee)?;
    s.save(&r);
    Line::new().s(b"swap sell tokens_in=").u(amount_in).s(b" sol_out=").u(sol_out).s(b" fee=").u(fee).log();
    Ok(())
}

fn swap_exact_out(program_id: &Pubkey, accounts: &[AccountInfo], base_out: u64, max_in: u64) -> ProgramResult {
    if base_out == 0 {
        return Err(INVALID_INPUT);
    }
    let s = load_swap(program_id, accounts)?;
    let r = math::swap_base_out(s.base_reserve, s.quote_reserve, base_out, s.fee_bps).map_err(math_error)?;
    if r.amount_in > max_in {
        return Err(SLIPPAGE_EXCEEDED);
    }
    s.buy(&r)
}
