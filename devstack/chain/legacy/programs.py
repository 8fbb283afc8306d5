"""``partner.chain.programs`` for the Python engine: SPL Token ATAs and the CoinMetadata PDA."""
from __future__ import annotations

from partner.chain.programs import *  # noqa: F401,F403
from partner.chain.programs import (ASSOCIATED_TOKEN_PROGRAM_ID, LAUNCHPAD_PROGRAM_ID, TOKEN_PROGRAM_ID, _pk,
                                    bonding_curve_pda, pool_pda)
from solders.pubkey import Pubkey

METADATA_SEED = b"metadata"


def metadata_pda(mint: Pubkey | str, program_id: Pubkey = LAUNCHPAD_PROGRAM_ID) -> tuple[Pubkey, int]:
    """Coin metadata: seeds [b"metadata", mint]."""
    return Pubkey.find_program_address([METADATA_SEED, bytes(_pk(mint))], program_id)


def associated_token_address(owner: Pubkey | str, mint: Pubkey | str,
                             token_program_id: Pubkey = TOKEN_PROGRAM_ID) -> Pubkey:
    return Pubkey.find_program_address(
        [bytes(_pk(owner)), bytes(token_program_id), bytes(_pk(mint))], ASSOCIATED_TOKEN_PROGRAM_ID)[0]


def bonding_curve_vault(mint: Pubkey | str) -> Pubkey:
    return associated_token_address(bonding_curve_pda(mint)[0], mint)


def pool_base_vault(mint: Pubkey | str) -> Pubkey:
    return associated_token_address(pool_pda(mint)[0], mint)
