//! settle_proposal: once voting has ended, anyone (the payer) settles a proposal: its outcome
//! from the tally and the governance's thresholds, and a passed proposal applied (the
//! metadata's fields updated, the mutability extended, or fields locked).

use crate::checks::{require_key, require_signer, require_writable};
use crate::error::Error;
use crate::governance_math::{bond_level_after, extension_error, outcome, Tally, Thresholds, OUTCOME_PASSED};
use crate::instructions::governance::{load_governance, load_proposal, metadata_of, MetadataAuthority};
use crate::instructions::{no_args, NOT_ENOUGH_ACCOUNTS};
use crate::sdk::log::{log_u64s, msg};
use crate::sdk::pubkey::{pk_eq, TOKEN_2022_PROGRAM_ID};
use crate::sdk::token::{FIELD_NAME, FIELD_SYMBOL, FIELD_URI};
use crate::sdk::{sysvar, AccountInfo, ProgramError, ProgramResult, Pubkey};
use crate::state::{Account, ActionKind, Governance, Proposal, ALL_FIELDS};

pub struct Accounts<'a> {
    pub payer: &'a AccountInfo,
    pub governance: &'a AccountInfo,
    pub proposal: &'a AccountInfo,
    /// the mint (it holds its own TokenMetadata)
    pub metadata: &'a AccountInfo,
    pub token_program: &'a AccountInfo,
}

impl<'a> Accounts<'a> {
    #[inline(always)]
    pub fn unpack(accounts: &'a [AccountInfo]) -> Result<Self, ProgramError> {
        let [payer, governance, proposal, metadata, token_program, ..] = accounts else {
            return Err(NOT_ENOUGH_ACCOUNTS);
        };
        Ok(Accounts { payer, governance, proposal, metadata, token_program })
    }

    fn authority(&self) -> MetadataAuthority<'a> {
        MetadataAuthority { metadata: self.metadata, governance: self.governance, token: self.token_program }
    }
}

/// Apply a passed proposal; Ok(false) when it is not executed (the reference's reasons: the
/// governance finalized or no longer mutable, a stale revision or a field locked since, an
/// extension no longer allowed).
fn execute(a: &Accounts, now: i64) -> Result<bool, ProgramError> {
    let g = Governance::view(a.governance)?;
    let p = Proposal::view(a.proposal)?;
    if g.finalized() || now >= g.mutable_until() {
        return Ok(false);
    }
    match p.action_kind() {
        ActionKind::UpdateContent => {
            if p.base_content_revision() != g.content_revision() || p.changed.mask() & g.locked.mask() != 0 {
                return Ok(false);
            }
            let mut updated = false;
            let fields = [
                (FIELD_NAME, p.action_name.get()),
                (FIELD_SYMBOL, p.action_symbol.get()),
                (FIELD_URI, p.action_uri.get()),
            ];
            for (field, value) in fields {
                if let Some(v) = value {
                    let current = metadata_of(a.metadata)?[field as usize];
                    if v != current {
                        a.authority().update_field(field, v)?;
                        updated = true;
                    }
                }
            }
            let g = Governance::view_mut(a.governance)?;
            g.digests = p.digests;
            let rev = g.content_revision().checked_add(1).ok_or(Error::MathOverflow)?;
            g.set_content_revision(rev);
            Proposal::view_mut(a.proposal)?.set_metadata_updated(updated);
        }
        ActionKind::ExtendMutability => {
            let add = p.action_additional_seconds.value();
            if extension_error(add, g.mutability_extended(), g.max_extension_seconds()).is_err() {
                return Ok(false);
            }
            let until = if add > i64::MAX as u64 { None } else { g.mutable_until().checked_add(add as i64) };
            let g = Governance::view_mut(a.governance)?;
            g.set_mutable_until(until.ok_or(Error::MathOverflow)?);
            g.set_mutability_extended(true);
        }
        ActionKind::FinalizeMetadata => {
            let m = p.changed.mask();
            a.authority().lock_fields(if m == 0 { ALL_FIELDS } else { m })?;
        }
    }
    Proposal::view_mut(a.proposal)?.set_executed(true);
    Ok(true)
}

pub fn process(program_id: &Pubkey, accounts: &[AccountInfo], data: &[u8]) -> ProgramResult {
    msg(b"Instruction: settle_proposal");
    no_args(data)?;
    let a = Accounts::unpack(accounts)?;
    require_signer(a.payer)?;
    let g = load_governance(program_id, a.governance, None)?;
    let p = load_proposal(program_id, a.proposal, a.governance)?;
    if p.settled() {
        return Err(Error::ProposalAlreadySettled.into());
    }
    let now = sysvar::clock()?.unix_timestamp;
    if now < p.voting_ends_at() {
        return Err(Error::ProposalStillOpen.into());
    }
    require_key(a.metadata, &g.mint)?;
    require_writable(a.governance)?;
    require_writable(a.proposal)?;
    require_key(a.token_program, &TOKEN_2022_PROGRAM_ID)?;
    let result = outcome(
        &Tally {
            yes: p.yes_votes(),
            no: p.no_votes(),
            voters: p.participating_voters(),
            total_supply: g.total_supply(),
        },
        &Thresholds {
            min_voter_count: g.min_voter_count(),
            min_participating_supply_bps: g.min_participating_supply_bps() as u64,
            approval_bps: g.approval_bps() as u64,
        },
    );
    Proposal::view_mut(a.proposal)?.outcome = result;
    if result == OUTCOME_PASSED {
        require_writable(a.metadata)?;
        execute(&a, now)?;
    }
    let p = Proposal::view_mut(a.proposal)?;
    p.set_settled(true);
    p.set_settled_at(now);
    let (created, ends) = (p.created_at(), p.voting_ends_at());
    let g = Governance::view_mut(a.governance)?;
    g.bond_level = bond_level_after(g.bond_level, result == OUTCOME_PASSED, created, ends);
    g.set_bond_level_at(ends);
    if g.active_proposal().is_some_and(|k| pk_eq(k, a.proposal.key())) {
        g.set_active_proposal(None);
    }
    log_u64s(result as u64, p.executed() as u64, p.metadata_updated() as u64, 0, 0);
    Ok(())
}
