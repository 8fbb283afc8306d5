"""Throughput of the devstack chain (every transaction executed in LiteSVM), in transactions per
second (`measure`). The figures of the Python engine, removed since, are kept in ``bench/report.py``.

    .venv/bin/python -m bench.chain_engines [--tx 1000] [--rounds 3] [--json]
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import time
from typing import Any

SOL = 1_000_000_000


def _transfers(n: int, blockhash: Any, payer: Any, offset: int = 0) -> list[Any]:
    from solders.keypair import Keypair
    from solders.message import Message
    from solders.system_program import TransferParams, transfer
    from solders.transaction import VersionedTransaction

    out = []
    for i in range(n):
        ix = transfer(
            TransferParams(from_pubkey=payer.pubkey(), to_pubkey=Keypair().pubkey(), lamports=1_000_000 + offset + i)
        )
        out.append(VersionedTransaction(Message.new_with_blockhash([ix], payer.pubkey(), blockhash), [payer]))
    return out


def _process(bank: Any, tx: Any) -> bool:
    from devstack.chain.ledger import TxError

    with bank.lock:
        try:
            return bank.process_transaction(tx).err is None
        except TxError:
            return False


def _timed(bank: Any, txs: list[Any]) -> dict[str, Any]:
    t0 = time.perf_counter()
    failed = sum(0 if _process(bank, tx) else 1 for tx in txs)
    return {"tps": round(len(txs) / (time.perf_counter() - t0), 1), "failed": failed}


def _rpc(handle: Any, payer: Any, n: int, batch: int = 100) -> dict[str, Any]:
    """n transfers over JSON-RPC sendTransaction, signed in batches, each batch just before it
    is sent with a blockhash fetched then (none expires on the way); only the sends are timed.
    Failures are counted apart, with their messages."""
    from collections import Counter

    import httpx
    from solders.hash import Hash

    failed, sent_s = 0, 0.0
    errors: Counter[str] = Counter()
    with httpx.Client(timeout=30) as http:
        for start in range(0, n, batch):
            bh = Hash.from_string(
                http.post(
                    handle.url,
                    json={
                        "jsonrpc": "2.0",
                        "id": 0,
                        "method": "getLatestBlockhash",
                        "params": [{"commitment": "confirmed"}],
                    },
                ).json()["result"]["value"]["blockhash"]
            )
            wires = [base64.b64encode(bytes(tx)).decode() for tx in _transfers(min(batch, n - start), bh, payer, start)]
            t0 = time.perf_counter()
            for i, wire in enumerate(wires):
                body = http.post(
                    handle.url,
                    json={
                        "jsonrpc": "2.0",
                        "id": start + i,
                        "method": "sendTransaction",
                        "params": [wire, {"encoding": "base64", "preflightCommitment": "processed"}],
                    },
                ).json()
                if "error" in body:
                    failed += 1
                    errors[str(body["error"].get("message", body["error"]))[:120]] += 1
            sent_s += time.perf_counter() - t0
    return {
        "tps": round(n / sent_s, 1),
        "ok_tps": round((n - failed) / sent_s, 1),
        "failed": failed,
        "errors": dict(errors),
    }


def _buys(bank: Any, n: int) -> dict[str, Any]:
    """n first buys, one per fresh user (each also creates the user's token account)."""
    from solders.keypair import Keypair
    from solders.message import Message
    from solders.transaction import VersionedTransaction

    from devstack.chain.genesis import FEE_RECIPIENT
    from partner.chain import instructions as ix

    creator, mint = Keypair(), Keypair()
    with bank.lock:
        bank.airdrop(creator.pubkey(), 1000 * SOL)
        bh = bank.latest_blockhash()[0]
        msg = Message.new_with_blockhash(
            [
                ix.set_compute_unit_limit(400_000),
                ix.create_coin(creator.pubkey(), mint.pubkey(), "Bench", "BNCH", "https://b/x"),
            ],
            creator.pubkey(),
            bh,
        )
        r = bank.process_transaction(VersionedTransaction(msg, [creator, mint]))
        if r.err is not None:
            return {"error": f"create_coin: {r.err}"}
    users = [Keypair() for _ in range(n)]
    txs = []
    with bank.lock:
        for u in users:
            bank.airdrop(u.pubkey(), SOL)
        bank.warp(0.4)  # trading opens on the slot after creation
        bh = bank.latest_blockhash()[0]
    for u in users:
        ixs = [ix.set_compute_unit_limit(200_000), ix.buy(u.pubkey(), mint.pubkey(), FEE_RECIPIENT, 10_000_000, 1)]
        txs.append(VersionedTransaction(Message.new_with_blockhash(ixs, u.pubkey(), bh), [u]))
    return _timed(bank, txs)


def measure(n: int) -> dict[str, Any]:
    """Transactions per second for ``transfer_inproc`` (a SOL transfer through
    ``bank.process_transaction``, under the lock the server holds: LiteSVM plus its ledger),
    ``transfer_rpc`` (the same over JSON-RPC ``sendTransaction``, preflight on: execution + façade +
    HTTP) and ``buy_inproc`` (a launchpad curve ``buy`` built by ``partner.chain.instructions``, on a
    coin created for the run, on the SBF launchpad). Every transaction is checked to have landed
    without error; failures are counted, not timed away."""
    from solders.keypair import Keypair

    from devstack.chain.server import start_chain

    out: dict[str, Any] = {"transactions": n}
    handle = start_chain(port=0)
    try:
        bank = handle.bank
        payer = Keypair()
        with bank.lock:
            bank.airdrop(payer.pubkey(), 1000 * SOL)
            bh = bank.latest_blockhash()[0]
        out["transfer_inproc"] = _timed(bank, _transfers(n, bh, payer))
        payer2 = Keypair()
        with bank.lock:
            bank.airdrop(payer2.pubkey(), 1000 * SOL)
        out["transfer_rpc"] = _rpc(handle, payer2, n)
        out["buy_inproc"] = _buys(bank, max(1, n // 4))
    finally:
        handle.stop()
    return out


def measure_rounds(n: int, rounds: int) -> dict[str, Any]:
    """``rounds`` runs (a shared, busy machine drifts); the median figure of each measurement,
    and its spread."""
    import statistics

    runs = [measure(n) for _ in range(rounds)]
    out: dict[str, Any] = {"transactions": n, "rounds": rounds}
    for key, first in runs[0].items():
        if not (isinstance(first, dict) and "tps" in first):
            if key not in out:
                out[key] = first
            continue
        tps = sorted(r[key]["tps"] for r in runs)
        out[key] = {
            "tps": round(statistics.median(tps), 1),
            "min": tps[0],
            "max": tps[-1],
            "failed": sum(r[key]["failed"] for r in runs),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tx", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=1, help="runs; figures are medians")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    res = measure_rounds(a.tx, a.rounds)
    if a.json:
        print(json.dumps(res, indent=2))
        return 0
    print(f"devstack chain throughput, {a.tx} transactions, median of {a.rounds} (tx/s; failed)")
    print(
        "  "
        + "  ".join(
            f"{k} {v['tps']} ({v['failed']})" if "tps" in v else f"{k} {v}"
            for k, v in res.items()
            if isinstance(v, dict)
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
