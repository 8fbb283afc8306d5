"""Idempotency-Key on writes, through the real handlers against moto (server mode) and the devstack
chain: replays byte for byte, one transaction on-chain, one volume count, concurrent requests under
one key, key scope, what is and is not stored, and a crash after the claim with a timeout after the
send (the retry answers with the recorded signature and sends nothing new)."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from testkit.chain import airdrop, rpc, token_balance, wait, warp
from testkit.helpers import connect, fail_one_write, invoke
from tests.integration.test_faults import chain_fault, snapshot, volume

pytestmark = pytest.mark.usefixtures("no_faults_left")

SOL = 10**9
TIP = 1_000_000
PRIO = 10_000
BLOCKHASH_SECONDS = 150 * 0.4


def buy_body(mint: str, max_in: int = SOL // 10) -> dict:
    return {
        "mint": mint,
        "maxSolIn": str(max_in),
        "minTokensOut": "0",
        "priorityFeeLamports": str(PRIO),
        "tipLamports": str(TIP),
    }


def keyed(conn, kind: str, body, key: str | None, **headers: str):
    extra = {"Idempotency-Key": key} if key is not None else {}
    return invoke(
        f"trades_{kind.replace('-', '_')}",
        "POST",
        f"/partner/v1/trades/{kind}",
        headers={**conn.bearer(), "Content-Type": "application/json", **extra, **headers},
        body=body,
    )


def signatures(chain, wallet: str) -> list[str]:
    return [s["signature"] for s in rpc(chain.url, "getSignaturesForAddress", [wallet])]


def test_replay_is_byte_for_byte_one_trade_one_volume_count(chain, coin, partner_conn):
    wallet = partner_conn.user["wallet"]
    before = snapshot(chain, partner_conn, coin)
    first = keyed(partner_conn, "buy", buy_body(coin), "order-1")
    assert first.status == 200, first.body
    assert "idempotent-replayed" not in first.headers
    assert wait(chain.url, first.json["signature"])["err"] is None
    tokens = token_balance(chain.url, wallet, coin)
    assert tokens > before["tokens"]

    second = keyed(partner_conn, "buy", buy_body(coin), "order-1")
    assert second.status == 200
    assert second.body == first.body  # byte for byte
    assert second.headers["idempotent-replayed"] == "true"
    assert second.headers["content-type"] == "application/json"
    # a replay passes admission and is counted by the bucket; its headers are the bucket's now (the
    # fixed 60-second window may have turned over while the first trade landed: then it is the new
    # window's first request)
    new_window = int(second.headers["x-ratelimit-reset"]) > int(first.headers["x-ratelimit-reset"])
    counted_after = (
        int(second.headers["x-ratelimit-limit"]) if new_window else int(first.headers["x-ratelimit-remaining"])
    )
    assert int(second.headers["x-ratelimit-remaining"]) == counted_after - 1

    after = snapshot(chain, partner_conn, coin)
    assert token_balance(chain.url, wallet, coin) == tokens  # the balance changed once
    assert len(after["signatures"]) == len(before["signatures"]) + 1  # one transaction on-chain
    assert after["volume"] == before["volume"] + SOL // 10  # the daily volume is counted once


def test_the_same_request_is_compared_canonically(chain, coin, partner_conn):
    body = buy_body(coin)
    first = keyed(partner_conn, "buy", json.dumps(body), "canonical")
    assert first.status == 200, first.body
    reordered = json.dumps(dict(reversed(list(body.items()))), indent=2)  # other order and whitespace
    again = keyed(partner_conn, "buy", reordered, "canonical")
    assert again.status == 200 and again.body == first.body and again.headers["idempotent-replayed"] == "true"


def test_another_request_under_a_used_key_is_422(chain, coin, partner_conn):
    wallet = partner_conn.user["wallet"]
    first = keyed(partner_conn, "buy", buy_body(coin), "used")
    assert first.status == 200, first.body
    wait(chain.url, first.json["signature"])
    before = signatures(chain, wallet)
    other_body = keyed(partner_conn, "buy", buy_body(coin, SOL // 5), "used")
    assert other_body.status == 422, other_body.body
    assert other_body.json["error"] == "idempotency_key_reused" and other_body.json["retryable"] is False
    assert "idempotent-replayed" not in other_body.headers
    other_path = keyed(
        partner_conn,
        "sell",
        {"mint": coin, "tokensIn": "1", "minSolOut": "0", "priorityFeeLamports": str(PRIO), "tipLamports": str(TIP)},
        "used",
    )
    assert other_path.status == 422 and other_path.json["error"] == "idempotency_key_reused"
    assert signatures(chain, wallet) == before
    # the key still holds the first answer
    assert keyed(partner_conn, "buy", buy_body(coin), "used").body == first.body


def test_keys_are_scoped_to_client_and_user(aws_stack, chain, coin, partner_conn, ip):
    from partnerctl import admin

    first = keyed(partner_conn, "buy", buy_body(coin), "shared-key")
    assert first.status == 200, first.body
    # the same user through another client
    other_client = admin.create_client(admin.NewClient(name="Other App", redirect_uri="http://localhost:8080/callback"))
    same_user = connect(other_client, partner_conn.user, scope="trade:execute", ip=ip)
    # another user of the same client
    other_user = admin.create_user()
    airdrop(chain.url, other_user["wallet"], 2 * SOL)
    same_client = connect(partner_conn.client, other_user, scope="trade:execute", ip=ip)
    for conn in (same_user, same_client):
        result = keyed(conn, "buy", buy_body(coin), "shared-key")
        assert result.status == 200, result.body
        assert "idempotent-replayed" not in result.headers
        assert result.json["signature"] != first.json["signature"]
        assert wait(chain.url, result.json["signature"])["err"] is None


def test_ten_concurrent_requests_with_one_key_execute_once(chain, coin, partner_conn, lambdas):
    wallet = partner_conn.user["wallet"]
    before = snapshot(chain, partner_conn, coin)
    barrier = threading.Barrier(10)

    def call(_):
        barrier.wait()
        return keyed(partner_conn, "buy", buy_body(coin), "concurrent")

    with ThreadPoolExecutor(10) as pool:
        results = list(pool.map(call, range(10)))
    executed = [r for r in results if r.status == 200 and "idempotent-replayed" not in r.headers]
    replayed = [r for r in results if r.status == 200 and r.headers.get("idempotent-replayed") == "true"]
    busy = [r for r in results if r.status == 409]
    assert len(executed) == 1, [(r.status, r.body) for r in results]
    assert len(executed) + len(replayed) + len(busy) == 10
    for r in replayed:
        assert r.body == executed[0].body
    for r in busy:
        assert r.json["error"] == "idempotency_key_in_use" and r.json["retryable"] is True
        assert int(r.headers["retry-after"]) >= 1
    assert wait(chain.url, executed[0].json["signature"])["err"] is None
    after = snapshot(chain, partner_conn, coin)
    assert len(signatures(chain, wallet)) == len(before["signatures"]) + 1
    assert after["volume"] == before["volume"] + SOL // 10
    # once it finished, every retry replays
    late = keyed(partner_conn, "buy", buy_body(coin), "concurrent")
    assert late.body == executed[0].body and late.headers["idempotent-replayed"] == "true"


@pytest.mark.parametrize("key", ["", "x" * 256, "caf\u00e9", "tab\there", "new\nline"])
def test_a_malformed_key_is_400_before_anything(chain, coin, partner_conn, key):
    result = keyed(partner_conn, "buy", buy_body(coin), key)
    assert result.status == 400, result.body
    assert result.json["error"] == "invalid_input" and result.json["field"] == "Idempotency-Key"


def test_longest_key_and_every_printable_character_work(chain, coin, partner_conn):
    key = "".join(chr(c) for c in range(0x20, 0x7F)) + "k" * (255 - 95)
    assert len(key) == 255
    first = keyed(partner_conn, "buy", buy_body(coin), key)
    assert first.status == 200, first.body
    assert keyed(partner_conn, "buy", buy_body(coin), key).headers["idempotent-replayed"] == "true"


def test_a_repeated_header_is_400(chain, coin, partner_conn):
    from devstack.events import ApiRequest, api_event, lambda_context
    from testkit.helpers import handler

    event = api_event(
        ApiRequest(
            "POST",
            "/partner/v1/trades/buy",
            body=buy_body(coin),
            headers={**partner_conn.bearer(), "Content-Type": "application/json", "Idempotency-Key": "a"},
        )
    )
    event["multiValueHeaders"] = {**(event.get("multiValueHeaders") or {}), "Idempotency-Key": ["a", "b"]}
    out = handler("trades_buy")(event, lambda_context("trades_buy"))
    assert out["statusCode"] == 400 and json.loads(out["body"])["error"] == "invalid_input"


def test_answers_before_the_claim_do_not_use_the_key(aws_stack, chain, coin, partner_conn, ip):

    key = "not-used-up"
    # 400: the body fails validation
    bad = keyed(partner_conn, "buy", {**buy_body(coin), "maxSolIn": "1.5"}, key)
    assert bad.status == 400 and bad.json["error"] == "invalid_input"
    # 401: no valid token
    unauth = invoke(
        "trades_buy",
        "POST",
        "/partner/v1/trades/buy",
        body=buy_body(coin),
        headers={"Authorization": "Bearer app_at_nope", "Content-Type": "application/json", "Idempotency-Key": key},
    )
    assert unauth.status == 401
    # 403 scope: the same user and client, a token without trade:execute
    narrow = connect(partner_conn.client, partner_conn.user, scope="profile:read", ip=ip)
    scoped = keyed(narrow, "buy", buy_body(coin), key)
    assert scoped.status == 403 and scoped.json["error"] == "insufficient_scope"
    # now the key is still free: the real request executes
    ok = keyed(partner_conn, "buy", buy_body(coin), key)
    assert ok.status == 200, ok.body
    assert "idempotent-replayed" not in ok.headers
    assert wait(chain.url, ok.json["signature"])["err"] is None


def test_an_error_after_the_claim_is_stored_and_replayed(aws_stack, chain, coin, partner_conn):
    from partnerctl import admin

    admin.set_delegation(partner_conn.user["user_id"], False)
    first = keyed(partner_conn, "buy", buy_body(coin), "stored-error")
    assert first.status == 403 and first.json["error"] == "delegation_missing"
    admin.set_delegation(partner_conn.user["user_id"], True)
    again = keyed(partner_conn, "buy", buy_body(coin), "stored-error")
    assert again.status == 403 and again.body == first.body and again.headers["idempotent-replayed"] == "true"
    # a new key runs the write
    fresh = keyed(partner_conn, "buy", buy_body(coin), "stored-error-2")
    assert fresh.status == 200, fresh.body


def test_requests_without_a_key_behave_as_before(chain, coin, partner_conn):
    """No header: every request is its own trade (the spec: resending can execute it twice)."""
    wallet = partner_conn.user["wallet"]
    first = keyed(partner_conn, "buy", buy_body(coin), None)
    second = keyed(partner_conn, "buy", buy_body(coin), None)
    assert first.status == second.status == 200
    assert "idempotent-replayed" not in second.headers
    assert first.json["signature"] != second.json["signature"]
    for r in (first, second):
        assert wait(chain.url, r.json["signature"])["err"] is None
    assert {first.json["signature"], second.json["signature"]} <= set(signatures(chain, wallet))


# ------------------------------------------------------------------ a crash after the claim


class Crash(BaseException):
    """The invocation dies (timeout, out of memory) before its answer is stored."""


@pytest.fixture
def crash_before_storing(monkeypatch):
    from partner.edge import idempotency

    calls = {"n": 0}
    real = idempotency.finish

    def dying(claim, answer):
        calls["n"] += 1
        if calls["n"] == 1:
            raise Crash()
        return real(claim, answer)

    monkeypatch.setattr(idempotency, "finish", dying)
    return calls


def _timeout_after_send(chain, ports, *, lands: bool) -> None:
    from partner.chain.rpc import Rpc

    ports.install(rpc=lambda timeout=None: Rpc(chain.url, timeout=0.5))
    chain_fault(chain, "slow", methods=["sendTransaction"], delay_ms=1500)
    if not lands:
        chain_fault(chain, "drop", methods=["sendTransaction"])


def test_crash_after_a_send_that_landed_answers_its_200(chain, coin, partner_conn, clock, ports, crash_before_storing):
    from partner.edge import idempotency

    wallet = partner_conn.user["wallet"]
    before = snapshot(chain, partner_conn, coin)
    _timeout_after_send(chain, ports, lands=True)
    with pytest.raises(Crash):
        keyed(partner_conn, "buy", buy_body(coin), "crash-landed")
    sent = _claim_item(partner_conn, "crash-landed")["signatures"]  # recorded before the send
    assert len(sent) == 1
    assert wait(chain.url, sent[0])["err"] is None  # it landed after the answer was lost
    assert [s for s in signatures(chain, wallet) if s not in before["signatures"]] == sent
    landed_tokens = token_balance(chain.url, wallet, coin)

    # within the lease the key is busy
    busy = keyed(partner_conn, "buy", buy_body(coin), "crash-landed")
    assert busy.status == 409 and busy.json["error"] == "idempotency_key_in_use"
    clock.advance(idempotency.LEASE_SECONDS + 1)
    retry = keyed(partner_conn, "buy", buy_body(coin), "crash-landed")
    assert retry.status == 200, retry.body
    assert retry.body == f'{{"signature":"{sent[0]}","mint":"{coin}","status":"submitted"}}'
    assert "idempotent-replayed" not in retry.headers
    # nothing new was sent, the balance changed once, the volume was counted once
    assert [s for s in signatures(chain, wallet) if s not in before["signatures"]] == sent
    assert token_balance(chain.url, wallet, coin) == landed_tokens
    assert volume(partner_conn.client["client_id"]) == before["volume"] + SOL // 10
    # that answer is the key's answer from now on
    again = keyed(partner_conn, "buy", buy_body(coin), "crash-landed")
    assert again.body == retry.body and again.headers["idempotent-replayed"] == "true"


def test_crash_after_a_send_the_chain_cannot_confirm_answers_the_ambiguous_502(
    chain, coin, partner_conn, clock, ports, crash_before_storing
):
    from partner.edge import idempotency

    wallet = partner_conn.user["wallet"]
    before = snapshot(chain, partner_conn, coin)
    _timeout_after_send(chain, ports, lands=True)
    with pytest.raises(Crash):
        keyed(partner_conn, "buy", buy_body(coin), "crash-unknown")
    sent = _claim_item(partner_conn, "crash-unknown")["signatures"]
    assert wait(chain.url, sent[0])["err"] is None
    landed_tokens = token_balance(chain.url, wallet, coin)
    chain_fault(chain, "down", methods=["getSignatureStatuses"], count=None)  # the chain cannot tell now
    clock.advance(idempotency.LEASE_SECONDS + 1)
    retry = keyed(partner_conn, "buy", buy_body(coin), "crash-unknown")
    rpc(chain.url, "devstack_clearFaults")
    assert retry.status == 502, retry.body
    assert retry.json["error"] == "rpc_unavailable" and retry.json["signature"] == sent[0]
    assert "before resending" in retry.json["action"]
    assert [s for s in signatures(chain, wallet) if s not in before["signatures"]] == sent  # nothing new sent
    assert token_balance(chain.url, wallet, coin) == landed_tokens
    assert volume(partner_conn.client["client_id"]) == before["volume"] + SOL // 10


def test_crash_after_a_send_that_never_landed_answers_tx_expired(
    chain, coin, partner_conn, clock, ports, crash_before_storing
):
    from partner.edge import idempotency

    before = snapshot(chain, partner_conn, coin)
    _timeout_after_send(chain, ports, lands=False)
    with pytest.raises(Crash):
        keyed(partner_conn, "buy", buy_body(coin), "crash-dropped")
    claim = _claim_item(partner_conn, "crash-dropped")
    assert claim["state"] == "running" and len(claim["signatures"]) == 1
    warp(chain.url, int(BLOCKHASH_SECONDS) + 2)  # the blockhash is past: it can never land
    clock.advance(idempotency.LEASE_SECONDS + 1)
    retry = keyed(partner_conn, "buy", buy_body(coin), "crash-dropped")
    assert retry.status == 422, retry.body
    assert retry.json["error"] == "tx_expired" and retry.json["signature"] == claim["signatures"][0]
    assert retry.json["retryable"] is False  # stored: a retry with this key only replays it (issue 17 item 5)
    after = snapshot(chain, partner_conn, coin)
    assert after["signatures"] == before["signatures"] and after["tokens"] == before["tokens"]


def test_crash_before_sending_lets_the_retry_execute(chain, coin, partner_conn, clock, ports):
    from partner.edge import idempotency

    wallet = partner_conn.user["wallet"]
    before = signatures(chain, wallet)
    real_sign = ports.current().sign
    state = {"n": 0}

    def dying_sign(*args, **kwargs):
        state["n"] += 1
        if state["n"] == 1:
            raise Crash()
        return real_sign(*args, **kwargs)

    ports.install(sign=dying_sign)
    with pytest.raises(Crash):
        keyed(partner_conn, "buy", buy_body(coin), "crash-early")
    assert "signatures" not in _claim_item(partner_conn, "crash-early")
    clock.advance(idempotency.LEASE_SECONDS + 1)
    retry = keyed(partner_conn, "buy", buy_body(coin), "crash-early")
    assert retry.status == 200, retry.body
    assert wait(chain.url, retry.json["signature"])["err"] is None
    assert len(signatures(chain, wallet)) == len(before) + 1


# ------------------------------------------------------------------ issue 17 item 5: no stored invitation to retry


def _released(conn, key: str) -> bool:
    item = _claim_item(conn, key)
    return item is None or (item.get("state") != "done" and int(item.get("expires_at", 1)) == 0)


def test_a_5xx_before_the_send_releases_the_key(chain, coin, partner_conn):
    """RPC down before anything is sent: 502, nothing stored; the retry with the same key executes."""
    wallet = partner_conn.user["wallet"]
    before = signatures(chain, wallet)
    chain_fault(chain, "down")
    first = keyed(partner_conn, "buy", buy_body(coin), "rpc-down")
    assert first.status == 502 and first.json["error"] == "rpc_unavailable", first.body
    assert first.json["retryable"] is True and "signature" not in first.json
    assert _released(partner_conn, "rpc-down")
    retry = keyed(partner_conn, "buy", buy_body(coin), "rpc-down")
    assert retry.status == 200, retry.body
    assert "idempotent-replayed" not in retry.headers
    assert wait(chain.url, retry.json["signature"])["err"] is None
    assert len(signatures(chain, wallet)) == len(before) + 1
    assert keyed(partner_conn, "buy", buy_body(coin), "rpc-down").body == retry.body  # now it is stored


def test_an_internal_error_before_the_send_releases_the_key(chain, coin, partner_conn):
    """The transaction record (PutItem, written before the send) fails: 500, and the key is free."""
    from partner.store import txrecords

    with fail_one_write(txrecords.table()) as fired:
        first = keyed(partner_conn, "buy", buy_body(coin), "ddb-error")
    assert fired == ["PutItem"]
    assert first.status == 500 and first.json["error"] == "internal", first.body
    assert _released(partner_conn, "ddb-error")
    retry = keyed(partner_conn, "buy", buy_body(coin), "ddb-error")
    assert retry.status == 200 and "idempotent-replayed" not in retry.headers, retry.body


def test_a_retryable_answer_before_the_send_is_not_stored(chain, coin, partner_conn, ports):
    """409 migration_pending is retryable and nothing was built: the key stays free for the retry."""
    from partner.chain.rpc import Rpc
    from partner.core.errors import ApiError

    calls = {"n": 0}

    class PendingOnce(Rpc):
        """The first read of the chain answers migration_pending (the curve completed, no pool yet)."""

        def batch(self, requests):
            calls["n"] += 1
            if calls["n"] == 1:
                raise ApiError("migration_pending")
            return super().batch(requests)

    real = ports.current().rpc
    ports.install(rpc=lambda timeout=None: PendingOnce(chain.url) if timeout is None else real(timeout))
    first = keyed(partner_conn, "buy", buy_body(coin), "pending")
    assert first.status == 409 and first.json["retryable"] is True, first.body
    assert _released(partner_conn, "pending")
    retry = keyed(partner_conn, "buy", buy_body(coin), "pending")
    assert retry.status == 200 and "idempotent-replayed" not in retry.headers, retry.body


def test_an_ambiguous_502_says_not_retryable_and_is_stored(chain, coin, partner_conn, ports):
    """A timeout after the send: the 502 carries the signature, says retryable false (spec retry rule 5),
    and that is what the key replays."""
    _timeout_after_send(chain, ports, lands=True)
    first = keyed(partner_conn, "buy", buy_body(coin), "ambiguous")
    assert first.status == 502 and first.json["error"] == "rpc_unavailable", first.body
    assert first.json["signature"] and first.json["retryable"] is False
    again = keyed(partner_conn, "buy", buy_body(coin), "ambiguous")
    assert again.body == first.body and again.headers["idempotent-replayed"] == "true"
    assert json.loads(_claim_item(partner_conn, "ambiguous")["body"])["retryable"] is False


def test_a_dust_sell_is_stored_as_its_400_not_a_500(chain, coin, partner_conn):
    """Issue 17 item 3: the dust sell's answer under a key is the clear 400 (was a stored 500)."""
    bought = keyed(partner_conn, "buy", buy_body(coin), None)
    assert bought.status == 200 and wait(chain.url, bought.json["signature"])["err"] is None
    body = {
        "mint": coin,
        "tokensIn": "1000",
        "minSolOut": "0",
        "priorityFeeLamports": str(PRIO),
        "tipLamports": str(TIP),
    }
    first = keyed(partner_conn, "sell", body, "dust")
    assert first.status == 400 and first.json["field"] == "tokensIn", first.body
    assert int(_claim_item(partner_conn, "dust")["status"]) == 400


def test_an_expired_key_is_free_again(chain, coin, partner_conn, clock, ip):
    from partner.edge import idempotency

    first = keyed(partner_conn, "buy", buy_body(coin), "day-old")
    assert first.status == 200, first.body
    clock.advance(idempotency.RETENTION_SECONDS + 1)  # TTL deletes lazily: the read checks expires_at
    fresh = connect(partner_conn.client, partner_conn.user, scope="trade:execute", ip=ip)  # same client and user
    later = keyed(fresh, "buy", buy_body(coin), "day-old")
    assert later.status == 200 and "idempotent-replayed" not in later.headers
    assert later.json["signature"] != first.json["signature"]


def _claim_item(conn, key: str) -> dict:
    from partner.core.settings import get_settings
    from partner.edge import idempotency
    from partner.edge.access import authenticate
    from partner.store import ddb

    principal = authenticate(conn.access)
    return ddb.get(get_settings().idempotency_table, idempotency.claim_pk(principal, key))


# ------------------------------------------------------------------ the other write kinds


def test_multipart_launch_with_a_first_buy_replays_one_bundle(chain, pin_server, launch_conn, creator):
    from tests.integration.test_coins_create import PNG, form

    key = {"Idempotency-Key": "launch-1"}
    first = _create_keyed(launch_conn, form(symbol="ONCE", initialBuySol=str(SOL // 10)), key)
    assert first.status == 200, first.body
    body = first.json
    assert len(body["signatures"]) == 2
    for signature in body["signatures"]:
        assert wait(chain.url, signature)["err"] is None
    tokens = token_balance(chain.url, creator["wallet"], body["mint"])
    assert tokens > 0
    claim = _claim_item(launch_conn, "launch-1")
    assert claim["signatures"] == body["signatures"] and claim["kind"] == "coin_create"
    # another multipart encoding (a new boundary) of the same fields and file: the same request
    again = _create_keyed(launch_conn, form(symbol="ONCE", initialBuySol=str(SOL // 10)), key)
    assert again.status == 200 and again.body == first.body and again.headers["idempotent-replayed"] == "true"
    assert token_balance(chain.url, creator["wallet"], body["mint"]) == tokens
    other_image = _create_keyed(
        launch_conn, form(image=PNG + b"\x00", symbol="ONCE", initialBuySol=str(SOL // 10)), key
    )
    assert other_image.status == 422 and other_image.json["error"] == "idempotency_key_reused"


def test_the_launch_cooldown_429_does_not_use_the_key(chain, pin_server, launch_conn, clock):
    from tests.integration.test_coins_create import form

    first = _create_keyed(launch_conn, form(name="Cool A", symbol="COOLA"), {"Idempotency-Key": "launch-a"})
    assert first.status == 200, first.body
    key = {"Idempotency-Key": "launch-b"}
    cooling = _create_keyed(launch_conn, form(name="Cool B", symbol="COOLB"), key)
    assert cooling.status == 429 and cooling.json["error"] == "deploy_cooldown_active", cooling.body
    clock.advance(int(cooling.headers["retry-after"]))
    later = _create_keyed(launch_conn, form(name="Cool B", symbol="COOLB"), key)  # the same key, after retry-after
    assert later.status == 200, later.body
    assert "idempotent-replayed" not in later.headers and later.json["mint"] != first.json["mint"]
    assert _create_keyed(launch_conn, form(name="Cool B", symbol="COOLB"), key).body == later.body


def test_governance_write_answers_are_stored(chain, coin, ip, aws_stack):
    from solders.keypair import Keypair

    from partnerctl import admin

    user = admin.create_user()
    conn = connect(
        admin.create_client(admin.NewClient(name="Gov App", redirect_uri="http://localhost:8080/callback")),
        user,
        scope="governance:vote",
        ip=ip,
    )
    body = {"proposal": str(Keypair().pubkey()), "priorityFeeLamports": str(PRIO), "tipLamports": str(TIP)}
    headers = {**conn.bearer(), "Content-Type": "application/json", "Idempotency-Key": "settle-1"}
    first = invoke("governance_settle", "POST", "/partner/v1/governance/proposals/settle", headers=headers, body=body)
    assert first.status == 422 and first.json["error"] == "proposal_not_found", first.body
    again = invoke("governance_settle", "POST", "/partner/v1/governance/proposals/settle", headers=headers, body=body)
    assert again.body == first.body and again.headers["idempotent-replayed"] == "true"


@pytest.fixture
def launch_conn(aws_stack, chain, pin_server, clock, ip, creator):
    from partnerctl import admin

    app = admin.create_client(admin.NewClient(name="Launcher", redirect_uri="http://localhost:8080/callback"))
    return connect(app, creator, scope="coin:create", ip=ip)


@pytest.fixture
def creator(aws_stack, chain):
    from partnerctl import admin

    user = admin.create_user()
    airdrop(chain.url, user["wallet"], 10 * SOL)
    return user


def _create_keyed(conn, body_ctype, headers: dict):
    body, ctype = body_ctype
    return invoke(
        "coins_create",
        "POST",
        "/partner/v1/coins/create",
        headers={**conn.bearer(), "Content-Type": ctype, **headers},
        body=body,
    )
