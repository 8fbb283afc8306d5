"""The devstack chain's execution: every transaction executes in LiteSVM; what LiteSVM does not keep
(clock, blockhashes, duplicates, statuses, history) the ledger keeps (``ledger.py``).
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, replace
from typing import Any

import base58
from solders.account import Account as SvmAccount
from solders.clock import Clock
from solders.epoch_schedule import EpochSchedule
from solders.message import Message, MessageV0, MessageV1
from solders.pubkey import Pubkey
from solders.rpc.responses import RpcSimulateTransactionResult
from solders.signature import Signature
from solders.transaction import VersionedTransaction
from solders.transaction_metadata import FailedTransactionMetadata, SimulatedTransactionInfo

from devstack.chain.features import new_litesvm

from . import constants as C
from .ledger import Account, BundleResult, Ledger, TxError, TxResult
from .tokens import token_balances

_EMPTY = SvmAccount(0, b"", C.SYSTEM_PROGRAM_ID, False, 0)
# Errors with which a transaction still lands (its fee is charged): it was executed.
_EXECUTED_ERRORS = ("InstructionError", "InsufficientFundsForRent")
# Programs agave budgets at 3 000 compute units per instruction when no limit is set
# (the builtins that have not moved to BPF); every other instruction gets 200 000.
_BUILTIN_CU = 3_000
_BUILTINS = frozenset(
    Pubkey.from_string(s)
    for s in (
        "11111111111111111111111111111111",
        "ComputeBudget111111111111111111111111111111",
        "BPFLoader1111111111111111111111111111111111",
        "BPFLoader2111111111111111111111111111111111",
        "BPFLoaderUpgradeab1e11111111111111111111111",
        "LoaderV411111111111111111111111111111111111",
        "Vote111111111111111111111111111111111111111",
        "ZkE1Gama1Proof11111111111111111111111111111",
    )
)


def err_json(err: Any) -> Any:
    """A solders TransactionError as the JSON value the RPC reports (``"AccountNotFound"``,
    ``{"InstructionError": [0, {"Custom": 1}]}``, ...)."""
    return json.loads(RpcSimulateTransactionResult(err=err).to_json())["err"]


def is_writable(i: int, msg: Message | MessageV0 | MessageV1, n: int) -> bool:
    """Whether account `i` of the `n` static keys of `msg` is write-locked (by its header)."""
    h = msg.header
    ns = h.num_required_signatures
    if i < ns:
        return i < ns - h.num_readonly_signed_accounts
    return i < n - h.num_readonly_unsigned_accounts


def compute_budget(msg: Message | MessageV0 | MessageV1) -> tuple[int, int]:
    """(compute-unit limit, compute-unit price) the message asks for, as agave derives them.
    Only reads the ComputeBudget instructions; a malformed one is LiteSVM's to refuse."""
    keys = msg.account_keys
    limit: int | None = None
    price = 0
    default = 0
    for ix in msg.instructions:
        pid = keys[ix.program_id_index]
        data = bytes(ix.data)
        if pid == C.COMPUTE_BUDGET_PROGRAM_ID:
            if data[:1] == b"\x02" and len(data) == 5:
                limit = struct.unpack_from("<I", data, 1)[0]
            elif data[:1] == b"\x03" and len(data) == 9:
                price = struct.unpack_from("<Q", data, 1)[0]
        default += _BUILTIN_CU if pid in _BUILTINS else C.DEFAULT_CU_PER_INSTRUCTION
    return min(default if limit is None else limit, C.MAX_CU_LIMIT), price


def priority_fee(cu_limit: int, cu_price: int) -> int:
    """Lamports a compute-unit limit costs at a price in micro-lamports: ceil(limit * price / 1e6)."""
    return -(-cu_limit * cu_price // 1_000_000)


def _to_account(a: SvmAccount | None) -> Account | None:
    if a is None or a.lamports == 0:
        return None
    return Account(a.lamports, bytearray(a.data), a.owner, a.executable, C.RENT_EXEMPT_RENT_EPOCH)


@dataclass(frozen=True)
class Admission:
    """What is checked before a transaction runs: its size (``raw_len`` as received; None: its
    serialized size), its signatures (``sig_verify``), its blockhash (valid as of ``at_slot``, None:
    now; or replaced by the latest: ``replace_blockhash``) and that it has not run
    (``check_duplicate``: among the landed transactions and ``pending``, a bundle's earlier ones)."""

    raw_len: int | None = None
    sig_verify: bool = True
    replace_blockhash: bool = False
    check_duplicate: bool = True
    pending: set[Signature] | None = None
    at_slot: int | None = None


def _inner_json(meta: Any) -> list[dict[str, Any]]:
    out = []
    for index, inner in enumerate(meta.inner_instructions()):
        if not inner:
            continue
        out.append(
            {
                "index": index,
                "instructions": [
                    {
                        "programIdIndex": ii.instruction().program_id_index,
                        "accounts": list(bytes(ii.instruction().accounts)),
                        "data": base58.b58encode(bytes(ii.instruction().data)).decode(),
                        "stackHeight": ii.stack_height(),
                    }
                    for ii in inner
                ],
            }
        )
    return out


class SvmBank(Ledger):
    """The chain's state in LiteSVM and the ledger around it: what the JSON-RPC server serves.

    ``solders.litesvm.LiteSVM`` (agave's SVM with the real System, SPL Token, Token-2022, ATA
    and Memo programs and the BPF loaders) does the execution: signatures, fees, the fee payer's
    checks, compute metering, rent, CPI and the runtime's account rules. What LiteSVM does not
    keep, the chain keeps in Python (``ledger.py``):

    * the clock: slots advance with wall time plus warp; before each execution LiteSVM is warped
      to the slot and its Clock sysvar set to the ledger's slot and unix time;
    * blockhashes: one per slot, valid for 150 slots. LiteSVM knows a single latest blockhash
      (``expire_blockhash`` replaces it, and only it passes its check), so its check is off and
      the ledger checks the age;
    * duplicates: LiteSVM's own history is off (it would refuse the retry of a rolled-back bundle);
      the ledger's signature statuses answer ``AlreadyProcessed``;
    * signature statuses, transaction history (logs, meta, balances, token balances), bundles and
      the prioritization-fee cache.

    A bundle is all-or-nothing: the accounts its transactions name are snapshotted before each
    runs, and if one fails every changed account is restored (so no fee is charged either).
    Hold ``bank.lock`` around every call.
    """

    def __init__(self, *, genesis_seed: bytes = b"devstack-chain"):
        self._init_ledger(genesis_seed)
        self.svm = new_litesvm().with_blockhash_check(False).with_transaction_history(0)
        self._clock_at: tuple[int, int] | None = None
        self._clock_pinned = False  # a simulation at an earlier slot set the Clock of that slot
        self._svm_slot = 0
        self.svm.warp_to_slot(0)  # LiteSVM starts at an arbitrary high slot; the ledger starts at 0
        # mainnet's schedule, which getEpochSchedule, getEpochInfo and the Clock's epoch follow
        # (LiteSVM's default has warmup epochs: its sysvar said firstNormalEpoch 14)
        self.svm.set_epoch_schedule(EpochSchedule.custom(C.SLOTS_PER_EPOCH, C.SLOTS_PER_EPOCH, False))
        self._genesis()

    # --------------------------------------------------------------- clock
    def sync_clock(self) -> None:
        """Bring LiteSVM to the ledger's slot and its Clock sysvar to the ledger's time."""
        slot, now = self.slot, self.unix_timestamp
        if self._clock_at == (slot, now) or self._clock_pinned:
            return
        if slot > self._svm_slot:
            self.svm.warp_to_slot(slot)  # slot-dependent runtime state (program visibility, SlotHashes)
            self._svm_slot = slot
        epoch = slot // C.SLOTS_PER_EPOCH
        self.svm.set_clock(Clock(slot, now, epoch, epoch + 1, now))
        self._clock_at = (slot, now)

    # ------------------------------------------------------------ accounts
    def _genesis(self) -> None:
        # wrapped SOL mint (classic Token): no authority, 9 decimals
        native_mint = bytes(36) + struct.pack("<QBB", 0, 9, 1) + bytes(36)
        self.set_account(C.NATIVE_MINT, C.minimum_balance(len(native_mint)), native_mint, C.TOKEN_PROGRAM_ID)
        for tip in C.TIP_ACCOUNTS:
            self.set_account(tip, C.minimum_balance(0), b"", C.SYSTEM_PROGRAM_ID)
        self.set_account(self.faucet.pubkey(), C.FAUCET_LAMPORTS, b"", C.SYSTEM_PROGRAM_ID)

    def get_account(self, pubkey: Pubkey, slot: int | None = None) -> Account | None:
        """A copy of the account, or None if it does not exist: as of the end of ``slot`` (a
        commitment level's view, see ``Ledger.state_before``), else the newest state."""
        return _to_account(self._svm_account_at(pubkey, slot))

    def _svm_account_at(self, pubkey: Pubkey, slot: int | None) -> SvmAccount | None:
        if slot is not None and slot >= self.slot:
            slot = None
        if pubkey == C.SYSVAR_CLOCK_ID:
            if slot is None:
                self.sync_clock()
            else:  # the Clock sysvar as the bank of that slot has it
                now = int(self._unix0 + slot * C.SLOT_SECONDS)
                epoch = slot // C.SLOTS_PER_EPOCH
                data = struct.pack("<QqQQq", slot, now, epoch, epoch + 1, now)
                current = self.svm.get_account(pubkey)
                if current is None:
                    return None
                return SvmAccount(current.lamports, data, current.owner, False, current.rent_epoch)
        if slot is not None:
            changed, state = self.state_before(pubkey, slot)
            if changed:
                return state
        return self.svm.get_account(pubkey)

    def set_account(
        self,
        pubkey: Pubkey,
        lamports: int,
        data: bytes = b"",
        owner: Pubkey = C.SYSTEM_PROGRAM_ID,
        executable: bool = False,
    ) -> None:
        """Write an account directly (genesis, devstack_setAccount, tests), at every commitment
        level. lamports == 0 deletes it."""
        self.forget_changes(pubkey)
        if lamports == 0:
            self.svm.set_account(pubkey, _EMPTY)
            return
        self.svm.set_account(
            pubkey, SvmAccount(int(lamports), bytes(data), owner, bool(executable), C.RENT_EXEMPT_RENT_EPOCH)
        )

    # the owners whose accounts getSupply counts: every account the chain itself creates (wallets,
    # token accounts, programs, sysvars, the launchpad's and the pool's state)
    SUPPLY_OWNERS = (
        C.SYSTEM_PROGRAM_ID,
        C.TOKEN_PROGRAM_ID,
        C.TOKEN_2022_PROGRAM_ID,
        C.BPF_LOADER_UPGRADEABLE_ID,
        Pubkey.from_string("BPFLoader2111111111111111111111111111111111"),
        Pubkey.from_string("NativeLoader1111111111111111111111111111111"),
        Pubkey.from_string("Sysvar1111111111111111111111111111111111111"),
    )

    def _supply_accounts(self, slot: int | None) -> list[tuple[Pubkey, Account]]:
        """The accounts of `SUPPLY_OWNERS` and of the programs they deployed."""
        owners = list(self.SUPPLY_OWNERS)
        owners += [k for k, a in self.program_accounts(C.BPF_LOADER_UPGRADEABLE_ID, slot) if a.executable]
        return [ka for owner in dict.fromkeys(owners) for ka in self.program_accounts(owner, slot)]

    def total_lamports(self, slot: int | None = None) -> int:
        """Lamports held by the accounts of `SUPPLY_OWNERS` and of the programs they deployed."""
        return sum(a.lamports for _, a in self._supply_accounts(slot))

    def largest_accounts(self, n: int, slot: int | None = None) -> list[tuple[Pubkey, int]]:
        """The `n` accounts holding the most lamports (ties by address), of those `total_lamports` counts."""
        top = sorted(self._supply_accounts(slot), key=lambda ka: (-ka[1].lamports, str(ka[0])))[:n]
        return [(k, a.lamports) for k, a in top]

    def program_accounts(self, owner: Pubkey, slot: int | None = None) -> list[tuple[Pubkey, Account]]:
        """Every live account owned by ``owner`` (LiteSVM scans its accounts), as of the end of
        ``slot`` when given: the current owner's accounts and every account changed since,
        each in its state at ``slot`` (exact: an account differs from its current state at
        ``slot`` only if a later slot changed it, and those are the ones the history holds)."""
        if slot is not None and slot >= self.slot:
            slot = None
        found: dict[Pubkey, Any] = {k: a for k, a in self.svm.get_program_accounts(owner)}
        if slot is not None:
            for k in [*found, *self.changed_keys()]:
                found[k] = self._svm_account_at(k, slot)
        out = []
        for k, a in found.items():
            acct = _to_account(a)
            if acct is not None and acct.owner == owner:
                out.append((k, acct))
        return out

    # ---------------------------------------------------------------- fees
    def fee_for_message(self, msg: Message | MessageV0) -> int:
        """5000 per signature + ceil(cu_limit * cu_price / 1e6), the limit as agave defaults it."""
        limit, price = compute_budget(msg)
        return C.LAMPORTS_PER_SIGNATURE * msg.header.num_required_signatures + priority_fee(limit, price)

    # ----------------------------------------------------------- execution
    def _refuse(self, tx: VersionedTransaction, err: str, sig_verify: bool) -> TxError:
        """A ledger-level refusal, after the checks agave makes before it (sanitize, signatures)."""
        try:
            tx.sanitize()
        except Exception:
            return TxError("SanitizeFailure")
        if sig_verify and not all(tx.verify_with_results()):
            return TxError("SignatureFailure")
        return TxError(err)

    def execute(self, tx: VersionedTransaction, *, commit: bool, admission: Admission | None = None) -> TxResult:
        """Run ``tx`` in LiteSVM: committed (``commit``) or simulated. Raises TxError when it cannot
        land (nothing changes, no fee); otherwise returns the TxResult, ``err`` set if it failed
        with its fee charged. The result is not recorded in the history: see ``record``."""
        admission = admission or Admission()
        msg = tx.message
        sig = tx.signatures[0] if tx.signatures else Signature.default()
        result = TxResult(signature=sig, tx=tx, slot=self.slot, block_time=self.unix_timestamp)
        self._admit(tx, admission, result)
        self.sync_clock()
        keys = list(msg.account_keys)
        writable = [is_writable(i, msg, len(keys)) for i in range(len(keys))]
        pre = [self.svm.get_account(k) for k in keys]
        out = self._run(tx, commit, admission.sig_verify)
        if isinstance(out, FailedTransactionMetadata):
            result.err = self._landed_error(out, commit, keys[0], pre[0])
            meta = out.meta()
        else:
            meta = out.meta() if isinstance(out, SimulatedTransactionInfo) else out
        # a read-only account (programs among them: the ATA program's account holds its 100 KB
        # ELF) cannot change, so only the writable ones are read again
        if commit:
            post = [self.svm.get_account(k) if writable[i] else pre[i] for i, k in enumerate(keys)]
        elif isinstance(out, SimulatedTransactionInfo):
            changed = dict(out.post_accounts())
            post = [changed.get(k, a) for k, a in zip(keys, pre, strict=True)]
        else:  # a failed simulation changes nothing but the fee
            post = list(pre)
        self._fill(result, meta, keys, pre, post)
        if not commit:  # simulateTransaction's `accounts` reads them
            result.post_accounts = {
                k: _to_account(a) or Account(0, bytearray(), C.SYSTEM_PROGRAM_ID)
                for k, a in zip(keys, post, strict=True)
            }
        result.cu_price = compute_budget(msg)[1]
        result.writable_keys = [k for k, w in zip(keys, writable, strict=True) if w]
        if commit:
            result.before = {k: a for k, a, w in zip(keys, pre, writable, strict=True) if w}
        result.landed = True
        return result

    def _admit(self, tx: VersionedTransaction, admission: Admission, result: TxResult) -> None:
        """The checks before execution; raises the TxError of the first that fails."""
        msg = tx.message
        raw_len = admission.raw_len if admission.raw_len is not None else len(bytes(tx))
        if raw_len > C.PACKET_DATA_SIZE:
            raise TxError("SanitizeFailure")
        if isinstance(msg, MessageV0) and msg.address_table_lookups:
            raise TxError("AddressLookupTableNotFound")
        if admission.replace_blockhash:
            result.replacement_blockhash = self.latest_blockhash()
        elif not self.is_blockhash_valid(msg.recent_blockhash, admission.at_slot):
            raise self._refuse(tx, "BlockhashNotFound", admission.sig_verify)
        pending = admission.pending
        if admission.check_duplicate and (
            result.signature in self.transactions or (pending is not None and result.signature in pending)
        ):
            raise self._refuse(tx, "AlreadyProcessed", admission.sig_verify)

    def _run(self, tx: VersionedTransaction, commit: bool, sig_verify: bool) -> Any:
        if commit:
            return self.svm.send_transaction(tx)
        if sig_verify:
            return self.svm.simulate_transaction(tx)
        self.svm.with_sigverify(False)
        try:
            return self.svm.simulate_transaction(tx)
        finally:
            self.svm.with_sigverify(True)

    def _fill(self, result: TxResult, meta: Any, keys: list[Pubkey], pre: list[Any], post: list[Any]) -> None:
        """The result's logs, units, fee, inner instructions and balances, from the execution's meta."""
        result.logs = list(meta.logs())
        result.units_consumed = meta.compute_units_consumed()
        result.fee = meta.fee()
        result.inner_instructions = _inner_json(meta)
        result.pre_balances = [a.lamports if a is not None else 0 for a in pre]
        result.post_balances = [a.lamports if a is not None else 0 for a in post]
        result.pre_token_balances = token_balances(keys, pre, self.svm.get_account)
        result.post_token_balances = token_balances(keys, post, self.svm.get_account)

    def _landed_error(self, out: FailedTransactionMetadata, commit: bool, payer: Pubkey, payer_before: Any) -> Any:
        """The error of a failed transaction that still landed (its fee charged); raises TxError if
        it did not land."""
        err = err_json(out.err())
        if commit:
            payer_now = self.svm.get_account(payer)
            landed = payer_before is not None and payer_now is not None and payer_now.lamports != payer_before.lamports
        else:
            landed = isinstance(err, dict) and any(k in err for k in _EXECUTED_ERRORS)
        if not landed:
            raise TxError(err)
        return err

    def simulate_at(self, tx: VersionedTransaction, slot: int, admission: Admission | None = None) -> TxResult:
        """Simulate against the accounts, the Clock and the blockhashes as of the end of ``slot``
        (a preflight at a commitment below ``processed``): the message's accounts are set to
        that view in LiteSVM, the transaction simulated, and the newest state restored."""
        admission = admission or Admission()
        if slot >= self.slot:
            return self.simulate(tx, admission)
        saved: dict[Pubkey, SvmAccount | None] = {}
        for k in [*tx.message.account_keys, C.SYSVAR_CLOCK_ID]:
            if k in saved:
                continue
            changed, state = self.state_before(k, slot)
            if changed or k == C.SYSVAR_CLOCK_ID:
                saved[k] = self.svm.get_account(k)
                view = self._svm_account_at(k, slot)
                self.svm.set_account(k, view if view is not None else _EMPTY)
        self._clock_pinned = True
        try:
            return self.simulate(tx, replace(admission, at_slot=slot))  # a newer blockhash is unknown there
        finally:
            self._clock_pinned = False
            for k, now in saved.items():
                self.svm.set_account(k, now if now is not None else _EMPTY)
            self._clock_at = None

    def process_transaction(self, tx: VersionedTransaction, admission: Admission | None = None) -> TxResult:
        """Execute and commit one transaction. Raises TxError if it cannot land."""
        result = self.execute(tx, commit=True, admission=admission)
        self.record([result])
        return result

    def simulate(self, tx: VersionedTransaction, admission: Admission | None = None) -> TxResult:
        """Execute without committing (raises TxError for pre-execution failures)."""
        return self.execute(tx, commit=False, admission=admission)

    def process_bundle(self, txs: list[VersionedTransaction], bundle_id: str) -> BundleResult:
        """Execute all transactions in order, in one slot: all land (none failing) or nothing
        does, no fee."""
        with self.one_slot():
            return self._process_bundle(txs, bundle_id)

    def _process_bundle(self, txs: list[VersionedTransaction], bundle_id: str) -> BundleResult:
        snapshot: dict[Pubkey, SvmAccount | None] = {}
        pending: set[Signature] = set()
        sigs = [t.signatures[0] for t in txs]
        br = BundleResult(bundle_id=bundle_id, signatures=sigs, landed=False, slot=self.slot)
        for i, tx in enumerate(txs):
            for k in tx.message.account_keys:
                if k not in snapshot:
                    snapshot[k] = self.svm.get_account(k)
            try:
                r = self.execute(tx, commit=True, admission=Admission(pending=pending))
            except TxError as e:
                br.err, br.failed_index = e.err, i
                break
            br.results.append(r)
            if r.err is not None:
                br.err, br.failed_index = r.err, i
                break
            pending.add(r.signature)
        else:
            for r in br.results:
                r.bundle_id = bundle_id
            self.record(br.results)
            br.landed = True
        if not br.landed:
            self._restore(snapshot)
        self.bundles[bundle_id] = br
        return br

    def _restore(self, snapshot: dict[Pubkey, SvmAccount | None]) -> None:
        for k, before in snapshot.items():
            now = self.svm.get_account(k)
            if now != before:
                self.svm.set_account(k, before if before is not None else _EMPTY)

    # ------------------------------------------------------------- helpers
    def airdrop(self, pubkey: Pubkey, lamports: int) -> TxResult:
        """Transfer from the faucet in a real, signed transaction (so getTransaction works)."""
        return self.process_transaction(self.airdrop_transaction(pubkey, lamports))
