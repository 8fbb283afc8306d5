"""The ledger of the devstack chain: accounts, clock/slots, blockhashes, statuses, execution.

Slots advance with wall time (400 ms per slot) plus a warp offset
(``warp(seconds)``). Every slot has its own blockhash (valid for 150 slots).
Transactions (legacy and v0 without lookup tables) are verified (signatures,
blockhash age, size, duplicates, fee payer) and executed atomically: either all
account changes apply or none; once a transaction passes the pre-execution
checks its fee is charged even if an instruction fails.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from solders.hash import Hash
from solders.message import Message, MessageV0
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.transaction import VersionedTransaction

from . import constants as C
from .builtins import BUILTIN_PROGRAMS
from .builtins.compute_budget import ComputeBudgetError, parse_limits, priority_fee
from .builtins.token import ACCOUNT_LEN, decode_mint, decode_token_account
from .ledger import Ledger
from .runtime import Account, InstructionFailure, Processor, TxContext, instruction_error_display

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


def ui_amount_string(amount: int, decimals: int) -> str:
    s = str(amount)
    if decimals:
        s = s.rjust(decimals + 1, "0")
        s = (s[:-decimals] + "." + s[-decimals:]).rstrip("0").rstrip(".")
    return s


def ui_token_amount(amount: int, decimals: int) -> dict[str, Any]:
    return {
        "amount": str(amount),
        "decimals": decimals,
        "uiAmount": float(Decimal(amount) / (Decimal(10) ** decimals)),
        "uiAmountString": ui_amount_string(amount, decimals),
    }


@dataclass
class TxResult:
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


@dataclass
class BundleResult:
    bundle_id: str
    signatures: list[Signature]
    landed: bool
    slot: int
    err: Any = None
    failed_index: int | None = None
    results: list[TxResult] = field(default_factory=list)


def _is_writable_index(i: int, msg: Message | MessageV0, n: int) -> bool:
    h = msg.header
    ns = h.num_required_signatures
    if i < ns:
        return i < ns - h.num_readonly_signed_accounts
    return i < n - h.num_readonly_unsigned_accounts


class Bank(Ledger):
    """The Python engine: accounts + transaction processing on the ledger. Hold ``bank.lock``."""

    def __init__(self, *, genesis_seed: bytes = b"devstack-chain"):
        self._init_ledger(genesis_seed)
        self.accounts: dict[Pubkey, Account] = {}
        self.programs: dict[Pubkey, Processor] = {}
        self._genesis()

    # --------------------------------------------------------------- accounts
    def _genesis(self) -> None:
        for pid in BUILTIN_PROGRAMS:
            loader = C.NATIVE_LOADER_ID if pid in (C.SYSTEM_PROGRAM_ID, C.COMPUTE_BUDGET_PROGRAM_ID) else C.BPF_LOADER_ID
            self.set_account(pid, 1, b"", loader, executable=True)
        self.set_account(C.NATIVE_LOADER_ID, 1, b"", C.NATIVE_LOADER_ID, executable=True)
        rent = struct.pack("<QdB", C.LAMPORTS_PER_BYTE_YEAR, float(C.EXEMPTION_THRESHOLD_YEARS), 50)
        self.set_account(C.SYSVAR_RENT_ID, C.minimum_balance(len(rent)), rent, C.SYSVAR_OWNER_ID)
        self.set_account(C.SYSVAR_CLOCK_ID, C.minimum_balance(40), bytes(40), C.SYSVAR_OWNER_ID)
        # wrapped SOL mint: no authority, 9 decimals
        native_mint = bytes(36) + struct.pack("<QBB", 0, 9, 1) + bytes(36)
        self.set_account(C.NATIVE_MINT, C.minimum_balance(len(native_mint)), native_mint, C.TOKEN_PROGRAM_ID)
        for tip in C.TIP_ACCOUNTS:
            self.set_account(tip, C.minimum_balance(0), b"", C.SYSTEM_PROGRAM_ID)
        self.set_account(self.faucet.pubkey(), C.FAUCET_LAMPORTS, b"", C.SYSTEM_PROGRAM_ID)

    def _clock_data(self) -> bytes:
        epoch = self.epoch
        return struct.pack("<QqQQq", self.slot, self.unix_timestamp, epoch, epoch + 1, self.unix_timestamp)

    def get_account(self, pubkey: Pubkey) -> Account | None:
        """The stored account (do not mutate it), or None if it does not exist."""
        acct = self.accounts.get(pubkey)
        if pubkey == C.SYSVAR_CLOCK_ID and acct is not None:
            acct.data = bytearray(self._clock_data())
        return acct

    def set_account(
        self,
        pubkey: Pubkey,
        lamports: int,
        data: bytes = b"",
        owner: Pubkey = C.SYSTEM_PROGRAM_ID,
        executable: bool = False,
    ) -> None:
        """Write an account directly (genesis, airdrops, tests). lamports == 0 deletes it."""
        if lamports == 0:
            self.accounts.pop(pubkey, None)
            return
        self.accounts[pubkey] = Account(int(lamports), bytearray(data), owner, bool(executable))

    def program_accounts(self, owner: Pubkey) -> list[tuple[Pubkey, Account]]:
        """Every live account owned by ``owner`` (do not mutate them)."""
        return [(k, a) for k, a in list(self.accounts.items()) if a.owner == owner and a.lamports > 0]

    def register_program(self, program_id: Pubkey, processor: Processor) -> None:
        self.programs[program_id] = processor
        acct = self.accounts.get(program_id)
        if acct is None or not acct.executable:
            self.set_account(program_id, C.minimum_balance(36), b"", C.BPF_LOADER_UPGRADEABLE_ID, executable=True)

    def processor_for(self, program_id: Pubkey) -> Processor | None:
        return self.programs.get(program_id) or BUILTIN_PROGRAMS.get(program_id)

    # ------------------------------------------------------------------- fees
    @staticmethod
    def _program_ids(msg: Message | MessageV0) -> list[Pubkey]:
        keys = msg.account_keys
        return [keys[ix.program_id_index] for ix in msg.instructions]

    def fee_for_message(self, msg: Message | MessageV0) -> int:
        """5000 per signature + ceil(cu_limit * cu_price / 1e6). Raises ComputeBudgetError."""
        limit, price = parse_limits(self._program_ids(msg), [bytes(ix.data) for ix in msg.instructions])
        return C.LAMPORTS_PER_SIGNATURE * msg.header.num_required_signatures + priority_fee(limit, price)

    # -------------------------------------------------------------- execution
    def _read(self, pubkey: Pubkey, view: dict[Pubkey, Account]) -> Account | None:
        if pubkey in view:
            a = view[pubkey]
            return a if a.lamports > 0 or a.data else None
        return self.get_account(pubkey)

    def _token_balances(self, keys: list[Pubkey], accts: list[Account], view: dict[Pubkey, Account]) -> list[dict]:
        out = []
        for i, a in enumerate(accts):
            if a.owner != C.TOKEN_PROGRAM_ID or len(a.data) != ACCOUNT_LEN:
                continue
            ta = decode_token_account(bytes(a.data))
            if ta is None:
                continue
            mint_acct = self._read(ta.mint, view)
            mint = decode_mint(bytes(mint_acct.data)) if mint_acct is not None else None
            if mint is None:
                continue
            out.append(
                {
                    "accountIndex": i,
                    "mint": str(ta.mint),
                    "owner": str(ta.owner),
                    "programId": str(C.TOKEN_PROGRAM_ID),
                    "uiTokenAmount": ui_token_amount(ta.amount, mint.decimals),
                }
            )
        return out

    def execute(
        self,
        tx: VersionedTransaction,
        *,
        raw_len: int | None = None,
        sig_verify: bool = True,
        replace_blockhash: bool = False,
        check_duplicate: bool = True,
        view: dict[Pubkey, Account] | None = None,
        pending: set[Signature] | None = None,
    ) -> TxResult:
        """Execute ``tx`` against the bank overlaid by ``view`` and write its post-state into ``view``.

        Raises TxError for pre-execution failures (nothing lands, no fee). Returns a TxResult with
        ``landed=True`` otherwise (``err`` set if an instruction failed; the fee is charged).
        Nothing is committed to the bank: see ``commit`` / ``process_transaction``.
        """
        view = {} if view is None else view
        msg = tx.message
        sig = tx.signatures[0] if tx.signatures else Signature.default()
        result = TxResult(signature=sig, tx=tx, slot=self.slot, block_time=self.unix_timestamp)
        if raw_len is None:
            raw_len = len(bytes(tx))
        if raw_len > C.PACKET_DATA_SIZE:
            raise TxError("SanitizeFailure")
        if isinstance(msg, MessageV0) and msg.address_table_lookups:
            raise TxError("AddressLookupTableNotFound")
        try:
            tx.sanitize()
        except Exception:
            raise TxError("SanitizeFailure") from None
        keys = list(msg.account_keys)
        if len(set(keys)) != len(keys):
            raise TxError("AccountLoadedTwice")
        if not tx.signatures or msg.header.num_required_signatures == 0:
            raise TxError("MissingSignatureForFee")
        if sig_verify and not all(tx.verify_with_results()):
            raise TxError("SignatureFailure")
        if replace_blockhash:
            result.replacement_blockhash = self.latest_blockhash()
        elif not self.is_blockhash_valid(msg.recent_blockhash):
            raise TxError("BlockhashNotFound")
        if check_duplicate and (sig in self.transactions or (pending is not None and sig in pending)):
            raise TxError("AlreadyProcessed")
        program_ids = self._program_ids(msg)
        try:
            cu_limit, cu_price = parse_limits(program_ids, [bytes(ix.data) for ix in msg.instructions])
        except ComputeBudgetError as e:
            raise TxError(e.err) from None
        fee = C.LAMPORTS_PER_SIGNATURE * msg.header.num_required_signatures + priority_fee(cu_limit, cu_price)
        result.cu_price = cu_price
        payer_key = keys[0]
        payer = self._read(payer_key, view)
        if payer is None or payer.lamports == 0:
            raise TxError("AccountNotFound")
        if payer.owner != C.SYSTEM_PROGRAM_ID or payer.data:
            raise TxError("InvalidAccountForFee")
        min_bal = C.minimum_balance(0) if payer.lamports >= C.minimum_balance(0) else 0
        if payer.lamports - min_bal < fee:
            raise TxError("InsufficientFundsForFee")
        for pid in program_ids:
            pacct = self._read(pid, view)
            if self.processor_for(pid) is None or pacct is None:
                raise TxError("ProgramAccountNotFound")
            if not pacct.executable:
                raise TxError("InvalidProgramForExecution")

        # ---- load
        pre_accts: list[Account] = []
        for k in keys:
            a = self._read(k, view)
            pre_accts.append(a.copy() if a is not None else Account(0, bytearray(), C.SYSTEM_PROGRAM_ID, False))
        n = len(keys)
        called = set(program_ids)
        writable = [
            _is_writable_index(i, msg, n) and keys[i] not in called and keys[i] not in C.SYSVAR_IDS
            and keys[i] not in BUILTIN_PROGRAMS
            for i in range(n)
        ]
        signer = [i < msg.header.num_required_signatures for i in range(n)]
        result.writable_keys = [keys[i] for i in range(n) if _is_writable_index(i, msg, n)]
        result.fee = fee
        result.pre_balances = [a.lamports for a in pre_accts]
        result.pre_token_balances = self._token_balances(keys, pre_accts, view)
        work = [a.copy() for a in pre_accts]
        work[0].lamports -= fee
        txc = TxContext(self, keys, work, result.slot, result.block_time, cu_limit)
        err: Any = None
        for idx, ix in enumerate(msg.instructions):
            txc.current_top_index = idx
            metas = [(a, signer[a], writable[a]) for a in bytes(ix.accounts)]
            try:
                txc.execute(keys[ix.program_id_index], metas, bytes(ix.data))
            except InstructionFailure as e:
                err = {"InstructionError": [idx, e.err]}
                break
        if err is None:
            for i in range(n):
                if not writable[i]:
                    continue
                if not _rent_ok(pre_accts[i], work[i]):
                    err = {"InsufficientFundsForRent": {"account_index": i}}
                    break
        if err is not None:  # roll back everything but the fee
            work = [a.copy() for a in pre_accts]
            work[0].lamports -= fee
        result.err = err
        result.logs = txc.logs
        result.units_consumed = txc.units_consumed
        result.inner_instructions = [{"index": i, "instructions": v} for i, v in sorted(txc.inner.items())]
        result.post_balances = [a.lamports for a in work]
        for i, k in enumerate(keys):
            if writable[i] or i == 0:
                view[k] = work[i]
        result.post_token_balances = self._token_balances(keys, work, view)
        result.post_accounts = {k: work[i] for i, k in enumerate(keys)}
        result.landed = True
        return result

    def commit(self, view: dict[Pubkey, Account], results: list[TxResult]) -> None:
        for k, a in view.items():
            if a.lamports == 0:
                self.accounts.pop(k, None)
            else:
                self.accounts[k] = a
        self.record(results)

    def process_transaction(self, tx: VersionedTransaction, **kw: Any) -> TxResult:
        """Execute and commit one transaction. Raises TxError if it cannot land."""
        view: dict[Pubkey, Account] = {}
        result = self.execute(tx, view=view, **kw)
        self.commit(view, [result])
        return result

    def simulate(self, tx: VersionedTransaction, **kw: Any) -> TxResult:
        """Execute without committing (raises TxError for pre-execution failures)."""
        return self.execute(tx, view={}, **kw)

    def process_bundle(self, txs: list[VersionedTransaction], bundle_id: str) -> BundleResult:
        """Execute all transactions atomically: all land (none failing) or nothing does, no fee."""
        view: dict[Pubkey, Account] = {}
        pending: set[Signature] = set()
        sigs = [t.signatures[0] for t in txs]
        br = BundleResult(bundle_id=bundle_id, signatures=sigs, landed=False, slot=self.slot)
        for i, tx in enumerate(txs):
            try:
                r = self.execute(tx, view=view, pending=pending)
            except TxError as e:
                br.err, br.failed_index = e.err, i
                break
            if r.err is not None:
                br.err, br.failed_index = r.err, i
                br.results.append(r)
                break
            pending.add(r.signature)
            br.results.append(r)
        else:
            for r in br.results:
                r.bundle_id = bundle_id
            self.commit(view, br.results)
            br.landed = True
        self.bundles[bundle_id] = br
        return br

    # ---------------------------------------------------------------- helpers
    def airdrop(self, pubkey: Pubkey, lamports: int) -> TxResult:
        """Transfer from the faucet in a real, signed transaction (so getTransaction works)."""
        return self.process_transaction(self.airdrop_transaction(pubkey, lamports))


def _rent_state(a: Account) -> tuple:
    if a.lamports == 0:
        return ("uninitialized",)
    if a.lamports >= C.minimum_balance(len(a.data)):
        return ("exempt",)
    return ("paying", len(a.data), a.lamports)


def _rent_ok(pre: Account, post: Account) -> bool:
    if pre.lamports == post.lamports and pre.data == post.data and pre.owner == post.owner:
        return True
    ps = _rent_state(post)
    if ps[0] != "paying":
        return True
    pr = _rent_state(pre)
    return pr[0] == "paying" and pr[1] == ps[1] and ps[2] <= pr[2]
