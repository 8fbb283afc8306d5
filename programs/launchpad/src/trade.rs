//! Admin, coin creation, curve trading and migration (check for check and in the order of the
//! Python reference it replaced, devstack/chain/programs/launchpad.py in the git history).

use crate::args::{check_name, check_symbol, check_uri, Reader};
use crate::err::{Error, Res};
use crate::math;
use crate::rt::{self, Acc, Input, Pubkey};
use crate::state::{self as st, curve as C, global as G, params as GP};
use crate::*;

/// The global config, checked: owner, discriminator, its PDA (at the IDL address a constant;
/// elsewhere the stored bump).
fn load_global(inp: &Input, a: &Acc) -> Res<()> {
    if !is_ours(a, inp.program_id, &G::DISC, G::SIZE) {
        return Err(Error::InvalidAccount);
    }
    if rt::key_eq(inp.program_id, &crate::sdk::pubkey::LAUNCHPAD_PROGRAM_ID) {
        return require_key(a, &GLOBAL_AT_IDL_ADDRESS);
    }
    require_pda(a, &[rt::seed(GLOBAL_SEED)], a.data()[G::BUMP], inp.program_id, Error::InvalidAccount)
}

/// The bonding curve of `mint`, checked: owner, discriminator, its PDA with the stored bump.
fn load_curve(inp: &Input, a: &Acc, mint: &Pubkey) -> Res<()> {
    if !is_ours(a, inp.program_id, &C::DISC, C::SIZE) {
        return Err(Error::InvalidAccount);
    }
    require_pda(a, &[rt::seed(CURVE_SEED), rt::seed(mint)], a.data()[C::BUMP], inp.program_id, Error::InvalidAccount)
}

/// The settings `initialize_global` and `set_params` both take, in their arguments' order.
struct GlobalParams<'a> {
    fee_recipient: &'a Pubkey,
    fee_bps: u16,
    cap_bps: u16,
    delay: i64,
}

impl<'a> GlobalParams<'a> {
    fn read(r: &mut Reader<'a>) -> Res<Self> {
        Ok(GlobalParams { fee_recipient: r.pubkey()?, fee_bps: r.u16()?, cap_bps: r.u16()?, delay: r.i64()? })
    }

    fn validate(&self) -> Res<()> {
        if self.fee_bps > MAX_FEE_BPS {
            return Err(Error::InvalidFeeBps);
        }
        if self.cap_bps < 1 || self.cap_bps > 10_000 || self.delay < 0 {
            return Err(Error::InvalidInput);
        }
        Ok(())
    }

    fn write(&self, d: &mut [u8]) {
        st::wr_key(d, G::FEE_RECIPIENT, self.fee_recipient);
        st::wr_u16(d, G::PROTOCOL_FEE_BPS, self.fee_bps);
        st::wr_u16(d, G::WALLET_CAP_BPS, self.cap_bps);
        st::wr_i64(d, G::POOL_OPEN_DELAY, self.delay);
    }
}

/// The ProgramData account of this program (the loader's PDA of the program id) must name
/// `admin` as the upgrade authority: whoever deployed the program, not whoever is first after
/// the deploy, becomes the admin. ProgramData is bincode's UpgradeableLoaderState::ProgramData:
/// u32 tag 3, u64 slot, Option<Pubkey> (u8 tag 1, then the 32 bytes).
fn require_upgrade_authority(inp: &Input, program_data: &Acc, admin: &Acc) -> Res<()> {
    let (key, _) = rt::find_pda(&[rt::seed(inp.program_id)], &LOADER_UPGRADEABLE);
    if !rt::key_eq(program_data.key(), &key) || !rt::key_eq(program_data.owner(), &LOADER_UPGRADEABLE) {
        return Err(Error::InvalidAccount);
    }
    let d = program_data.data();
    if d.len() < 45 || !rt::bytes_eq(&d[..4], &[3, 0, 0, 0]) {
        return Err(Error::InvalidAccount);
    }
    if d[12] != 1 || !rt::bytes_eq(&d[13..45], admin.key()) {
        return Err(Error::Unauthorized);
    }
    Ok(())
}

pub fn initialize_global(inp: &Input, mut r: Reader) -> Res<()> {
    rt::log("Instruction: initialize_global");
    let params = GlobalParams::read(&mut r)?;
    let ivt = r.u64()?;
    let ivs = r.u64()?;
    let irt = r.u64()?;
    let supply = r.u64()?;
    r.end()?;
    let [admin, glob] = inp.first()?;
    require_signer(&admin)?;
    let (key, bump) = rt::find_pda(&[rt::seed(GLOBAL_SEED)], inp.program_id);
    require_key(&glob, &key)?;
    require_upgrade_authority(inp, &inp.acc(3)?, &admin)?;
    if rt::key_eq(glob.owner(), inp.program_id) && glob.data_len() > 0 {
        return Err(Error::AlreadyInitialized);
    }
    params.validate()?;
    // irt < supply: at completion the vault keeps supply - irt tokens, migrate's pool base,
    // which the pool refuses at 0 (a completed curve would be stuck: no migrate, no sell)
    if !(0 < irt && irt < ivt && irt < supply && ivs > 0) {
        return Err(Error::InvalidInput);
    }
    require_writable(&glob)?;
    let system = inp.acc(2)?;
    require_program(&system, &SYSTEM_PROGRAM)?;
    let b = [bump];
    let seeds = [rt::seed(GLOBAL_SEED), rt::seed(&b)];
    create_account(&NewAccount {
        payer: admin,
        new: glob,
        space: G::SIZE,
        lamports: rt::rent_exempt(G::SIZE),
        owner: inp.program_id,
        seeds: Some(&seeds),
        system,
    })?;
    let d = glob.data_mut();
    d[..8].copy_from_slice(&G::DISC);
    d[G::BUMP] = bump;
    st::wr_key(d, G::ADMIN, admin.key());
    params.write(d);
    st::wr_u64(d, G::IVT, ivt);
    st::wr_u64(d, G::IVS, ivs);
    st::wr_u64(d, G::IRT, irt);
    st::wr_u64(d, G::SUPPLY, supply);
    Ok(())
}

/// Accounts 0 admin (signer), 1 global (writable), checked: the signer is the admin.
fn global_as_admin(inp: &Input) -> Res<Acc> {
    let [admin, glob] = inp.first()?;
    require_signer(&admin)?;
    load_global(inp, &glob)?;
    if !rt::key_eq(admin.key(), st::key_at(glob.data(), G::ADMIN)) {
        return Err(Error::Unauthorized);
    }
    require_writable(&glob)?;
    Ok(glob)
}

pub fn set_params(inp: &Input, mut r: Reader) -> Res<()> {
    rt::log("Instruction: set_params");
    let new_admin = r.pubkey()?;
    let params = GlobalParams::read(&mut r)?;
    r.end()?;
    let glob = global_as_admin(inp)?;
    params.validate()?;
    let d = glob.data_mut();
    // a new admin is only proposed: it takes over when it signs accept_admin (two steps, so a
    // mistyped key cannot take the admin away); naming the admin itself withdraws a proposal
    let pending = if rt::key_eq(new_admin, st::key_at(d, G::ADMIN)) { &[0u8; 32] } else { new_admin };
    st::wr_key(d, G::PENDING_ADMIN, pending);
    params.write(d);
    Ok(())
}

/// Accounts 0 new_admin (signer), 1 global (writable): the pending admin becomes the admin.
pub fn accept_admin(inp: &Input, r: Reader) -> Res<()> {
    rt::log("Instruction: accept_admin");
    r.end()?;
    let [new_admin, glob] = inp.first()?;
    require_signer(&new_admin)?;
    load_global(inp, &glob)?;
    let d = glob.data();
    if rt::bytes_eq(st::key_at(d, G::PENDING_ADMIN), &[0u8; 32])
        || !rt::key_eq(new_admin.key(), st::key_at(d, G::PENDING_ADMIN))
    {
        return Err(Error::Unauthorized);
    }
    require_writable(&glob)?;
    let d = glob.data_mut();
    st::wr_key(d, G::ADMIN, new_admin.key());
    st::wr_key(d, G::PENDING_ADMIN, &[0u8; 32]);
    Ok(())
}

pub fn set_governance_params(inp: &Input, mut r: Reader) -> Res<()> {
    rt::log("Instruction: set_governance_params");
    let raw = r.take(GP::SIZE)?;
    r.end()?;
    let glob = global_as_admin(inp)?;
    let ps = st::rd_u16(raw, GP::MIN_PS_BPS);
    let bond = st::rd_u16(raw, GP::BOND_BPS);
    let approval = st::rd_u16(raw, GP::APPROVAL_BPS);
    let window = st::rd_i64(raw, GP::WINDOW);
    let max_ext = st::rd_i64(raw, GP::MAX_EXT);
    let min_vote = st::rd_i64(raw, GP::MIN_VOTE);
    let max_vote = st::rd_i64(raw, GP::MAX_VOTE);
    if ps > 10_000
        || bond > 10_000
        || !(1..=10_000).contains(&approval)
        || window <= 0
        || max_ext < 0
        || min_vote < 1
        || min_vote > max_vote
    {
        return Err(Error::InvalidInput);
    }
    let d = glob.data_mut();
    d[G::GOV_SET] = 1;
    d[G::GOV_PARAMS..G::GOV_PARAMS + GP::SIZE].copy_from_slice(raw);
    Ok(())
}

// ----------------------------------------------------------------- create_coin

/// Rent the mint is funded with at creation: its size with the longest name,
/// symbol and uri, so later metadata updates never need more lamports.
pub fn mint_rent() -> u64 {
    rt::rent_exempt(st::MINT_METADATA_FIXED + crate::args::NAME_MAX + crate::args::SYMBOL_MAX + crate::args::URI_MAX)
}

/// TokenMetadata instruction discriminators (sha256("spl_token_metadata_interface:<name>")[..8]).
pub const TM_INITIALIZE: [u8; 8] = [210, 225, 30, 162, 88, 184, 77, 141];
pub const TM_UPDATE_FIELD: [u8; 8] = [221, 233, 49, 45, 181, 202, 220, 200];
pub const TM_UPDATE_AUTHORITY: [u8; 8] = [215, 228, 166, 228, 84, 100, 86, 123];

struct Coin<'a> {
    name: &'a str,
    symbol: &'a str,
    uri: &'a str,
}

/// Append a Borsh string to `buf` at `at`; returns the new end.
pub fn put_str(buf: &mut [u8], at: usize, s: &[u8]) -> usize {
    buf[at..at + 4].copy_from_slice(&(s.len() as u32).to_le_bytes());
    rt::copy(&mut buf[at + 4..at + 4 + s.len()], s);
    at + 4 + s.len()
}

/// The Token-2022 mint with MetadataPointer (to itself, no authority), the
/// curve PDA as mint authority, and TokenMetadata (update authority = governance PDA).
struct MintParts {
    creator: Acc,
    mint: Acc,
    curve: Acc,
    gov: Acc,
    p: Programs,
}

fn create_mint(m: &MintParts, coin: &Coin, curve_seeds: &[rt::CSeed]) -> Res<()> {
    let (creator, mint, curve, gov, p) = (&m.creator, &m.mint, &m.curve, &m.gov, &m.p);
    create_account(&NewAccount {
        payer: *creator,
        new: *mint,
        space: st::MINT_WITH_POINTER_SIZE,
        lamports: mint_rent(),
        owner: &TOKEN_2022,
        seeds: None,
        system: p.system,
    })?;
    let mint_w = [rt::meta(mint, true, false)];
    let mut ptr = [0u8; 66];
    ptr[0] = 39;
    ptr[34..66].copy_from_slice(mint.key());
    invoke!(&TOKEN_2022, &mint_w, &ptr, &[*mint, p.token], None)?;
    let mut init = [0u8; 35];
    init[0] = 20;
    init[1] = TOKEN_DECIMALS;
    init[2..34].copy_from_slice(curve.key());
    invoke!(&TOKEN_2022, &mint_w, &init, &[*mint, p.token], None)?;
    let mut md = [0u8; 8 + 12 + 32 + 10 + 200];
    md[..8].copy_from_slice(&TM_INITIALIZE);
    let mut at = put_str(&mut md, 8, coin.name.as_bytes());
    at = put_str(&mut md, at, coin.symbol.as_bytes());
    at = put_str(&mut md, at, coin.uri.as_bytes());
    let metas = [
        rt::meta(mint, true, false),
        rt::meta(gov, false, false),
        rt::meta(mint, false, false),
        rt::meta(curve, false, true),
    ];
    invoke!(&TOKEN_2022, &metas, &md[..at], &[*mint, *gov, *curve, p.token], Some(curve_seeds))
}

pub fn create_coin(inp: &Input, mut r: Reader) -> Res<()> {
    rt::log("Instruction: create_coin");
    let coin = Coin { name: r.string()?, symbol: r.string()?, uri: r.string()? };
    let digests = r.digests()?;
    r.end()?;
    let [creator, mint, glob, curve, vault, meta] = inp.first()?;
    let gov = inp.acc(9)?;
    check_name(coin.name)?;
    check_symbol(coin.symbol)?;
    check_uri(coin.uri)?;
    require_signer(&creator)?;
    require_signer(&mint)?;
    load_global(inp, &glob)?;
    let (curve_key, curve_bump) = rt::find_pda(&[rt::seed(CURVE_SEED), rt::seed(mint.key())], inp.program_id);
    require_key(&curve, &curve_key)?;
    require_key(&meta, mint.key())?;
    let vault_key = ata_address(&curve_key, mint.key());
    require_key(&vault, &vault_key)?;
    let (gov_key, gov_bump) = rt::find_pda(&[rt::seed(GOVERNANCE_SEED), rt::seed(mint.key())], inp.program_id);
    require_key(&gov, &gov_key)?;
    // lamports already at the mint's address (anyone may send them) are kept, as Anchor's `init`
    // does: create_account tops them up, allocates and assigns
    if !rt::key_eq(mint.owner(), &SYSTEM_PROGRAM)
        || mint.data_len() != 0
        || curve.data_len() != 0
        || gov.data_len() != 0
    {
        return Err(Error::AlreadyInitialized);
    }
    let funded = curve.lamports().saturating_add(gov.lamports()).saturating_add(mint.lamports().min(mint_rent()));
    let need =
        (mint_rent() + rt::rent_exempt(C::SIZE) + rt::rent_exempt(st::ATA_SIZE) + rt::rent_exempt(st::gov::SIZE))
            .saturating_sub(funded);
    if creator.lamports() < need {
        return Err(Error::InsufficientSol);
    }
    require_writable(&curve)?;
    require_writable(&gov)?;
    let p = programs(inp, 6)?;
    let cb = [curve_bump];
    let curve_seeds = [rt::seed(CURVE_SEED), rt::seed(mint.key()), rt::seed(&cb)];
    create_mint(&MintParts { creator, mint, curve, gov, p }, &coin, &curve_seeds)?;
    create_account(&NewAccount {
        payer: creator,
        new: curve,
        space: C::SIZE,
        lamports: rt::rent_exempt(C::SIZE),
        owner: inp.program_id,
        seeds: Some(&curve_seeds),
        system: p.system,
    })?;
    create_ata(&creator, &vault, &curve, &mint, &p)?;
    let g = glob.data();
    let supply = st::rd_u64(g, G::SUPPLY);
    let mut mint_to = [0u8; 9];
    mint_to[0] = 7;
    mint_to[1..9].copy_from_slice(&supply.to_le_bytes());
    let metas = [rt::meta(&mint, true, false), rt::meta(&vault, true, false), rt::meta(&curve, false, true)];
    invoke!(&TOKEN_2022, &metas, &mint_to, &[mint, vault, curve, p.token], Some(&curve_seeds))?;
    let metas = [rt::meta(&mint, true, false), rt::meta(&curve, false, true)];
    invoke!(&TOKEN_2022, &metas, &[6, 0, 0], &[mint, curve, p.token], Some(&curve_seeds))?;

    let clock = rt::clock();
    let d = curve.data_mut();
    d[..8].copy_from_slice(&C::DISC);
    st::wr_key(d, C::MINT, mint.key());
    st::wr_key(d, C::CREATOR, creator.key());
    st::wr_u64(d, C::VT, st::rd_u64(g, G::IVT));
    st::wr_u64(d, C::VS, st::rd_u64(g, G::IVS));
    st::wr_u64(d, C::RT, st::rd_u64(g, G::IRT));
    st::wr_u64(d, C::SUPPLY, supply);
    d[C::BUMP] = curve_bump;
    st::wr_key(d, C::VAULT, &vault_key);
    st::wr_u64(d, C::CREATED_SLOT, clock.slot);
    st::wr_i64(d, C::CREATED_AT, clock.unix_timestamp);
    crate::gov::init_governance(inp, &creator, &gov, gov_bump, &p.system)?;
    gov.data_mut()[st::gov::DIGESTS..st::gov::DIGESTS + st::DIGESTS_LEN].copy_from_slice(digests);
    Ok(())
}

// ----------------------------------------------------------------- trading

/// Accounts of buy / buy_exact_out / sell, checked as the reference's _Trade.
struct TradeAccounts {
    user: Acc,
    glob: Acc,
    fee_recipient: Acc,
    mint: Acc,
    curve: Acc,
    vault: Acc,
    user_ata: Acc,
    p: Programs,
}

fn trade_accounts(inp: &Input) -> Res<TradeAccounts> {
    let t = TradeAccounts {
        user: inp.acc(0)?,
        glob: inp.acc(1)?,
        fee_recipient: inp.acc(2)?,
        mint: inp.acc(3)?,
        curve: inp.acc(4)?,
        vault: inp.acc(5)?,
        user_ata: inp.acc(6)?,
        p: Programs { system: inp.acc(7)?, token: inp.acc(8)?, ata: inp.acc(9)? },
    };
    require_signer(&t.user)?;
    load_global(inp, &t.glob)?;
    require_key(&t.fee_recipient, st::key_at(t.glob.data(), G::FEE_RECIPIENT))?;
    load_curve(inp, &t.curve, t.mint.key())?;
    let c = t.curve.data();
    require_key(&t.mint, st::key_at(c, C::MINT))?;
    let vault = st::key_at(c, C::VAULT);
    if crate::sdk::pubkey::pk_is_zero(vault) {
        require_key(&t.vault, &ata_address(t.curve.key(), t.mint.key()))?; // a curve from before VAULT
    } else {
        require_key(&t.vault, vault)?;
        // ... and held by this curve (a curve account elsewhere holding this coin's data names a
        // vault that is not its own)
        let v = t.vault.data();
        if v.len() < st::TOKEN_ACCOUNT_BASE || !rt::key_eq(st::key_at(v, 32), t.curve.key()) {
            return Err(Error::InvalidAccount);
        }
    }
    require_user_token_account(&t.user_ata, t.mint.key(), t.user.key())?;
    if c[C::COMPLETE] != 0 || c[C::MIGRATED] != 0 {
        return Err(Error::CurveComplete);
    }
    let clock = rt::clock();
    if clock.slot <= st::rd_u64(c, C::CREATED_SLOT) && !rt::key_eq(t.user.key(), st::key_at(c, C::CREATOR)) {
        return Err(Error::SameSlotTradingBlocked);
    }
    require_writable(&t.curve)?;
    require_writable(&t.fee_recipient)?;
    require_program(&t.p.system, &SYSTEM_PROGRAM)?;
    require_program(&t.p.token, &TOKEN_2022)?;
    require_program(&t.p.ata, &ATA_PROGRAM)?;
    Ok(t)
}

pub fn curve_state(c: &[u8]) -> math::Curve {
    math::Curve {
        virtual_token_reserves: st::rd_u64(c, C::VT),
        virtual_sol_reserves: st::rd_u64(c, C::VS),
        real_token_reserves: st::rd_u64(c, C::RT),
        real_sol_reserves: st::rd_u64(c, C::RS),
        complete: c[C::COMPLETE] != 0,
    }
}

fn save_curve(a: &Acc, s: &math::Curve) {
    let c = a.data_mut();
    st::wr_u64(c, C::VT, s.virtual_token_reserves);
    st::wr_u64(c, C::VS, s.virtual_sol_reserves);
    st::wr_u64(c, C::RT, s.real_token_reserves);
    st::wr_u64(c, C::RS, s.real_sol_reserves);
    c[C::COMPLETE] = s.complete as u8;
}

fn fee_bps(glob: &Acc) -> u64 {
    st::rd_u16(glob.data(), G::PROTOCOL_FEE_BPS) as u64
}

/// A trade must give something (else InvalidInput), and at least its bound.
fn require_out(out: u64, min_out: u64) -> Res<()> {
    if out == 0 {
        return Err(Error::InvalidInput);
    }
    if out < min_out {
        return Err(Error::SlippageExceeded);
    }
    Ok(())
}

/// A trade's arguments: its amount (not zero, else InvalidInput), then its bound.
fn trade_args(mut r: Reader) -> Res<(u64, u64)> {
    let amount = r.u64()?;
    let bound = r.u64()?;
    r.end()?;
    if amount == 0 {
        return Err(Error::InvalidInput);
    }
    Ok((amount, bound))
}

pub fn buy(inp: &Input, r: Reader, exact_out: bool) -> Res<()> {
    rt::log(if exact_out { "Instruction: buy_exact_out" } else { "Instruction: buy" });
    let (amount, bound) = trade_args(r)?;
    let t = trade_accounts(inp)?;
    let before = curve_state(t.curve.data());
    let q = if exact_out {
        math::buy_exact_out(&before, amount, fee_bps(&t.glob))?
    } else {
        math::buy(&before, amount, fee_bps(&t.glob))?
    };
    require_out(q.tokens, if exact_out { 0 } else { bound })?;
    if exact_out && q.sol > bound {
        return Err(Error::SlippageExceeded);
    }
    let has_ata = is_token_account(&t.user_ata, t.mint.key(), t.user.key());
    let held = if has_ata { token_amount(&t.user_ata) } else { 0 };
    let cap_bps = st::rd_u16(t.glob.data(), G::WALLET_CAP_BPS) as u64;
    if cap_bps < math::BPS {
        let cap = math::mul_div_floor(st::rd_u64(t.curve.data(), C::SUPPLY), cap_bps, math::BPS)?;
        match held.checked_add(q.tokens) {
            Some(v) if v <= cap => {}
            _ => return Err(Error::BuyLimitExceeded),
        }
    }
    let need = q.sol.checked_add(if has_ata { 0 } else { rt::rent_exempt(st::ATA_SIZE) }).ok_or(Error::MathOverflow)?;
    if t.user.lamports() < need {
        return Err(Error::InsufficientSol);
    }
    if !has_ata {
        create_ata(&t.user, &t.user_ata, &t.user, &t.mint, &t.p)?;
    }
    // one System transfer (the curve's part and the fee); the fee leaves the curve, which this
    // program owns, by lamport arithmetic after the last CPI (the runtime refuses a CPI while
    // the caller's accounts are unbalanced in its view); a fee that would leave the recipient
    // below rent is not charged (`fee_paid`)
    let fee = fee_paid(&t.fee_recipient, q.fee);
    let to_curve = q.sol_curve.checked_add(fee).ok_or(Error::MathOverflow)?;
    system_transfer(&t.user, &t.curve, to_curve, &t.p.system)?;
    let cb = [t.curve.data()[C::BUMP]];
    let seeds = [rt::seed(CURVE_SEED), rt::seed(t.mint.key()), rt::seed(&cb)];
    transfer_checked(&Transfer {
        src: t.vault,
        mint: t.mint,
        dst: t.user_ata,
        authority: t.curve,
        token: t.p.token,
        amount: q.tokens,
        seeds: Some(&seeds),
    })?;
    move_lamports(&t.curve, &t.fee_recipient, fee)?;
    save_curve(&t.curve, &q.after);
    rt::log64(q.tokens, q.sol_curve + fee, fee, q.sol_curve, q.after.complete as u64);
    Ok(())
}

pub fn sell(inp: &Input, r: Reader) -> Res<()> {
    rt::log("Instruction: sell");
    let (tokens_in, min_sol_out) = trade_args(r)?;
    let t = trade_accounts(inp)?;
    if !is_token_account(&t.user_ata, t.mint.key(), t.user.key()) {
        return Err(Error::MissingSellTokenAccount);
    }
    if token_amount(&t.user_ata) < tokens_in {
        return Err(Error::InsufficientTokens);
    }
    let q = math::sell(&curve_state(t.curve.data()), tokens_in, fee_bps(&t.glob))?;
    require_out(q.sol, min_sol_out)?;
    transfer_checked(&Transfer {
        src: t.user_ata,
        mint: t.mint,
        dst: t.vault,
        authority: t.user,
        token: t.p.token,
        amount: tokens_in,
        seeds: None,
    })?;
    let fee = fee_paid(&t.fee_recipient, q.fee);
    move_lamports(&t.curve, &t.user, q.sol_curve - fee)?;
    move_lamports(&t.curve, &t.fee_recipient, fee)?;
    save_curve(&t.curve, &q.after);
    rt::log64(q.tokens, q.sol_curve - fee, fee, q.sol_curve, 0);
    Ok(())
}

// ----------------------------------------------------------------- migrate

/// pool program's initialize_pool discriminator (idl/pool.json)
const POOL_INITIALIZE: [u8; 8] = [95, 180, 10, 172, 84, 174, 232, 40];

pub fn migrate(inp: &Input, r: Reader) -> Res<()> {
    rt::log("Instruction: migrate");
    r.end()?;
    let [payer, glob, mint, curve, vault, pool, pool_vault, pool_program] = inp.first()?;
    require_signer(&payer)?;
    load_global(inp, &glob)?;
    load_curve(inp, &curve, mint.key())?;
    require_key(&mint, st::key_at(curve.data(), C::MINT))?;
    require_key(&vault, &ata_address(curve.key(), mint.key()))?;
    require_program(&pool_program, &POOL_PROGRAM)?;
    let (pool_key, _) = rt::find_pda(&[rt::seed(POOL_SEED), rt::seed(mint.key())], &POOL_PROGRAM);
    require_key(&pool, &pool_key)?;
    require_key(&pool_vault, &ata_address(&pool_key, mint.key()))?;
    let c = curve.data();
    if c[C::MIGRATED] != 0 {
        return Err(Error::AlreadyMigrated);
    }
    if c[C::COMPLETE] == 0 {
        return Err(Error::CurveNotComplete);
    }
    if payer.lamports() < rt::rent_exempt(st::POOL_SIZE) + rt::rent_exempt(st::ATA_SIZE) {
        return Err(Error::InsufficientSol);
    }
    require_writable(&curve)?;
    let p = programs(inp, 8)?;
    if !is_token_account(&vault, mint.key(), curve.key()) {
        return Err(Error::InvalidAccount);
    }
    let g = glob.data();
    // the pool's base is the curve's own reserve (supply less the tokens sold), not the vault's
    // balance: tokens sent to the vault stay there and cannot move the pool's opening price
    let sold = st::rd_u64(g, G::IRT).checked_sub(st::rd_u64(c, C::RT)).ok_or(Error::MathOverflow)?;
    let base = st::rd_u64(c, C::SUPPLY).checked_sub(sold).ok_or(Error::MathOverflow)?;
    if token_amount(&vault) < base {
        return Err(Error::InvalidAccount);
    }
    let quote = st::rd_u64(c, C::RS);
    // the pool opens at the curve's final price, vS / vT, to within 1 bps (the defaults: 0.68 bps)
    let at_curve_price = math::mul_div_floor(quote, st::rd_u64(c, C::VT), st::rd_u64(c, C::VS))?;
    if base.abs_diff(at_curve_price) > at_curve_price / 10_000 {
        return Err(Error::InvalidInput);
    }
    let open_time =
        rt::clock().unix_timestamp.checked_add(st::rd_i64(g, G::POOL_OPEN_DELAY)).ok_or(Error::MathOverflow)?;
    let mut data = [0u8; 8 + 8 + 8 + 8 + 2 + 32 + 32];
    data[..8].copy_from_slice(&POOL_INITIALIZE);
    data[8..16].copy_from_slice(&base.to_le_bytes());
    data[16..24].copy_from_slice(&quote.to_le_bytes());
    data[24..32].copy_from_slice(&open_time.to_le_bytes());
    data[32..34].copy_from_slice(&st::rd_u16(g, G::PROTOCOL_FEE_BPS).to_le_bytes());
    data[34..66].copy_from_slice(st::key_at(g, G::FEE_RECIPIENT));
    data[66..98].copy_from_slice(st::key_at(c, C::CREATOR));
    let cb = [c[C::BUMP]];
    let seeds = [rt::seed(CURVE_SEED), rt::seed(mint.key()), rt::seed(&cb)];
    let metas = [
        rt::meta(&payer, true, true),
        rt::meta(&curve, false, true),
        rt::meta(&mint, false, false),
        rt::meta(&pool, true, false),
        rt::meta(&pool_vault, true, false),
        rt::meta(&vault, true, false),
        rt::meta(&p.system, false, false),
        rt::meta(&p.token, false, false),
        rt::meta(&p.ata, false, false),
    ];
    let accs = [payer, curve, mint, pool, pool_vault, vault, p.system, p.token, p.ata, pool_program];
    invoke!(&POOL_PROGRAM, &metas, &data, &accs, Some(&seeds))?;
    move_lamports(&curve, &pool, quote)?;
    let d = curve.data_mut();
    st::wr_u64(d, C::RS, 0);
    st::wr_u64(d, C::RT, 0);
    d[C::MIGRATED] = 1;
    rt::log64(base, quote, open_time as u64, 0, 0);
    Ok(())
}
