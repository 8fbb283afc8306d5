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


def block_engine(bundle_url: str, method: str, params: Any = None, **headers: str) -> httpx.Response:
    """One raw call to the block engine; the whole HTTP response (refusals answer 400, the rate limit 429)."""
    body = {"jsonrpc": "2.0", "id": next(_ids), "method": method, "params": params if params is not None else []}
    return httpx.post(bundle_url, json=body, headers=headers, timeout=10.0)


def send_bundle(bundle_url: str, txs: list[VersionedTransaction]) -> str:
    """sendBundle (base64); the bundle id (the call must be accepted)."""
    r = block_engine(bundle_url, "sendBundle", [[b64(t) for t in txs], {"encoding": "base64"}])
    body = r.json()
    if r.status_code != 200 or "error" in body:
        raise AssertionError(f"sendBundle refused: {r.status_code} {body}")
    return body["result"]


def wait_bundle(bundle_url: str, bundle_id: str, *, timeout: float = 15.0) -> dict[str, Any]:
    """Poll getInflightBundleStatuses until the bundle is no longer Pending; its entry."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        r = block_engine(bundle_url, "getInflightBundleStatuses", [[bundle_id]])
        if r.status_code == 200:
            entry = r.json()["result"]["value"][0]
            if entry["status"] != "Pending":
                return entry
        if time.monotonic() > deadline:
            raise AssertionError(f"bundle {bundle_id} still pending after {timeout} s")
        time.sleep(0.05)
