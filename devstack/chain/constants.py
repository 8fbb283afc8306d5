"""Constants of the devstack chain: program ids, fees, rent, clock and tip accounts."""

from __future__ import annotations

from solders.pubkey import Pubkey

from partner.chain import tx

# --- program and sysvar ids (same as on every Solana cluster) ---------------
SYSTEM_PROGRAM_ID = Pubkey.from_string("11111111111111111111111111111111")
TOKEN_PROGRAM_ID = Pubkey.from_string("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA")
TOKEN_2022_PROGRAM_ID = Pubkey.from_string("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb")
ASSOCIATED_TOKEN_PROGRAM_ID = Pubkey.from_string("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL")
COMPUTE_BUDGET_PROGRAM_ID = Pubkey.from_string("ComputeBudget111111111111111111111111111111")
MEMO_V1_PROGRAM_ID = Pubkey.from_string("Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo")
MEMO_V2_PROGRAM_ID = Pubkey.from_string("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr")
BPF_LOADER_UPGRADEABLE_ID = Pubkey.from_string("BPFLoaderUpgradeab1e11111111111111111111111")
SYSVAR_RENT_ID = Pubkey.from_string("SysvarRent111111111111111111111111111111111")
SYSVAR_CLOCK_ID = Pubkey.from_string("SysvarC1ock11111111111111111111111111111111")
NATIVE_MINT = Pubkey.from_string("So11111111111111111111111111111111111111112")

# --- fees, limits -----------------------------------------------------------
LAMPORTS_PER_SIGNATURE = 5000
DEFAULT_CU_PER_INSTRUCTION = 200_000
MAX_CU_LIMIT = 1_400_000
PACKET_DATA_SIZE = 1232  # max serialized transaction size
MAX_BUNDLE_TXS = 5

# --- rent (Solana defaults) -------------------------------------------------
ACCOUNT_STORAGE_OVERHEAD = 128
LAMPORTS_PER_BYTE_YEAR = 3480
EXEMPTION_THRESHOLD_YEARS = 2
RENT_EXEMPT_RENT_EPOCH = 2**64 - 1  # what RPC reports for rent-exempt accounts


def minimum_balance(data_len: int) -> int:
    """Rent-exempt minimum, Solana's formula: (128 + len) * 3480 * 2."""
    return (ACCOUNT_STORAGE_OVERHEAD + data_len) * LAMPORTS_PER_BYTE_YEAR * EXEMPTION_THRESHOLD_YEARS


# --- clock ------------------------------------------------------------------
SLOT_SECONDS = 0.4
MAX_BLOCKHASH_AGE = 150  # slots a blockhash stays valid
CONFIRMED_AFTER_SLOTS = 1
FINALIZED_AFTER_SLOTS = 32
SLOTS_PER_EPOCH = 432_000

# --- versions ---------------------------------------------------------------
SOLANA_CORE_VERSION = "2.1.0"
FEATURE_SET = 3271415109
API_VERSION = "2.1.0"

# --- block engine tip accounts ----------------------------------------------
# The eight tip accounts of the (Jito-style) block engine, created at genesis with a rent-exempt
# balance of a 0-byte system account: the public mainnet Jito tip accounts, the service's own list,
# so configuration copied from mainnet works unchanged. `getTipAccounts` returns them in this order.
TIP_ACCOUNTS: tuple[Pubkey, ...] = tx.TIP_ACCOUNTS

# Faucet used by requestAirdrop (a deterministic keypair seed; devstack only).
FAUCET_SEED = bytes(range(1, 33))
FAUCET_LAMPORTS = 500_000_000 * 1_000_000_000
