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
    drop = dev.add_parser("airdrop")
    drop.add_argument("pubkey")
    drop.add_argument("lamports", type=int)
    warp = dev.add_parser("warp")
    warp.add_argument("seconds", type=int)
    coin = dev.add_parser("coin").add_subparsers(dest="coincmd", required=True)
    ccreate = coin.add_parser("create")
    ccreate.add_argument("--creator", required=True, help="user id of the creator (pays the rent)")
    ccreate.add_argument("--name", default="Devstack Coin")
    ccreate.add_argument("--symbol", default="DEV")


def run(args: argparse.Namespace) -> Any:
    if args.cmd == "airdrop":
        return airdrop(args.pubkey, args.lamports)
    if args.cmd == "warp":
        return _rpc("devstack_warp", [args.seconds])
    if args.cmd == "coin":
        return create_coin(args.creator, args.name, args.symbol)
    raise SystemExit(f"unknown dev command {args.cmd}")


def create_coin(creator_user_id: str, name: str, symbol: str) -> dict[str, Any]:
    """A coin on a fresh curve, created directly on the chain (not through the API)."""
    from partner.chain.rpc import Rpc
    from partner.coins import create_coin_now
    from partner.store.users import get_user
    from partner.wallets import EnvelopeSigner

    user = get_user(creator_user_id)
    if user is None:
        raise LookupError(f"no user {creator_user_id}")
    rpc = Rpc(os.environ.get("RPC_URL", "http://127.0.0.1:8899"))
    return {"mint": create_coin_now(rpc, EnvelopeSigner(user), name, symbol)}
