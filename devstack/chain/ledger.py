"""What every engine of the devstack chain keeps in Python, whoever executes the transactions.

The clock (slots advance with wall time, 400 ms per slot, plus a warp offset), one
blockhash per slot valid for 150 slots, signature statuses and transaction history,
bundles, the prioritization-fee cache and the faucet. ``Bank`` (the Python engine) and
``SvmBank`` (LiteSVM) both build on it.
"""

from __future__ import annotations

import hashlib
import struct
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from solders.hash import Hash
from solders.instruction import Instruction
from solders.keypair import Keypair
from solders.message import Message
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.transaction import VersionedTransaction

from . import constants as C

if TYPE_CHECKING:
    from .bank import BundleResult, TxResult


@dataclass
class Account:
    """An account as the chain stores and serves it."""

    lamports: int = 0
    data: bytearray = field(default_factory=bytearray)
    owner: Pubkey = C.SYSTEM_PROGRAM_ID
    executable: bool = False
    rent_epoch: int = C.RENT_EXEMPT_RENT_EPOCH

    def copy(self) -> Account:
        return Account(self.lamports, bytearray(self.data), self.owner, self.executable, self.rent_epoch)


class Ledger:
    """Clock, blockhashes, history, prioritization fees. Not thread-safe: hold ``self.lock``."""

    PRIORITY_FEE_SLOTS = 150  # the slots getRecentPrioritizationFees reports on, as Agave's cache

    def _init_ledger(self, genesis_seed: bytes) -> None:
        self.lock = threading.RLock()
        self.transactions: dict[Signature, TxResult] = {}
        self.bundles: dict[str, BundleResult] = {}
        self.transaction_count = 0
        # slot -> (lowest compute-unit price, {writable account: lowest price}); see _note_priority_fee
        self.priority_fees: dict[int, tuple[int, dict[Pubkey, int]]] = {}
        self._t0 = time.monotonic()
        self._unix0 = time.time()
        self._warp = 0.0
        self.genesis_hash = Hash(hashlib.sha256(genesis_seed + b"/genesis").digest())
        self._blockhashes: dict[Hash, int] = {}
        self.faucet = Keypair.from_seed(C.FAUCET_SEED)
        self._airdrop_counter = 0

    # ------------------------------------------------------------------ clock
    def _elapsed(self) -> float:
        return time.monotonic() - self._t0 + self._warp

    @property
    def slot(self) -> int:
        return int(self._elapsed() / C.SLOT_SECONDS)

    @property
    def block_height(self) -> int:
        return self.slot

    @property
    def unix_timestamp(self) -> int:
        return int(self._unix0 + self._elapsed())

    @property
    def epoch(self) -> int:
        return self.slot // C.SLOTS_PER_EPOCH

    def warp(self, seconds: float) -> dict[str, int]:
        """Advance the clock (unix time and slots, 0.4 s per slot) by ``seconds``."""
        if seconds < 0:
            raise ValueError("cannot warp backwards")
        self._warp += float(seconds)
        return {"slot": self.slot, "blockHeight": self.block_height, "unixTimestamp": self.unix_timestamp}

    def blockhash_for_slot(self, slot: int) -> Hash:
        h = Hash(hashlib.sha256(bytes(self.genesis_hash) + struct.pack("<Q", slot)).digest())
        self._blockhashes.setdefault(h, slot)
        return h

    def latest_blockhash(self) -> tuple[Hash, int]:
        slot = self.slot
        self._prune_blockhashes(slot)
        return self.blockhash_for_slot(slot), self.block_height + C.MAX_BLOCKHASH_AGE

    def _prune_blockhashes(self, slot: int) -> None:
        if len(self._blockhashes) > 4096:
            self._blockhashes = {h: s for h, s in self._blockhashes.items() if slot - s <= 2 * C.MAX_BLOCKHASH_AGE}

    def is_blockhash_valid(self, blockhash: Hash) -> bool:
        s = self._blockhashes.get(blockhash)
        return s is not None and self.slot - s <= C.MAX_BLOCKHASH_AGE

    def confirmation_status(self, slot: int) -> tuple[str, int | None]:
        age = self.slot - slot
        if age >= C.FINALIZED_AFTER_SLOTS:
            return "finalized", None
        if age >= C.CONFIRMED_AFTER_SLOTS:
            return "confirmed", age
        return "processed", age

    # ---------------------------------------------------------------- prioritization fees
    def _note_priority_fee(self, r: TxResult) -> None:
        """Per slot: the lowest compute-unit price any committed transaction paid, and per
        writable account the lowest price among transactions writing it (Agave's cache)."""
        fees = self.priority_fees
        block_min, accounts = fees.get(r.slot, (r.cu_price, {}))
        for key in r.writable_keys:
            accounts[key] = min(accounts.get(key, r.cu_price), r.cu_price)
        fees[r.slot] = (min(block_min, r.cu_price), accounts)
        for old in [s for s in fees if s <= self.slot - self.PRIORITY_FEE_SLOTS]:
            del fees[old]

    def recent_prioritization_fees(self, accounts: list[Pubkey]) -> list[dict[str, int]]:
        """As `getRecentPrioritizationFees`: per recent slot with transactions, ascending, the
        block's minimum price, raised to the minimum paid by writers of any given account."""
        fees = self.priority_fees
        out = []
        for slot in sorted(fees):
            if slot <= self.slot - self.PRIORITY_FEE_SLOTS:
                continue
            block_min, by_account = fees[slot]
            fee = block_min
            for key in accounts:
                if key in by_account:
                    fee = max(fee, by_account[key])
            out.append({"slot": slot, "prioritizationFee": fee})
        return out

    def record(self, results: list[TxResult]) -> None:
        """Keep the statuses and history of landed transactions."""
        for r in results:
            self.transactions[r.signature] = r
            self.transaction_count += 1
            self._note_priority_fee(r)

    # ---------------------------------------------------------------- faucet
    def airdrop_transaction(self, pubkey: Pubkey, lamports: int) -> VersionedTransaction:
        """A real, signed transfer from the faucet (so getTransaction works). A SetComputeUnitLimit
        that changes with every airdrop keeps repeated airdrops of one amount distinct."""
        from solders.system_program import TransferParams, transfer

        self._airdrop_counter += 1
        nonce = Instruction(
            C.COMPUTE_BUDGET_PROGRAM_ID, bytes([2]) + struct.pack("<I", 200_000 + self._airdrop_counter % 1_000_000), []
        )
        ix = transfer(TransferParams(from_pubkey=self.faucet.pubkey(), to_pubkey=pubkey, lamports=lamports))
        blockhash, _ = self.latest_blockhash()
        msg = Message.new_with_blockhash([nonce, ix], self.faucet.pubkey(), blockhash)
        return VersionedTransaction(msg, [self.faucet])
