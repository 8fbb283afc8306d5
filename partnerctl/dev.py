"""`partnerctl dev ...`: devstack chain helpers (they talk to the devstack chain's JSON-RPC)."""

from __future__ import annotations

import argparse
import os
from typing import Any

import httpx


def _rpc(method: str, params: list[Any]) -> Any:
    url = os.environ.get("RPC_URL", "http://127.0.0.1:8899")
    response = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, timeout=30)
    response.raise_for_status()
    body = response.json()
    if "error" in body:
        raise ValueError(f"{method}: {body['error'].get('message')}")
    return body["result"]


def airdrop(pubkey: str, lamports: int) -> dict[str, Any]:
    signature = _rpc("requestAirdrop", [pubkey, lamports])
    return {"pubkey": pubkey, "lamports": lamports, "signature": signature}


def add_parser(top: argparse._SubParsersAction) -> None:
    dev = top.add_parser("dev", help="devstack chain helpers").add_subparsers(dest="cmd", required=True)
    drop = dev.add_parser("airdrop", help="give a public key lamports on the devstack chain")
    drop.add_argument("pubkey")
    drop.add_argument("lamports", type=int)
    warp = dev.add_parser(
        "warp",
        help="move the devstack's clock forward: the chain's and, under `make run`, the service's (token "
        "lifetimes, upload expiry, consent-form age, rate-limit windows)",
    )
    warp.add_argument("seconds", type=int, help="seconds of unix time, and slots at 0.4 s each")
    coin = dev.add_parser("coin", help="coins made directly on the chain, not through the API").add_subparsers(
        dest="coincmd", required=True
    )
    ccreate = coin.add_parser("create", help="a coin on a fresh curve, its creator a user's wallet")
    ccreate.add_argument("--creator", required=True, help="user id of the creator (pays the rent)")
    ccreate.add_argument("--name", default="Devstack Coin")
    ccreate.add_argument("--symbol", default="DEV")
    dev.add_parser("crank", help="run the migrator now: migrate every completed curve into its pool")
    cwallet = dev.add_parser("crank-wallet", help="create (once) the migrator's service wallet, service-crank")
    cwallet.add_argument("--sol", type=int, default=None, help="lamports to airdrop to it (devstack)")
    add_fault_parser(dev)


def run(args: argparse.Namespace) -> Any:
    if args.cmd == "airdrop":
        return airdrop(args.pubkey, args.lamports)
    if args.cmd == "warp":
        return _rpc("devstack_warp", [args.seconds])
    if args.cmd == "coin":
        return create_coin(args.creator, args.name, args.symbol)
    if args.cmd == "crank":
        return crank()
    if args.cmd == "crank-wallet":
        return crank_wallet(args.sol)
    if args.cmd == "fault":
        return fault(args)
    raise SystemExit(f"unknown dev command {args.cmd}")


def create_coin(creator_user_id: str, name: str, symbol: str) -> dict[str, Any]:
    """A coin on a fresh curve, created directly on the chain (not through the API)."""
    from partner.chain.rpc import Rpc
    from partner.store.users import get_user
    from partner.store.wallets import SealedWalletSigner
    from partnerctl.coins import create_coin_now

    user = get_user(creator_user_id)
    if user is None:
        raise LookupError(f"no user {creator_user_id}")
    rpc = Rpc(os.environ.get("RPC_URL", "http://127.0.0.1:8899"))
    return {"mint": create_coin_now(rpc, SealedWalletSigner(user), name, symbol)}


# ---------------------------------------------------------------- dev fault
CHAIN_FAULTS = {"rpc": ("down", "slow", "error", "drop"), "bundle": ("down", "slow", "error", "drop")}
AWS_FAULTS = {
    "kms": ("throttle", "error", "down"),
    "dynamodb": ("throttle", "error", "down"),
    "pinning": ("throttle", "error", "down"),
}
FAULTS_PATH = "/_devstack/faults"


def add_fault_parser(dev: argparse._SubParsersAction) -> None:
    targets = ", ".join([*CHAIN_FAULTS, *AWS_FAULTS])
    fault_cmd = dev.add_parser(
        "fault",
        help="inject failures for tests: TARGET MODE, or `clear`",
        description=f"Targets: {targets}. rpc/bundle modes: down slow error drop (the devstack chain); "
        "kms/dynamodb/pinning modes: throttle error down (the gateway's process).",
    )
    fault_cmd.add_argument("target", help=f"{targets}, or clear")
    fault_cmd.add_argument("mode", nargs="?")
    fault_cmd.add_argument("--count", type=int, default=None, help="fault the next N matching calls only")
    fault_cmd.add_argument(
        "--methods",
        default=None,
        help="comma-separated RPC methods (rpc/bundle) or API operations (kms/dynamodb/pinning)",
    )
    fault_cmd.add_argument("--delay-ms", type=int, default=None, help="slow mode's delay (rpc/bundle)")


def _gateway_url() -> str:
    url = os.environ.get("GATEWAY_URL")
    if not url:
        import json
        from pathlib import Path

        path = Path(os.environ.get("PARTNER_DEVSTACK_ENV", ".devstack/env.json"))
        if path.exists():
            url = json.loads(path.read_text()).get("GATEWAY_URL")
    return (url or "http://127.0.0.1:3000").rstrip("/")


def _gateway(method: str, body: dict[str, Any] | None = None, params: dict[str, str] | None = None) -> Any:
    url = _gateway_url() + FAULTS_PATH
    try:
        response = httpx.request(method, url, json=body, params=params, timeout=30)
    except httpx.HTTPError as exc:
        raise ValueError(f"the devstack gateway at {url} is not reachable ({exc})") from exc
    payload = response.json()
    if response.status_code != 200:
        raise ValueError(f"{FAULTS_PATH}: {payload.get('message', response.status_code)}")
    return payload


def set_fault(
    target: str, mode: str, count: int | None = None, methods: list[str] | None = None, delay_ms: int | None = None
) -> dict[str, Any]:
    if count is not None and count < 1:
        raise ValueError("--count must be a positive integer")
    if target in CHAIN_FAULTS:
        if mode not in CHAIN_FAULTS[target]:
            raise ValueError(f"{target} modes: {', '.join(CHAIN_FAULTS[target])}")
        spec: dict[str, Any] = {"target": target, "mode": mode}
        if count is not None:
            spec["count"] = count
        if methods:
            spec["methods"] = methods
        if delay_ms is not None:
            spec["delayMs"] = delay_ms
        return _rpc("devstack_setFault", [spec])
    if target in AWS_FAULTS:
        if mode not in AWS_FAULTS[target]:
            raise ValueError(f"{target} modes: {', '.join(AWS_FAULTS[target])}")
        if delay_ms is not None:
            raise ValueError("--delay-ms applies to rpc and bundle faults only")
        body: dict[str, Any] = {"target": target, "mode": mode}
        if count is not None:
            body["count"] = count
        if methods:
            body["operations"] = methods
        return _gateway("POST", body)
    raise ValueError(f"unknown fault target {target}; one of {', '.join([*CHAIN_FAULTS, *AWS_FAULTS])} or clear")


def clear_faults() -> dict[str, Any]:
    """Clear the chain's and the gateway's faults; an unreachable part is reported, not fatal."""
    out: dict[str, Any] = {}
    try:
        out["chain"] = _rpc("devstack_clearFaults", [])
    except (httpx.HTTPError, ValueError) as exc:
        out["chain"] = f"not cleared: {exc}"
    try:
        out["gateway"] = _gateway("DELETE")
    except ValueError as exc:
        out["gateway"] = f"not cleared: {exc}"
    return out


def fault(args: argparse.Namespace) -> Any:
    if args.target == "clear":
        if args.mode is not None:
            raise ValueError("usage: partnerctl dev fault clear")
        return clear_faults()
    if args.mode is None:
        raise ValueError("usage: partnerctl dev fault TARGET MODE [--count N] [--methods m1,m2] [--delay-ms N]")
    methods = [m.strip() for m in args.methods.split(",") if m.strip()] if args.methods else None
    return set_fault(args.target, args.mode, args.count, methods, args.delay_ms)


def crank_wallet(lamports: int | None = None) -> dict[str, Any]:
    """The migrator's service wallet (idempotent); optionally funded on the devstack chain."""
    from partnerctl import admin

    wallet = admin.create_crank_wallet()
    if lamports:
        airdrop(wallet["wallet"], lamports)
        wallet["lamports"] = lamports
    return wallet


def crank() -> dict[str, Any]:
    """One migrator run now, with the crank wallet: the per-mint summary."""
    from partner.jobs import migration

    return migration.run()
