"""A LiteSVM with the pool program deployed at its IDL address and a migrated coin: a
Token-2022 mint (with the MetadataPointer extension, as the launchpad creates them), the
curve vault (ATA of the launchpad's curve PDA) holding the base tokens, and the pool
initialised through a stand-in for the launchpad's migrate CPI (the curve_signer fixture,
deployed at the launchpad's program id, signs as the curve PDA)."""

from __future__ import annotations

import struct
from dataclasses import dataclass

from solders.keypair import Keypair
from solders.pubkey import Pubkey
from solders.system_program import CreateAccountParams, TransferParams, create_account, transfer

from partner.chain import programs as P
from partner.chain.idls import POOL
from tests.programs.svm import ATA_PROGRAM, SOL, SYSTEM, TOKEN_2022, Outcome, Svm, ata, ix

DECIMALS = 6
POOL_SIZE = 235


def t22(data: bytes, accounts: list[tuple[Pubkey, bool, bool]]):
    return ix(TOKEN_2022, data, accounts)


def create_mint_ixs(payer: Pubkey, mint: Pubkey, authority: Pubkey, rent: int) -> list:
    """System CreateAccount (234 bytes) + InitializeMetadataPointer(-> itself) + InitializeMint2."""
    return [
        create_account(
            CreateAccountParams(from_pubkey=payer, to_pubkey=mint, lamports=rent, space=234, owner=TOKEN_2022)
        ),
        t22(bytes([39, 0]) + bytes(authority) + bytes(mint), [(mint, False, True)]),
        t22(bytes([20, DECIMALS]) + bytes(authority) + b"\0", [(mint, False, True)]),
    ]


def create_ata_ix(payer: Pubkey, wallet: Pubkey, mint: Pubkey):
    return ix(
        ATA_PROGRAM,
        b"\1",
        [
            (payer, True, True),
            (ata(wallet, mint), False, True),
            (wallet, False, False),
            (mint, False, False),
            (SYSTEM, False, False),
            (TOKEN_2022, False, False),
        ],
    )


def mint_to_ix(mint: Pubkey, dest: Pubkey, authority: Pubkey, amount: int):
    return t22(
        bytes([7]) + struct.pack("<Q", amount), [(mint, False, True), (dest, False, True), (authority, True, False)]
    )


def transfer_checked_ix(src: Pubkey, mint: Pubkey, dst: Pubkey, owner: Pubkey, amount: int):
    return t22(
        bytes([12]) + struct.pack("<Q", amount) + bytes([DECIMALS]),
        [(src, False, True), (mint, False, False), (dst, False, True), (owner, True, False)],
    )


def token_amount(svm: Svm, account: Pubkey) -> int:
    d = svm.data(account)
    return struct.unpack_from("<Q", d, 64)[0] if len(d) >= 72 else 0


@dataclass
class PoolState:
    mint: Pubkey
    base_vault: Pubkey
    creator: Pubkey
    fee_recipient: Pubkey
    base_reserve: int
    quote_reserve: int
    fee_bps: int
    open_time: int
    created_slot: int
    bump: int


def decode_pool(data: bytes) -> PoolState:
    assert len(data) == POOL_SIZE and data[:8] == bytes([241, 154, 109, 4, 17, 177, 109, 188])
    mint, vault, creator, fee = (Pubkey.from_bytes(data[8 + 32 * i : 40 + 32 * i]) for i in range(4))
    base, quote, bps, open_time, slot, bump = struct.unpack_from("<QQHqQB", data, 136)
    return PoolState(mint, vault, creator, fee, base, quote, bps, open_time, slot, bump)


class PoolEnv:
    def __init__(
        self,
        base_amount: int = 206_900_000 * 10**6,
        quote_amount: int = 85 * SOL,
        fee_bps: int = 100,
        open_time: int | None = None,
        initialize: bool = True,
    ):
        self.s = Svm()
        self.svm = self.s.svm
        self.s.deploy("pool", P.POOL_PROGRAM_ID)
        self.s.deploy("curve_signer", P.LAUNCHPAD_PROGRAM_ID)
        self.program = P.POOL_PROGRAM_ID
        self.creator = Keypair().pubkey()
        self.fee_recipient = self.s.funded(SOL).pubkey()
        self.mint_authority = self.s.funded(SOL)
        self.mint = self.new_mint()
        self.curve = P.bonding_curve_pda(self.mint)[0]
        self.curve_vault = ata(self.curve, self.mint)
        payer = self.s.payer.pubkey()
        assert self.s.send(
            [
                create_ata_ix(payer, self.curve, self.mint),
                mint_to_ix(self.mint, self.curve_vault, self.mint_authority.pubkey(), base_amount),
            ],
            self.mint_authority,
        ).ok
        self.pool = P.pool_pda(self.mint)[0]
        self.base_vault = ata(self.pool, self.mint)
        self.fee_bps = fee_bps
        now = self.svm.get_clock().unix_timestamp
        self.open_time = now - 1 if open_time is None else open_time
        self.base_amount, self.quote_amount = base_amount, quote_amount
        if initialize:
            o = self.initialize()
            assert o.ok, o.logs

    def new_mint(self) -> Pubkey:
        mint = Keypair()
        rent = self.svm.minimum_balance_for_rent_exemption(234)
        o = self.s.send(create_mint_ixs(self.s.payer.pubkey(), mint.pubkey(), self.mint_authority.pubkey(), rent), mint)
        assert o.ok, o.logs
        return mint.pubkey()

    # ------------------------------------------------------------ instructions

    def initialize_ix(
        self, mint: Pubkey | None = None, pool: Pubkey | None = None, base_vault: Pubkey | None = None, **overrides
    ):
        mint = mint or self.mint
        args = dict(
            base_amount=self.base_amount,
            quote_amount=self.quote_amount,
            open_time=self.open_time,
            fee_bps=self.fee_bps,
            fee_recipient=self.fee_recipient,
            creator=self.creator,
        )
        args.update(overrides)
        curve = P.bonding_curve_pda(mint)[0]
        data = POOL.encode_args("initialize_pool", args)
        accounts = [
            (self.s.payer.pubkey(), True, True),
            (curve, False, False),
            (mint, False, False),
            (pool or P.pool_pda(mint)[0], False, True),
            (base_vault or ata(P.pool_pda(mint)[0], mint), False, True),
            (ata(curve, mint), False, True),
            (SYSTEM, False, False),
            (TOKEN_2022, False, False),
            (ATA_PROGRAM, False, False),
        ]
        return data, accounts

    def via_curve(self, data: bytes, accounts: list, mint_index: int = 2):
        """The launchpad-side CPI: curve_signer forwards to the pool, signing as the curve PDA."""
        return ix(P.LAUNCHPAD_PROGRAM_ID, bytes([mint_index]) + data, [(self.program, False, False), *accounts])

    def initialize(self, **kw) -> Outcome:
        data, accounts = self.initialize_ix(**kw)
        quote = kw.get("quote_amount", self.quote_amount)
        pool = kw.get("pool") or self.pool
        return self.s.send(
            [
                self.via_curve(data, accounts),
                transfer(TransferParams(from_pubkey=self.s.payer.pubkey(), to_pubkey=pool, lamports=quote)),
            ]
        )

    def swap_accounts(self, user_key: Pubkey, /, **over) -> list:
        """The swap accounts of `user_key`; `over` replaces one by IDL name (a key, or a
        (key, signer, writable) tuple)."""
        acc = dict(
            user=(user_key, True, True),
            pool=(self.pool, False, True),
            mint=(self.mint, False, False),
            base_vault=(self.base_vault, False, True),
            user_token_account=(ata(user_key, self.mint), False, True),
            fee_recipient=(self.fee_recipient, False, True),
            system_program=(SYSTEM, False, False),
            token_program=(TOKEN_2022, False, False),
            associated_token_program=(ATA_PROGRAM, False, False),
        )
        for k, v in over.items():
            acc[k] = v if isinstance(v, tuple) else (v, acc[k][1], acc[k][2])
        return list(acc.values())

    def swap_ix(self, user: Pubkey, /, base_in: bool, amount_in: int, min_out: int = 0, **over):
        data = POOL.encode_args("swap", dict(base_in=base_in, amount_in=amount_in, min_amount_out=min_out))
        return ix(self.program, data, self.swap_accounts(user, **over))

    def exact_out_ix(self, user: Pubkey, /, base_out: int, max_in: int, **over):
        data = POOL.encode_args("swap_exact_out", dict(base_out=base_out, max_quote_in=max_in))
        return ix(self.program, data, self.swap_accounts(user, **over))

    def buy(self, user: Keypair, sol_in: int, min_out: int = 0, **over) -> Outcome:
        return self.s.send(self.swap_ix(user.pubkey(), False, sol_in, min_out, **over), user)

    def sell(self, user: Keypair, tokens: int, min_out: int = 0, **over) -> Outcome:
        return self.s.send(self.swap_ix(user.pubkey(), True, tokens, min_out, **over), user)

    def buy_exact(self, user: Keypair, tokens: int, max_in: int, **over) -> Outcome:
        return self.s.send(self.exact_out_ix(user.pubkey(), tokens, max_in, **over), user)

    # ------------------------------------------------------------ state

    def state(self) -> PoolState:
        return decode_pool(self.s.data(self.pool))

    def tokens(self, owner: Pubkey) -> int:
        return token_amount(self.s, ata(owner, self.mint))

    def lamports(self, key: Pubkey) -> int:
        return self.svm.get_balance(key) or 0

    def snapshot(self) -> tuple:
        """Every account a swap may touch, to show a refused one changed nothing."""
        keys = [self.pool, self.base_vault, self.fee_recipient, self.curve_vault]
        return tuple((bytes(a.data), a.lamports, a.owner) if (a := self.svm.get_account(k)) else None for k in keys)
