//! Metadata governance (the Python reference's governance.py, in the git history,
//! check for check and in its order). The coin's name, symbol and uri live in
//! the Token-2022 mint's TokenMetadata; its update authority is the governance
//! PDA, which signs UpdateField when an update_content proposal is applied and
//! UpdateAuthority(none) when the governance is finalized.

use crate::args::{check_name, check_symbol, check_uri, Reader};
use crate::error::{Error, Res};
use crate::layout::{self as st, gov as V, prop as P, receipt as R};
use crate::legacy::*;
use crate::math;
use crate::rt::{self, Acc, CSeed, Input, Pubkey};

const ALL_FIELDS: u8 = 0x7f;
const URI_FIELDS: u8 = 0x7c;
const KIND_UPDATE: u8 = 0;
const KIND_EXTEND: u8 = 1;
const KIND_FINALIZE: u8 = 2;

// ----------------------------------------------------------------- state access

/// The governance account, checked: its PDA for `mint` when given, existence,
/// discriminator, then its canonical PDA and bump for the mint it records.
fn load_governance(inp: &Input, a: &Acc, mint: Option<&Pubkey>) -> Res<()> {
    if let Some(m) = mint {
        if !is_ours(a, inp.program_id, &V::DISC, V::SIZE) {
            // failing anyway: the address tells InvalidAccount from GovernanceNotFound
            let (k, _) = rt::find_pda(&[rt::seed(GOVERNANCE_SEED), rt::seed(m)], inp.program_id);
            require_key(a, &k)?;
        } else if !rt::key_eq(st::key_at(a.data(), V::MINT), m) {
            return Err(Error::InvalidAccount); // another mint's governance (its PDA: checked below)
        }
    }
    if !rt::key_eq(a.owner(), inp.program_id) || a.data_len() == 0 {
        return Err(Error::GovernanceNotFound);
    }
    if !is_ours(a, inp.program_id, &V::DISC, V::SIZE) {
        return Err(Error::GovernanceNotFound);
    }
    let d = a.data();
    require_pda(
        a,
        &[rt::seed(GOVERNANCE_SEED), rt::seed(st::key_at(d, V::MINT))],
        d[V::BUMP],
        inp.program_id,
        Error::InvalidAccount,
    )
}

/// The proposal account, checked: existence, discriminator, its governance, its canonical PDA and bump.
fn load_proposal(inp: &Input, a: &Acc, gov: &Acc) -> Res<()> {
    if !rt::key_eq(a.owner(), inp.program_id) || a.data_len() == 0 {
        return Err(Error::ProposalNotFound);
    }
    if !is_ours(a, inp.program_id, &P::DISC, P::SIZE) {
        return Err(Error::InvalidProposal);
    }
    let d = a.data();
    if !rt::key_eq(st::key_at(d, P::GOVERNANCE), gov.key()) {
        return Err(Error::InvalidProposal);
    }
    let seeds = [rt::seed(PROPOSAL_SEED), rt::seed(gov.key()), rt::seed(&d[P::INDEX..P::INDEX + 8])];
    require_pda(a, &seeds, d[P::BUMP], inp.program_id, Error::InvalidProposal)
}

/// A receipt of ours for `proposal` and `voter` at the PDA of its stored bump (one
/// create_program_address): Some(bump); None when the account is no receipt of ours.
fn stored_receipt(inp: &Input, a: &Acc, proposal: &Pubkey, voter: &Pubkey) -> Res<Option<u8>> {
    if !is_ours(a, inp.program_id, &R::DISC, R::SIZE) {
        return Ok(None);
    }
    let d = a.data();
    if !rt::key_eq(st::key_at(d, R::PROPOSAL), proposal) || !rt::key_eq(st::key_at(d, R::VOTER), voter) {
        return Err(Error::InvalidAccount);
    }
    require_pda(
        a,
        &[rt::seed(VOTE_SEED), rt::seed(proposal), rt::seed(voter)],
        d[R::BUMP],
        inp.program_id,
        Error::InvalidAccount,
    )?;
    Ok(Some(d[R::BUMP]))
}

/// The proposal's vault: the key the proposal stores, held by the proposal (a proposal from
/// before the stored key: its ATA address).
fn require_vault(vault: &Acc, prop: &Acc, mint: &Pubkey) -> Res<()> {
    let k = st::key_at(prop.data(), P::VAULT);
    if crate::sdk::pubkey::pk_is_zero(k) {
        return require_key(vault, &ata_address(prop.key(), mint));
    }
    require_key(vault, k)?;
    let v = vault.data();
    if v.len() < st::TOKEN_ACCOUNT_BASE || !rt::key_eq(st::key_at(v, 32), prop.key()) {
        return Err(Error::InvalidAccount);
    }
    Ok(())
}

/// The vote receipt of `voter` on `proposal`: its PDA, then existence.
fn load_receipt(inp: &Input, a: &Acc, proposal: &Pubkey, voter: &Pubkey) -> Res<()> {
    if stored_receipt(inp, a, proposal, voter)?.is_some() {
        return Ok(());
    }
    let (k, bump) = rt::find_pda(&[rt::seed(VOTE_SEED), rt::seed(proposal), rt::seed(voter)], inp.program_id);
    require_key(a, &k)?;
    if !rt::key_eq(a.owner(), inp.program_id) || a.data_len() == 0 {
        return Err(Error::VoteReceiptNotFound);
    }
    if !is_ours(a, inp.program_id, &R::DISC, R::SIZE) || a.data()[R::BUMP] != bump {
        return Err(Error::InvalidAccount);
    }
    Ok(())
}

fn voting_closed(p: &[u8], now: i64) -> bool {
    p[P::SETTLED] != 0 || now >= st::rd_i64(p, P::ENDS_AT)
}

/// The mint's TokenMetadata (name, symbol, uri); InvalidAccount when `a` is not a
/// Token-2022 mint whose MetadataPointer points at itself and which holds the extension.
fn metadata_of(a: &Acc) -> Res<[&[u8]; 3]> {
    if !rt::key_eq(a.owner(), &TOKEN_2022) {
        return Err(Error::InvalidAccount);
    }
    let d = a.data();
    if d.len() <= st::TOKEN_ACCOUNT_BASE || d[st::TOKEN_ACCOUNT_BASE] != st::ACCOUNT_TYPE_MINT {
        return Err(Error::InvalidAccount);
    }
    match st::extension(d, st::EXT_METADATA_POINTER) {
        Some(p) if p.len() == 64 && rt::key_eq(st::key_at(p, 32), a.key()) => {}
        _ => return Err(Error::InvalidAccount),
    }
    match st::extension(d, st::EXT_TOKEN_METADATA).and_then(st::metadata_fields) {
        Some(f) => Ok(f),
        None => Err(Error::InvalidAccount),
    }
}

// ----------------------------------------------------------------- create_proposal

struct CreateArgs<'a> {
    kind: u8,
    base_rev: u64,
    duration: u64,
    name: Option<&'a str>,
    symbol: Option<&'a str>,
    uri: Option<&'a str>,
    additional: Option<u64>,
    mask: u8,
    /// the five uri-borne digests after the change (update_content; zero otherwise)
    digests: &'a [u8],
}

fn parse_create_args<'a>(mut r: Reader<'a>) -> Res<CreateArgs<'a>> {
    let a = CreateArgs {
        kind: r.variant(3)?,
        base_rev: r.u64()?,
        duration: r.u64()?,
        name: r.opt_string()?,
        symbol: r.opt_string()?,
        uri: r.opt_string()?,
        additional: r.opt_u64()?,
        mask: r.u8()?,
        digests: r.digests()?,
    };
    r.end()?;
    if let Some(n) = a.name {
        check_name(n)?;
    }
    if let Some(s) = a.symbol {
        check_symbol(s)?;
    }
    if let Some(u) = a.uri {
        check_uri(u)?;
    }
    if a.mask > ALL_FIELDS {
        return Err(Error::InvalidInput);
    }
    let any_text = a.name.is_some() || a.symbol.is_some() || a.uri.is_some();
    match a.kind {
        KIND_UPDATE => {
            if a.additional.is_some() {
                return Err(Error::InvalidInput);
            }
            if a.mask == 0 {
                return Err(Error::NoMetadataChanges);
            }
            if a.name.is_some() != (a.mask & 1 != 0) || a.symbol.is_some() != (a.mask & 2 != 0) {
                return Err(Error::InvalidInput);
            }
            if a.uri.is_some() != (a.mask & URI_FIELDS != 0) {
                return Err(Error::InvalidInput);
            }
        }
        _ if a.digests.iter().any(|b| *b != 0) => return Err(Error::InvalidInput),
        KIND_EXTEND => {
            if any_text || a.mask != 0 {
                return Err(Error::InvalidInput);
            }
            if a.additional.unwrap_or(0) == 0 {
                return Err(Error::InvalidInput);
            }
        }
        KIND_FINALIZE => {
            if any_text || a.additional.is_some() {
                return Err(Error::InvalidInput);
            }
        }
        _ => return Err(Error::InvalidInput),
    }
    Ok(a)
}

/// governance_math.extension_error
fn extension_error(additional: u64, g: &[u8]) -> Res<()> {
    if g[V::EXTENDED] != 0 {
        return Err(Error::MutabilityAlreadyExtended);
    }
    let cap = st::rd_i64(g, V::MAX_EXT);
    if cap < 0 || additional > cap as u64 {
        return Err(Error::MutabilityExtensionExceedsCap);
    }
    Ok(())
}

/// governance_math.vote_duration_error
fn vote_duration_error(now: i64, duration: u64, g: &[u8]) -> Res<()> {
    let min = st::rd_i64(g, V::MIN_VOTE);
    let max = st::rd_i64(g, V::MAX_VOTE);
    let until = st::rd_i64(g, V::MUTABLE_UNTIL);
    if duration > i64::MAX as u64 || (duration as i64) < min || (duration as i64) > max {
        return Err(Error::InvalidVoteDuration);
    }
    if now.saturating_add(min) >= until {
        return Err(Error::ProposalWindowClosing);
    }
    if now.saturating_add(duration as i64) >= until {
        return Err(Error::VoteDurationExceedsWindow);
    }
    Ok(())
}

fn same(v: Option<&str>, current: &[u8]) -> bool {
    match v {
        Some(s) => rt::bytes_eq(s.as_bytes(), current),
        None => false,
    }
}

/// The governance-state checks of create_proposal (reference order).
fn check_proposal_rules(a: &CreateArgs, g: &[u8], meta: &Acc, now: i64) -> Res<()> {
    if g[V::FINALIZED] != 0 {
        return Err(Error::GovernanceFinalized);
    }
    if now >= st::rd_i64(g, V::MUTABLE_UNTIL) {
        return Err(if a.kind == KIND_EXTEND { Error::MutabilityExpired } else { Error::MetadataNotMutable });
    }
    if g[V::ACTIVE] != 0 {
        return Err(Error::ActiveProposalExists);
    }
    if a.base_rev != st::rd_u64(g, V::CONTENT_REVISION) {
        return Err(Error::StaleContentRevision);
    }
    let locked = st::mask_at(g, V::LOCKED);
    match a.kind {
        KIND_UPDATE => {
            // the uri-borne change set is where the digests differ: a changed digest of a locked
            // field is refused whatever the mask declares, then the mask must declare exactly it
            let changed = st::digest_diff(a.digests, &g[V::DIGESTS..V::DIGESTS + st::DIGESTS_LEN]);
            if (a.mask | changed) & locked != 0 {
                return Err(Error::ContentFieldLocked);
            }
            if changed != a.mask & URI_FIELDS {
                return Err(Error::InvalidInput);
            }
            let f = metadata_of(meta)?;
            if same(a.name, f[0]) || same(a.symbol, f[1]) || same(a.uri, f[2]) {
                return Err(Error::NoMetadataChanges);
            }
        }
        KIND_EXTEND => extension_error(a.additional.unwrap_or(0), g)?,
        _ => {
            let m = if a.mask == 0 { ALL_FIELDS } else { a.mask };
            if m & !locked == 0 {
                return Err(Error::NoMetadataChanges);
            }
        }
    }
    vote_duration_error(now, a.duration, g)
}

pub fn create_proposal(inp: &Input, r: Reader) -> Res<()> {
    rt::log("Instruction: create_proposal");
    let [proposer, mint, gov, meta, prop, vault, proposer_ata] = inp.first()?;
    let a = parse_create_args(r)?;
    require_signer(&proposer)?;
    load_governance(inp, &gov, Some(mint.key()))?;
    require_key(&meta, mint.key())?;
    let now = rt::clock().unix_timestamp;
    check_proposal_rules(&a, gov.data(), &meta, now)?;

    let g = gov.data();
    let index = st::rd_u64(g, V::NEXT_INDEX);
    let ix = index.to_le_bytes();
    let (prop_key, prop_bump) =
        rt::find_pda(&[rt::seed(PROPOSAL_SEED), rt::seed(gov.key()), rt::seed(&ix)], inp.program_id);
    require_key(&prop, &prop_key)?;
    let vault_key = ata_address(&prop_key, mint.key());
    require_key(&vault, &vault_key)?;
    require_key(&proposer_ata, &ata_address(proposer.key(), mint.key()))?;
    if prop.data_len() != 0 {
        return Err(Error::AlreadyInitialized);
    }
    if !is_token_account(&proposer_ata, mint.key(), proposer.key()) || token_amount(&proposer_ata) == 0 {
        return Err(Error::MissingProposalTokenAccount);
    }
    let level = math::bond_level_now(g[V::BOND_LEVEL], st::rd_i64(g, V::BOND_LEVEL_AT), now);
    let bond = match math::required_bond(st::rd_u64(g, V::TOTAL_SUPPLY), st::rd_u16(g, V::BOND_BPS) as u64, level)? {
        Some(b) if token_amount(&proposer_ata) >= b => b,
        _ => return Err(Error::InsufficientProposalBond),
    };
    let need = (rt::rent_exempt(P::SIZE) + rt::rent_exempt(st::ATA_SIZE)).saturating_sub(prop.lamports());
    if proposer.lamports() < need {
        return Err(Error::InsufficientSol);
    }
    require_writable(&gov)?;
    let p = programs(inp, 7)?;
    let b = [prop_bump];
    let seeds = [rt::seed(PROPOSAL_SEED), rt::seed(gov.key()), rt::seed(&ix), rt::seed(&b)];
    create_account(&NewAccount {
        payer: proposer,
        new: prop,
        space: P::SIZE,
        lamports: rt::rent_exempt(P::SIZE),
        owner: inp.program_id,
        seeds: Some(&seeds),
        system: p.system,
    })?;
    create_ata(&proposer, &vault, &prop, &mint, &p)?;
    transfer_checked(&Transfer {
        src: proposer_ata,
        mint,
        dst: vault,
        authority: proposer,
        token: p.token,
        amount: bond,
        seeds: None,
    })?;
    let d = prop.data_mut();
    d[..8].copy_from_slice(&P::DISC);
    st::wr_key(d, P::GOVERNANCE, gov.key());
    st::wr_key(d, P::MINT, mint.key());
    st::wr_key(d, P::PROPOSER, proposer.key());
    st::wr_u64(d, P::INDEX, index);
    st::wr_u64(d, P::BASE_REV, a.base_rev);
    d[P::KIND] = a.kind;
    st::wr_fixed_opt_str(d, P::NAME, a.name);
    st::wr_fixed_opt_str(d, P::SYMBOL, a.symbol);
    st::wr_fixed_opt_str(d, P::URI, a.uri);
    if let Some(s) = a.additional {
        d[P::ADDITIONAL] = 1;
        st::wr_u64(d, P::ADDITIONAL + 1, s);
    }
    st::set_mask_at(d, P::CHANGED, a.mask);
    d[P::DIGESTS..P::DIGESTS + st::DIGESTS_LEN].copy_from_slice(a.digests);
    st::wr_i64(d, P::CREATED_AT, now);
    st::wr_i64(d, P::ENDS_AT, now + a.duration as i64);
    st::wr_u64(d, P::BOND, bond);
    d[P::BUMP] = prop_bump;
    st::wr_key(d, P::VAULT, &vault_key);
    let g = gov.data_mut();
    g[V::ACTIVE] = 1;
    st::wr_key(g, V::ACTIVE + 1, &prop_key);
    st::wr_u64(g, V::NEXT_INDEX, index + 1);
    g[V::BOND_LEVEL] = level;
    Ok(())
}

// ----------------------------------------------------------------- votes

/// yes / no and participation, +amount (add) or -amount (retract).
fn tally(p: &mut [u8], rec: &[u8], add: bool) -> Res<()> {
    let amount = st::rd_u64(rec, R::AMOUNT);
    let side_off = if rec[R::SIDE] == 0 { P::YES } else { P::NO };
    let f = |v: u64| if add { v.checked_add(amount) } else { v.checked_sub(amount) };
    let side = f(st::rd_u64(p, side_off)).ok_or(Error::MathOverflow)?;
    let part = f(st::rd_u64(p, P::PARTICIPATING)).ok_or(Error::MathOverflow)?;
    let mut voters = st::rd_u32(p, P::VOTERS);
    if rec[R::COUNTED] != 0 {
        voters = if add { voters.checked_add(1) } else { voters.checked_sub(1) }.ok_or(Error::MathOverflow)?;
    }
    st::wr_u64(p, side_off, side);
    st::wr_u64(p, P::PARTICIPATING, part);
    st::wr_u32(p, P::VOTERS, voters);
    Ok(())
}

pub fn cast_vote(inp: &Input, mut r: Reader) -> Res<()> {
    rt::log("Instruction: cast_vote");
    let side = r.variant(2)?;
    let amount = r.u64()?;
    r.end()?;
    let [voter, mint, gov, prop, vault, rec, voter_ata] = inp.first()?;
    if amount == 0 {
        return Err(Error::InvalidVoteAmount);
    }
    require_signer(&voter)?;
    load_governance(inp, &gov, Some(mint.key()))?;
    load_proposal(inp, &prop, &gov)?;
    require_vault(&vault, &prop, mint.key())?;
    require_user_token_account(&voter_ata, mint.key(), voter.key())?;
    // a receipt of ours by its stored bump; a new one by the search that gives its bump
    let rec_bump = match stored_receipt(inp, &rec, prop.key(), voter.key())? {
        Some(b) => b,
        None => {
            let (rec_key, b) =
                rt::find_pda(&[rt::seed(VOTE_SEED), rt::seed(prop.key()), rt::seed(voter.key())], inp.program_id);
            require_key(&rec, &rec_key)?;
            b
        }
    };
    let clock = rt::clock();
    if voting_closed(prop.data(), clock.unix_timestamp) {
        return Err(Error::ProposalClosed);
    }
    let exists = rec.data_len() != 0;
    if exists {
        if !is_ours(&rec, inp.program_id, &R::DISC, R::SIZE) || rec.data()[R::BUMP] != rec_bump {
            return Err(Error::InvalidAccount);
        }
        if rec.data()[R::ACTIVE] != 0 {
            return Err(Error::AlreadyVoted);
        }
    }
    if !is_token_account(&voter_ata, mint.key(), voter.key()) || token_amount(&voter_ata) == 0 {
        return Err(Error::MissingVoteTokenAccount);
    }
    if amount > token_amount(&voter_ata) {
        return Err(Error::InvalidVoteAmount);
    }
    require_writable(&prop)?;
    let system = inp.acc(7)?;
    let token = inp.acc(8)?;
    require_program(&system, &SYSTEM_PROGRAM)?;
    require_program(&token, &TOKEN_2022)?;
    if !exists {
        if voter.lamports() < rt::rent_exempt(R::SIZE).saturating_sub(rec.lamports()) {
            return Err(Error::InsufficientSol);
        }
        let b = [rec_bump];
        let seeds = [rt::seed(VOTE_SEED), rt::seed(prop.key()), rt::seed(voter.key()), rt::seed(&b)];
        create_account(&NewAccount {
            payer: voter,
            new: rec,
            space: R::SIZE,
            lamports: rt::rent_exempt(R::SIZE),
            owner: inp.program_id,
            seeds: Some(&seeds),
            system,
        })?;
    }
    require_writable(&rec)?;
    transfer_checked(&Transfer { src: voter_ata, mint, dst: vault, authority: voter, token, amount, seeds: None })?;
    let min_lock = st::rd_u64(gov.data(), V::MIN_LOCK);
    let d = rec.data_mut();
    d[..R::SIZE].fill(0);
    d[..8].copy_from_slice(&R::DISC);
    st::wr_key(d, R::PROPOSAL, prop.key());
    st::wr_key(d, R::VOTER, voter.key());
    d[R::SIDE] = side;
    st::wr_u64(d, R::AMOUNT, amount);
    d[R::COUNTED] = (amount >= min_lock) as u8;
    d[R::ACTIVE] = 1;
    st::wr_i64(d, R::CREATED_AT, clock.unix_timestamp);
    d[R::BUMP] = rec_bump;
    tally(prop.data_mut(), rec.data(), true)
}

/// Checks of the instructions that pay out of a proposal's vault: the signer,
/// the governance of `mint`, the proposal, the vault.
struct Escrow {
    signer: Acc,
    mint: Acc,
    gov: Acc,
    prop: Acc,
    vault: Acc,
}

/// The signer (account 0), then the mint, governance, proposal and vault from account `at`.
fn escrow(inp: &Input, at: usize) -> Res<Escrow> {
    let signer = inp.acc(0)?;
    Ok(Escrow { signer, mint: inp.acc(at)?, gov: inp.acc(at + 1)?, prop: inp.acc(at + 2)?, vault: inp.acc(at + 3)? })
}

fn load_escrow(inp: &Input, e: &Escrow) -> Res<()> {
    require_signer(&e.signer)?;
    load_governance(inp, &e.gov, Some(e.mint.key()))?;
    load_proposal(inp, &e.prop, &e.gov)?;
    require_vault(&e.vault, &e.prop, e.mint.key())
}

/// Vault -> `owner`'s ATA (created, paid by the escrow's signer, when missing),
/// signed by the proposal PDA.
fn pay_out(e: &Escrow, owner: &Acc, owner_ata: &Acc, amount: u64, p: &Programs) -> Res<()> {
    require_user_token_account(owner_ata, e.mint.key(), owner.key())?;
    if !is_token_account(owner_ata, e.mint.key(), owner.key()) {
        create_ata(&e.signer, owner_ata, owner, &e.mint, p)?;
    }
    let d = e.prop.data();
    let b = [d[P::BUMP]];
    let seeds: [CSeed; 4] =
        [rt::seed(PROPOSAL_SEED), rt::seed(e.gov.key()), rt::seed(&d[P::INDEX..P::INDEX + 8]), rt::seed(&b)];
    transfer_checked(&Transfer {
        src: e.vault,
        mint: e.mint,
        dst: *owner_ata,
        authority: e.prop,
        token: p.token,
        amount,
        seeds: Some(&seeds),
    })
}

pub fn cancel_vote(inp: &Input, r: Reader) -> Res<()> {
    rt::log("Instruction: cancel_vote");
    r.end()?;
    let e = escrow(inp, 1)?;
    let rec = inp.acc(5)?;
    let voter_ata = inp.acc(6)?;
    load_escrow(inp, &e)?;
    load_receipt(inp, &rec, e.prop.key(), e.signer.key())?;
    if rec.data()[R::ACTIVE] == 0 {
        return Err(Error::VoteNotActive);
    }
    if voting_closed(e.prop.data(), rt::clock().unix_timestamp) {
        return Err(Error::ProposalClosed);
    }
    require_writable(&e.prop)?;
    require_writable(&rec)?;
    let p = programs(inp, 7)?;
    pay_out(&e, &e.signer, &voter_ata, st::rd_u64(rec.data(), R::AMOUNT), &p)?;
    tally(e.prop.data_mut(), rec.data(), false)?;
    rec.data_mut()[R::ACTIVE] = 0;
    Ok(())
}

pub fn withdraw_vote(inp: &Input, r: Reader) -> Res<()> {
    rt::log("Instruction: withdraw_vote");
    r.end()?;
    let voter = inp.acc(1)?;
    let e = escrow(inp, 2)?;
    let rec = inp.acc(6)?;
    let voter_ata = inp.acc(7)?;
    load_escrow(inp, &e)?;
    load_receipt(inp, &rec, e.prop.key(), voter.key())?;
    let d = rec.data();
    if d[R::ACTIVE] == 0 {
        return Err(Error::VoteNotActive);
    }
    if d[R::WITHDRAWN] != 0 {
        return Err(Error::VoteAlreadyWithdrawn);
    }
    if e.prop.data()[P::SETTLED] == 0 {
        return Err(Error::ProposalNotSettled);
    }
    require_writable(&rec)?;
    let p = programs(inp, 8)?;
    pay_out(&e, &voter, &voter_ata, st::rd_u64(d, R::AMOUNT), &p)?;
    rec.data_mut()[R::WITHDRAWN] = 1;
    Ok(())
}

pub fn withdraw_bond(inp: &Input, r: Reader) -> Res<()> {
    rt::log("Instruction: withdraw_bond");
    r.end()?;
    let proposer = inp.acc(1)?;
    let e = escrow(inp, 2)?;
    let proposer_ata = inp.acc(6)?;
    load_escrow(inp, &e)?;
    let d = e.prop.data();
    require_key(&proposer, st::key_at(d, P::PROPOSER))?;
    let bond = st::rd_u64(d, P::BOND);
    if bond == 0 {
        return Err(Error::NoProposalBond);
    }
    if d[P::BOND_WITHDRAWN] != 0 {
        return Err(Error::ProposalBondAlreadyWithdrawn);
    }
    if d[P::SETTLED] == 0 {
        return Err(Error::ProposalNotSettled);
    }
    require_writable(&e.prop)?;
    let p = programs(inp, 7)?;
    pay_out(&e, &proposer, &proposer_ata, bond, &p)?;
    e.prop.data_mut()[P::BOND_WITHDRAWN] = 1;
    Ok(())
}

// ----------------------------------------------------------------- settlement

/// The governance PDA's seeds (it is the metadata's update authority).
fn with_gov_seeds(gov: &Acc, f: &mut dyn FnMut(&[CSeed]) -> Res<()>) -> Res<()> {
    let d = gov.data();
    let b = [d[V::BUMP]];
    let mint: Pubkey = *st::key_at(d, V::MINT);
    let seeds = [rt::seed(GOVERNANCE_SEED), rt::seed(&mint), rt::seed(&b)];
    f(&seeds)
}

/// TokenMetadata UpdateField(field, value), signed by the governance PDA.
fn update_field(meta: &Acc, gov: &Acc, token: &Acc, field: u8, value: &[u8]) -> Res<()> {
    let mut data = [0u8; 8 + 1 + 4 + 200];
    data[..8].copy_from_slice(&crate::legacy::TM_UPDATE_FIELD);
    data[8] = field;
    let end = crate::legacy::put_str(&mut data, 9, value);
    let metas = [rt::meta(meta, true, false), rt::meta(gov, false, true)];
    with_gov_seeds(gov, &mut |s| invoke!(&TOKEN_2022, &metas, &data[..end], &[*meta, *gov, *token], Some(s)))
}

/// TokenMetadata UpdateAuthority(none): the metadata is immutable from now on.
fn lock_metadata(meta: &Acc, gov: &Acc, token: &Acc) -> Res<()> {
    let mut data = [0u8; 40];
    data[..8].copy_from_slice(&crate::legacy::TM_UPDATE_AUTHORITY);
    let metas = [rt::meta(meta, true, false), rt::meta(gov, false, true)];
    with_gov_seeds(gov, &mut |s| invoke!(&TOKEN_2022, &metas, &data, &[*meta, *gov, *token], Some(s)))
}

/// Lock fields of `mask`; all locked: finalized, and the metadata's update authority goes.
fn lock_fields(gov: &Acc, mask: u8, meta: &Acc, token: &Acc) -> Res<()> {
    let g = gov.data_mut();
    st::set_mask_at(g, V::LOCKED, mask);
    if st::mask_at(g, V::LOCKED) == ALL_FIELDS {
        g[V::FINALIZED] = 1;
        return lock_metadata(meta, gov, token);
    }
    Ok(())
}

/// Apply a passed proposal; Ok(false) when it is not executed (the reference's reasons).
fn execute(gov: &Acc, prop: &Acc, meta: &Acc, token: &Acc, now: i64) -> Res<bool> {
    let g = gov.data();
    let p = prop.data();
    if g[V::FINALIZED] != 0 || now >= st::rd_i64(g, V::MUTABLE_UNTIL) {
        return Ok(false);
    }
    match p[P::KIND] {
        KIND_UPDATE => {
            if st::rd_u64(p, P::BASE_REV) != st::rd_u64(g, V::CONTENT_REVISION)
                || st::mask_at(p, P::CHANGED) & st::mask_at(g, V::LOCKED) != 0
            {
                return Ok(false);
            }
            let mut updated = false;
            let mut field = 0u8;
            while field < 3 {
                let off = [P::NAME, P::SYMBOL, P::URI][field as usize];
                if let Some(v) = st::fixed_opt_str(p, off) {
                    let current = metadata_of(meta)?[field as usize];
                    if !rt::bytes_eq(v, current) {
                        update_field(meta, gov, token, field, v)?;
                        updated = true;
                    }
                }
                field += 1;
            }
            prop.data_mut()[P::METADATA_UPDATED] = updated as u8;
            let g = gov.data_mut();
            g[V::DIGESTS..V::DIGESTS + st::DIGESTS_LEN].copy_from_slice(&p[P::DIGESTS..P::DIGESTS + st::DIGESTS_LEN]);
            let rev = st::rd_u64(g, V::CONTENT_REVISION).checked_add(1).ok_or(Error::MathOverflow)?;
            st::wr_u64(g, V::CONTENT_REVISION, rev);
        }
        KIND_EXTEND => {
            let add = st::rd_u64(p, P::ADDITIONAL + 1);
            if extension_error(add, g).is_err() {
                return Ok(false);
            }
            let until = st::rd_i64(g, V::MUTABLE_UNTIL);
            let until = if add > i64::MAX as u64 { None } else { until.checked_add(add as i64) };
            let g = gov.data_mut();
            st::wr_i64(g, V::MUTABLE_UNTIL, until.ok_or(Error::MathOverflow)?);
            g[V::EXTENDED] = 1;
        }
        _ => {
            let m = st::mask_at(p, P::CHANGED);
            lock_fields(gov, if m == 0 { ALL_FIELDS } else { m }, meta, token)?;
        }
    }
    prop.data_mut()[P::EXECUTED] = 1;
    Ok(true)
}

pub fn settle_proposal(inp: &Input, r: Reader) -> Res<()> {
    rt::log("Instruction: settle_proposal");
    r.end()?;
    let [payer, gov, prop, meta] = inp.first()?;
    require_signer(&payer)?;
    load_governance(inp, &gov, None)?;
    load_proposal(inp, &prop, &gov)?;
    let p = prop.data();
    if p[P::SETTLED] != 0 {
        return Err(Error::ProposalAlreadySettled);
    }
    let now = rt::clock().unix_timestamp;
    if now < st::rd_i64(p, P::ENDS_AT) {
        return Err(Error::ProposalStillOpen);
    }
    require_key(&meta, st::key_at(gov.data(), V::MINT))?;
    require_writable(&gov)?;
    require_writable(&prop)?;
    let token = inp.acc(4)?;
    require_program(&token, &TOKEN_2022)?;
    let g = gov.data();
    let outcome = math::outcome(
        &math::Tally {
            yes: st::rd_u64(p, P::YES),
            no: st::rd_u64(p, P::NO),
            voters: st::rd_u32(p, P::VOTERS),
            total_supply: st::rd_u64(g, V::TOTAL_SUPPLY),
        },
        &math::Thresholds {
            min_voter_count: st::rd_u32(g, V::MIN_VOTER_COUNT),
            min_participating_supply_bps: st::rd_u16(g, V::MIN_PS_BPS) as u64,
            approval_bps: st::rd_u16(g, V::APPROVAL_BPS) as u64,
        },
    );
    prop.data_mut()[P::OUTCOME] = outcome;
    if outcome == math::OUTCOME_PASSED {
        require_writable(&meta)?;
        execute(&gov, &prop, &meta, &token, now)?;
    }
    let p = prop.data_mut();
    p[P::SETTLED] = 1;
    st::wr_i64(p, P::SETTLED_AT, now);
    let (created, ends) = (st::rd_i64(p, P::CREATED_AT), st::rd_i64(p, P::ENDS_AT));
    let g = gov.data_mut();
    g[V::BOND_LEVEL] = math::bond_level_after(g[V::BOND_LEVEL], outcome == math::OUTCOME_PASSED, created, ends);
    st::wr_i64(g, V::BOND_LEVEL_AT, ends);
    if g[V::ACTIVE] != 0 && rt::key_eq(st::key_at(g, V::ACTIVE + 1), prop.key()) {
        g[V::ACTIVE..V::ACTIVE + 33].fill(0);
    }
    rt::log64(outcome as u64, p[P::EXECUTED] as u64, p[P::METADATA_UPDATED] as u64, 0, 0);
    Ok(())
}

pub fn finalize_expired(inp: &Input, r: Reader) -> Res<()> {
    rt::log("Instruction: finalize_expired");
    r.end()?;
    let [payer, gov] = inp.first()?;
    require_signer(&payer)?;
    load_governance(inp, &gov, None)?;
    let g = gov.data();
    if g[V::FINALIZED] != 0 {
        return Err(Error::GovernanceFinalized);
    }
    if rt::clock().unix_timestamp < st::rd_i64(g, V::MUTABLE_UNTIL) {
        return Err(Error::MetadataStillMutable);
    }
    let meta = inp.acc(2)?;
    let token = inp.acc(3)?;
    require_key(&meta, st::key_at(g, V::MINT))?;
    require_writable(&meta)?;
    require_writable(&gov)?;
    require_program(&token, &TOKEN_2022)?;
    gov.data_mut()[V::BY_EXPIRY] = 1;
    lock_fields(&gov, ALL_FIELDS, &meta, &token)
}
