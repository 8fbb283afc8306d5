"""Helpers for tests that drive the devstack chain over JSON-RPC (used by tests/devstack/test_chain_*.py)."""

from __future__ import annotations

import base64
import itertools
from typing import Any

import httpx
from solders.hash import Hash
from solders.instruction import Instruction
from solders.keypair import Keypair
from solders.message import Message, MessageV0
from solders.transaction import VersionedTransaction

_ids = itertools.count(1)


def rpc(url: str, method: str, params: Any = None, *, timeout: float = 10.0) -> dict[str, Any]:
    """One raw JSON-RPC call; returns the whole response object ({"result"} or {"error"})."""
    body = {"jsonrpc": "2.0", "id": next(_ids), "method": method, "params": params if params is not None else []}
    r = httpx.post(url, json=body, timeout=timeout)
    r.raise_for_status()
    return r.json()


def result(url: str, method: str, params: Any = None) -> Any:
    resp = rpc(url, method, params)
    if "error" in resp:
        raise AssertionError(f"{method} failed: {resp['error']}")
    return resp["result"]


def latest_blockhash(url: str) -> Hash:
    return Hash.from_string(result(url, "getLatestBlockhash")["value"]["blockhash"])


def build_tx(
    ixs: list[Instruction], payer: Keypair, signers: list[Keypair], blockhash: Hash, *, v0: bool = False
) -> VersionedTransaction:
    if v0:
        msg = MessageV0.try_compile(payer.pubkey(), ixs, [], blockhash)
    else:
        msg = Message.new_with_blockhash(ixs, payer.pubkey(), blockhash)
    uniq: dict[Any, Keypair] = {payer.pubkey(): payer}
    for s in signers:
        uniq.setdefault(s.pubkey(), s)
    return VersionedTransaction(msg, list(uniq.values()))


def b64(tx: VersionedTransaction) -> str:
    return base64.b64encode(bytes(tx)).decode()


def send(url: str, tx: VersionedTransaction, *, skip_preflight: bool = False) -> dict[str, Any]:
    """sendTransaction (base64); returns the raw response object."""
    return rpc(url, "sendTransaction", [b64(tx), {"encoding": "base64", "skipPreflight": skip_preflight}])


def airdrop(url: str, pubkey: Any, lamports: int) -> str:
    return result(url, "requestAirdrop", [str(pubkey), lamports])


def balance(url: str, pubkey: Any) -> int:
    return result(url, "getBalance", [str(pubkey)])["value"]
