"""What the devstack chain keeps in Python around LiteSVM (``svm.py`` executes every transaction).

The clock (slots advance with wall time, 400 ms per slot, plus a warp offset), one
blockhash per slot valid for 150 slots, signature statuses and transaction history,
bundles, the prioritization-fee cache and the faucet; and the results the JSON-RPC façade
serves (``TxResult``, ``BundleResult``, ``TxError`` with Solana's Display texts).
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import os
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from solders.hash import Hash
from solders.instruction import Instruction
from solders.keypair import Keypair
from solders.message import Message
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.transaction import VersionedTransaction

from . import constants as C


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


_TX_ERROR_DISPLAY = {
    "AccountInUse": "Account in use",
    "AccountLoadedTwice": "Account loaded twice",
    "AccountNotFound": "Attempt to debit an account but found no record of a prior credit.",
    "ProgramAccountNotFound": "Attempt to load a program that does not exist",
    "InsufficientFundsForFee": "Insufficient funds for fee",
    "InvalidAccountForFee": "This account may not be used to pay transaction fees",
    "AlreadyProcessed": "This transaction has already been processed",
    "BlockhashNotFound": "Blockhash not found",
    "MissingSignatureForFee": "Transaction requires a fee but has no signature present",
    "InvalidAccountIndex": "Transaction contains an invalid account reference",
    "SignatureFailure": "Transaction did not pass signature verification",
    "SanitizeFailure": "Transaction failed to sanitize accounts offsets correctly",
    "AddressLookupTableNotFound": "Transaction loads an address table account that doesn't exist",
    "UnsupportedVersion": "Transaction version is unsupported",
    "InvalidProgramForExecution": "Transaction loads an account that is not executable",
}

_INSTRUCTION_ERROR_DISPLAY = {
    "GenericError": "generic instruction error",
    "InvalidArgument": "invalid program argument",
    "InvalidInstructionData": "invalid instruction data",
    "InvalidAccountData": "invalid account data for instruction",
    "AccountDataTooSmall": "account data too small for instruction",
    "InsufficientFunds": "insufficient funds for instruction",
    "IncorrectProgramId": "incorrect program id for instruction",
    "MissingRequiredSignature": "missing required signature for instruction",
    "AccountAlreadyInitialized": "instruction requires an uninitialized account",
    "UninitializedAccount": "instruction requires an initialized account",
    "UnbalancedInstruction": "sum of account balances before and after instruction do not match",
    "ModifiedProgramId": "instruction illegally modified the program id of an account",
    "ExternalAccountLamportSpend": "instruction spent from the balance of an account it does not own",
    "ExternalAccountDataModified": "instruction modified data of an account it does not own",
    "ReadonlyLamportChange": "instruction changed the balance of a read-only account",
    "ReadonlyDataModified": "instruction modified data of a read-only account",
    "ExecutableLamportChange": "instruction changed the balance of an executable account",
    "ExecutableDataModified": "instruction modified data of an executable account",
    "ExecutableModified": "instruction changed executable bit of an account",
    "NotEnoughAccountKeys": "insufficient account keys for instruction",
    "AccountDataSizeChanged": "program other than the account's owner changed the size of the account data",
    "MissingAccount": "An account required by the instruction is missing",
    "InvalidSeeds": "Provided seeds do not result in a valid address",
    "PrivilegeEscalation": "Cross-program invocation with unauthorized signer or writable account",
    "IllegalOwner": "Provided owner is not allowed",
    "UnsupportedProgramId": "Unsupported program id",
    "InvalidRealloc": "Failed to reallocate account data",
    "CallDepth": "Cross-program invocation call depth too deep",
    "ReentrancyNotAllowed": "Cross-program invocation reentrancy not allowed for this instruction",
    "ProgramFailedToComplete": "Program failed to complete",
    "ComputationalBudgetExceeded": "Computational budget exceeded",
    "AccountNotExecutable": "instruction expected an executable account",
    "ArithmeticOverflow": "Program arithmetic overflowed",
}


def instruction_error_display(err: Any) -> str:
    """Solana's Display text of an InstructionError payload (``{"Custom": n}`` or a name)."""
    if isinstance(err, dict) and "Custom" in err:
        return f"custom program error: 0x{int(err['Custom']):x}"
    return _INSTRUCTION_ERROR_DISPLAY.get(str(err), str(err))


def tx_error_display(err: Any) -> str:
    """Solana's Display text of a TransactionError given as its JSON value."""
    if isinstance(err, str):
        return _TX_ERROR_DISPLAY.get(err, err)
    if isinstance(err, dict):
        if "InstructionError" in err:
            i, e = err["InstructionError"]
            return f"Error processing Instruction {i}: {instruction_error_display(e)}"
        if "InsufficientFundsForRent" in err:
            return (
                f"Transaction results in an account ({err['InsufficientFundsForRent']['account_index']}) "
                "with insufficient funds for rent"
            )
        if "DuplicateInstruction" in err:
            return f"Transaction contains a duplicate instruction ({err['DuplicateInstruction']}) that is not allowed"
    return str(err)


class TxError(Exception):
    """A transaction-level error raised before execution (the transaction does not land)."""

    def __init__(self, err: Any):
        super().__init__(tx_error_display(err))
        self.err = err


@dataclass
class TxResult:
    """A transaction that landed (``err`` set if it failed with its fee charged), or a simulation."""

    signature: Signature
    tx: VersionedTransaction
    err: Any = None
    logs: list[str] = field(default_factory=list)
    units_consumed: int = 0
    fee: int = 0
    landed: bool = False
    slot: int = 0
    block_time: int = 0
    pre_balances: list[int] = field(default_factory=list)
    post_balances: list[int] = field(default_factory=list)
    pre_token_balances: list[dict[str, Any]] = field(default_factory=list)
    post_token_balances: list[dict[str, Any]] = field(default_factory=list)
    inner_instructions: list[dict[str, Any]] = field(default_factory=list)
    post_accounts: dict[Pubkey, Account] = field(default_factory=dict)
    replacement_blockhash: tuple[Hash, int] | None = None
    bundle_id: str | None = None
    cu_price: int = 0  # micro-lamports per compute unit (SetComputeUnitPrice)
    writable_keys: list[Pubkey] = field(default_factory=list)
    # each writable account's state before the transaction (the engine's own account type,
    # None when it did not exist): what the commitment levels below this slot still see
    before: dict[Pubkey, Any] = field(default_factory=dict)


@dataclass
class BundleResult:
    bundle_id: str
    signatures: list[Signature]
    landed: bool
    slot: int
    err: Any = None
    failed_index: int | None = None
    results: list[TxResult] = field(default_factory=list)


def confirmed_after_slots() -> int:
    """Slots ``confirmed`` lags ``processed``: ``$DEVSTACK_CONFIRMED_AFTER_SLOTS`` (1 or 2), else
    C.CONFIRMED_AFTER_SLOTS."""
    raw = os.environ.get("DEVSTACK_CONFIRMED_AFTER_SLOTS")
    if not raw:
        return C.CONFIRMED_AFTER_SLOTS
    if raw not in ("1", "2"):
        raise ValueError(f"DEVSTACK_CONFIRMED_AFTER_SLOTS must be 1 or 2, not {raw!r}")
    return int(raw)


def background_cu_price() -> int:
    """The price every block's transactions that pay no priority fee stand for (micro-lamports
    per compute unit; `DEVSTACK_BACKGROUND_CU_PRICE`, 0 as on mainnet)."""
    raw = os.environ.get("DEVSTACK_BACKGROUND_CU_PRICE", "0")
    if not raw.isdigit():
        raise ValueError(f"DEVSTACK_BACKGROUND_CU_PRICE must be a whole number, not {raw!r}")
    return int(raw)


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
        # commitment: account -> [(slot, its state before the first change in that slot)],
        # ascending; entries at or below the finalized slot are pruned (see state_before)
        self.confirmed_after = confirmed_after_slots()
        self.background_price = background_cu_price()
        self._history: dict[Pubkey, list[tuple[int, Any]]] = {}
        self._pruned_at = 0
        # called with each recorded batch of landed transactions (devstack.chain.pubsub); must not block
        self.listeners: list[Callable[[list[TxResult]], None]] = []

    # ------------------------------------------------------------------ clock
    def _elapsed(self) -> float:
        pinned = getattr(self, "_pinned_elapsed", None)
        return pinned if pinned is not None else time.monotonic() - self._t0 + self._warp

    @contextlib.contextmanager
    def one_slot(self):
        """Hold the clock still (a bundle executes in one slot, as Jito's do)."""
        self._pinned_elapsed = self._elapsed()
        try:
            yield
        finally:
            self._pinned_elapsed = None

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

    @property
    def warped(self) -> float:
        """Seconds the clock was moved forward in all (`warp`)."""
        return self._warp

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

    def is_blockhash_valid(self, blockhash: Hash, at: int | None = None) -> bool:
        """Whether the bank of slot ``at`` (default the newest) knows ``blockhash`` and it is at
        most 150 slots old there: a blockhash of a later slot is unknown to it."""
        s = self._blockhashes.get(blockhash)
        at = self.slot if at is None else at
        return s is not None and s <= at and at - s <= C.MAX_BLOCKHASH_AGE

    def confirmation_status(self, slot: int) -> tuple[str, int | None]:
        age = self.slot - slot
        if age >= C.FINALIZED_AFTER_SLOTS:
            return "finalized", None
        if age >= self.confirmed_after:
            return "confirmed", age
        return "processed", age

    # ---------------------------------------------------------------- commitment
    def commitment_slot(self, commitment: str) -> int:
        """The newest slot a commitment level sees: ``processed`` the newest slot, ``confirmed``
        ``confirmed_after`` slots behind it, ``finalized`` 32 behind (never below 0)."""
        lag = {"processed": 0, "confirmed": self.confirmed_after, "finalized": C.FINALIZED_AFTER_SLOTS}[commitment]
        return max(0, self.slot - lag)

    def blockhash_slot(self, blockhash: Hash) -> int | None:
        return self._blockhashes.get(blockhash)

    def note_changes(self, slot: int, before: dict[Pubkey, Any]) -> None:
        """A committed transaction of ``slot`` changed these accounts from these states. Keeps
        the earliest state per account per slot (the state the slots before it ended with)."""
        for key, state in before.items():
            entries = self._history.setdefault(key, [])
            i = bisect.bisect_left(entries, slot, key=lambda e: e[0])
            if i < len(entries) and entries[i][0] == slot:
                continue
            entries.insert(i, (slot, state))
        final = self.commitment_slot("finalized")
        if final - self._pruned_at >= 8:  # entries at or below the finalized slot are never read
            self._pruned_at = final
            for key in list(self._history):
                kept = [e for e in self._history[key] if e[0] > final]
                if kept:
                    self._history[key] = kept
                else:
                    del self._history[key]

    def state_before(self, key: Pubkey, slot: int) -> tuple[bool, Any]:
        """(True, the account's state as of the end of ``slot``) when a later slot changed it,
        else (False, None): the current state is the answer."""
        entries = self._history.get(key)
        if not entries:
            return False, None
        i = bisect.bisect_right(entries, slot, key=lambda e: e[0])
        if i == len(entries):
            return False, None
        return True, entries[i][1]

    def changed_keys(self) -> list[Pubkey]:
        """Accounts whose state some commitment level below ``processed`` sees differently."""
        return list(self._history)

    def forget_changes(self, key: Pubkey | None = None) -> None:
        """A direct write (genesis, devstack_setAccount, tests) applies at every level: forget
        the account's history (every account's when ``key`` is None)."""
        if key is None:
            self._history.clear()
        else:
            self._history.pop(key, None)

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
        """As `getRecentPrioritizationFees`: one entry per completed slot of the last 150 (the
        slot in progress is not in Agave's cache yet), ascending. Each is the block's minimum
        price, raised to the minimum paid by the writers of any given account. Every mainnet
        block carries transactions that pay no priority fee, so a block's minimum is the
        background price (`DEVSTACK_BACKGROUND_CU_PRICE`, 0) unless a lower one landed: a
        slot's figure is high only where one of the accounts was written at a price."""
        fees = self.priority_fees
        floor = self.background_price
        now = self.slot
        out = []
        for slot in range(max(0, now - self.PRIORITY_FEE_SLOTS), now):
            block_min, by_account = fees.get(slot, (floor, {}))
            fee = min(block_min, floor)
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
            self.note_changes(r.slot, r.before)
        for listener in self.listeners:
            listener(results)

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
