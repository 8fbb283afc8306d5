"""LiteSVM helpers of the program tests: build a program (cached per session), deploy it
through BPF Loader Upgradeable (devstack.chain.deploy), send instructions and read the
outcome (error, logs, compute units, return data)."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from solders.instruction import AccountMeta, Instruction
from solders.keypair import Keypair
from solders.litesvm import LiteSVM
from solders.message import Message
from solders.pubkey import Pubkey
from solders.transaction import Transaction
from solders.transaction_metadata import FailedTransactionMetadata

from devstack.chain.deploy import deploy
from devstack.chain.features import new_litesvm
from tools.sbf.build import OUT, ROOT, build

FIXTURES = Path(__file__).with_name("fixtures")
SOL = 1_000_000_000
TOKEN_2022 = Pubkey.from_string("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb")
ATA_PROGRAM = Pubkey.from_string("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL")
SYSTEM = Pubkey.from_string("11111111111111111111111111111111")


@cache
def program_so(name: str) -> bytes:
    """programs/<name> or tests/programs/fixtures/<name>, built (up-to-date check) once."""
    fixture = FIXTURES / name / "src"
    if fixture.is_dir():
        return build(name, out_dir=OUT / "tests", src_dir=fixture).read_bytes()
    return build(name).read_bytes()


@dataclass
class Outcome:
    ok: bool
    err: object
    logs: list[str]
    cu: int
    return_data: bytes

    @property
    def custom(self) -> int | None:
        """n of InstructionError(_, Custom(n)), else None."""
        s = str(self.err)
        if "Custom(" in s:
            return int(s.split("Custom(")[1].split(")")[0])
        return None


class Svm:
    """A LiteSVM with a funded payer."""

    def __init__(self, svm: LiteSVM | None = None):
        self.svm = svm or new_litesvm()
        self.payer = Keypair()
        self.svm.airdrop(self.payer.pubkey(), 1_000 * SOL)

    def deploy(self, name: str, program_id: Pubkey | None = None) -> Pubkey:
        pid = program_id or Pubkey.new_unique()
        deploy(self.svm, program_so(name), pid, self.payer)
        return pid

    def funded(self, lamports: int = 10 * SOL) -> Keypair:
        kp = Keypair()
        self.svm.airdrop(kp.pubkey(), lamports)
        return kp

    def send(self, ixs: list[Instruction] | Instruction, *signers: Keypair, payer: Keypair | None = None) -> Outcome:
        ixs = ixs if isinstance(ixs, list) else [ixs]
        payer = payer or self.payer
        self.svm.expire_blockhash()
        bh = self.svm.latest_blockhash()
        keys = {bytes(k.pubkey()): k for k in (payer, *signers)}
        tx = Transaction(list(keys.values()), Message.new_with_blockhash(ixs, payer.pubkey(), bh), bh)
        r = self.svm.send_transaction(tx)
        if isinstance(r, FailedTransactionMetadata):
            m = r.meta()
            return Outcome(False, r.err(), list(m.logs()), m.compute_units_consumed(), bytes(m.return_data().data))
        return Outcome(True, None, list(r.logs()), r.compute_units_consumed(), bytes(r.return_data().data))

    def account(self, key: Pubkey):
        return self.svm.get_account(key)

    def data(self, key: Pubkey) -> bytes:
        a = self.svm.get_account(key)
        return bytes(a.data) if a is not None else b""


def ix(program_id: Pubkey, data: bytes, accounts: list[tuple[Pubkey, bool, bool]]) -> Instruction:
    """accounts: (key, signer, writable)."""
    return Instruction(program_id, data, [AccountMeta(k, s, w) for k, s, w in accounts])


def ata(wallet: Pubkey, mint: Pubkey) -> Pubkey:
    return Pubkey.find_program_address([bytes(wallet), bytes(TOKEN_2022), bytes(mint)], ATA_PROGRAM)[0]


def borsh_str(s: str | bytes) -> bytes:
    b = s.encode() if isinstance(s, str) else s
    return struct.pack("<I", len(b)) + b


__all__ = [
    "Svm",
    "Outcome",
    "ix",
    "ata",
    "borsh_str",
    "program_so",
    "SOL",
    "TOKEN_2022",
    "ATA_PROGRAM",
    "SYSTEM",
    "ROOT",
]


def print_cu_table(title: str, cu: dict[str, list[int]], width: int) -> None:
    """The table the CU scripts print: min / max compute units and the runs of each instruction."""
    print(f"{title:{width}s} {'min CU':>8s} {'max CU':>8s}  runs")
    for name, values in cu.items():
        print(f"{name:{width}s} {min(values):8d} {max(values):8d}  {len(values)}")
