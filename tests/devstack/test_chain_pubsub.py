"""The devstack chain's PubSub websocket (devstack/chain/pubsub.py): Agave's subscribe, notify and
unsubscribe shapes for every method, commitment as the ledger's views hold it, solana-py's own
websocket client against it, and a reader that never reads does not hold the chain up."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
from typing import Any

import pytest
from solders.keypair import Keypair
from solders.signature import Signature
from websockets.asyncio.client import connect

from devstack.chain import pubsub as pubsub_module
from devstack.chain.server import start_chain

SYSTEM = "11111111111111111111111111111111"


@pytest.fixture(scope="module")
def chain():
    handle = start_chain(port=0, plugins=False)
    yield handle
    handle.stop()


def rpc(chain, method: str, params: list[Any]) -> Any:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    req = urllib.request.Request(chain.url, data=body, headers={"Content-Type": "application/json"})
    answer = json.loads(urllib.request.urlopen(req, timeout=10).read())
    assert "error" not in answer, answer
    return answer["result"]


def airdrop(chain, lamports: int = 10**9) -> tuple[str, str]:
    """(wallet, signature) of an airdrop to a new wallet."""
    wallet = str(Keypair().pubkey())
    return wallet, rpc(chain, "requestAirdrop", [wallet, lamports])


class Client:
    """A raw JSON-RPC websocket client: requests by id, notifications by subscription."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.ids = iter(range(1, 10**6))

    async def request(self, method: str, params: list[Any] | None = None) -> dict[str, Any]:
        rid = next(self.ids)
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            message["params"] = params
        await self.ws.send(json.dumps(message))
        while True:
            answer = json.loads(await asyncio.wait_for(self.ws.recv(), 10))
            if answer.get("id") == rid:
                return answer

    async def subscribe(self, method: str, params: list[Any] | None = None) -> int:
        answer = await self.request(method, params)
        assert set(answer) == {"jsonrpc", "result", "id"} and isinstance(answer["result"], int), answer
        return answer["result"]

    async def notification(self, sub: int, timeout: float = 10) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            m = json.loads(await asyncio.wait_for(self.ws.recv(), max(deadline - time.monotonic(), 0.01)))
            if m.get("params", {}).get("subscription") == sub:
                assert m["jsonrpc"] == "2.0" and set(m["params"]) == {"result", "subscription"}
                return m

    async def none_for(self, sub: int, seconds: float) -> None:
        with pytest.raises(TimeoutError):
            await self.notification(sub, seconds)


def run(chain, scenario) -> Any:
    async def main() -> Any:
        async with connect(chain.ws_url) as ws:
            return await scenario(Client(ws))

    return asyncio.run(main())


def test_the_websocket_is_on_the_rpc_port_plus_one_when_the_port_is_fixed():
    import socket

    for _ in range(20):  # a free port whose successor is free too
        with socket.socket() as a, socket.socket() as b:
            a.bind(("127.0.0.1", 0))
            port = a.getsockname()[1]
            try:
                b.bind(("127.0.0.1", port + 1))
            except OSError:
                continue
        break
    handle = start_chain(port=port, plugins=False)
    try:
        assert handle.ws_url == f"ws://127.0.0.1:{port + 1}"
    finally:
        handle.stop()


def test_signature_subscribe_at_confirmed_waits_for_the_confirmed_view(chain):
    async def scenario(c: Client):
        wallet, sig = airdrop(chain)
        sub = await c.subscribe("signatureSubscribe", [sig, {"commitment": "confirmed"}])
        note = await c.notification(sub)
        status = rpc(chain, "getSignatureStatuses", [[sig]])["value"][0]
        assert status["confirmationStatus"] in ("confirmed", "finalized")  # not sent while only processed
        assert note["method"] == "signatureNotification"
        assert note["params"]["result"] == {"context": {"slot": status["slot"]}, "value": {"err": None}}
        # one notification, then the subscription is gone (Agave's auto-unsubscribe)
        gone = await c.request("signatureUnsubscribe", [sub])
        assert gone["error"] == {"code": -32602, "message": "Invalid subscription id."}

    run(chain, scenario)


def test_a_processed_notification_comes_before_the_confirmed_view_holds_it(chain):
    async def scenario(c: Client):
        wallet, sig = airdrop(chain)
        processed = await c.subscribe("signatureSubscribe", [sig, {"commitment": "processed"}])
        await c.notification(processed, 2)
        assert rpc(chain, "getSignatureStatuses", [[sig]])["value"][0]["confirmationStatus"] == "processed"

    run(chain, scenario)


def test_received_then_final_notification_and_an_already_landed_signature(chain):
    async def scenario(c: Client):
        _, sig = airdrop(chain)
        sub = await c.subscribe(
            "signatureSubscribe", [sig, {"commitment": "confirmed", "enableReceivedNotification": True}]
        )
        first = await c.notification(sub)
        assert first["params"]["result"]["value"] == "receivedSignature"
        second = await c.notification(sub)
        assert second["params"]["result"]["value"] == {"err": None}
        # subscribing after it is confirmed: notified at once
        late = await c.subscribe("signatureSubscribe", [sig, {"commitment": "confirmed"}])
        assert (await c.notification(late, 2))["params"]["result"]["value"] == {"err": None}

    run(chain, scenario)


def test_account_subscribe_notifies_the_state_the_rpc_serves(chain):
    async def scenario(c: Client):
        wallet = str(Keypair().pubkey())
        sub = await c.subscribe("accountSubscribe", [wallet, {"commitment": "confirmed", "encoding": "base64"}])
        rpc(chain, "requestAirdrop", [wallet, 3 * 10**9])
        note = await c.notification(sub)
        assert note["method"] == "accountNotification"
        value, slot = note["params"]["result"]["value"], note["params"]["result"]["context"]["slot"]
        served = rpc(chain, "getAccountInfo", [wallet, {"commitment": "confirmed", "encoding": "base64"}])
        assert value == served["value"] and value["lamports"] == 3 * 10**9 and value["owner"] == SYSTEM
        assert slot <= served["context"]["slot"]
        assert (await c.request("accountUnsubscribe", [sub]))["result"] is True
        rpc(chain, "requestAirdrop", [wallet, 1])
        await c.none_for(sub, 1.5)

    run(chain, scenario)


def test_logs_subscribe_all_and_mentions(chain):
    async def scenario(c: Client):
        wallet = str(Keypair().pubkey())
        everything = await c.subscribe("logsSubscribe", ["all", {"commitment": "processed"}])
        mentions = await c.subscribe("logsSubscribe", [{"mentions": [wallet]}, {"commitment": "confirmed"}])
        _, other = airdrop(chain)
        note = await c.notification(everything)
        assert note["method"] == "logsNotification"
        assert note["params"]["result"]["value"]["signature"] == other
        assert note["params"]["result"]["value"]["err"] is None
        assert any(
            "11111111111111111111111111111111 success" in line for line in note["params"]["result"]["value"]["logs"]
        )
        await c.none_for(mentions, 1.0)  # another wallet's transaction
        ours = rpc(chain, "requestAirdrop", [wallet, 10**9])
        while (await c.notification(mentions))["params"]["result"]["value"]["signature"] != ours:
            pass
        bad = await c.request("logsSubscribe", [{"mentions": [wallet, wallet]}])
        assert bad["error"]["code"] == -32602

    run(chain, scenario)


def test_program_subscribe_with_filters(chain):
    async def scenario(c: Client):
        empty = await c.subscribe(
            "programSubscribe",
            [SYSTEM, {"commitment": "confirmed", "encoding": "base64", "filters": [{"dataSize": 0}]}],
        )
        sized = await c.subscribe(
            "programSubscribe", [SYSTEM, {"commitment": "confirmed", "filters": [{"dataSize": 9}]}]
        )
        wallet, _ = airdrop(chain)
        seen = set()
        while wallet not in seen:
            note = await c.notification(empty)
            assert note["method"] == "programNotification"
            value = note["params"]["result"]["value"]
            assert set(value) == {"pubkey", "account"} and value["account"]["owner"] == SYSTEM
            seen.add(value["pubkey"])
        await c.none_for(sized, 1.0)
        bad = await c.request("programSubscribe", [SYSTEM, {"filters": [{"nope": 1}]}])
        assert bad["error"]["code"] == -32602

    run(chain, scenario)


def test_slot_and_root_subscriptions(chain):
    async def scenario(c: Client):
        slots = await c.subscribe("slotSubscribe")
        roots = await c.subscribe("rootSubscribe")
        first = (await c.notification(slots))["params"]["result"]
        assert set(first) == {"parent", "root", "slot"} and first["parent"] == first["slot"] - 1
        root = (await c.notification(roots))["params"]["result"]
        assert isinstance(root, int) and root <= first["slot"]
        assert (await c.request("slotUnsubscribe", [slots]))["result"] is True
        assert (await c.request("rootUnsubscribe", [roots]))["result"] is True

    run(chain, scenario)


def test_errors_as_agave(chain):
    async def scenario(c: Client):
        assert (await c.request("nopeSubscribe", []))["error"] == {"code": -32601, "message": "Method not found"}
        assert (await c.request("slotUnsubscribe", [987654]))["error"]["code"] == -32602
        assert (await c.request("accountSubscribe", ["not-a-key"]))["error"]["code"] == -32602
        assert (await c.request("signatureSubscribe", ["xyz"]))["error"]["code"] == -32602
        await c.ws.send("{not json")
        assert json.loads(await c.ws.recv())["error"]["code"] == -32700

    run(chain, scenario)


def test_solana_py_websocket_client(chain):
    """solana-py's own websocket client (solana.rpc.websocket_api) subscribes and is notified."""
    from solana.rpc.websocket_api import SolanaWsClient

    async def main() -> None:
        async with SolanaWsClient(chain.ws_url) as ws:
            _, sig = airdrop(chain)
            await ws.signature_subscribe(signature=Signature.from_string(sig), commitment="confirmed")
            note = await asyncio.wait_for(ws.recv(), 10)
            assert type(note).__name__ == "SignatureNotification"
            assert note.result.value.err is None

    asyncio.run(main())


def test_a_reader_that_never_reads_does_not_hold_up_the_chain(chain):
    """A subscriber that stops reading: transactions keep landing at their usual pace and other
    subscribers are notified of each."""

    async def scenario(c: Client):
        async with connect(chain.ws_url, max_queue=1) as stalled:
            stalled_client = Client(stalled)
            await stalled_client.subscribe("logsSubscribe", ["all", {"commitment": "processed"}])
            await stalled_client.subscribe("slotSubscribe")
            watched = await c.subscribe("logsSubscribe", ["all", {"commitment": "processed"}])
            started = time.monotonic()
            sigs = {airdrop(chain)[1] for _ in range(60)}
            took = time.monotonic() - started
            seen: set[str] = set()
            while not sigs <= seen:
                seen.add((await c.notification(watched))["params"]["result"]["value"]["signature"])
            assert took < 30, took

    run(chain, scenario)


def test_a_full_queue_drops_the_connection():
    """Agave drops a subscriber whose queue is full; so does the devstack (close code 1008)."""
    closed: list[tuple[int, str]] = []

    class FakeWs:
        async def close(self, code: int, reason: str) -> None:
            closed.append((code, reason))

    async def main() -> None:
        conn = pubsub_module._Conn(FakeWs())
        for i in range(pubsub_module.MAX_QUEUED + 1):
            conn.push({"n": i})
        await asyncio.sleep(0)
        assert conn.closed and conn.queue.qsize() == pubsub_module.MAX_QUEUED
        conn.push({"n": -1})  # nothing more is queued
        assert conn.queue.qsize() == pubsub_module.MAX_QUEUED

    asyncio.run(main())
    assert closed == [(1008, "notification queue full")]
