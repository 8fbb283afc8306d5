"""Throughput of the devstack chain on each engine (python: the Python bank; litesvm: LiteSVM).

    .venv/bin/python -m bench.chain_engines [--tx 1000] [--rounds 3] [--engines python litesvm] [--json]

Per engine, transactions per second for:
* ``transfer_inproc``: a SOL transfer through ``bank.process_transaction`` (under the lock the
  server holds), i.e. the engine alone;
* ``transfer_rpc``: the same over JSON-RPC ``sendTransaction`` (preflight on, as the service
  sends), i.e. engine + façade + HTTP;
* ``buy_inproc``: a launchpad curve ``buy`` (the service's builder, ``partner.chain.instructions``)
  on a coin created for the run, when the engine has the launchpad (the litesvm engine needs
  ``make programs``).
Every transaction is checked to have landed without error; failures are counted, not timed away.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

SOL = 1_000_000_000


def _transfers(n: int, blockhash: Any, payer: Any, offset: int = 0) -> list[Any]:
    from solders.keypair import Keypair
    from solders.message import Message
    from solders.system_program import TransferParams, transfer
    from solders.transaction import VersionedTransaction

    out = []
    for i in range(n):
        ix = transfer(TransferParams(from_pubkey=payer.pubkey(), to_pubkey=Keypair().pubkey(),
                                     lamports=1_000_000 + offset + i))
        out.append(VersionedTransaction(Message.new_with_blockhash([ix], payer.pubkey(), blockhash), [payer]))
    return out


def _process(bank: Any, tx: Any) -> bool:
    from devstack.chain.bank import TxError

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
    import httpx
    from solders.hash import Hash

    failed, sent_s = 0, 0.0
    with httpx.Client(timeout=30) as http:
        for start in range(0, n, batch):
            bh = Hash.from_string(http.post(handle.url, json={"jsonrpc": "2.0", "id": 0, "method": "getLatestBlockhash"})
                                  .json()["result"]["value"]["blockhash"])
            wires = [base64.b64encode(bytes(tx)).decode() for tx in _transfers(min(batch, n - start), bh, payer, start)]
            t0 = time.perf_counter()
            for i, wire in enumerate(wires):
                body = http.post(handle.url, json={"jsonrpc": "2.0", "id": i, "method": "sendTransaction",
                                                   "params": [wire, {"encoding": "base64"}]}).json()
                failed += "error" in body
            sent_s += time.perf_counter() - t0
    return {"tps": round(n / sent_s, 1), "failed": failed}


def _builders(engine: str) -> tuple[Any, Any]:
    """(create_coin(creator, mint), buy(user, mint, sol_in)) for the engine's launchpad: the
    service's builders (the SBF programs' IDL) on litesvm, the Python engine's frozen
    pre-switch builders (devstack.chain.legacy) on python."""
    from devstack.chain.programs import FEE_RECIPIENT

    if engine == "litesvm":
        from partner.chain import instructions as ix
    else:
        from devstack.chain.legacy import instructions as ix
    return (lambda c, m: ix.create_coin(c, m, "Bench", "BNCH", "https://b/x"),
            lambda u, m, sol: ix.buy(u, m, FEE_RECIPIENT, sol, 1))


def _buys(bank: Any, n: int, engine: str) -> dict[str, Any]:
    """n first buys, one per fresh user (each also creates the user's token account)."""
    from solders.keypair import Keypair
    from solders.message import Message
    from solders.transaction import VersionedTransaction

    from partner.chain import instructions as ix

    create_coin, buy = _builders(engine)
    creator, mint = Keypair(), Keypair()
    with bank.lock:
        bank.airdrop(creator.pubkey(), 1000 * SOL)
        bh = bank.latest_blockhash()[0]
        msg = Message.new_with_blockhash([ix.set_compute_unit_limit(400_000), create_coin(creator.pubkey(), mint.pubkey())],
                                         creator.pubkey(), bh)
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
        ixs = [ix.set_compute_unit_limit(200_000)]
        if engine == "python":  # today's builders create the token account in a separate instruction
            ixs.append(ix.create_associated_token_account_idempotent(u.pubkey(), u.pubkey(), mint.pubkey()))
        ixs.append(buy(u.pubkey(), mint.pubkey(), 10_000_000))
        txs.append(VersionedTransaction(Message.new_with_blockhash(ixs, u.pubkey(), bh), [u]))
    return _timed(bank, txs)


def measure(n: int, engines: tuple[str, ...] = ("python", "litesvm")) -> dict[str, Any]:
    from solders.keypair import Keypair

    from devstack.chain.server import start_chain

    out: dict[str, Any] = {"transactions": n}
    for engine in engines:
        fig: dict[str, Any] = {}
        try:
            handle = start_chain(port=0, engine=engine)
            programs = True
        except Exception as e:  # the litesvm engine without `make programs`
            handle = start_chain(port=0, engine=engine, plugins=False)
            programs = False
            fig["programs"] = f"not installed: {e}"
        try:
            bank = handle.bank
            payer = Keypair()
            with bank.lock:
                bank.airdrop(payer.pubkey(), 1000 * SOL)
                bh = bank.latest_blockhash()[0]
            fig["transfer_inproc"] = _timed(bank, _transfers(n, bh, payer))
            payer2 = Keypair()
            with bank.lock:
                bank.airdrop(payer2.pubkey(), 1000 * SOL)
            fig["transfer_rpc"] = _rpc(handle, payer2, n)
            if programs:
                fig["buy_inproc"] = _buys(bank, max(1, n // 4), engine)
        finally:
            handle.stop()
        out[engine] = fig
    return out


def measure_rounds(n: int, engines: tuple[str, ...], rounds: int) -> dict[str, Any]:
    """``rounds`` alternating runs of every engine (a shared, busy machine drifts); the median
    figure of each measurement, and its spread."""
    import statistics

    runs = [measure(n, engines) for _ in range(rounds)]
    out: dict[str, Any] = {"transactions": n, "rounds": rounds}
    for engine in engines:
        fig: dict[str, Any] = {}
        for key, first in runs[0][engine].items():
            if not (isinstance(first, dict) and "tps" in first):
                fig[key] = first
                continue
            tps = sorted(r[engine][key]["tps"] for r in runs)
            fig[key] = {"tps": round(statistics.median(tps), 1), "min": tps[0], "max": tps[-1],
                        "failed": sum(r[engine][key]["failed"] for r in runs)}
        out[engine] = fig
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tx", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=1, help="alternating runs; figures are medians")
    ap.add_argument("--engines", nargs="*", default=["python", "litesvm"])
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    res = measure_rounds(a.tx, tuple(a.engines), a.rounds)
    if a.json:
        print(json.dumps(res, indent=2))
        return 0
    print(f"devstack chain throughput, {a.tx} transactions, median of {a.rounds} (tx/s; failed)")
    for engine in a.engines:
        fig = res[engine]
        row = [f"{k} {v['tps']} ({v['failed']})" if "tps" in v else f"{k} {v}" for k, v in fig.items()
               if isinstance(v, dict)]
        print(f"  {engine:8s} " + "  ".join(row) + (f"  [{fig['programs']}]" if "programs" in fig else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
