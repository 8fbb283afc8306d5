"""The ecosystem's own Solana clients (Node: @solana/web3.js, @coral-xyz/anchor, @solana/kit,
@solana/spl-token) against the devstack chain and its PubSub websocket: `node --test tests/node/`
(tests/node/chain_clients.test.mjs) on a coin launched by the service's own launch code.

Node is the machine's (Debian's `nodejs`, 20+); the packages come from tests/node/package-lock.json,
installed by `make test` (`npm ci`, the Makefile's `.node-clients`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from solders.keypair import Keypair

from testkit.chain import airdrop, new_coin

ROOT = Path(__file__).resolve().parents[2]
NODE_TESTS = ROOT / "tests" / "node"


def test_node_clients_confirm_and_read_on_the_devstack_chain(chain):
    node = shutil.which("node")
    if node is None or not (NODE_TESTS / "node_modules" / "@solana" / "web3.js").is_dir():
        pytest.fail("node or tests/node/node_modules missing: run `make test` (it runs `npm ci` in tests/node)")
    payer = Keypair()
    airdrop(chain.url, str(payer.pubkey()), 5 * 10**9)
    mint = new_coin(chain.url, "Node Client Coin", "NODE")
    env = {
        **os.environ,
        "RPC_URL": chain.url,
        "WS_URL": chain.ws_url,
        "PAYER_SECRET": json.dumps(list(bytes(payer))),
        "MINT": str(mint),
        "COIN_NAME": "Node Client Coin",
        "COIN_SYMBOL": "NODE",
        "IDL_PATH": str(ROOT / "idl" / "launchpad.json"),
    }
    run = subprocess.run(
        [node, "--test", "--test-reporter=spec", "chain_clients.test.mjs"],
        cwd=NODE_TESTS,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    print(run.stdout[-6000:], run.stderr[-3000:])
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    for name in ("web3.js sendAndConfirmTransaction", "@solana/kit", "@solana/spl-token", "logsSubscribe"):
        assert f"✔ {name}" in run.stdout, run.stdout[-4000:]
