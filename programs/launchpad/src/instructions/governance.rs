//! What the governance instructions share: loading the governance, proposal and vote receipt
//! (each check in the reference's order, with its error), the coin's TokenMetadata, the tally,
//! payouts from a proposal's vault, and the governance PDA's metadata CPIs.
//!
//! The coin's name, symbol and uri live in the Token-2022 mint's TokenMetadata; its update
//! authority is the governance PDA, which signs UpdateField when an update_content proposal is
//! applied and UpdateAuthority(none) when the governance is finalized.

use crate::checks::{
    ata_address, find_pda, require_held_by, require_key, require_pda, require_user_token_account, token_balance,
};
use crate::cpi::{create_ata, transfer_checked, Programs, Transfer};
use crate::error::Error;
use crate::sdk::pubkey::{pk_eq, pk_is_zero, TOKEN_2022_PROGRAM_ID};
use crate::sdk::token::{self, ACCOUNT_BASE_LEN, ACCOUNT_TYPE_MINT};
use crate::sdk::{AccountInfo, ProgramError, ProgramResult, Pubkey};
use crate::state::{self, Account, Governance, Proposal, VoteReceipt, ALL_FIELDS};
use crate::state::{extension, metadata_fields, metadata_pointer_address, EXT_METADATA_POINTER, EXT_TOKEN_METADATA};

/// The governance account, checked: its PDA for `mint` when given, existence, discriminator,
/// then its canonical PDA and bump for the mint it records.
pub fn load_governance<'a>(
    program_id: &Pubkey,
    a: &'a AccountInfo,
    mint: Option<&Pubkey>,
) -> Result<&'a Governance, ProgramError> {
    if let Some(m) = mint {
        if !Governance::is(a, program_id) {
            // failing anyway: the address tells InvalidAccount from GovernanceNotFound
            let (k, _) = find_pda(&[state::gov::SEED, m], program_id)?;
            require_key(a, &k)?;
        } else if !pk_eq(&Governance::view(a)?.mint, m) {
            return Err(Error::InvalidAccount.into()); // another mint's governance (its PDA: checked below)
        }
    }
    if !a.is_owned_by(program_id) || a.data_len() == 0 || !Governance::is(a, program_id) {
        return Err(Error::GovernanceNotFound.into());
    }
    let g = Governance::view(a)?;
    require_pda(a, &[state::gov::SEED, &g.mint], g.bump, program_id, Error::InvalidAccount)?;
    Ok(g)
}

/// The proposal account, checked: existence, discriminator, its governance, its canonical PDA
/// and bump.
pub fn load_proposal<'a>(
    program_id: &Pubkey,
    a: &'a AccountInfo,
    gov: &AccountInfo,
) -> Result<&'a Proposal, ProgramError> {
    if !a.is_owned_by(program_id) || a.data_len() == 0 {
        return Err(Error::ProposalNotFound.into());
    }
    if !Proposal::is(a, program_id) {
        return Err(Error::InvalidProposal.into());
    }
    let p = Proposal::view(a)?;
    if !pk_eq(&p.governance, gov.key()) {
        return Err(Error::InvalidProposal.into());
    }
    require_pda(a, &[state::prop::SEED, gov.key(), p.index_seed()], p.bump, program_id, Error::InvalidProposal)?;
    Ok(p)
}

/// A receipt of ours for `proposal` and `voter` at the PDA of its stored bump (one
/// create_program_address): Some(bump); None when the account is no receipt of ours.
pub fn stored_receipt(
    program_id: &Pubkey,
    a: &AccountInfo,
    proposal: &Pubkey,
    voter: &Pubkey,
) -> Result<Option<u8>, ProgramError> {
    if !VoteReceipt::is(a, program_id) {
        return Ok(None);
    }
    let r = VoteReceipt::view(a)?;
    if !pk_eq(&r.proposal, proposal) || !pk_eq(&r.voter, voter) {
        return Err(Error::InvalidAccount.into());
    }
    require_pda(a, &[state::receipt::SEED, proposal, voter], r.bump, program_id, Error::InvalidAccount)?;
    Ok(Some(r.bump))
}

/// The vote receipt of `voter` on `proposal`: its PDA, then existence.
pub fn load_receipt<'a>(
    program_id: &Pubkey,
    a: &'a AccountInfo,
    proposal: &Pubkey,
    voter: &Pubkey,
) -> Result<&'a VoteReceipt, ProgramError> {
    if stored_receipt(program_id, a, proposal, voter)?.is_none() {
        let (k, bump) = find_pda(&[state::receipt::SEED, proposal, voter], program_id)?;
        require_key(a, &k)?;
        if !a.is_owned_by(program_id) || a.data_len() == 0 {
            return Err(Error::VoteReceiptNotFound.into());
        }
        if !VoteReceipt::is(a, program_id) || VoteReceipt::view(a)?.bump != bump {
            return Err(Error::InvalidAccount.into());
        }
    }
    VoteReceipt::view(a)
}

/// The proposal's vault: the key the proposal stores, held by the proposal (a proposal from
/// before the stored key: its ATA address).
pub fn require_vault(vault: &AccountInfo, p: &Proposal, prop: &AccountInfo, mint: &Pubkey) -> ProgramResult {
    if pk_is_zero(&p.vault) {
        return require_key(vault, &ata_address(prop.key(), mint)?);
    }
    require_key(vault, &p.vault)?;
    require_held_by(vault, prop.key())
}

/// Votes are taken until the proposal is settled or its voting ends.
#[inline(always)]
pub fn voting_closed(p: &Proposal, now: i64) -> bool {
    p.settled() || now >= p.voting_ends_at()
}

/// The mint's TokenMetadata (name, symbol, uri); InvalidAccount when `a` is not a Token-2022
/// mint whose MetadataPointer points at itself and which holds the extension.
pub fn metadata_of(a: &AccountInfo) -> Result<[&[u8]; 3], ProgramError> {
    if !a.is_owned_by(&TOKEN_2022_PROGRAM_ID) {
        return Err(Error::InvalidAccount.into());
    }
    let d = a.data();
    if d.len() <= ACCOUNT_BASE_LEN || d[ACCOUNT_BASE_LEN] != ACCOUNT_TYPE_MINT {
        return Err(Error::InvalidAccount.into());
    }
    match extension(d, EXT_METADATA_POINTER).and_then(metadata_pointer_address) {
        Some(k) if pk_eq(k, a.key()) => {}
        _ => return Err(Error::InvalidAccount.into()),
    }
    match extension(d, EXT_TOKEN_METADATA).and_then(metadata_fields) {
        Some(f) => Ok(f),
        None => Err(Error::InvalidAccount.into()),
    }
}

/// A vote's receipt counted into (`add`) or out of the proposal's tally: its side, the
/// participating supply and, when it counts as a voter, the voters.
pub fn tally(p: &mut Proposal, rec: &VoteReceipt, add: bool) -> ProgramResult {
    let amount = rec.amount();
    let f = |v: u64| if add { v.checked_add(amount) } else { v.checked_sub(amount) };
    let yes = rec.side == VoteReceipt::YES;
    let side = f(if yes { p.yes_votes() } else { p.no_votes() }).ok_or(Error::MathOverflow)?;
    let part = f(p.participating_supply()).ok_or(Error::MathOverflow)?;
    let mut voters = p.participating_voters();
    if rec.counted_as_voter() {
        voters = if add { voters.checked_add(1) } else { voters.checked_sub(1) }.ok_or(Error::MathOverflow)?;
    }
    if yes {
        p.set_yes_votes(side);
    } else {
        p.set_no_votes(side);
    }
    p.set_participating_supply(part);
    p.set_participating_voters(voters);
    Ok(())
}

/// The accounts of the instructions that pay out of a proposal's vault: the signer, the
/// governance of `mint`, the proposal, the vault.
pub struct Escrow<'a> {
    pub signer: &'a AccountInfo,
    pub mint: &'a AccountInfo,
    pub governance: &'a AccountInfo,
    pub proposal: &'a AccountInfo,
    pub vault: &'a AccountInfo,
}

impl<'a> Escrow<'a> {
    /// The signer, the governance of the mint, the proposal and its vault, checked; the proposal.
    pub fn load(&self, program_id: &Pubkey) -> Result<&'a Proposal, ProgramError> {
        crate::checks::require_signer(self.signer)?;
        load_governance(program_id, self.governance, Some(self.mint.key()))?;
        let p = load_proposal(program_id, self.proposal, self.governance)?;
        require_vault(self.vault, p, self.proposal, self.mint.key())?;
        Ok(p)
    }

    /// Vault -> `owner`'s token account (its ATA, created and paid by the signer when
    /// missing), signed by the proposal PDA.
    pub fn pay_out(&self, owner: &AccountInfo, owner_ata: &AccountInfo, amount: u64, p: &Programs) -> ProgramResult {
        let mint = self.mint.key();
        require_user_token_account(owner_ata, mint, owner.key())?;
        if token_balance(owner_ata, mint, owner.key()).is_none() {
            create_ata(self.signer, owner_ata, owner, self.mint, p)?;
        }
        let prop = Proposal::view(self.proposal)?;
        let bump = [prop.bump];
        transfer_checked(&Transfer {
            src: self.vault,
            mint: self.mint,
            dst: owner_ata,
            authority: self.proposal,
            token: p.token,
            amount,
            seeds: &[state::prop::SEED, self.governance.key(), prop.index_seed(), &bump],
        })
    }
}

/// The metadata CPIs the governance PDA signs (it is the metadata's update authority).
pub struct MetadataAuthority<'a> {
    pub metadata: &'a AccountInfo,
    pub governance: &'a AccountInfo,
    pub token: &'a AccountInfo,
}

impl MetadataAuthority<'_> {
    /// TokenMetadata UpdateField(field, value).
    pub fn update_field(&self, field: u8, value: &[u8]) -> ProgramResult {
        let g = Governance::view(self.governance)?;
        let (mint, bump) = (g.mint, [g.bump]);
        let seeds: [&[u8]; 3] = [state::gov::SEED, &mint, &bump];
        token::metadata_update_field(self.metadata, self.governance, self.token, field, value, &[&seeds])
    }

    /// Lock the fields of `mask`; all locked: finalized, and the metadata's update authority
    /// goes (UpdateAuthority(none): the metadata is immutable from now on).
    pub fn lock_fields(&self, mask: u8) -> ProgramResult {
        let g = Governance::view_mut(self.governance)?;
        g.locked.set(mask);
        if g.locked.mask() != ALL_FIELDS {
            return Ok(());
        }
        g.set_finalized(true);
        let (mint, bump) = (g.mint, [g.bump]);
        let seeds: [&[u8]; 3] = [state::gov::SEED, &mint, &bump];
        token::metadata_update_authority(self.metadata, self.governance, self.token, None, &[&seeds])
    }
}
