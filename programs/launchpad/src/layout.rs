//! Account layouts (idl/launchpad.json "types"; the same bytes as
//! partner.chain.layouts): offsets into the account data, discriminator first.
//! Plus Token-2022 readers (base account / mint fields and the mint's
//! TokenMetadata extension, found by walking its TLV entries).

pub fn rd_u16(d: &[u8], o: usize) -> u16 {
    d[o] as u16 | (d[o + 1] as u16) << 8
}

pub fn rd_u32(d: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([d[o], d[o + 1], d[o + 2], d[o + 3]])
}

pub fn rd_u64(d: &[u8], o: usize) -> u64 {
    let b = &d[o..o + 8];
    u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
}

pub fn rd_i64(d: &[u8], o: usize) -> i64 {
    rd_u64(d, o) as i64
}

pub fn wr_u16(d: &mut [u8], o: usize, v: u16) {
    d[o..o + 2].copy_from_slice(&v.to_le_bytes());
}

pub fn wr_u32(d: &mut [u8], o: usize, v: u32) {
    d[o..o + 4].copy_from_slice(&v.to_le_bytes());
}

pub fn wr_u64(d: &mut [u8], o: usize, v: u64) {
    d[o..o + 8].copy_from_slice(&v.to_le_bytes());
}

pub fn wr_i64(d: &mut [u8], o: usize, v: i64) {
    wr_u64(d, o, v as u64)
}

pub fn key_at(d: &[u8], o: usize) -> &[u8; 32] {
    let s = &d[o..o + 32];
    unsafe { &*(s.as_ptr() as *const [u8; 32]) }
}

pub fn wr_key(d: &mut [u8], o: usize, k: &[u8; 32]) {
    d[o..o + 32].copy_from_slice(k);
}

/// Global [b"global"]
pub mod global {
    pub const DISC: [u8; 8] = [167, 232, 232, 177, 200, 108, 114, 127];
    pub const SIZE: usize = 245;
    pub const BUMP: usize = 8;
    pub const ADMIN: usize = 9;
    pub const FEE_RECIPIENT: usize = 41;
    pub const PROTOCOL_FEE_BPS: usize = 73;
    pub const WALLET_CAP_BPS: usize = 75;
    pub const POOL_OPEN_DELAY: usize = 77;
    pub const IVT: usize = 85;
    pub const IVS: usize = 93;
    pub const IRT: usize = 101;
    pub const SUPPLY: usize = 109;
    pub const GOV_SET: usize = 117;
    /// GovernanceParams, 50 bytes
    pub const GOV_PARAMS: usize = 118;
    /// the admin set_params proposed (zero: none), until it signs accept_admin
    pub const PENDING_ADMIN: usize = 168;
}

/// GovernanceParams (50 bytes; offsets inside the struct)
pub mod params {
    pub const SIZE: usize = 50;
    pub const MIN_VOTER_COUNT: usize = 0;
    pub const MIN_LOCK: usize = 4;
    pub const MIN_PS_BPS: usize = 12;
    pub const APPROVAL_BPS: usize = 14;
    pub const BOND_BPS: usize = 16;
    pub const WINDOW: usize = 18;
    pub const MAX_EXT: usize = 26;
    pub const MIN_VOTE: usize = 34;
    pub const MAX_VOTE: usize = 42;
    /// design section 8 defaults (used while Global.governance_defaults_set is false)
    pub const DEFAULTS: [u8; SIZE] = {
        let mut b = [0u8; SIZE];
        let vals: [(usize, u64, usize); 9] = [
            (MIN_VOTER_COUNT, 3, 4),
            (MIN_LOCK, 1_000_000, 8),
            (MIN_PS_BPS, 500, 2),
            (APPROVAL_BPS, 6_000, 2),
            (BOND_BPS, 100, 2),
            (WINDOW, 30 * 86_400, 8),
            (MAX_EXT, 90 * 86_400, 8),
            (MIN_VOTE, 60, 8),
            (MAX_VOTE, 7 * 86_400, 8),
        ];
        let mut i = 0;
        while i < 9 {
            let (off, v, n) = vals[i];
            let mut j = 0;
            while j < n {
                b[off + j] = (v >> (8 * j)) as u8;
                j += 1;
            }
            i += 1;
        }
        b
    };
}

/// BondingCurve [b"bonding-curve", mint]
pub mod curve {
    pub const DISC: [u8; 8] = [23, 183, 248, 55, 96, 216, 172, 96];
    pub const SIZE: usize = 195;
    pub const MINT: usize = 8;
    pub const CREATOR: usize = 40;
    pub const VT: usize = 72;
    pub const VS: usize = 80;
    pub const RT: usize = 88;
    pub const RS: usize = 96;
    pub const SUPPLY: usize = 104;
    pub const COMPLETE: usize = 112;
    pub const MIGRATED: usize = 113;
    pub const BUMP: usize = 114;
    pub const CREATED_SLOT: usize = 115;
    pub const CREATED_AT: usize = 123;
    /// the curve's vault (its ATA), stored by create_coin; zero on older curves
    pub const VAULT: usize = 131;
}

/// Governance [b"governance", mint]
pub mod gov {
    pub const DISC: [u8; 8] = [18, 143, 88, 13, 73, 217, 47, 49];
    pub const SIZE: usize = 342;
    pub const MINT: usize = 8;
    pub const CREATOR: usize = 40;
    pub const TOTAL_SUPPLY: usize = 72;
    pub const CREATED_AT: usize = 80;
    pub const MUTABLE_UNTIL: usize = 88;
    pub const MIN_VOTER_COUNT: usize = 96;
    pub const MIN_LOCK: usize = 100;
    pub const MIN_PS_BPS: usize = 108;
    pub const APPROVAL_BPS: usize = 110;
    pub const BOND_BPS: usize = 112;
    pub const MAX_EXT: usize = 114;
    pub const MIN_VOTE: usize = 122;
    pub const MAX_VOTE: usize = 130;
    pub const FINALIZED: usize = 138;
    pub const BY_EXPIRY: usize = 139;
    pub const CONTENT_REVISION: usize = 140;
    pub const EXTENDED: usize = 148;
    /// seven bools, name .. telegram
    pub const LOCKED: usize = 149;
    /// OptionalPubkey
    pub const ACTIVE: usize = 156;
    pub const NEXT_INDEX: usize = 189;
    pub const BUMP: usize = 197;
    /// the proposal bond's level (u8) and the voting end of the last settled proposal (i64)
    pub const BOND_LEVEL: usize = 198;
    pub const BOND_LEVEL_AT: usize = 199;
    /// five 16-byte digests of the uri-borne fields, image .. telegram
    pub const DIGESTS: usize = 207;
}

/// Proposal [b"proposal", governance, index u64 LE]
pub mod prop {
    pub const DISC: [u8; 8] = [26, 94, 189, 187, 116, 136, 53, 33];
    pub const SIZE: usize = 595;
    pub const GOVERNANCE: usize = 8;
    pub const MINT: usize = 40;
    pub const PROPOSER: usize = 72;
    pub const INDEX: usize = 104;
    pub const BASE_REV: usize = 112;
    pub const KIND: usize = 120;
    /// OptionalFixedString32 / 10 / 200: is_some, len, bytes
    pub const NAME: usize = 121;
    pub const SYMBOL: usize = 155;
    pub const URI: usize = 167;
    /// OptionalU64
    pub const ADDITIONAL: usize = 369;
    /// seven bools, name .. telegram
    pub const CHANGED: usize = 378;
    pub const CREATED_AT: usize = 385;
    pub const ENDS_AT: usize = 393;
    pub const BOND: usize = 401;
    pub const BOND_WITHDRAWN: usize = 409;
    pub const YES: usize = 410;
    pub const NO: usize = 418;
    pub const PARTICIPATING: usize = 426;
    pub const VOTERS: usize = 434;
    pub const OUTCOME: usize = 438;
    pub const EXECUTED: usize = 439;
    pub const SETTLED: usize = 440;
    pub const METADATA_UPDATED: usize = 441;
    pub const SETTLED_AT: usize = 442;
    pub const BUMP: usize = 450;
    /// the proposal's vault (its ATA), stored by create_proposal; zero on older proposals
    pub const VAULT: usize = 451;
    /// update_content: the five digests after the change (image .. telegram)
    pub const DIGESTS: usize = 483;
}

/// VoteReceipt [b"vote", proposal, voter]
pub mod receipt {
    pub const DISC: [u8; 8] = [104, 20, 204, 252, 45, 84, 37, 195];
    pub const SIZE: usize = 125;
    pub const PROPOSAL: usize = 8;
    pub const VOTER: usize = 40;
    pub const SIDE: usize = 72;
    pub const AMOUNT: usize = 73;
    pub const COUNTED: usize = 81;
    pub const ACTIVE: usize = 82;
    pub const WITHDRAWN: usize = 83;
    pub const CREATED_AT: usize = 84;
    pub const BUMP: usize = 92;
}

/// The digests of the uri-borne fields (image, description, website, twitter, telegram): 16 bytes
/// each, sha256(value)[:16] of the value the metadata JSON carries, computed off-chain.
pub const DIGEST_LEN: usize = 16;
pub const DIGESTS_LEN: usize = 5 * DIGEST_LEN;

/// The mask (bits 2..6, image .. telegram) of the uri-borne fields whose digests differ.
pub fn digest_diff(a: &[u8], b: &[u8]) -> u8 {
    let mut m = 0u8;
    let mut i = 0;
    while i < 5 {
        let o = i * DIGEST_LEN;
        if !crate::rt::bytes_eq(&a[o..o + DIGEST_LEN], &b[o..o + DIGEST_LEN]) {
            m |= 1 << (i + 2);
        }
        i += 1;
    }
    m
}

/// Pool of the pool program (its size, for migrate's rent check)
pub const POOL_SIZE: usize = 235;

/// mask of the seven bools at `o`
pub fn mask_at(d: &[u8], o: usize) -> u8 {
    let mut m = 0u8;
    let mut i = 0;
    while i < 7 {
        if d[o + i] != 0 {
            m |= 1 << i;
        }
        i += 1;
    }
    m
}

pub fn set_mask_at(d: &mut [u8], o: usize, mask: u8) {
    let mut i = 0;
    while i < 7 {
        if mask >> i & 1 != 0 {
            d[o + i] = 1;
        }
        i += 1;
    }
}

/// A fixed-size optional string (is_some, len, bytes) at `o`, None when absent.
pub fn fixed_opt_str(d: &[u8], o: usize) -> Option<&[u8]> {
    if d[o] == 0 {
        return None;
    }
    let n = d[o + 1] as usize;
    Some(&d[o + 2..o + 2 + n])
}

pub fn wr_fixed_opt_str(d: &mut [u8], o: usize, v: Option<&str>) {
    if let Some(s) = v {
        d[o] = 1;
        d[o + 1] = s.len() as u8;
        crate::rt::copy(&mut d[o + 2..o + 2 + s.len()], s.as_bytes());
    }
}

// ----------------------------------------------------------------- Token-2022

/// Base token account: mint 0, owner 32, amount 64, state 108; 165 bytes, then
/// the account type (2) and extensions.
pub const TOKEN_ACCOUNT_BASE: usize = 165;
/// An ATA of a Token-2022 mint (base + account type + ImmutableOwner).
pub const ATA_SIZE: usize = 170;
pub const ACCOUNT_TYPE_MINT: u8 = 1;
pub const ACCOUNT_TYPE_ACCOUNT: u8 = 2;
pub const EXT_METADATA_POINTER: u16 = 18;
pub const EXT_TOKEN_METADATA: u16 = 19;
/// The mint with its MetadataPointer, before TokenMetadata (base 82, padding to
/// 165, account type, one TLV of 4 + 64).
pub const MINT_WITH_POINTER_SIZE: usize = 234;
/// TokenMetadata's fixed part: TLV header 4 + authority 32 + mint 32 + three u32
/// lengths + an empty additional-metadata vec (u32).
pub const MINT_METADATA_FIXED: usize = MINT_WITH_POINTER_SIZE + 4 + 32 + 32 + 12 + 4;

/// The value of TLV extension `ty` of a Token-2022 mint or account.
pub fn extension(d: &[u8], ty: u16) -> Option<&[u8]> {
    let mut at = TOKEN_ACCOUNT_BASE + 1;
    while at + 4 <= d.len() {
        let t = rd_u16(d, at);
        let n = rd_u16(d, at + 2) as usize;
        if at + 4 + n > d.len() {
            return None;
        }
        if t == ty {
            return Some(&d[at + 4..at + 4 + n]);
        }
        if t == 0 {
            return None;
        }
        at += 4 + n;
    }
    None
}

/// name, symbol, uri of a TokenMetadata extension value (update authority 32,
/// mint 32, then three Borsh strings).
pub fn metadata_fields(v: &[u8]) -> Option<[&[u8]; 3]> {
    let mut at = 64;
    let mut out: [&[u8]; 3] = [&[], &[], &[]];
    let mut i = 0;
    while i < 3 {
        if at + 4 > v.len() {
            return None;
        }
        let n = rd_u32(v, at) as usize;
        if n > v.len() - at - 4 {
            return None;
        }
        out[i] = &v[at + 4..at + 4 + n];
        at += 4 + n;
        i += 1;
    }
    Some(out)
}
