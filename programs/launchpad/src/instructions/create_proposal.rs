//! create_proposal: a holder locks the bond and opens a proposal (update_content,
//! extend_mutability or finalize_metadata) on the coin's governance.

use crate::checks::{
    ata_address, find_pda, require_key, require_programs, require_signer, require_writable, token_balance,
};
use crate::cpi::{create_account, create_ata, rent_exempt, transfer_checked, NewAccount, Programs, Transfer};
use crate::error::Error;
use crate::governance_math::{bond_level_now, extension_error, required_bond, vote_duration_error, VoteWindow};
use crate::instructions::governance::{load_governance, metadata_of};
use crate::instructions::{unpack, NOT_ENOUGH_ACCOUNTS};
use crate::metadata::{check_name, check_symbol, check_uri};
use crate::sdk::log::msg;

use crate::sdk::{sysvar, AccountInfo, ProgramError, ProgramResult, Pubkey};
use crate::state::{self, digest_diff, digests_from, Account, ActionKind, Digests, Governance, Proposal};
use crate::state::{ALL_FIELDS, ATA_SIZE, DIGEST_LEN};
use core::mem::size_of;

/// The content fields a uri proposal changes: image, description, website, twitter, telegram
/// (all in the uri's document).
const URI_FIELDS: u8 = 0x7c;

pub struct Accounts<'a> {
    pub proposer: &'a AccountInfo,
    pub mint: &'a AccountInfo,
    pub governance: &'a AccountInfo,
    /// the mint again (it holds its own TokenMetadata)
    pub metadata: &'a AccountInfo,
    pub proposal: &'a AccountInfo,
    pub proposal_vault: &'a AccountInfo,
    pub proposer_token_account: &'a AccountInfo,
    pub programs: Programs<'a>,
}

impl<'a> Accounts<'a> {
    #[inline(always)]
    pub fn unpack(accounts: &'a [AccountInfo]) -> Result<Self, ProgramError> {
        let [proposer, mint, governance, metadata, proposal, proposal_vault, proposer_token_account, system, token, ata, ..] =
            accounts
        else {
            return Err(NOT_ENOUGH_ACCOUNTS);
        };
        Ok(Accounts {
            proposer,
            mint,
            governance,
            metadata,
            proposal,
            proposal_vault,
            proposer_token_account,
            programs: Programs { system, token, ata },
        })
    }
}

pub struct Args<'a> {
    pub action_kind: ActionKind,
    pub base_content_revision: u64,
    pub vote_duration_seconds: u64,
    pub name: Option<&'a str>,
    pub symbol: Option<&'a str>,
    pub uri: Option<&'a str>,
    pub additional_seconds: Option<u64>,
    /// the content fields the proposal changes (update_content) or locks (finalize_metadata;
    /// 0: every field), bit i: field i (name .. telegram)
    pub changed_fields: u8,
    /// the five uri-borne digests after the change (update_content; zero otherwise)
    pub digests: &'a Digests,
}

impl<'a> Args<'a> {
    /// Decode, then check the arguments against each other (the kind's rules).
    pub fn unpack(data: &'a [u8]) -> Result<Self, ProgramError> {
        let a = unpack(data, |r| {
            Ok(Args {
                action_kind: ActionKind::from_u8(r.variant(ActionKind::COUNT)?),
                base_content_revision: r.u64()?,
                vote_duration_seconds: r.u64()?,
                name: r.option(|r| r.str(usize::MAX))?,
                symbol: r.option(|r| r.str(usize::MAX))?,
                uri: r.option(|r| r.str(usize::MAX))?,
                additional_seconds: r.option(|r| r.u64())?,
                changed_fields: r.u8()?,
                digests: digests_from(r.bytes(size_of::<Digests>())?).ok_or(ProgramError::InvalidInstructionData)?,
            })
        })?;
        a.validate()?;
        Ok(a)
    }

    fn validate(&self) -> ProgramResult {
        if let Some(n) = self.name {
            check_name(n)?;
        }
        if let Some(s) = self.symbol {
            check_symbol(s)?;
        }
        if let Some(u) = self.uri {
            check_uri(u)?;
        }
        let mask = self.changed_fields;
        if mask > ALL_FIELDS {
            return Err(Error::InvalidInput.into());
        }
        let any_text = self.name.is_some() || self.symbol.is_some() || self.uri.is_some();
        match self.action_kind {
            ActionKind::UpdateContent => {
                if self.additional_seconds.is_some() {
                    return Err(Error::InvalidInput.into());
                }
                if mask == 0 {
                    return Err(Error::NoMetadataChanges.into());
                }
                if self.name.is_some() != (mask & 1 != 0) || self.symbol.is_some() != (mask & 2 != 0) {
                    return Err(Error::InvalidInput.into());
                }
                if self.uri.is_some() != (mask & URI_FIELDS != 0) {
                    return Err(Error::InvalidInput.into());
                }
            }
            _ if *self.digests != [[0; DIGEST_LEN]; 5] => return Err(Error::InvalidInput.into()),
            ActionKind::ExtendMutability => {
                if any_text || mask != 0 || self.additional_seconds.unwrap_or(0) == 0 {
                    return Err(Error::InvalidInput.into());
                }
            }
            ActionKind::FinalizeMetadata => {
                if any_text || self.additional_seconds.is_some() {
                    return Err(Error::InvalidInput.into());
                }
            }
        }
        Ok(())
    }
}

fn same(v: Option<&str>, current: &[u8]) -> bool {
    match v {
        Some(s) => s.as_bytes() == current,
        None => false,
    }
}

/// The governance-state checks (reference order): not finalized, still mutable, no open
/// proposal, the current content revision, then the kind's own rules and the vote's duration.
fn check_rules(a: &Args, g: &Governance, metadata: &AccountInfo, now: i64) -> ProgramResult {
    if g.finalized() {
        return Err(Error::GovernanceFinalized.into());
    }
    if now >= g.mutable_until() {
        return Err(if a.action_kind == ActionKind::ExtendMutability {
            Error::MutabilityExpired
        } else {
            Error::MetadataNotMutable
        }
        .into());
    }
    if g.active_proposal().is_some() {
        return Err(Error::ActiveProposalExists.into());
    }
    if a.base_content_revision != g.content_revision() {
        return Err(Error::StaleContentRevision.into());
    }
    let locked = g.locked.mask();
    match a.action_kind {
        ActionKind::UpdateContent => {
            // the uri-borne change set is where the digests differ: a changed digest of a locked
            // field is refused whatever the mask declares, then the mask must declare exactly it
            let changed = digest_diff(a.digests, &g.digests);
            if (a.changed_fields | changed) & locked != 0 {
                return Err(Error::ContentFieldLocked.into());
            }
            if changed != a.changed_fields & URI_FIELDS {
                return Err(Error::InvalidInput.into());
            }
            let f = metadata_of(metadata)?;
            if same(a.name, f[0]) || same(a.symbol, f[1]) || same(a.uri, f[2]) {
                return Err(Error::NoMetadataChanges.into());
            }
        }
        ActionKind::ExtendMutability => {
            extension_error(a.additional_seconds.unwrap_or(0), g.mutability_extended(), g.max_extension_seconds())?
        }
        ActionKind::FinalizeMetadata => {
            let m = if a.changed_fields == 0 { ALL_FIELDS } else { a.changed_fields };
            if m & !locked == 0 {
                return Err(Error::NoMetadataChanges.into());
            }
        }
    }
    let window = VoteWindow {
        min: g.min_vote_duration_seconds(),
        max: g.max_vote_duration_seconds(),
        mutable_until: g.mutable_until(),
    };
    vote_duration_error(now, a.vote_duration_seconds, &window)
}

pub fn process(program_id: &Pubkey, accounts: &[AccountInfo], data: &[u8]) -> ProgramResult {
    msg(b"Instruction: create_proposal");
    let a = Accounts::unpack(accounts)?;
    let args = Args::unpack(data)?;
    let (proposer, mint, gov, prop) = (a.proposer, a.mint, a.governance, a.proposal);
    require_signer(proposer)?;
    let g = load_governance(program_id, gov, Some(mint.key()))?;
    require_key(a.metadata, mint.key())?;
    let now = sysvar::clock()?.unix_timestamp;
    check_rules(&args, g, a.metadata, now)?;

    let index = g.next_proposal_index();
    let ix = index.to_le_bytes();
    let (prop_key, prop_bump) = find_pda(&[state::prop::SEED, gov.key(), &ix], program_id)?;
    require_key(prop, &prop_key)?;
    let vault_key = ata_address(&prop_key, mint.key())?;
    require_key(a.proposal_vault, &vault_key)?;
    require_key(a.proposer_token_account, &ata_address(proposer.key(), mint.key())?)?;
    if prop.data_len() != 0 {
        return Err(Error::AlreadyInitialized.into());
    }
    let held = match token_balance(a.proposer_token_account, mint.key(), proposer.key()) {
        Some(v) if v > 0 => v,
        _ => return Err(Error::MissingProposalTokenAccount.into()),
    };
    let level = bond_level_now(g.bond_level, g.bond_level_at(), now);
    let bond = match required_bond(g.total_supply(), g.proposal_bond_bps() as u64, level)? {
        Some(b) if held >= b => b,
        _ => return Err(Error::InsufficientProposalBond.into()),
    };
    let need = (rent_exempt(state::prop::SIZE)? + rent_exempt(ATA_SIZE)?).saturating_sub(prop.lamports());
    if proposer.lamports() < need {
        return Err(Error::InsufficientSol.into());
    }
    require_writable(gov)?;
    let p = &a.programs;
    require_programs(p.system, p.token, p.ata)?;
    let b = [prop_bump];
    create_account(&NewAccount {
        payer: proposer,
        new: prop,
        system: p.system,
        space: state::prop::SIZE,
        lamports: rent_exempt(state::prop::SIZE)?,
        owner: program_id,
        seeds: &[state::prop::SEED, gov.key(), &ix, &b],
    })?;
    create_ata(proposer, a.proposal_vault, prop, mint, p)?;
    transfer_checked(&Transfer {
        src: a.proposer_token_account,
        mint,
        dst: a.proposal_vault,
        authority: proposer,
        token: p.token,
        amount: bond,
        seeds: &[],
    })?;
    let d = Proposal::init(prop)?;
    d.governance = *gov.key();
    d.mint = *mint.key();
    d.proposer = *proposer.key();
    d.set_index(index);
    d.set_base_content_revision(args.base_content_revision);
    d.set_action_kind(args.action_kind);
    d.action_name.set(args.name);
    d.action_symbol.set(args.symbol);
    d.action_uri.set(args.uri);
    d.action_additional_seconds.set(args.additional_seconds);
    d.changed.set(args.changed_fields);
    d.digests = *args.digests;
    d.set_created_at(now);
    d.set_voting_ends_at(now + args.vote_duration_seconds as i64);
    d.set_bond_amount(bond);
    d.bump = prop_bump;
    d.vault = vault_key;
    let g = Governance::view_mut(gov)?;
    g.set_active_proposal(Some(&prop_key));
    g.set_next_proposal_index(index + 1);
    g.bond_level = level;
    Ok(())
}
