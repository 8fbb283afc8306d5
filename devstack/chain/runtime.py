"""Program runtime of the devstack chain, and the program registry.

Plug-in interface (for Python reference programs, e.g. ``devstack.chain.programs``)
-----------------------------------------------------------------------------------

A program is a *processor*: ``Callable[[InvokeContext], None]``. Register it with
``register_program(bank, program_id, processor)``; the chain then executes every
instruction addressed to ``program_id`` by calling the processor. When the chain
starts (``start_chain`` / ``python -m devstack.chain.server``) it imports
``devstack.chain.programs`` and calls its ``install(bank)`` if that module exists;
``install`` registers programs and writes genesis accounts with
``bank.set_account(pubkey, lamports, data, owner, executable=False)``.

* ``ProgramError(code, message="")`` -- raise it to fail the instruction; the
  transaction error becomes ``{"InstructionError": [index, {"Custom": code}]}``
  exactly like a real custom program error (``message`` is logged as
  ``Program log: <message>``).
* ``InstructionFailure(name)`` -- raise it for a built-in error such as
  ``InstructionFailure("InvalidAccountData")`` (``{"InstructionError": [i, "InvalidAccountData"]}``).
* ``AccountRef`` -- view of one account for the executing instruction:
  ``pubkey``, ``is_signer``, ``is_writable`` (from the message / CPI), ``lamports``
  (settable), ``data`` (a ``bytearray``; mutate it in place or assign a new
  bytearray to resize), ``owner`` (settable), ``executable``.
* ``InvokeContext`` -- ``program_id``, ``accounts`` (``list[AccountRef]`` in the
  instruction's account order), ``data`` (bytes), ``slot``, ``unix_timestamp``,
  ``invoke(ix, signer_seeds=None)`` (CPI into any program: system, token, ATA,
  memo or a registered one; every account of ``ix`` must be among the calling
  instruction's accounts; a PDA of the *calling* program may sign when its seeds,
  bump included, are in ``signer_seeds``), ``log(message)`` (adds
  ``Program log: <message>``), ``get_account(pubkey)`` (any account of the
  transaction; flags are the instruction's, else read-only/non-signer).

The runtime enforces Solana's account rules after every instruction frame (and at
every CPI boundary, like the real runtime): only the owner program may debit an
account's lamports or change its data/size; read-only accounts may not change at
all; executable accounts are immutable; the owner may be changed only by the
current owner, on a writable account whose data is zeroed; the lamport sum of the
transaction's accounts is conserved. A CPI may not escalate signer or writable
privileges (``PrivilegeEscalation``). A failing instruction (or CPI) fails the
whole transaction atomically, even if the calling Python code catches the
exception.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from solders.instruction import Instruction
from solders.pubkey import Pubkey

from . import constants as C
from .b58 import b58encode
from .ledger import Account  # noqa: F401  (re-exported: programs and tests import it from here)

if TYPE_CHECKING:  # pragma: no cover
    from .bank import Bank

MAX_INVOKE_DEPTH = 5  # stack height: top-level instruction is 1
MAX_PERMITTED_DATA_LENGTH = 10 * 1024 * 1024

__all__ = [
    "Account",
    "AccountRef",
    "InstructionFailure",
    "InvokeContext",
    "Processor",
    "ProgramError",
    "register_program",
]


class ProgramError(Exception):
    """Raised by a program; becomes InstructionError(index, Custom(code)) like a real custom program error."""

    def __init__(self, code: int, message: str = ""):
        super().__init__(message or f"custom program error: 0x{code:x}")
        self.code = int(code)
        self.message = message


_ERROR_DISPLAY = {
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
    """Human text of an InstructionError payload (as Solana's Display)."""
    if isinstance(err, dict) and "Custom" in err:
        return f"custom program error: 0x{int(err['Custom']):x}"
    return _ERROR_DISPLAY.get(str(err), str(err))


class InstructionFailure(Exception):
    """A built-in instruction error (fieldless name) or a custom one (``custom=code``)."""

    def __init__(self, name: str = "GenericError", *, custom: int | None = None, log: str | None = None):
        self.err: Any = {"Custom": int(custom)} if custom is not None else name
        self.log_message = log
        super().__init__(instruction_error_display(self.err))


class AccountRef:
    """View of one account for the executing instruction."""

    __slots__ = ("pubkey", "is_signer", "is_writable", "_acct")

    def __init__(self, pubkey: Pubkey, acct: Account, is_signer: bool, is_writable: bool):
        self.pubkey = pubkey
        self.is_signer = is_signer
        self.is_writable = is_writable
        self._acct = acct

    @property
    def lamports(self) -> int:
        return self._acct.lamports

    @lamports.setter
    def lamports(self, value: int) -> None:
        value = int(value)
        if value < 0 or value >= 2**64:
            raise InstructionFailure("ArithmeticOverflow")
        self._acct.lamports = value

    @property
    def data(self) -> bytearray:
        return self._acct.data

    @data.setter
    def data(self, value: bytes | bytearray) -> None:
        if len(value) > MAX_PERMITTED_DATA_LENGTH:
            raise InstructionFailure("InvalidRealloc")
        self._acct.data = bytearray(value)

    @property
    def owner(self) -> Pubkey:
        return self._acct.owner

    @owner.setter
    def owner(self, value: Pubkey) -> None:
        if not isinstance(value, Pubkey):
            raise TypeError("owner must be a solders Pubkey")
        self._acct.owner = value

    @property
    def executable(self) -> bool:
        return self._acct.executable

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return (
            f"AccountRef({self.pubkey}, lamports={self.lamports}, len={len(self.data)}, "
            f"owner={self.owner}, signer={self.is_signer}, writable={self.is_writable})"
        )


Processor = Callable[["InvokeContext"], None]


def register_program(bank: Bank, program_id: Pubkey, processor: Processor) -> None:
    """Register a Python program; creates its executable program account if absent."""
    bank.register_program(program_id, processor)


# --------------------------------------------------------------------------
# execution machinery
# --------------------------------------------------------------------------

# compute units charged per invocation (approximate, for unitsConsumed/logs)
_BUILTIN_COST = 150
_PROGRAM_COST = {
    C.TOKEN_PROGRAM_ID: 3000,
    C.ASSOCIATED_TOKEN_PROGRAM_ID: 12000,
    C.MEMO_V1_PROGRAM_ID: 1000,
    C.MEMO_V2_PROGRAM_ID: 1000,
}
_NATIVE_PROGRAMS = frozenset({C.SYSTEM_PROGRAM_ID, C.COMPUTE_BUDGET_PROGRAM_ID})
DEFAULT_PROGRAM_COST = 5000


@dataclass
class _Frame:
    program_id: Pubkey
    metas: list[tuple[int, bool, bool]]  # (key index, is_signer, is_writable)
    snapshot: list[tuple[int, bytes, Pubkey, bool]] = field(default_factory=list)

    def flags(self, idx: int) -> tuple[bool, bool] | None:
        found = None
        for i, s, w in self.metas:
            if i == idx:
                s0, w0 = found or (False, False)
                found = (s0 or s, w0 or w)
        return found


class TxContext:
    """Working state of one transaction while its instructions execute."""

    def __init__(
        self,
        bank: Bank,
        keys: list[Pubkey],
        accounts: list[Account],
        slot: int,
        unix_timestamp: int,
        compute_limit: int,
    ):
        self.bank = bank
        self.keys = keys
        self.accounts = accounts
        self.index_of = {k: i for i, k in enumerate(keys)}
        self.slot = slot
        self.unix_timestamp = unix_timestamp
        self.compute_limit = compute_limit
        self.units_consumed = 0
        self.logs: list[str] = []
        self.inner: dict[int, list[dict[str, Any]]] = {}
        self.frames: list[_Frame] = []
        self.current_top_index = 0
        self.pending_failure: InstructionFailure | None = None

    # -- snapshots / rule verification -------------------------------------
    def _snapshot(self) -> list[tuple[int, bytes, Pubkey, bool]]:
        return [(a.lamports, bytes(a.data), a.owner, a.executable) for a in self.accounts]

    def verify_frame(self, frame: _Frame) -> None:
        pre = frame.snapshot
        writable = {i for i, _, w in frame.metas if w}
        pid = frame.program_id
        pre_sum = post_sum = 0
        for idx, acct in enumerate(self.accounts):
            p_lamports, p_data, p_owner, p_exec = pre[idx]
            pre_sum += p_lamports
            post_sum += acct.lamports
            is_w = idx in writable
            if acct.owner != p_owner:
                if not (is_w and p_owner == pid and not p_exec and not any(acct.data)):
                    raise InstructionFailure("ModifiedProgramId")
            if acct.lamports != p_lamports:
                if not is_w:
                    raise InstructionFailure("ReadonlyLamportChange")
                if p_exec:
                    raise InstructionFailure("ExecutableLamportChange")
                if acct.lamports < p_lamports and p_owner != pid:
                    raise InstructionFailure("ExternalAccountLamportSpend")
            if acct.executable != p_exec:
                raise InstructionFailure("ExecutableModified")
            if len(acct.data) != len(p_data) or acct.data != p_data:
                if p_exec:
                    raise InstructionFailure("ExecutableDataModified")
                if not is_w:
                    raise InstructionFailure("ReadonlyDataModified")
                if p_owner != pid:
                    if len(acct.data) != len(p_data):
                        raise InstructionFailure("AccountDataSizeChanged")
                    raise InstructionFailure("ExternalAccountDataModified")
        if pre_sum != post_sum:
            raise InstructionFailure("UnbalancedInstruction")

    # -- invocation ----------------------------------------------------------
    def execute(self, program_id: Pubkey, metas: list[tuple[int, bool, bool]], data: bytes) -> None:
        depth = len(self.frames) + 1
        if depth > MAX_INVOKE_DEPTH:
            raise InstructionFailure("CallDepth")
        processor = self.bank.processor_for(program_id)
        self.logs.append(f"Program {program_id} invoke [{depth}]")
        if processor is None:
            self.logs.append(f"Program {program_id} failed: {_ERROR_DISPLAY['UnsupportedProgramId']}")
            raise InstructionFailure("UnsupportedProgramId")
        frame = _Frame(program_id, metas, self._snapshot())
        self.frames.append(frame)
        cost = _BUILTIN_COST if program_id in _NATIVE_PROGRAMS else _PROGRAM_COST.get(program_id, DEFAULT_PROGRAM_COST)
        units_before = self.units_consumed
        self.units_consumed += cost
        ctx = InvokeContext(self, frame)
        ctx.data = data
        try:
            try:
                processor(ctx)
            except ProgramError as e:
                if e.message:
                    self.logs.append(f"Program log: {e.message}")
                raise InstructionFailure(custom=e.code) from e
            except InstructionFailure as e:
                if e.log_message:
                    self.logs.append(f"Program log: {e.log_message}")
                raise
            except Exception as e:  # a bug in a Python program: fail like a panic
                tb = traceback.format_exception_only(type(e), e)[-1].strip()
                self.logs.append(f"Program log: panicked: {tb}")
                raise InstructionFailure("ProgramFailedToComplete") from e
            if self.pending_failure is not None:  # a CPI failed and the caller swallowed it
                raise self.pending_failure
            self.verify_frame(frame)
        except InstructionFailure as e:
            if self.pending_failure is None:
                self.pending_failure = e
            self._log_end(program_id, units_before)
            self.logs.append(f"Program {program_id} failed: {e}")
            raise
        finally:
            self.frames.pop()
        self._log_end(program_id, units_before)
        self.logs.append(f"Program {program_id} success")

    def _log_end(self, program_id: Pubkey, units_before: int) -> None:
        if program_id not in _NATIVE_PROGRAMS:
            used = self.units_consumed - units_before
            self.logs.append(
                f"Program {program_id} consumed {used} of {max(self.compute_limit - units_before, 0)} compute units"
            )

    def cpi(self, caller: _Frame, ix: Instruction, signer_seeds: list[list[bytes]] | None) -> None:
        # the caller's own changes so far are checked against the caller's rights
        self.verify_frame(caller)
        pdas: set[Pubkey] = set()
        for seeds in signer_seeds or []:
            try:
                pdas.add(Pubkey.create_program_address([bytes(s) for s in seeds], caller.program_id))
            except Exception as e:
                raise InstructionFailure("InvalidSeeds", log="Could not create program address with signer seeds") from e
        metas: list[tuple[int, bool, bool]] = []
        for m in ix.accounts:
            idx = self.index_of.get(m.pubkey)
            flags = caller.flags(idx) if idx is not None else None
            if flags is None:
                self.logs.append(f"Instruction references an unknown account {m.pubkey}")
                raise InstructionFailure("MissingAccount")
            c_signer, c_writable = flags
            if m.is_writable and not c_writable:
                self.logs.append(f"{m.pubkey}'s writable privilege escalated")
                raise InstructionFailure("PrivilegeEscalation")
            if m.is_signer and not (c_signer or m.pubkey in pdas):
                self.logs.append(f"{m.pubkey}'s signer privilege escalated")
                raise InstructionFailure("PrivilegeEscalation")
            metas.append((idx, m.is_signer, m.is_writable))
        prog_idx = self.index_of.get(ix.program_id)
        if prog_idx is not None:
            self.inner.setdefault(self.current_top_index, []).append(
                {
                    "programIdIndex": prog_idx,
                    "accounts": [i for i, _, _ in metas],
                    "data": b58encode(bytes(ix.data)),
                    "stackHeight": len(self.frames) + 1,
                }
            )
        self.execute(ix.program_id, metas, bytes(ix.data))
        caller.snapshot = self._snapshot()


class InvokeContext:
    """What a program sees while executing one instruction."""

    def __init__(self, tx: TxContext, frame: _Frame):
        self._tx = tx
        self._frame = frame
        self.program_id: Pubkey = frame.program_id
        self.accounts: list[AccountRef] = [
            AccountRef(tx.keys[i], tx.accounts[i], s, w) for i, s, w in frame.metas
        ]
        self.data: bytes = b""
        self.slot: int = tx.slot
        self.unix_timestamp: int = tx.unix_timestamp

    def invoke(self, ix: Instruction, signer_seeds: list[list[bytes]] | None = None) -> None:
        """Cross-program invocation. Raises (and fails the transaction) if the callee fails."""
        self._tx.cpi(self._frame, ix, signer_seeds)

    def log(self, message: str) -> None:
        self._tx.logs.append(f"Program log: {message}")

    def get_account(self, pubkey: Pubkey) -> AccountRef:
        idx = self._tx.index_of.get(pubkey)
        if idx is None:
            raise InstructionFailure("MissingAccount")
        s, w = self._frame.flags(idx) or (False, False)
        return AccountRef(pubkey, self._tx.accounts[idx], s, w)

    # convenience for programs
    def account(self, i: int) -> AccountRef:
        """``accounts[i]`` or NotEnoughAccountKeys."""
        if i >= len(self.accounts):
            raise InstructionFailure("NotEnoughAccountKeys")
        return self.accounts[i]
