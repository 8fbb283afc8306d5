"""Helpers for tests that drive the devstack chain over JSON-RPC (used by tests/devstack/test_chain_*.py)."""

from __future__ import annotations

import base64
import itertools
import time
from typing import Any

import httpx
from solders.hash import Hash
from solders.instruction import Instruction
from solders.keypair import Keypair
from solders.message import Message, MessageV0
from solders.transaction import VersionedTransaction

_ids = itertools.count(1)


# Where each method that takes a commitment has its config, and the config key naming it.
COMMITMENT_CONFIG: dict[str, tuple[int, str]] = {
    **{m: (0, "commitment") for m in ("getSlot", "getBlockHeight", "getEpochInfo", "getLatestBlockhash")},
    **{
        m: (1, "commitment")
        for m in (
            "getAccountInfo",
            "getBalance",
            "getMultipleAccounts",
            "getProgramAccounts",
            "getTokenAccountBalance",
            "getTokenSupply",
            "isBlockhashValid",
            "simulateTransaction",
            "getTransaction",
        )
    },
    **{m: (2, "commitment") for m in ("getTokenAccountsByOwner", "getTokenAccountsByDelegate")},
    "sendTransaction": (1, "preflightCommitment"),
}
CONFIRMED_WAIT_SECONDS = 5.0


def with_commitment(method: str, params: Any) -> Any:
    """``params`` naming a commitment when the caller named none: ``processed`` (tests look at
    the newest state, as an explorer set to processed does), ``confirmed`` for getTransaction
    (the lowest it takes). A node's own default, ``finalized``, is what a caller gets by
    sending the request raw (tests/devstack/test_chain_commitment.py)."""
    where = COMMITMENT_CONFIG.get(method)
    if where is None or not isinstance(params, list):
        return params
    index, key = where
    level = "confirmed" if method == "getTransaction" else "processed"
    params = list(params)
    while len(params) < index:
        params.append(None)
    if len(params) == index or params[index] is None:
        params[index : index + 1] = [{key: level}]
    elif isinstance(params[index], dict) and params[index].get(key) is None:
        params[index] = {**params[index], key: level}
    return params


def rpc(url: str, method: str, params: Any = None, *, timeout: float = 10.0, raw: bool = False) -> dict[str, Any]:
    """One JSON-RPC call; returns the whole response object ({"result"} or {"error"}). Unless
    ``raw``, a method that takes a commitment reads at ``processed`` when ``params`` names none
    (``with_commitment``), and getTransaction waits (bounded) for its transaction to be
    confirmed, as a client polls."""
    if params is None:
        params = []
    if not raw:
        params = with_commitment(method, params)
    deadline = time.monotonic() + CONFIRMED_WAIT_SECONDS
    while True:
        body = {"jsonrpc": "2.0", "id": next(_ids), "method": method, "params": params}
        r = httpx.post(url, json=body, timeout=timeout)
        r.raise_for_status()
        out = r.json()
        if raw or method != "getTransaction" or out.get("result") is not None or time.monotonic() > deadline:
            return out
        status = httpx.post(
            url,
            json={
                "jsonrpc": "2.0",
                "id": next(_ids),
                "method": "getSignatureStatuses",
                "params": [[params[0]], {"searchTransactionHistory": True}],
            },
            timeout=timeout,
        ).json()
        if not status.get("result", {}).get("value", [None])[0]:
            return out  # unknown to the chain: waiting will not make it appear
        time.sleep(0.1)


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
    msg: Message | MessageV0
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
