"""`jsonParsed` transactions, as Agave's `transaction-status` crate shows them: a `UiParsedMessage`
(account keys as objects) whose instructions are parsed for the programs Agave parses and the
devstack runs (System, SPL Token, Token-2022, Associated Token Account, Memo), and partially decoded
(`programId`, `accounts`, `data` in base58) for every other program or any instruction a parser does
not know, as Agave falls back (`parse_instruction.rs`, `parse_system.rs`, `parse_token.rs`,
`parse_associated_token.rs`)."""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

import base58
from solders.message import MessageV0
from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction

from . import constants as C
from .svm import is_writable
from .tokens import ui_token_amount

Parsed = tuple[str, Any]  # (instruction type, info) or, for the memo, (None, the text)


class _Unparsed(Exception):
    """An instruction the parser does not know: shown partially decoded."""


def _u64(data: bytes, at: int) -> int:
    if len(data) < at + 8:
        raise _Unparsed
    return struct.unpack_from("<Q", data, at)[0]


def _key(data: bytes, at: int) -> str:
    if len(data) < at + 32:
        raise _Unparsed
    return str(Pubkey(data[at : at + 32]))


def _system(a: list[str], data: bytes) -> Parsed:
    if len(data) < 4:
        raise _Unparsed
    tag = struct.unpack_from("<I", data)[0]
    if tag == 0:
        return "createAccount", {
            "source": a[0],
            "newAccount": a[1],
            "lamports": _u64(data, 4),
            "space": _u64(data, 12),
            "owner": _key(data, 20),
        }
    if tag == 1:
        return "assign", {"account": a[0], "owner": _key(data, 4)}
    if tag == 2:
        return "transfer", {"source": a[0], "destination": a[1], "lamports": _u64(data, 4)}
    if tag == 8:
        return "allocate", {"account": a[0], "space": _u64(data, 4)}
    raise _Unparsed


def _token(a: list[str], data: bytes) -> Parsed:
    if not data:
        raise _Unparsed
    tag = data[0]
    if tag == 3:
        return "transfer", {"source": a[0], "destination": a[1], "authority": a[2], "amount": str(_u64(data, 1))}
    if tag == 7:
        return "mintTo", {"mint": a[0], "account": a[1], "mintAuthority": a[2], "amount": str(_u64(data, 1))}
    if tag == 8:
        return "burn", {"account": a[0], "mint": a[1], "authority": a[2], "amount": str(_u64(data, 1))}
    if tag == 9:
        return "closeAccount", {"account": a[0], "destination": a[1], "owner": a[2]}
    if tag in (12, 14, 15):
        if len(data) < 10:
            raise _Unparsed
        amount = ui_token_amount(_u64(data, 1), data[9])
        if tag == 12:
            return "transferChecked", {
                "source": a[0],
                "mint": a[1],
                "destination": a[2],
                "authority": a[3],
                "tokenAmount": amount,
            }
        if tag == 14:
            return "mintToChecked", {"mint": a[0], "account": a[1], "mintAuthority": a[2], "tokenAmount": amount}
        return "burnChecked", {"account": a[0], "mint": a[1], "authority": a[2], "tokenAmount": amount}
    if tag == 18:
        return "initializeAccount3", {"account": a[0], "mint": a[1], "owner": _key(data, 1)}
    if tag == 20:
        if len(data) < 35:
            raise _Unparsed
        info: dict[str, Any] = {"mint": a[0], "decimals": data[1], "mintAuthority": _key(data, 2)}
        if data[34] == 1:
            info["freezeAuthority"] = _key(data, 35)
        return "initializeMint2", info
    raise _Unparsed


def _associated_token(a: list[str], data: bytes) -> Parsed:
    kind = {b"": "create", b"\x00": "create", b"\x01": "createIdempotent"}.get(bytes(data))
    if kind is None or len(a) < 6:
        raise _Unparsed
    return kind, {
        "source": a[0],
        "account": a[1],
        "wallet": a[2],
        "mint": a[3],
        "systemProgram": a[4],
        "tokenProgram": a[5],
    }


def _memo(a: list[str], data: bytes) -> Parsed:
    try:
        return None, bytes(data).decode("utf-8")  # type: ignore[return-value]
    except UnicodeDecodeError:
        raise _Unparsed from None


PARSERS: dict[Pubkey, tuple[str, Callable[[list[str], bytes], Parsed]]] = {
    C.SYSTEM_PROGRAM_ID: ("system", _system),
    C.TOKEN_PROGRAM_ID: ("spl-token", _token),
    C.TOKEN_2022_PROGRAM_ID: ("spl-token-2022", _token),
    C.ASSOCIATED_TOKEN_PROGRAM_ID: ("spl-associated-token-account", _associated_token),
    C.MEMO_V1_PROGRAM_ID: ("spl-memo", _memo),
    C.MEMO_V2_PROGRAM_ID: ("spl-memo", _memo),
}


def instruction(keys: list[Pubkey], program_index: int, accounts: list[int], data: bytes, stack: int | None) -> Any:
    """One instruction, parsed when its program's parser knows it, else partially decoded."""
    program = keys[program_index]
    named = [str(keys[i]) for i in accounts]
    found = PARSERS.get(program)
    if found is not None:
        name, parse = found
        try:
            kind, info = parse(named, data)
        except (_Unparsed, IndexError):
            pass
        else:
            parsed = info if kind is None else {"info": info, "type": kind}
            return {"parsed": parsed, "program": name, "programId": str(program), "stackHeight": stack}
    return {
        "accounts": named,
        "data": base58.b58encode(bytes(data)).decode(),
        "programId": str(program),
        "stackHeight": stack,
    }


def message(tx: VersionedTransaction) -> dict[str, Any]:
    """The transaction's message as a `UiParsedMessage`."""
    msg = tx.message
    keys = list(msg.account_keys)
    signers = msg.header.num_required_signatures
    out: dict[str, Any] = {
        "accountKeys": [
            {
                "pubkey": str(k),
                "signer": i < signers,
                "source": "transaction",
                "writable": is_writable(i, msg, len(keys)),
            }
            for i, k in enumerate(keys)
        ],
        "recentBlockhash": str(msg.recent_blockhash),
        "instructions": [
            instruction(keys, ix.program_id_index, list(bytes(ix.accounts)), bytes(ix.data), None)
            for ix in msg.instructions
        ],
    }
    if isinstance(msg, MessageV0):
        out["addressTableLookups"] = []
    return out


def inner_instructions(tx: VersionedTransaction, inner: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The meta's inner instructions (svm._inner_json's compiled form), parsed the same way."""
    keys = list(tx.message.account_keys)
    return [
        {
            "index": group["index"],
            "instructions": [
                instruction(keys, i["programIdIndex"], i["accounts"], base58.b58decode(i["data"]), i["stackHeight"])
                for i in group["instructions"]
            ],
        }
        for group in inner
    ]
