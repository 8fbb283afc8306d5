"""A LiteSVM with the launchpad SBF program (programs/launchpad, built by tools.sbf.build)
deployed through BPF Loader Upgradeable at its IDL address, and helpers that build its
instructions from the program's IDL (idl/launchpad.json) through partner.chain.idl.

No devstack server: the tests talk to LiteSVM directly.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from solders.compute_budget import set_compute_unit_limit
from solders.instruction import AccountMeta, Instruction
from solders.keypair import Keypair
from solders.message import Message
from solders.pubkey import Pubkey
from solders.transaction import Transaction
from solders.transaction_metadata import FailedTransactionMetadata

from devstack.chain.deploy import deploy
from devstack.chain.features import new_litesvm
from partner.chain import curve as C
from partner.chain import governance_math as GM
from partner.chain import layouts as L
from partner.chain.idl import Program
from partner.chain.idls import BINDINGS

from . import token2022 as T

ROOT = Path(__file__).resolve().parents[2]
LAUNCHPAD_IDL = Program(json.loads((ROOT / "idl" / "launchpad.json").read_text()), BINDINGS)
POOL_IDL = Program(json.loads((ROOT / "idl" / "pool.json").read_text()), BINDINGS)
LAUNCHPAD_ID = LAUNCHPAD_IDL.address
POOL_ID = POOL_IDL.address
TOKEN_2022 = T.TOKEN_2022
ATA_PROGRAM = Pubkey.from_string("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL")
SYSTEM = Pubkey.from_string("11111111111111111111111111111111")
SOL = 10**9
START_UNIX = 1_750_000_000
START_SLOT = 1_000
ATA_SIZE = 170


@cache
def program_so(name: str) -> Path:
    from tools.sbf.build import build

    return build(name)


def ata(owner: Pubkey, mint: Pubkey) -> Pubkey:
    return Pubkey.find_program_address([bytes(owner), bytes(TOKEN_2022), bytes(mint)], ATA_PROGRAM)[0]


def pda(*seeds: bytes, program: Pubkey = LAUNCHPAD_ID) -> Pubkey:
    return Pubkey.find_program_address(list(seeds), program)[0]


def global_pda() -> Pubkey:
    return pda(b"global")


def curve_pda(mint: Pubkey) -> Pubkey:
    return pda(b"bonding-curve", bytes(mint))


def governance_pda(mint: Pubkey) -> Pubkey:
    return pda(b"governance", bytes(mint))


def proposal_pda(gov: Pubkey, index: int) -> Pubkey:
    return pda(b"proposal", bytes(gov), index.to_bytes(8, "little"))


def vote_pda(proposal: Pubkey, voter: Pubkey) -> Pubkey:
    return pda(b"vote", bytes(proposal), bytes(voter))


def pool_pda(mint: Pubkey) -> Pubkey:
    return pda(b"pool", bytes(mint), program=POOL_ID)


def rent(n: int) -> int:
    return (128 + n) * 3480 * 2


@dataclass(frozen=True)
class Run:
    """One landed instruction: its units (the compute-budget instruction's taken off), the accounts
    it created, and the bumps of new PDAs whose seeds it does not carry."""

    ix: Instruction
    cu: int
    hint: object  # partner.chain.units.Hint


@dataclass
class Result:
    ok: bool
    err: object
    cu: int
    logs: list[str]

    @property
    def custom(self) -> int | None:
        """The custom error number of a failed instruction (None when none)."""
        m = re.search(r"Custom\((\d+)\)", str(self.err))
        return int(m.group(1)) if m else None

    def expect(self, code: int | str) -> Result:
        assert not self.ok, f"expected failure {code}, the transaction landed"
        if isinstance(code, int):
            assert self.custom == code, f"expected Custom({code}), got {self.err}\n" + "\n".join(self.logs)
        else:
            assert code in str(self.err), f"expected {code}, got {self.err}\n" + "\n".join(self.logs)
        return self


DEFAULT_GLOBAL = dict(
    protocol_fee_bps=100,
    wallet_cap_bps=10_000,
    pool_open_delay_seconds=2,
    initial_virtual_token_reserves=C.INITIAL_VIRTUAL_TOKEN_RESERVES,
    initial_virtual_sol_reserves=C.INITIAL_VIRTUAL_SOL_RESERVES,
    initial_real_token_reserves=C.INITIAL_REAL_TOKEN_RESERVES,
    token_total_supply=C.TOKEN_TOTAL_SUPPLY,
)


class Chain:
    """One LiteSVM with the launchpad (and the pool when `pool` is true) deployed."""

    def __init__(self, pool: bool = False, initialize: bool = True, seed: int | None = None, **global_args):
        # `seed`: every key this chain makes (payer, wallets, mints) comes from it, so a run's PDA
        # bumps, and with them its compute units, are the same each time; None: fresh random keys
        self._keys = random.Random(seed) if seed is not None else None
        self.svm = new_litesvm()
        self.payer = self.keypair()
        self.svm.airdrop(self.payer.pubkey(), 1_000 * SOL)
        self.admin = self.wallet(10 * SOL)  # the upgrade authority: only it may initialize_global
        deploy(self.svm, program_so("launchpad"), LAUNCHPAD_ID, self.payer, upgrade_authority=self.admin)
        if pool:
            deploy(self.svm, program_so("pool"), POOL_ID, self.payer)
        self.set_clock(START_SLOT, START_UNIX)
        self.fee_recipient = self.wallet(1 * SOL)
        self.cu: dict[str, list[int]] = {}
        if initialize:
            self.send_ok([self.global_ix(**global_args)], self.admin)

    def global_ix(self, admin: Keypair | None = None, **args: Any) -> Instruction:
        """initialize_global by `admin` (the upgrade authority unless given): DEFAULT_GLOBAL with
        `args` over it, the chain's fee recipient unless `args` names one."""
        args = {"fee_recipient": self.fee_recipient.pubkey(), **DEFAULT_GLOBAL, **args}
        return self.ix("initialize_global", {"admin": (admin or self.admin).pubkey()}, **args)

    # ------------------------------------------------------------ plumbing

    def keypair(self) -> Keypair:
        return Keypair.from_seed(self._keys.randbytes(32)) if self._keys else Keypair()

    def wallet(self, lamports: int = 100 * SOL) -> Keypair:
        kp = self.keypair()
        if lamports:
            r = self.svm.airdrop(kp.pubkey(), lamports)
            assert type(r).__name__ == "TransactionMetadata", f"airdrop failed: {r}"
        return kp

    def set_clock(self, slot: int, unix: int) -> None:
        clock = self.svm.get_clock()
        clock.slot, clock.unix_timestamp = slot, unix
        self.svm.set_clock(clock)
        self.svm.warp_to_slot(slot)
        clock = self.svm.get_clock()
        clock.unix_timestamp = unix
        self.svm.set_clock(clock)

    @property
    def now(self) -> int:
        return self.svm.get_clock().unix_timestamp

    @property
    def slot(self) -> int:
        return self.svm.get_clock().slot

    def advance(self, slots: int = 1, seconds: int = 0) -> None:
        self.set_clock(self.slot + slots, self.now + seconds)

    def ix(self, ix_name: str, accounts: dict, /, **args) -> Instruction:
        return LAUNCHPAD_IDL.instruction(ix_name, accounts, **args)

    def send(
        self, ixs: list[Instruction], *signers: Keypair, payer: Keypair | None = None, cu_limit: int = 1_400_000
    ) -> Result:
        payer = payer or self.payer
        recorded = self._before(ixs[0]) if Chain.recorder is not None and len(ixs) == 1 else None
        all_ixs = [set_compute_unit_limit(cu_limit), *ixs]
        unique = {bytes(k.pubkey()): k for k in [payer, *signers]}
        msg = Message.new_with_blockhash(all_ixs, payer.pubkey(), self.svm.latest_blockhash())
        tx = Transaction(list(unique.values()), msg, self.svm.latest_blockhash())
        res = self.svm.send_transaction(tx)
        self.svm.expire_blockhash()
        if isinstance(res, FailedTransactionMetadata):
            meta = res.meta()
            return Result(False, res.err(), meta.compute_units_consumed(), list(meta.logs()))
        if len(ixs) == 1:
            name = LAUNCHPAD_IDL.instruction_name(bytes(ixs[0].data)) if ixs[0].program_id == LAUNCHPAD_ID else None
            if name:
                self.cu.setdefault(name, []).append(res.compute_units_consumed() - 150)  # minus the budget ix
        if recorded is not None and Chain.recorder is not None:
            Chain.recorder.append(Run(ixs[0], res.compute_units_consumed() - 150, recorded))
        return Result(True, None, res.compute_units_consumed(), list(res.logs()))

    # the unit model's measurements (tests/programs/unit_model.py): when a list, every landed
    # one-instruction transaction of either program, with what the model needs to know before it
    recorder: list[Run] | None = None

    def _before(self, ix: Instruction):
        """What the service knows before it sends `ix`: a partner.chain.units.Hint."""
        from partner.chain import units as U

        if ix.program_id not in (LAUNCHPAD_ID, POOL_ID):
            return None
        new = frozenset(m.pubkey for m in ix.accounts if self.account(m.pubkey) is None)
        name = LAUNCHPAD_IDL.instruction_name(bytes(ix.data)) if ix.program_id == LAUNCHPAD_ID else None
        if name == "create_proposal":
            gov = ix.accounts[2].pubkey
            index = L.Governance.decode(self.data(gov)).next_proposal_index
            key, bump = Pubkey.find_program_address(
                [b"proposal", bytes(gov), index.to_bytes(8, "little")], LAUNCHPAD_ID
            )
            return U.Hint(new=new, bumps={key: bump})
        if name == "settle_proposal":
            gov, prop = ix.accounts[1].pubkey, ix.accounts[2].pubkey
            return U.settle_hint(self.proposal(prop), L.Governance.decode(self.data(gov)), self.now)
        return U.Hint(new=new)

    def send_ok(self, ixs: list[Instruction], *signers: Keypair, **kw) -> Result:
        r = self.send(ixs, *signers, **kw)
        assert r.ok, f"{r.err}\n" + "\n".join(r.logs)
        return r

    # ------------------------------------------------------------ state

    def account(self, key: Pubkey):
        return self.svm.get_account(key)

    def data(self, key: Pubkey) -> bytes:
        acc = self.svm.get_account(key)
        return bytes(acc.data) if acc is not None else b""

    def lamports(self, key: Pubkey) -> int:
        acc = self.svm.get_account(key)
        return acc.lamports if acc is not None else 0

    def global_(self) -> L.Global:
        return L.Global.decode(self.data(global_pda()))

    def curve(self, mint: Pubkey) -> L.BondingCurve:
        return L.BondingCurve.decode(self.data(curve_pda(mint)))

    def governance(self, mint: Pubkey) -> L.Governance:
        return L.Governance.decode(self.data(governance_pda(mint)))

    def proposal(self, key: Pubkey) -> L.Proposal:
        return L.Proposal.decode(self.data(key))

    def receipt(self, key: Pubkey) -> L.VoteReceipt:
        return L.VoteReceipt.decode(self.data(key))

    def mint(self, mint: Pubkey) -> T.Mint:
        return T.decode_mint(self.data(mint))

    def balance(self, owner: Pubkey, mint: Pubkey) -> int:
        raw = self.data(ata(owner, mint))
        return T.decode_account(raw).amount if raw else 0

    def snapshot(self, *keys: Pubkey) -> dict:
        out = {}
        for k in keys:
            acc = self.svm.get_account(k)
            out[k] = None if acc is None else (acc.lamports, bytes(acc.data), acc.owner)
        return out

    # ------------------------------------------------------------ instructions

    def create_coin_ix(
        self,
        creator: Pubkey,
        mint: Pubkey,
        name="Coin",
        symbol="COIN",
        uri="https://x.example/c.json",
        document: dict | None = None,
        **override,
    ) -> Instruction:
        """`document`: the metadata JSON at `uri` (its uri-borne fields' digests; None: every field absent)."""
        accounts = {"creator": creator, "mint": mint, "metadata": mint, **override}
        return self.ix(
            "create_coin",
            accounts,
            name=name,
            symbol=symbol,
            uri=uri,
            content_digests=GM.content_digests(document or {}),
        )

    def create_coin(self, creator: Keypair | None = None, mint: Keypair | None = None, **kw) -> tuple[Keypair, Keypair]:
        creator = creator or self.wallet()
        mint = mint or self.keypair()
        self.send_ok([self.create_coin_ix(creator.pubkey(), mint.pubkey(), **kw)], creator, mint)
        return creator, mint

    def trade_ix(self, ix_name: str, user: Pubkey, mint: Pubkey, /, **args) -> Instruction:
        return self.ix(ix_name, {"user": user, "mint": mint, "fee_recipient": self.fee_recipient.pubkey()}, **args)

    def buy(self, user: Keypair, mint: Pubkey, sol_in: int, min_tokens_out: int = 0) -> Result:
        return self.send(
            [self.trade_ix("buy", user.pubkey(), mint, sol_in=sol_in, min_tokens_out=min_tokens_out)], user
        )

    def buy_exact_out(self, user: Keypair, mint: Pubkey, tokens_out: int, max_sol_in: int) -> Result:
        return self.send(
            [self.trade_ix("buy_exact_out", user.pubkey(), mint, tokens_out=tokens_out, max_sol_in=max_sol_in)], user
        )

    def sell(self, user: Keypair, mint: Pubkey, tokens_in: int, min_sol_out: int = 0) -> Result:
        return self.send(
            [self.trade_ix("sell", user.pubkey(), mint, tokens_in=tokens_in, min_sol_out=min_sol_out)], user
        )

    def migrate_ix(self, payer: Pubkey, mint: Pubkey) -> Instruction:
        return self.ix("migrate", {"payer": payer, "mint": mint})

    def migrate(self, mint: Pubkey, payer: Keypair | None = None, cu_limit: int = 1_400_000) -> Result:
        payer = payer or self.wallet(SOL)
        return self.send([self.migrate_ix(payer.pubkey(), mint)], payer, cu_limit=cu_limit)

    # ------------------------------------------------------------ the pool (after migration)

    def pool(self, mint: Pubkey) -> L.Pool:
        return L.Pool.decode(self.data(pool_pda(mint)))

    def pool_ix(self, ix_name: str, user: Pubkey, mint: Pubkey, /, **args) -> Instruction:
        return POOL_IDL.instruction(
            ix_name, {"user": user, "mint": mint, "fee_recipient": self.fee_recipient.pubkey()}, **args
        )

    def swap(self, user: Keypair, mint: Pubkey, base_in: bool, amount_in: int, min_amount_out: int = 0) -> Result:
        return self.send(
            [
                self.pool_ix(
                    "swap", user.pubkey(), mint, base_in=base_in, amount_in=amount_in, min_amount_out=min_amount_out
                )
            ],
            user,
        )

    def swap_exact_out(self, user: Keypair, mint: Pubkey, base_out: int, max_quote_in: int) -> Result:
        return self.send(
            [self.pool_ix("swap_exact_out", user.pubkey(), mint, base_out=base_out, max_quote_in=max_quote_in)], user
        )


def meta_ix(
    ix: Instruction, index: int, key: Pubkey | None = None, signer: bool | None = None, writable: bool | None = None
) -> Instruction:
    """`ix` with account `index` replaced (key / flags)."""
    metas = list(ix.accounts)
    m = metas[index]
    metas[index] = AccountMeta(
        key or m.pubkey, m.is_signer if signer is None else signer, m.is_writable if writable is None else writable
    )
    return Instruction(ix.program_id, bytes(ix.data), metas)
