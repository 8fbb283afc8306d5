"""``partner.chain.layouts`` for the Python engine, plus its CoinMetadata account."""
from __future__ import annotations

from partner.chain.layouts import *  # noqa: F401,F403
from partner.chain.layouts import (BondingCurve, Global, Governance, IdlAccount, LayoutError, Pool,  # noqa: F401
                                   Proposal, VoteReceipt)

from .idl import LAUNCHPAD

NAME_MAX_BYTES = LAUNCHPAD.capacity("CoinMetadata", "name")        # 32
SYMBOL_MAX_BYTES = LAUNCHPAD.capacity("CoinMetadata", "symbol")    # 10
URI_MAX_BYTES = LAUNCHPAD.capacity("CoinMetadata", "uri")          # 200


class CoinMetadata(IdlAccount, program=LAUNCHPAD):
    """Coin metadata. PDA [b"metadata", mint] (launchpad)."""


ACCOUNT_TYPES = {cls.DISCRIMINATOR: cls for cls in (Global, BondingCurve, CoinMetadata, Pool, Governance,
                                                    Proposal, VoteReceipt)}


def decode_account(data: bytes):
    cls = ACCOUNT_TYPES.get(bytes(data[:8]))
    if cls is None:
        raise LayoutError("unknown account discriminator")
    return cls.decode(data)
