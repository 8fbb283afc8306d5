"""Transaction lifecycle (issue 11) through the real handlers against moto (server mode, SQS
included) and the devstack chain: the record written before each send, the tracker, the
status endpoint's `expired`, signed webhooks with retries and the dead-letter queue."""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from testkit.chain import airdrop, new_coin, rpc, wait, warp
from testkit.helpers import buy, connect, deliver_until, fail_one_write, tx_status

SOL = 10**9
TIP = 1_000_000
PRIO = 10_000
STATUS_RESOURCE = "/partner/v1/transactions/{signature}/status"


class Receiver:
    """A local webhook receiver: answers with the scripted statuses in order (then 200),
    records every delivery (headers, raw body)."""

    def __init__(self, script: list[int] | None = None) -> None:
        self.script = list(script or [])
        self.got: list[tuple[dict[str, str], bytes]] = []
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with outer.lock:
                    outer.got.append(({k.lower(): v for k, v in self.headers.items()}, body))
                    status = outer.script.pop(0) if outer.script else 200
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"

    def events(self) -> list[dict]:
        with self.lock:
            return [json.loads(body) for _, body in self.got]

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    made: list[Receiver] = []

    def make(script: list[int] | None = None) -> Receiver:
        made.append(Receiver(script))
        return made[-1]

    yield make
    for r in made:
        r.stop()


@pytest.fixture
def retries(monkeypatch):
    """Fast retries: backoff from 1 s; `window` seconds of retrying (default one minute)."""
    from partner.core.settings import get_settings
    from partner.jobs import webhooks

    def set_window(window: int = 60) -> None:
        fast = get_settings().model_copy({"webhook_backoff_seconds": "1", "webhook_retry_seconds": str(window)})
        monkeypatch.setattr(webhooks, "get_settings", lambda: fast)

    set_window()
    return set_window


@pytest.fixture
def trader(aws_stack, chain, ip):
    """A connected trader whose client has a webhook; `secret` is the one shown once."""
    from partnerctl import admin

    client = admin.create_client(admin.NewClient(name="Hooked", redirect_uri="http://localhost:8080/callback"))
    user = admin.create_user()
    airdrop(chain.url, user["wallet"], 3 * SOL)
    conn = connect(client, user, scope="trade:execute coin:create", ip=ip)
    return conn


def hook(trader, url: str) -> str:
    from partner.jobs import webhooks

    out = webhooks.configure(trader.client["client_id"], url)
    assert out["webhook_secret"].startswith("whsec_")
    return out["webhook_secret"]


def bought(trader, mint: str) -> str:
    """A buy that was sent: its signature."""
    result = buy(trader, mint, SOL // 20)
    assert result.status == 200, result.body
    return result.json["signature"]


def record(signature: str) -> dict | None:
    from partner.store import ddb, txrecords

    return ddb.get(txrecords.table(), signature)


def status(trader, signature: str):
    return tx_status(signature, trader.bearer())


def track_until(signature: str, wanted: str, timeout: float = 20) -> dict:
    from partner.jobs import tracker

    deadline = time.monotonic() + timeout
    while True:
        tracker.run()
        found = record(signature)
        if found and found["status"] == wanted:
            return found
        assert time.monotonic() < deadline, f"record stayed {found and found['status']}, wanted {wanted}"
        time.sleep(0.2)


def test_buy_is_recorded_before_sending_then_confirmed_then_finalized_by_signed_webhooks(
    chain, trader, receiver, poller
):
    from partner_sdk import WebhookVerificationError, verify_webhook

    mint = new_coin(chain.url, "Hook Coin", "HOOK")
    rx = receiver()
    secret = hook(trader, rx.url)
    signature = bought(trader, mint)
    sent = record(signature)
    assert sent is not None
    assert {k: sent[k] for k in ("kind", "client_id", "user_id", "mint", "wallet", "signatures")} == {
        "kind": "buy",
        "client_id": trader.client["client_id"],
        "user_id": trader.user["user_id"],
        "mint": mint,
        "wallet": trader.user["wallet"],
        "signatures": [signature],
    }
    assert sent["last_valid_block_height"] > 0 and sent["sent_at"] > 0 and sent["expires_at"] > time.time()
    wait(chain.url, signature)

    confirmed = track_until(signature, "confirmed")
    deliver_until(poller, lambda: len(rx.got) >= 1)
    warp(chain.url, 20)  # 50 slots: past finalization (32)
    track_until(signature, "finalized")
    assert "track" not in record(signature)  # left the open index
    deliver_until(poller, lambda: len(rx.got) >= 2)

    events = [verify_webhook(secret, headers, body) for headers, body in rx.got]
    assert [e.type for e in events] == ["transaction.confirmed", "transaction.finalized"]
    assert events[0].id != events[1].id and all(e.id.startswith("evt_") for e in events)
    for e in events:
        assert e.data == {
            "signature": signature,
            "kind": "buy",
            "mint": mint,
            "wallet": trader.user["wallet"],
            "slot": confirmed["slot"],
            "error": None,
        }
    headers, body = rx.got[0]
    assert headers["webhook-id"] == events[0].id and headers["webhook-signature"].startswith("v1,")
    tampered = body.replace(b'"kind":"buy"', b'"kind":"sell"')
    assert tampered != body
    with pytest.raises(WebhookVerificationError):
        verify_webhook(secret, headers, tampered)
    with pytest.raises(WebhookVerificationError):  # an old timestamp, even correctly signed
        verify_webhook(secret, headers, body, now=int(headers["webhook-timestamp"]) + 301)
    with pytest.raises(WebhookVerificationError):
        verify_webhook(hook(trader, rx.url), headers, body)  # rotated: the old signature is not the new secret's
    # the status endpoint still answers from the chain, unchanged
    assert status(trader, signature).json["status"] == "finalized"


def test_receiver_failing_twice_gets_the_same_event_three_times(chain, trader, receiver, poller, retries):
    from partner.jobs import webhooks

    mint = new_coin(chain.url, "Retry Coin", "RTRY")
    rx = receiver([500, 503])
    hook(trader, rx.url)
    signature = bought(trader, mint)
    wait(chain.url, signature)
    track_until(signature, "confirmed")
    deliver_until(poller, lambda: len(rx.got) >= 3)
    time.sleep(0.5)
    poller.poll_once(wait_seconds=1)
    ids = [headers["webhook-id"] for headers, _ in rx.got]
    assert len(ids) == 3 and len(set(ids)) == 1
    assert {e["type"] for e in rx.events()} == {"transaction.confirmed"}
    log = webhooks.deliveries(trader.client["client_id"])
    assert [(d["attempt"], d["outcome"], d["http_status"]) for d in log] == [
        (3, "delivered", 200),
        (2, "http 503", 503),
        (1, "http 500", 500),
    ]
    assert log[1]["retry_in"] == 2 and log[2]["retry_in"] == 1  # exponential: 1 s, then 2 s


def test_dead_receiver_sends_the_event_to_the_dead_letter_queue(chain, trader, receiver, poller, retries, aws_stack):
    import boto3

    from partner.jobs import webhooks

    retries(4)  # give up four seconds after the first attempt (attempts at about 0, 1 and 3 s)
    mint = new_coin(chain.url, "Dead Coin", "DEAD")
    rx = receiver()
    rx.stop()  # nothing listens there any more
    hook(trader, rx.url)
    signature = bought(trader, mint)
    wait(chain.url, signature)
    track_until(signature, "confirmed")
    sqs = boto3.client("sqs", endpoint_url=aws_stack.endpoint_url, region_name="us-east-1")
    dlq = aws_stack.physical_id("WebhookDeadLetterQueue")
    dead: list[dict] = []

    def arrived() -> bool:
        got = sqs.receive_message(QueueUrl=dlq, MaxNumberOfMessages=10, WaitTimeSeconds=0).get("Messages") or []
        for m in got:
            sqs.delete_message(QueueUrl=dlq, ReceiptHandle=m["ReceiptHandle"])
        dead.extend(json.loads(m["Body"]) for m in got)
        return any(d["event"]["data"]["signature"] == signature for d in dead)

    deliver_until(poller, arrived, timeout=40)
    mine = [d for d in dead if d["event"]["data"]["signature"] == signature]
    assert len(mine) == 1
    assert mine[0]["event"]["type"] == "transaction.confirmed"
    assert mine[0]["attempt"] >= 2 and mine[0]["last_outcome"].startswith("error")
    assert mine[0]["client_id"] == trader.client["client_id"]
    log = webhooks.deliveries(trader.client["client_id"])
    assert [d["attempt"] for d in log] == list(range(mine[0]["attempt"], 0, -1))
    assert all(d["http_status"] is None and d["outcome"].startswith("error") for d in log)
    assert log[0]["retry_in"] is None and all(d["retry_in"] for d in log[1:])  # the last one gave up


def test_dropped_transaction_becomes_expired_in_status_and_by_webhook(chain, trader, receiver, poller):
    from partner_sdk import verify_webhook

    mint = new_coin(chain.url, "Drop Coin", "DROP")
    rx = receiver()
    secret = hook(trader, rx.url)
    rpc(chain.url, "devstack_setFault", [{"target": "rpc", "mode": "drop", "count": 1}])
    signature = bought(trader, mint)  # the chain answers with the signature and never executes it
    assert record(signature)["status"] == "sent"
    assert status(trader, signature).json["status"] == "not_found"  # not expired yet: unchanged answer
    warp(chain.url, 70)  # 175 slots: past the blockhash's lastValidBlockHeight
    answer = status(trader, signature).json  # before the tracker: the block height says so
    assert (answer["status"], answer["error"]) == ("expired", "tx_expired")
    expired = track_until(signature, "expired")
    assert expired["error"] == "tx_expired" and "track" not in expired
    answer = status(trader, signature).json  # from the record
    assert answer == {"signature": signature, "status": "expired", "slot": None, "error": "tx_expired", "bundle": None}
    from partner_sdk.models import TransactionStatus

    typed = TransactionStatus(**answer)  # the Python SDK's view: final, neither landed nor failed
    assert typed.expired and not typed.landed and not typed.failed
    deliver_until(poller, lambda: len(rx.got) >= 1)
    event = verify_webhook(secret, *rx.got[0])
    assert event.type == "transaction.expired"
    assert event.data == {
        "signature": signature,
        "kind": "buy",
        "mint": mint,
        "wallet": trader.user["wallet"],
        "slot": None,
        "error": "tx_expired",
    }


def test_failed_launch_bundle_gives_transaction_failed_with_its_code(
    chain, trader, receiver, poller, pin_server, monkeypatch
):
    from partner.features.launch import first_buy as launch
    from partner_sdk import verify_webhook
    from tests.integration.test_coins_create import create, form

    real = launch.plan_first_buy

    def short(*args, **kwargs):  # the buy's ceiling one lamport short: the bundle lands nothing
        plan = real(*args, **kwargs)
        return dataclasses.replace(plan, authorized_max_sol_in=plan.expected_sol_in - 1)

    monkeypatch.setattr(launch, "plan_first_buy", short)
    rx = receiver()
    secret = hook(trader, rx.url)
    result = create(trader, form(initialBuyTokens=str(10**12), initialBuyMaxSolIn=str(SOL)))
    assert result.status == 422 and result.json["error"] == "tx_failed", result.body
    signatures = result.json["signatures"]
    for signature in signatures:
        found = track_until(signature, "failed")
        assert found["kind"] == "coin_create" and found["signatures"] == signatures and found["error"] == "tx_failed"
    deliver_until(poller, lambda: len(rx.got) >= 2)
    events = sorted(
        (verify_webhook(secret, *got) for got in rx.got), key=lambda e: signatures.index(e.data["signature"])
    )
    assert [(e.type, e.data["signature"], e.data["error"], e.data["kind"]) for e in events] == [
        ("transaction.failed", s, "tx_failed", "coin_create") for s in signatures
    ]
    # the status endpoint keeps its bundle answer
    assert status(trader, signatures[0]).json["status"] == "failed"


def test_the_tracker_keeps_pending_bundles_open_and_fails_failed_ones_five_ids_a_query(chain, trader):
    """Issue 25: a launch bundle lands after the engine accepted it. While it is `Pending` its records
    stay `sent` (never failed); once the engine says `Failed` they fail with tx_failed. Six bundles:
    the tracker asks the engine 5 ids a query (Jito's limit; a 6-id query is refused)."""
    from types import SimpleNamespace

    from solders.keypair import Keypair

    from partner.chain import instructions as ix
    from partner.chain.rpc import BlockEngine, Rpc
    from partner.chain.tx import WriteFees, assemble, sign
    from partner.jobs import tracker
    from partner.send import txstatus
    from partner.store import ddb, txrecords
    from partner.store.wallets import KeypairSigner
    from testkit.chain import block_engine

    blockhash, last_valid = Rpc(chain.url).latest_blockhash()
    owner = SimpleNamespace(
        client=SimpleNamespace(client_id=trader.client["client_id"]),
        user=SimpleNamespace(user_id=trader.user["user_id"]),
    )
    engine = BlockEngine(chain.bundle_url)
    sent: list[list[str]] = []
    with block_engine(chain.url, landDelayMs=3_600_000):
        for _ in range(6):
            broke = Keypair()  # holds nothing: the bundle fails when it lands
            txs = [
                sign(
                    assemble(
                        broke.pubkey(),
                        [ix.system_transfer(broke.pubkey(), Keypair().pubkey(), n)],
                        fees=WriteFees(PRIO, TIP),
                        blockhash=blockhash,
                    ),
                    [KeypairSigner(broke)],
                )
                for n in (1, 2)
            ]
            signatures = [str(t.signatures[0]) for t in txs]
            txstatus.record_bundle(engine.send_bundle(txs), signatures, last_valid_block_height=last_valid)
            for item in txrecords.items_for(
                owner, txrecords.Outgoing("coin_create", tuple(signatures), None, trader.user["wallet"], last_valid)
            ):
                ddb.put(txrecords.table(), item)
            sent.append(signatures)
        tracker.run()
        assert {record(s)["status"] for bundle in sent for s in bundle} == {"sent"}
        rpc(chain.url, "devstack_landBundles")
    tracker.run()
    for bundle in sent:
        for signature in bundle:
            found = record(signature)
            assert (found["status"], found["error"]) == ("failed", "tx_failed"), found


def test_landed_transaction_failure_maps_to_its_spec_code():
    """A landed error maps through the same table as the status endpoint (pure transition)."""
    from partner.jobs import tracker

    record_ = {"pk": "sig", "status": "sent", "last_valid_block_height": 100, "signatures": ["sig"]}
    assert tracker.transitions(record_, {"slot": 5, "err": {"InstructionError": [0, "X"]}}, 10, False) == (
        "failed",
        ["failed"],
        5,
        None,
    )
    assert tracker.transitions(record_, {"slot": 5, "err": None, "confirmationStatus": "finalized"}, 10, False) == (
        "finalized",
        ["confirmed", "finalized"],
        5,
        None,
    )
    assert tracker.transitions(record_, {"slot": 5, "err": None, "confirmationStatus": "processed"}, 10, False) is None
    assert tracker.transitions(record_, None, 100, False) is None  # at the last valid height it may still land
    assert tracker.transitions(record_, None, 101, False) == ("expired", ["expired"], None, "tx_expired")
    assert tracker.transitions(record_, None, 10, True) == ("failed", ["failed"], None, "tx_failed")
    assert tracker.transitions({**record_, "status": "confirmed"}, None, 101, False) is None


def test_webhook_urls_follow_the_client_status(aws_stack):
    from partner.jobs import webhooks
    from partnerctl import admin

    dev = admin.create_client(admin.NewClient(name="Dev", redirect_uri="http://localhost:8080/callback"))["client_id"]
    live = admin.create_client(admin.NewClient(name="Live", redirect_uri="https://example.com/cb", status="live"))[
        "client_id"
    ]
    assert webhooks.configure(dev, "http://localhost:9000/hooks")["webhook_secret"].startswith("whsec_")
    assert webhooks.configure(dev, "http://127.0.0.1:9000/hooks")
    assert webhooks.configure(live, "https://partner.example.com/hooks")
    for client_id, url in (
        (live, "http://localhost:9000/hooks"),
        (dev, "http://example.com/hooks"),
        (live, "https://127.0.0.1/hooks"),
        (dev, "ftp://localhost/x"),
        (dev, "https://user:pw@example.com/"),
        (dev, "not a url"),
    ):
        with pytest.raises(ValueError):
            webhooks.configure(client_id, url)
    with pytest.raises(LookupError):
        webhooks.configure("nope", "https://example.com/hooks")
    # the secret is stored encrypted, never in the clear
    from partner.core.settings import get_settings
    from partner.store import ddb

    item = ddb.get(get_settings().clients_table, live)
    secret = webhooks.rotate(live)["webhook_secret"]
    item = ddb.get(get_settings().clients_table, live)
    assert secret.encode() not in item["webhook_secret"] and secret not in json.dumps(
        {k: str(v) for k, v in item.items()}
    )
    assert webhooks.unseal(live, item["webhook_secret"], item["webhook_key_id"]) == secret
    assert webhooks.remove(live) == {"client_id": live, "webhook_url": None}
    assert "webhook_url" not in ddb.get(get_settings().clients_table, live)
    with pytest.raises(LookupError):
        webhooks.rotate(live)


def test_redriven_event_gets_a_new_window_and_a_long_backoff_hops_without_an_attempt(aws_stack, trader, receiver):
    import boto3

    from partner.jobs import webhooks

    rx = receiver([500])
    hook(trader, rx.url)
    client_id = trader.client["client_id"]
    ev = webhooks.event({"pk": "5" * 64, "kind": "sell", "mint": None, "wallet": "w"}, "confirmed", 7, None)
    now = time.time()
    try:
        # back from the dead-letter queue: the old window is over, yet it is retried, not dead again
        assert (
            webhooks.deliver(
                {
                    "client_id": client_id,
                    "event": ev,
                    "attempt": 9,
                    "first_at": now - 200_000,
                    "dead_at": now - 60,
                    "last_outcome": "timeout",
                }
            )
            == "retry"
        )
        assert len(rx.got) == 1 and rx.got[0][0]["webhook-id"] == ev["id"]
        # a wait longer than SQS's 15-minute delay: re-sent with the longest delay, no attempt
        assert (
            webhooks.deliver(
                {"client_id": client_id, "event": ev, "attempt": 12, "first_at": now, "not_before": now + 3600}
            )
            == "waiting"
        )
        assert len(rx.got) == 1
        sqs = boto3.client("sqs", endpoint_url=aws_stack.endpoint_url, region_name="us-east-1")
        delayed = sqs.get_queue_attributes(
            QueueUrl=aws_stack.physical_id("WebhookQueue"), AttributeNames=["ApproximateNumberOfMessagesDelayed"]
        )
        assert int(delayed["Attributes"]["ApproximateNumberOfMessagesDelayed"]) >= 1
        from partnerctl import admin

        admin.set_client_status(client_id, "suspended")  # a suspended client gets nothing
        assert webhooks.deliver({"client_id": client_id, "event": ev, "attempt": 1}) == "no_webhook"
        admin.set_client_status(client_id, "development")
    finally:
        webhooks.remove(client_id)  # what is still queued for it is dropped as no_webhook
    assert webhooks.deliver({"client_id": client_id, "event": ev, "attempt": 1}) == "no_webhook"
    assert [b for b in (webhooks.backoff(n, 5) for n in range(1, 16))] == [
        5,
        10,
        20,
        40,
        80,
        160,
        320,
        640,
        1280,
        2560,
        5120,
        10240,
        20480,
        21600,
        21600,
    ]


def test_a_failed_record_write_sends_nothing_and_releases_the_volume(chain, trader):
    """before_send raising means nothing went out: 500 internal, no lamports moved, volume back."""
    from partner.features import trading
    from partner.store import counters, txrecords
    from testkit.chain import balance

    mint = new_coin(chain.url, "Unrecorded Coin", "UNRC")
    key, _ = trading._volume_key(trader.client["client_id"])
    spent, lamports = counters.read(key), balance(chain.url, trader.user["wallet"])
    with fail_one_write(txrecords.table()) as fired:
        result = buy(trader, mint, SOL // 20)
    assert fired == ["PutItem"]
    assert result.status == 500 and result.json["error"] == "internal", result.body
    assert "signature" not in result.json
    warp(chain.url, 1)
    assert balance(chain.url, trader.user["wallet"]) == lamports
    assert counters.read(key) == spent
