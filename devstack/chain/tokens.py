"""Read SPL Token and Token-2022 accounts for the RPC façade (parsing only, no execution).

A Token-2022 account or mint is the classic layout (165 / 82 bytes) followed, when it has
extensions, by padding to 165 bytes, an account-type byte (1 mint, 2 account) and TLV
entries. Decoding uses solders' SPL layouts on the base part.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from solders.pubkey import Pubkey
from solders.token.state import Mint, TokenAccount

from . import constants as C

TOKEN_PROGRAMS = (C.TOKEN_PROGRAM_ID, C.TOKEN_2022_PROGRAM_ID)
MINT_LEN = 82
ACCOUNT_LEN = 165
_ACCOUNT_TYPE_MINT = 1
_ACCOUNT_TYPE_ACCOUNT = 2


def program_name(owner: Pubkey) -> str:
    return "spl-token-2022" if owner == C.TOKEN_2022_PROGRAM_ID else "spl-token"


def _is_kind(owner: Pubkey, data: bytes, base_len: int, account_type: int) -> bool:
    if owner == C.TOKEN_PROGRAM_ID:
        return len(data) == base_len
    if owner == C.TOKEN_2022_PROGRAM_ID:
        return len(data) == base_len or (len(data) > ACCOUNT_LEN and data[ACCOUNT_LEN] == account_type)
    return False


def _decode(layout: Any, owner: Pubkey, data: bytes, base_len: int, account_type: int) -> Any:
    """The classic-layout part of a token account or mint (`account_type`) of either token program,
    decoded by solders' `layout`; None when the account is not one."""
    if not _is_kind(owner, data, base_len, account_type):
        return None
    try:
        return layout.from_bytes(bytes(data[:base_len]))
    except Exception:
        return None


def decode_token_account(owner: Pubkey, data: bytes) -> TokenAccount | None:
    """The initialized (or frozen) token account, or None."""
    ta = _decode(TokenAccount, owner, data, ACCOUNT_LEN, _ACCOUNT_TYPE_ACCOUNT)
    return ta if ta is not None and int(ta.state) in (1, 2) else None


def decode_mint(owner: Pubkey, data: bytes) -> Mint | None:
    """The initialized mint, or None."""
    m = _decode(Mint, owner, data, MINT_LEN, _ACCOUNT_TYPE_MINT)
    return m if m is not None and m.is_initialized else None


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


def token_balances(keys: list[Pubkey], accounts: list[Any], lookup: Callable[[Pubkey], Any]) -> list[dict[str, Any]]:
    """A transaction's pre/post token balances (``accounts[i]`` is the account at ``keys[i]`` or None,
    anything with ``owner`` and ``data``; ``lookup(mint)`` reads a mint that is not among the keys)."""
    by_key = {k: a for k, a in zip(keys, accounts, strict=True) if a is not None}
    out = []
    for i, a in enumerate(accounts):
        if a is None or a.owner not in TOKEN_PROGRAMS or a.lamports == 0:
            continue
        ta = decode_token_account(a.owner, bytes(a.data))
        if ta is None:
            continue
        mint_acct = by_key.get(ta.mint) or lookup(ta.mint)
        mint = decode_mint(mint_acct.owner, bytes(mint_acct.data)) if mint_acct is not None else None
        if mint is None:
            continue
        out.append(
            {
                "accountIndex": i,
                "mint": str(ta.mint),
                "owner": str(ta.owner),
                "programId": str(a.owner),
                "uiTokenAmount": ui_token_amount(ta.amount, mint.decimals),
            }
        )
    return out
