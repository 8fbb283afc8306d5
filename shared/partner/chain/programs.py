"""Program ids, well-known ids, PDA and ATA derivation.

Everything here is pure: no RPC, no I/O. See docs/onchain.md for the contract.
"""

from __future__ import annotations

import struct
from functools import lru_cache

from solders.pubkey import Pubkey

from partner.chain.idls import LAUNCHPAD, POOL

# Our two programs: their IDLs' `address` (idl/*.json, the one source; the Rust side's ids.rs is
# generated from the same by `make idl`). Fixed devstack addresses; keypairs generated once.
LAUNCHPAD_PROGRAM_ID = LAUNCHPAD.address
POOL_PROGRAM_ID = POOL.address

# Well-known programs.
SYSTEM_PROGRAM_ID = Pubkey.from_string("11111111111111111111111111111111")
TOKEN_PROGRAM_ID = Pubkey.from_string("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA")
# Our coins are Token-2022 mints (MetadataPointer + TokenMetadata on the mint itself).
TOKEN_2022_PROGRAM_ID = Pubkey.from_string("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb")
ASSOCIATED_TOKEN_PROGRAM_ID = Pubkey.from_string("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL")
COMPUTE_BUDGET_PROGRAM_ID = Pubkey.from_string("ComputeBudget111111111111111111111111111111")
CLOCK_SYSVAR_ID = Pubkey.from_string("SysvarC1ock11111111111111111111111111111111")
NATIVE_MINT = Pubkey.from_string("So11111111111111111111111111111111111111112")

# PDA seeds (prefixes).
GLOBAL_SEED = b"global"
BONDING_CURVE_SEED = b"bonding-curve"
POOL_SEED = b"pool"
# A coin's governance, its proposals and their vote receipts.
GOVERNANCE_SEED = b"governance"
PROPOSAL_SEED = b"proposal"
VOTE_SEED = b"vote"


def _pk(value: Pubkey | str) -> Pubkey:
    return value if isinstance(value, Pubkey) else Pubkey.from_string(value)


@lru_cache(maxsize=4096)
def find_pda(seeds: tuple[bytes, ...], program_id: Pubkey) -> tuple[Pubkey, int]:
    """`Pubkey.find_program_address`, remembered: a pure function of its seeds, and each request derives
    the same few addresses again (the global config, a coin's curve and vault, the trader's token
    account); each derivation is a bump search of SHA-256 hashes and curve checks."""
    return Pubkey.find_program_address(list(seeds), program_id)


def global_pda(program_id: Pubkey = LAUNCHPAD_PROGRAM_ID) -> tuple[Pubkey, int]:
    """Launchpad global config: seeds [b"global"]."""
    return find_pda((GLOBAL_SEED,), program_id)


def bonding_curve_pda(mint: Pubkey | str, program_id: Pubkey = LAUNCHPAD_PROGRAM_ID) -> tuple[Pubkey, int]:
    """Bonding curve of a coin: seeds [b"bonding-curve", mint]."""
    return find_pda((BONDING_CURVE_SEED, bytes(_pk(mint))), program_id)


def pool_pda(mint: Pubkey | str, program_id: Pubkey = POOL_PROGRAM_ID) -> tuple[Pubkey, int]:
    """Constant-product pool of a migrated coin (pool program): seeds [b"pool", mint]."""
    return find_pda((POOL_SEED, bytes(_pk(mint))), program_id)


# Reserved governance PDAs (layouts come with the governance work).
def governance_pda(mint: Pubkey | str, program_id: Pubkey = LAUNCHPAD_PROGRAM_ID) -> tuple[Pubkey, int]:
    return find_pda((GOVERNANCE_SEED, bytes(_pk(mint))), program_id)


def proposal_pda(governance: Pubkey | str, index: int, program_id: Pubkey = LAUNCHPAD_PROGRAM_ID) -> tuple[Pubkey, int]:
    return find_pda((PROPOSAL_SEED, bytes(_pk(governance)), struct.pack("<Q", index)), program_id)


def vote_pda(
    proposal: Pubkey | str, voter: Pubkey | str, program_id: Pubkey = LAUNCHPAD_PROGRAM_ID
) -> tuple[Pubkey, int]:
    return find_pda((VOTE_SEED, bytes(_pk(proposal)), bytes(_pk(voter))), program_id)


def associated_token_pda(
    owner: Pubkey | str, mint: Pubkey | str, token_program_id: Pubkey = TOKEN_2022_PROGRAM_ID
) -> tuple[Pubkey, int]:
    """Standard ATA (Token-2022 by default: every token account of our coins) and its bump: PDA of
    the ATA program with seeds [owner, token_program, mint]."""
    return find_pda((bytes(_pk(owner)), bytes(token_program_id), bytes(_pk(mint))), ASSOCIATED_TOKEN_PROGRAM_ID)


def associated_token_address(
    owner: Pubkey | str, mint: Pubkey | str, token_program_id: Pubkey = TOKEN_2022_PROGRAM_ID
) -> Pubkey:
    """Standard ATA (`associated_token_pda` without the bump)."""
    return associated_token_pda(owner, mint, token_program_id)[0]


def bonding_curve_vault(mint: Pubkey | str) -> Pubkey:
    """Curve token vault = ATA of the bonding curve PDA."""
    return associated_token_address(bonding_curve_pda(mint)[0], mint)


def pool_base_vault(mint: Pubkey | str) -> Pubkey:
    """Pool token (base) vault = ATA of the pool PDA."""
    return associated_token_address(pool_pda(mint)[0], mint)


# Rent (default cluster parameters: 3480 lamports/byte-year, 2 years exemption).
ACCOUNT_STORAGE_OVERHEAD = 128
RENT_LAMPORTS_PER_BYTE = 3480 * 2


def rent_exempt_minimum(data_len: int) -> int:
    return (ACCOUNT_STORAGE_OVERHEAD + data_len) * RENT_LAMPORTS_PER_BYTE


__all__ = [name for name in dir() if not name.startswith("_") and name not in {"annotations", "struct", "Pubkey"}]
