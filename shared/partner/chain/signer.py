"""What signs a transaction message: the service's wallets (partner.store.wallets) and test keys."""

from __future__ import annotations

from typing import Protocol

from solders.pubkey import Pubkey
from solders.signature import Signature


class Signer(Protocol):
    """Signs transaction messages for one wallet."""

    @property
    def pubkey(self) -> Pubkey: ...

    def sign(self, message: bytes) -> Signature: ...
