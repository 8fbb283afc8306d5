"""The TypeScript SDK (sdks/typescript) against the devstack: `node --test e2e/stack.test.mjs`
with the gateway's URL, a client, a signed-in user's session cookie, a coin and a registered
webhook in the environment. The node test connects through the consent page, reads /me, refreshes,
quotes, buys and sells (followed to confirmed), replays an idempotent write, launches with a first
buy and verifies a webhook delivery. A second node run meets the gateway's throttle (429) and
honours retry-after."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from testkit.chain import airdrop, new_coin, wait

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / "sdks" / "typescript"
SOL = 10**9
REDIRECT = "http://127.0.0.1:9/ts-sdk-callback"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _node(test_file: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    if node is None or not (SDK / "node_modules" / ".ready").exists():
        pytest.fail("node or sdks/typescript/node_modules missing: run `make sdks/typescript/node_modules/.ready`")
    built = subprocess.run(
        [str(SDK / "node_modules" / ".bin" / "tsc"), "-p", "tsconfig.json"], cwd=SDK, capture_output=True, text=True
    )
    assert built.returncode == 0, built.stdout + built.stderr
    return subprocess.run(
        [node, "--test", "--test-reporter=spec", "--test-concurrency=1", test_file],
        cwd=SDK,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=420,
    )


def _client_and_user(chain, name: str) -> tuple[dict, dict, str]:
    from partnerctl import admin

    client = admin.create_client(admin.NewClient(name=name, redirect_uri=REDIRECT, tier="Partner"))
    user = admin.create_user()
    airdrop(chain.url, user["wallet"], 5 * SOL)
    cookie = admin.create_session(user["user_id"])["cookie"]
    return client, user, cookie


def _open_proposal(devstack, chain, mint: str) -> str:
    """Another user buys the bond and proposes (extend-mutability, a 10-minute vote): the proposal."""
    from partnerctl import admin
    from testkit.helpers import connect, gateway_client, partner_client

    fees = {"priorityFeeLamports": "10000", "tipLamports": "1000000"}
    proposer = admin.create_user()
    airdrop(chain.url, proposer["wallet"], 10 * SOL)
    client = partner_client("TS SDK Proposer", daily_volume_cap_lamports=10**15)
    conn = connect(client, proposer, scope="trade:execute governance:propose", ip="172.31.7.1")
    headers = {"Authorization": f"Bearer {conn.access}"}
    bond = 10**15 * 100 // 10_000
    with gateway_client(devstack.url, timeout=30) as http:
        buying = {"mint": mint, "tokensOut": str(bond), "maxSolIn": str(3 * SOL), **fees}
        bought = http.post("/partner/v1/trades/buy-exact-out", headers=headers, json=buying)
        assert bought.status_code == 200, bought.text
        assert wait(chain.url, bought.json()["signature"])["err"] is None
        body = {"mint": mint, "additionalSeconds": "86400", "voteDurationSeconds": "600", **fees}
        created = http.post("/partner/v1/governance/proposals/extend-mutability", headers=headers, json=body)
        assert created.status_code == 200, created.text
        return str(created.json()["proposal"])


def test_ts_sdk_against_the_stack(devstack, chain, capsys):
    from partnerctl.cli import main

    client, user, cookie = _client_and_user(chain, "TS SDK App")
    mint = new_coin(chain.url, "TS SDK Trade Coin", "TSTC")
    proposal = _open_proposal(devstack, chain, str(mint))
    port = _free_port()
    capsys.readouterr()
    url = f"http://127.0.0.1:{port}/webhooks"
    assert main(["--json", "client", "webhook", "set", client["client_id"], url]) == 0
    secret = json.loads(capsys.readouterr().out)["webhook_secret"]
    timer = devstack.start_schedules(0.5)  # the tracker and the webhook poller
    try:
        env = {
            "PARTNER_BASE_URL": devstack.url,
            "CLIENT_ID": client["client_id"],
            "API_KEY": client["api_key"],
            "SESSION_COOKIE": cookie,
            "USER_WALLET": user["wallet"],
            "MINT": str(mint),
            "PROPOSAL": proposal,
            "WEBHOOK_PORT": str(port),
            "WEBHOOK_SECRET": secret,
        }
        run = _node("e2e/stack.test.mjs", env)
    finally:
        timer.stop()
        devstack._owned.remove(timer)
    print(run.stdout[-8000:], run.stderr[-3000:])
    assert run.returncode == 0, run.stdout[-8000:] + run.stderr[-3000:]
    assert "# fail 0" in run.stdout.replace("ℹ", "#")
    for name in (
        "connect through the consent page",
        "followed to confirmed",
        "replayed idempotent",
        "a launch with",
        "webhook",
    ):
        assert name in run.stdout


def test_ts_sdk_honours_the_gateways_429(devstack, chain):
    from testkit.helpers import connect_http, gateway_client

    client, user, _ = _client_and_user(chain, "TS SDK 429 App")
    with gateway_client(devstack.url, timeout=30) as http:
        token = connect_http(http, client, user, "profile:read", REDIRECT)["Authorization"].removeprefix("Bearer ")
    gateway = devstack.gateway.gateway
    saved = gateway.stage_throttle
    gateway.stage_throttle = (2, 2)  # 2 requests a second, a burst of 2: six at once meet a 429
    try:
        run = _node("e2e/ratelimit.test.mjs", {"PARTNER_BASE_URL": devstack.url, "ACCESS_TOKEN": token})
    finally:
        gateway.stage_throttle = saved
    print(run.stdout[-6000:], run.stderr[-3000:])
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    assert "429 honoured" in run.stdout and "surfaces typed" in run.stdout
