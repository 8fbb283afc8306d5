//! Token-2022 (and ATA) CPIs and account / mint readers that stay right with extensions.
//!
//! Layouts (spl-token-2022): an account's base is 165 bytes (mint 0..32, owner 32..64,
//! amount 64..72, delegate 72..108, state 108, ...); a mint's base is 82 bytes
//! (mint_authority 0..36, supply 36..44, decimals 44, is_initialized 45, freeze 46..82).
//! With extensions, both are padded to 165 bytes and byte 165 is the account type
//! (1 mint, 2 account), followed by the TLV extensions.
use super::account::AccountInfo;
use super::borsh::{read_pubkey, read_u64};
use super::cpi::{invoke_signed, AccountMeta, Instruction};
use super::error::{ProgramError, ProgramResult};
use super::pubkey::{Pubkey, ATA_PROGRAM_ID, TOKEN_2022_PROGRAM_ID};

pub const ACCOUNT_BASE_LEN: usize = 165;
pub const MINT_BASE_LEN: usize = 82;
pub const ACCOUNT_TYPE_MINT: u8 = 1;
pub const ACCOUNT_TYPE_ACCOUNT: u8 = 2;
pub const STATE_INITIALIZED: u8 = 1;
pub const STATE_FROZEN: u8 = 2;

/// TokenMetadata interface discriminators: sha256("spl_token_metadata_interface:<name>")[..8].
pub const TM_INITIALIZE: [u8; 8] = [210, 225, 30, 162, 88, 184, 77, 141]; // initialize_account
pub const TM_UPDATE_FIELD: [u8; 8] = [221, 233, 49, 45, 181, 202, 220, 200]; // updating_field
pub const TM_UPDATE_AUTHORITY: [u8; 8] = [215, 228, 166, 228, 84, 100, 86, 123]; // update_the_authority

/// TokenMetadata fields for UpdateField.
pub const FIELD_NAME: u8 = 0;
pub const FIELD_SYMBOL: u8 = 1;
pub const FIELD_URI: u8 = 2;

/// A Token-2022 token account, checked: owned by Token-2022, an account (not a mint),
/// initialized (or frozen).
pub struct TokenAccount<'a> {
    data: &'a [u8],
}

impl<'a> TokenAccount<'a> {
    #[inline(always)]
    pub fn mint(&self) -> &'a Pubkey {
        read_pubkey(self.data, 0)
    }
    #[inline(always)]
    pub fn owner(&self) -> &'a Pubkey {
        read_pubkey(self.data, 32)
    }
    #[inline(always)]
    pub fn amount(&self) -> u64 {
        read_u64(self.data, 64)
    }
    #[inline(always)]
    pub fn state(&self) -> u8 {
        self.data[108]
    }
    #[inline(always)]
    pub fn is_frozen(&self) -> bool {
        self.data[108] == STATE_FROZEN
    }
    /// Delegate set (COption tag at 72).
    #[inline(always)]
    pub fn has_delegate(&self) -> bool {
        self.data[72] != 0
    }
}

/// `acc`'s data when Token-2022 owns it (else IllegalOwner) and it is one of `kind`: `base_len`
/// bytes, or extended with that account type and `initialized(data)` (else InvalidAccountData).
#[inline(always)]
fn token_2022_data(
    acc: &AccountInfo,
    base_len: usize,
    kind: u8,
    initialized: impl Fn(&[u8]) -> bool,
) -> Result<&[u8], ProgramError> {
    if !acc.is_owned_by(&TOKEN_2022_PROGRAM_ID) {
        return Err(ProgramError::IllegalOwner);
    }
    let data = acc.data();
    let ok = data.len() == base_len || (data.len() > ACCOUNT_BASE_LEN && data[ACCOUNT_BASE_LEN] == kind);
    if !ok || !initialized(data) {
        return Err(ProgramError::InvalidAccountData);
    }
    Ok(data)
}

#[inline(always)]
pub fn token_account(acc: &AccountInfo) -> Result<TokenAccount<'_>, ProgramError> {
    let data = token_2022_data(acc, ACCOUNT_BASE_LEN, ACCOUNT_TYPE_ACCOUNT, |d| d[108] != 0)?;
    Ok(TokenAccount { data })
}

/// A Token-2022 mint, checked: owned by Token-2022, a mint, initialized.
pub struct Mint<'a> {
    data: &'a [u8],
}

impl<'a> Mint<'a> {
    #[inline(always)]
    pub fn mint_authority(&self) -> Option<&'a Pubkey> {
        if self.data[0] != 0 {
            Some(read_pubkey(self.data, 4))
        } else {
            None
        }
    }
    #[inline(always)]
    pub fn supply(&self) -> u64 {
        read_u64(self.data, 36)
    }
    #[inline(always)]
    pub fn decimals(&self) -> u8 {
        self.data[44]
    }
    #[inline(always)]
    pub fn freeze_authority(&self) -> Option<&'a Pubkey> {
        if self.data[46] != 0 {
            Some(read_pubkey(self.data, 50))
        } else {
            None
        }
    }
    /// The raw TLV extension area (after the account-type byte), empty without extensions.
    #[inline(always)]
    pub fn extensions(&self) -> &'a [u8] {
        if self.data.len() > ACCOUNT_BASE_LEN + 1 {
            &self.data[ACCOUNT_BASE_LEN + 1..]
        } else {
            &[]
        }
    }
}

#[inline(always)]
pub fn mint(acc: &AccountInfo) -> Result<Mint<'_>, ProgramError> {
    let data = token_2022_data(acc, MINT_BASE_LEN, ACCOUNT_TYPE_MINT, |d| d[45] == 1)?;
    Ok(Mint { data })
}

fn token_ix(accounts: &[AccountMeta], data: &[u8], infos: &[&AccountInfo], signers: &[&[&[u8]]]) -> ProgramResult {
    invoke_signed(&Instruction { program_id: &TOKEN_2022_PROGRAM_ID, accounts, data }, infos, signers)
}

/// InitializeMetadataPointer: `[39, 0] + authority + metadata address` (zeros = none).
/// Must run before InitializeMint2.
#[inline(always)]
pub fn initialize_metadata_pointer(
    mint: &AccountInfo,
    token: &AccountInfo,
    authority: &Pubkey,
    metadata: &Pubkey,
) -> ProgramResult {
    let mut d = [0u8; 66];
    d[0] = 39;
    d[2..34].copy_from_slice(authority);
    d[34..66].copy_from_slice(metadata);
    token_ix(&[AccountMeta::writable(mint.key(), false)], &d, &[mint, token], &[])
}

/// InitializeMint2: `[20, decimals] + mint_authority + COption(freeze)`.
#[inline(always)]
pub fn initialize_mint2(
    mint: &AccountInfo,
    token: &AccountInfo,
    decimals: u8,
    mint_authority: &Pubkey,
    freeze_authority: Option<&Pubkey>,
) -> ProgramResult {
    let mut d = [0u8; 67];
    d[0] = 20;
    d[1] = decimals;
    d[2..34].copy_from_slice(mint_authority);
    let len = match freeze_authority {
        Some(f) => {
            d[34] = 1;
            d[35..67].copy_from_slice(f);
            67
        }
        None => 35,
    };
    token_ix(&[AccountMeta::writable(mint.key(), false)], &d[..len], &[mint, token], &[])
}

/// MintTo: `[7] + amount`; accounts mint (w), destination (w), authority (s).
#[inline(always)]
pub fn mint_to(
    mint: &AccountInfo,
    dest: &AccountInfo,
    authority: &AccountInfo,
    token: &AccountInfo,
    amount: u64,
    signers: &[&[&[u8]]],
) -> ProgramResult {
    let mut d = [0u8; 9];
    d[0] = 7;
    d[1..9].copy_from_slice(&amount.to_le_bytes());
    let metas = [
        AccountMeta::writable(mint.key(), false),
        AccountMeta::writable(dest.key(), false),
        AccountMeta::readonly(authority.key(), true),
    ];
    token_ix(&metas, &d, &[mint, dest, authority, token], signers)
}

/// TransferChecked: `[12] + amount + decimals`; accounts source (w), mint, destination (w),
/// authority (s).
#[inline(always)]
#[allow(clippy::too_many_arguments)] // one per account of the instruction
pub fn transfer_checked(
    source: &AccountInfo,
    mint: &AccountInfo,
    dest: &AccountInfo,
    authority: &AccountInfo,
    token: &AccountInfo,
    amount: u64,
    decimals: u8,
    signers: &[&[&[u8]]],
) -> ProgramResult {
    let mut d = [0u8; 10];
    d[0] = 12;
    d[1..9].copy_from_slice(&amount.to_le_bytes());
    d[9] = decimals;
    let metas = [
        AccountMeta::writable(source.key(), false),
        AccountMeta::readonly(mint.key(), false),
        AccountMeta::writable(dest.key(), false),
        AccountMeta::readonly(authority.key(), true),
    ];
    token_ix(&metas, &d, &[source, mint, dest, authority, token], signers)
}

/// SetAuthority: `[6, authority_type] + COption(new)`; accounts owned (w), current (s).
/// authority_type: 0 MintTokens, 1 FreezeAccount, 2 AccountOwner, 3 CloseAccount, ...
#[inline(always)]
pub fn set_authority(
    owned: &AccountInfo,
    current: &AccountInfo,
    token: &AccountInfo,
    authority_type: u8,
    new_authority: Option<&Pubkey>,
    signers: &[&[&[u8]]],
) -> ProgramResult {
    let mut d = [0u8; 35];
    d[0] = 6;
    d[1] = authority_type;
    let len = match new_authority {
        Some(a) => {
            d[2] = 1;
            d[3..35].copy_from_slice(a);
            35
        }
        None => 3,
    };
    let metas = [AccountMeta::writable(owned.key(), false), AccountMeta::readonly(current.key(), true)];
    token_ix(&metas, &d[..len], &[owned, current, token], signers)
}

/// Most bytes of name + symbol + uri in one TokenMetadata Initialize (instruction data on
/// the stack).
pub const MAX_METADATA_BYTES: usize = 512;

/// TokenMetadata Initialize (in Token-2022): disc + name, symbol, uri (Borsh strings);
/// accounts metadata = mint (w), update authority, mint, mint authority (s).
#[inline(always)]
#[allow(clippy::too_many_arguments)] // one per account of the instruction
pub fn metadata_initialize(
    mint: &AccountInfo,
    update_authority: &AccountInfo,
    mint_authority: &AccountInfo,
    token: &AccountInfo,
    name: &[u8],
    symbol: &[u8],
    uri: &[u8],
    signers: &[&[&[u8]]],
) -> ProgramResult {
    let mut d = [0u8; 8 + 12 + MAX_METADATA_BYTES];
    let total = name.len() + symbol.len() + uri.len();
    if total > MAX_METADATA_BYTES {
        return Err(ProgramError::InvalidArgument);
    }
    let mut w = super::borsh::Writer::new(&mut d);
    w.bytes(&TM_INITIALIZE)?.string(name)?.string(symbol)?.string(uri)?;
    let len = w.len();
    let metas = [
        AccountMeta::writable(mint.key(), false),
        AccountMeta::readonly(update_authority.key(), false),
        AccountMeta::readonly(mint.key(), false),
        AccountMeta::readonly(mint_authority.key(), true),
    ];
    token_ix(&metas, &d[..len], &[mint, update_authority, mint_authority, token], signers)
}

/// TokenMetadata UpdateField: disc + field (0 name, 1 symbol, 2 uri) + value; accounts
/// metadata (w), update authority (s).
#[inline(always)]
pub fn metadata_update_field(
    mint: &AccountInfo,
    update_authority: &AccountInfo,
    token: &AccountInfo,
    field: u8,
    value: &[u8],
    signers: &[&[&[u8]]],
) -> ProgramResult {
    let mut d = [0u8; 8 + 1 + 4 + MAX_METADATA_BYTES];
    if field > FIELD_URI {
        return Err(ProgramError::InvalidArgument);
    }
    let mut w = super::borsh::Writer::new(&mut d);
    w.bytes(&TM_UPDATE_FIELD)?.u8(field)?.string(value)?;
    let len = w.len();
    let metas = [AccountMeta::writable(mint.key(), false), AccountMeta::readonly(update_authority.key(), true)];
    token_ix(&metas, &d[..len], &[mint, update_authority, token], signers)
}

/// TokenMetadata UpdateAuthority: disc + new authority (None: zeros, locks the metadata for
/// good); accounts metadata (w), current update authority (s).
#[inline(always)]
pub fn metadata_update_authority(
    mint: &AccountInfo,
    update_authority: &AccountInfo,
    token: &AccountInfo,
    new_authority: Option<&Pubkey>,
    signers: &[&[&[u8]]],
) -> ProgramResult {
    let mut d = [0u8; 40];
    d[..8].copy_from_slice(&TM_UPDATE_AUTHORITY);
    if let Some(a) = new_authority {
        d[8..40].copy_from_slice(a);
    }
    let metas = [AccountMeta::writable(mint.key(), false), AccountMeta::readonly(update_authority.key(), true)];
    token_ix(&metas, &d, &[mint, update_authority, token], signers)
}

/// ATA CreateIdempotent: `[1]`; accounts payer (ws), ata (w), wallet, mint, system, Token-2022.
#[inline(always)]
#[allow(clippy::too_many_arguments)] // one per account of the instruction
pub fn create_ata_idempotent(
    payer: &AccountInfo,
    ata: &AccountInfo,
    wallet: &AccountInfo,
    mint: &AccountInfo,
    system: &AccountInfo,
    token: &AccountInfo,
    ata_program: &AccountInfo,
    signers: &[&[&[u8]]],
) -> ProgramResult {
    let metas = [
        AccountMeta::writable(payer.key(), true),
        AccountMeta::writable(ata.key(), false),
        AccountMeta::readonly(wallet.key(), false),
        AccountMeta::readonly(mint.key(), false),
        AccountMeta::readonly(system.key(), false),
        AccountMeta::readonly(token.key(), false),
    ];
    invoke_signed(
        &Instruction { program_id: &ATA_PROGRAM_ID, accounts: &metas, data: &[1] },
        &[payer, ata, wallet, mint, system, token, ata_program],
        signers,
    )
}
