"""Associated Token Account program: Create (0 / empty data) and CreateIdempotent (1).

Implemented as a program that CPIs into the system and token programs, signing
for the associated address with its PDA seeds [wallet, token_program, mint].
"""

from __future__ import annotations

from solders.instruction import AccountMeta, Instruction
from solders.pubkey import Pubkey

from .. import constants as C
from ..runtime import InstructionFailure, InvokeContext
from . import token as _token

INVALID_OWNER = 0  # AssociatedTokenAccountError::InvalidOwner


def get_associated_token_address(wallet: Pubkey, mint: Pubkey, token_program: Pubkey = C.TOKEN_PROGRAM_ID) -> Pubkey:
    return Pubkey.find_program_address(
        [bytes(wallet), bytes(token_program), bytes(mint)], C.ASSOCIATED_TOKEN_PROGRAM_ID
    )[0]


def _sys_ix(tag: int, body: bytes, metas: list[AccountMeta]) -> Instruction:
    return Instruction(C.SYSTEM_PROGRAM_ID, tag.to_bytes(4, "little") + body, metas)


def process(ctx: InvokeContext) -> None:
    data = bytes(ctx.data)
    if data in (b"", b"\x00"):
        idempotent = False
        ctx.log("Create")
    elif data == b"\x01":
        idempotent = True
        ctx.log("CreateIdempotent")
    else:
        raise InstructionFailure("InvalidInstructionData")
    payer, ata, wallet, mint = ctx.account(0), ctx.account(1), ctx.account(2), ctx.account(3)
    ctx.account(4)
    token_program = ctx.account(5).pubkey
    if token_program != C.TOKEN_PROGRAM_ID:
        raise InstructionFailure("IncorrectProgramId")
    address, bump = Pubkey.find_program_address(
        [bytes(wallet.pubkey), bytes(token_program), bytes(mint.pubkey)], C.ASSOCIATED_TOKEN_PROGRAM_ID
    )
    if address != ata.pubkey:
        ctx.log("Error: Associated address does not match seed derivation")
        raise InstructionFailure("InvalidSeeds")
    if idempotent and ata.owner == token_program:
        existing = _token.decode_token_account(bytes(ata.data))
        if existing is not None:
            if existing.owner != wallet.pubkey:
                ctx.log("Error: Owner does not match")
                raise InstructionFailure(custom=INVALID_OWNER)
            if existing.mint != mint.pubkey:
                raise InstructionFailure("InvalidAccountData")
            return
    if ata.owner != C.SYSTEM_PROGRAM_ID:
        raise InstructionFailure("IllegalOwner")
    if mint.owner != token_program:
        raise InstructionFailure("IncorrectProgramId")
    seeds = [[bytes(wallet.pubkey), bytes(token_program), bytes(mint.pubkey), bytes([bump])]]
    rent = C.minimum_balance(_token.ACCOUNT_LEN)
    ata_w = AccountMeta(ata.pubkey, True, True)
    if ata.lamports > 0:
        need = max(rent - ata.lamports, 0)
        if need:
            ctx.invoke(
                _sys_ix(2, need.to_bytes(8, "little"), [AccountMeta(payer.pubkey, True, True), AccountMeta(ata.pubkey, False, True)])
            )
        ctx.invoke(_sys_ix(8, _token.ACCOUNT_LEN.to_bytes(8, "little"), [ata_w]), seeds)
        ctx.invoke(_sys_ix(1, bytes(token_program), [ata_w]), seeds)
    else:
        body = rent.to_bytes(8, "little") + _token.ACCOUNT_LEN.to_bytes(8, "little") + bytes(token_program)
        ctx.invoke(_sys_ix(0, body, [AccountMeta(payer.pubkey, True, True), ata_w]), seeds)
    ctx.log("Initialize the associated token account")
    ctx.invoke(
        Instruction(
            token_program,
            bytes([18]) + bytes(wallet.pubkey),
            [AccountMeta(ata.pubkey, False, True), AccountMeta(mint.pubkey, False, False)],
        ),
    )


__all__ = ["get_associated_token_address", "process"]
