"""Deploy an SBF program (.so) into a `solders.litesvm.LiteSVM` through the real BPF Loader
Upgradeable, as `solana program deploy` does, so the loader's full checks run.

    deploy(svm, Path("programs/out/pool.so"), program_id, payer=kp)     # -> DeployResult
    upgrade(svm, Path("programs/out/pool.so"), program_id, authority=kp)
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

from solders.account import Account
from solders.instruction import AccountMeta, Instruction
from solders.keypair import Keypair
from solders.message import Message
from solders.pubkey import Pubkey
from solders.system_program import CreateAccountParams, create_account
from solders.transaction import Transaction

from .constants import BPF_LOADER_UPGRADEABLE_ID as LOADER_ID
from .constants import SYSTEM_PROGRAM_ID, SYSVAR_CLOCK_ID, SYSVAR_RENT_ID

BUFFER_METADATA_SIZE = 37  # UpgradeableLoaderState::Buffer { authority: Option<Pubkey> }
PROGRAM_SIZE = 36  # UpgradeableLoaderState::Program { programdata_address }
PROGRAMDATA_METADATA_SIZE = 45  # ProgramData { slot, upgrade_authority: Option<Pubkey> }
WRITE_CHUNK = 900  # bytes per Write: fits a 1232-byte packet with two signers


class DeployError(Exception):
    """A deploy transaction failed; the message carries the loader's error and logs."""


@dataclass(frozen=True)
class DeployResult:
    program_id: Pubkey
    programdata: Pubkey
    size: int
    transactions: int


def programdata_address(program_id: Pubkey) -> Pubkey:
    return Pubkey.find_program_address([bytes(program_id)], LOADER_ID)[0]


def _send(svm, payer: Keypair, ixs: list[Instruction], signers: list[Keypair], what: str) -> None:
    unique = {bytes(k.pubkey()): k for k in [payer, *signers]}
    msg = Message.new_with_blockhash(ixs, payer.pubkey(), svm.latest_blockhash())
    tx = Transaction(list(unique.values()), msg, svm.latest_blockhash())
    res = svm.send_transaction(tx)
    err = getattr(res, "err", None)
    if callable(err):
        err = err()
    if err is not None and type(res).__name__ == "FailedTransactionMetadata":
        logs = "\n".join(res.meta().logs())
        raise DeployError(f"{what}: {err}\n{logs}")


def initialize_buffer_ix(buffer: Pubkey, authority: Pubkey) -> Instruction:
    return Instruction(
        LOADER_ID, struct.pack("<I", 0), [AccountMeta(buffer, False, True), AccountMeta(authority, False, False)]
    )


def write_ix(buffer: Pubkey, authority: Pubkey, offset: int, data: bytes) -> Instruction:
    return Instruction(
        LOADER_ID,
        struct.pack("<IIQ", 1, offset, len(data)) + data,
        [AccountMeta(buffer, False, True), AccountMeta(authority, True, False)],
    )


def deploy_with_max_data_len_ix(
    payer: Pubkey, program_id: Pubkey, buffer: Pubkey, authority: Pubkey, max_data_len: int
) -> Instruction:
    return Instruction(
        LOADER_ID,
        struct.pack("<IQ", 2, max_data_len),
        [
            AccountMeta(payer, True, True),
            AccountMeta(programdata_address(program_id), False, True),
            AccountMeta(program_id, False, True),
            AccountMeta(buffer, False, True),
            AccountMeta(SYSVAR_RENT_ID, False, False),
            AccountMeta(SYSVAR_CLOCK_ID, False, False),
            AccountMeta(SYSTEM_PROGRAM_ID, False, False),
            AccountMeta(authority, True, False),
        ],
    )


def deploy(
    svm,
    so: bytes | Path,
    program: Pubkey | Keypair,
    payer: Keypair,
    upgrade_authority: Keypair | None = None,
    max_data_len: int | None = None,
) -> DeployResult:
    """Deploy `so` at `program` (a Keypair signs the program account's creation; a bare
    Pubkey gets the empty loader-owned account CreateAccount would have made). The upgrade
    authority defaults to the payer; `max_data_len` to twice the program's size (room for
    upgrades). Raises DeployError with the loader's message when a step fails.

    The same steps as `solana program deploy`: System CreateAccount of a buffer owned by the
    loader, InitializeBuffer, Write in chunks, then DeployWithMaxDataLen, which runs the
    loader's full checks (ELF, relocations, syscalls, verifier): an unknown syscall fails
    here with `Unresolved symbol`, where `LiteSVM.add_program` would accept the file and fail
    only when the program runs.

    The program account itself is created by a System CreateAccount signed by the program's
    keypair when one is given; when only the id is known (the IDLs' fixed addresses), it is
    written as the empty (Uninitialized) loader account that CreateAccount would have made,
    and the deploy proper still goes through the loader.
    """
    data = so.read_bytes() if isinstance(so, Path) else bytes(so)
    authority = upgrade_authority or payer
    program_id = program.pubkey() if isinstance(program, Keypair) else program
    max_len = max_data_len if max_data_len is not None else 2 * len(data)
    if max_len < len(data):
        raise ValueError("max_data_len is smaller than the program")
    buffer = Keypair()
    txs = _write_buffer(svm, data, payer, authority, buffer)
    deploy_ix = deploy_with_max_data_len_ix(payer.pubkey(), program_id, buffer.pubkey(), authority.pubkey(), max_len)
    if isinstance(program, Keypair):
        create = _create_loader_account(svm, payer, program_id, PROGRAM_SIZE)
        _send(svm, payer, [create, deploy_ix], [program, authority], "deploy")
    else:
        _deploy_at(svm, payer, program_id, deploy_ix, authority)
    return DeployResult(program_id, programdata_address(program_id), len(data), txs + 1)


def _deploy_at(svm, payer: Keypair, program_id: Pubkey, deploy_ix: Instruction, authority: Keypair) -> None:
    """Deploy at an address without its keypair: the empty loader account CreateAccount would have
    made is written, then the deploy runs; it is removed again if the deploy fails."""
    if svm.get_account(program_id) is not None:
        raise DeployError(f"{program_id} already exists")
    rent = svm.minimum_balance_for_rent_exemption(PROGRAM_SIZE)
    svm.set_account(program_id, Account(lamports=rent, data=bytes(PROGRAM_SIZE), owner=LOADER_ID, executable=False))
    try:
        _send(svm, payer, [deploy_ix], [authority], "deploy")
    except DeployError:
        svm.set_account(program_id, Account(lamports=0, data=b"", owner=SYSTEM_PROGRAM_ID))
        raise


def _create_loader_account(svm, payer: Keypair, address: Pubkey, space: int) -> Instruction:
    """System CreateAccount of a rent-exempt account of `space` bytes owned by the loader."""
    return create_account(
        CreateAccountParams(
            from_pubkey=payer.pubkey(),
            to_pubkey=address,
            lamports=svm.minimum_balance_for_rent_exemption(space),
            space=space,
            owner=LOADER_ID,
        )
    )


def upgrade_ix(program_id: Pubkey, buffer: Pubkey, spill: Pubkey, authority: Pubkey) -> Instruction:
    return Instruction(
        LOADER_ID,
        struct.pack("<I", 3),
        [
            AccountMeta(programdata_address(program_id), False, True),
            AccountMeta(program_id, False, True),
            AccountMeta(buffer, False, True),
            AccountMeta(spill, False, True),
            AccountMeta(SYSVAR_RENT_ID, False, False),
            AccountMeta(SYSVAR_CLOCK_ID, False, False),
            AccountMeta(authority, True, False),
        ],
    )


def _write_buffer(svm, data: bytes, payer: Keypair, authority: Keypair, buffer: Keypair) -> int:
    """Create and fill a buffer; -> transactions sent."""
    size = BUFFER_METADATA_SIZE + len(data)
    create = _create_loader_account(svm, payer, buffer.pubkey(), size)
    initialize = initialize_buffer_ix(buffer.pubkey(), authority.pubkey())
    _send(svm, payer, [create, initialize], [buffer], "create and initialize the buffer")
    for off in range(0, len(data), WRITE_CHUNK):
        _send(
            svm,
            payer,
            [write_ix(buffer.pubkey(), authority.pubkey(), off, data[off : off + WRITE_CHUNK])],
            [authority],
            f"write at {off}",
        )
    return 1 + (len(data) + WRITE_CHUNK - 1) // WRITE_CHUNK


def upgrade(svm, so: bytes | Path, program_id: Pubkey, authority: Keypair, payer: Keypair | None = None) -> int:
    """Replace a deployed program's code (Upgrade, signed by its upgrade authority; the new
    code must fit the max_data_len it was deployed with). -> transactions sent."""
    data = so.read_bytes() if isinstance(so, Path) else bytes(so)
    payer = payer or authority
    buffer = Keypair()
    txs = _write_buffer(svm, data, payer, authority, buffer)
    _send(
        svm,
        payer,
        [upgrade_ix(program_id, buffer.pubkey(), payer.pubkey(), authority.pubkey())],
        [authority],
        "upgrade",
    )
    return txs + 1


def set_authority_ix(program_id: Pubkey, authority: Pubkey, new_authority: Pubkey | None) -> Instruction:
    """SetAuthority (4) on the program's ProgramData; no new authority makes the program final."""
    accounts = [AccountMeta(programdata_address(program_id), False, True), AccountMeta(authority, True, False)]
    if new_authority is not None:
        accounts.append(AccountMeta(new_authority, False, False))
    return Instruction(LOADER_ID, struct.pack("<I", 4), accounts)


def finalize(svm, program_id: Pubkey, authority: Keypair, payer: Keypair | None = None) -> None:
    """Make a deployed program immutable: its upgrade authority set to none."""
    _send(svm, payer or authority, [set_authority_ix(program_id, authority.pubkey(), None)], [authority], "finalize")


__all__ = [
    "DeployError",
    "finalize",
    "set_authority_ix",
    "DeployResult",
    "deploy",
    "upgrade",
    "programdata_address",
    "LOADER_ID",
    "initialize_buffer_ix",
    "write_ix",
    "deploy_with_max_data_len_ix",
    "upgrade_ix",
]
