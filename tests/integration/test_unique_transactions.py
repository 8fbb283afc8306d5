"""Every request builds its own transaction (a memo naming the request), and the network's
`AlreadyProcessed` is never reported as an on-chain failure."""

from __future__ import annotations

import json
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from testkit.chain import memos, rpc, token_balance, wait
from testkit.helpers import FEES, trade

SOL = 10**9
TIP = 1_000_000
PRIO = 10_000


def test_six_concurrent_identical_buys_without_a_key_are_six_trades(chain, coin, partner_conn, lambdas):
    """The race of the issue: 6 identical buys at once used to build byte-identical transactions;
    one in six answered 422 tx_failed although its twin had landed."""
    body = {"mint": coin, "maxSolIn": str(SOL // 20), "minTokensOut": "0", **FEES}
    barrier = threading.Barrier(6)

    def call(_):
        barrier.wait()
        return trade(partner_conn, "buy", body)

    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(call, range(6)))
    assert [r.status for r in results] == [200] * 6, [r.body for r in results]
    sigs = {r.json["signature"] for r in results}
    assert len(sigs) == 6
    seen = set()
    for signature in sigs:
        assert wait(chain.url, signature)["err"] is None
        (memo,) = memos(chain.url, signature)
        seen.add(memo)
    assert len(seen) == 6  # six different memos: six different transactions
    assert token_balance(chain.url, partner_conn.user["wallet"], coin) > 0


def test_the_memo_names_the_api_gateway_request(chain, coin, partner_conn):
    """The memo is `partner:<requestContext.requestId>`: unique because API Gateway's ids are,
    and the on-chain link to the request's log line."""
    from devstack.events import ApiRequest, api_event, lambda_context
    from testkit.helpers import handler

    request_id = str(uuid.uuid4())
    event = api_event(
        ApiRequest(
            "POST",
            "/partner/v1/trades/buy",
            headers={**partner_conn.bearer(), "Content-Type": "application/json"},
            body={"mint": coin, "maxSolIn": str(SOL // 50), "minTokensOut": "0", **FEES},
        )
    )
    event["requestContext"]["requestId"] = request_id
    out = handler("trades_buy")(event, lambda_context("trades_buy"))
    assert out["statusCode"] == 200, out["body"]
    signature = json.loads(out["body"])["signature"]
    assert wait(chain.url, signature)["err"] is None
    assert memos(chain.url, signature) == [f"partner:{request_id}".encode()]


def test_the_memo_outside_a_request_is_random_and_unique():
    from partner.chain import unique
    from partner.core import requestid

    requestid.begin({})  # no request id bound
    memos = {bytes(unique.request_memo().data) for _ in range(1000)}
    assert len(memos) == 1000 and all(m.startswith(b"partner:") and len(m) == 40 for m in memos)
    requestid.begin({"requestContext": {"requestId": "x" * 65}})  # not an API Gateway id
    assert len(bytes(unique.request_memo().data)) == 40


def test_resending_the_same_transaction_is_not_a_failure(chain, aws_stack):
    """submit() of a transaction the network already holds returns its signature (it was accepted),
    never 422 tx_failed."""
    from solders.keypair import Keypair

    from partner.chain.rpc import Rpc
    from partner.chain.tx import submit
    from testkit.chain import airdrop, signed_transfer

    payer = Keypair()
    airdrop(chain.url, str(payer.pubkey()), SOL)
    client = Rpc(chain.url)
    tx, _ = signed_transfer(chain.url, payer, 1_000_000)
    first = submit(client, tx)
    wait(chain.url, str(first))
    again = submit(client, tx)  # the chain answers AlreadyProcessed
    assert again == first == tx.signatures[0]
    assert len(rpc(chain.url, "getSignaturesForAddress", [str(payer.pubkey())])) == 2  # airdrop + one transfer


@pytest.mark.parametrize(
    "data,message,expected",
    [
        (
            {"err": "AlreadyProcessed", "logs": []},
            "Transaction simulation failed: This transaction has already been processed",
            True,
        ),
        (None, "This transaction has already been processed", True),
        ({"err": "BlockhashNotFound"}, "Transaction simulation failed: Blockhash not found", False),
    ],
)
def test_already_processed_detection(data, message, expected):
    from partner.chain.rpc import PREFLIGHT_FAILURE, RpcError
    from partner.chain.tx import already_processed

    assert already_processed(RpcError(PREFLIGHT_FAILURE, message, data)) is expected


def test_a_bundle_sent_again_is_not_reported_failed(chain, aws_stack):
    """A re-sent bundle that landed stays `Landed` at the engine (issue 25: it used to flip to
    `Failed`); the launch path also checks the transactions' statuses before answering tx_failed,
    for an engine that reports such a bundle `Failed` or `Invalid`."""
    from solders.keypair import Keypair

    from partner.chain import instructions as ix
    from partner.chain.rpc import BlockEngine, Rpc
    from partner.chain.tx import WriteFees, assemble, sign
    from partner.send.pipeline import bundle_failed as _bundle_failed
    from partner.store.wallets import KeypairSigner
    from testkit.chain import airdrop

    payer = Keypair()
    airdrop(chain.url, str(payer.pubkey()), SOL)
    client = Rpc(chain.url)
    engine = BlockEngine(chain.bundle_url)
    blockhash, _ = client.latest_blockhash()
    txs = [
        sign(
            assemble(
                payer.pubkey(),
                [ix.system_transfer(payer.pubkey(), Keypair().pubkey(), 1_000_000)],
                fees=WriteFees(PRIO, TIP),
                blockhash=blockhash,
            ),
            [KeypairSigner(payer)],
        )
        for _ in range(2)
    ]
    signatures = [str(t.signatures[0]) for t in txs]
    bundle = engine.send_bundle(txs)
    for signature in signatures:
        wait(chain.url, signature)
    assert not _bundle_failed(engine, bundle, client, signatures, wait=10)
    landed = engine.inflight_statuses([bundle])[0]
    assert landed["status"] == "Landed"
    assert engine.send_bundle(txs) == bundle  # the same bundle again changes nothing
    assert engine.inflight_statuses([bundle])[0] == landed
    assert not _bundle_failed(engine, bundle, client, signatures, wait=10)
    # past Jito's 5-minute look-back the engine says Invalid of it; its transactions landed: not a failure
    from testkit.chain import rpc

    rpc(chain.url, "devstack_warp", [301])
    assert engine.inflight_statuses([bundle])[0]["status"] == "Invalid"
    assert not _bundle_failed(engine, bundle, client, signatures)
    blockhash, _ = client.latest_blockhash()
    # a bundle that really failed (its payer cannot pay) is reported failed once the engine says so
    broke = Keypair()
    failing = [
        sign(
            assemble(
                broke.pubkey(),
                [ix.system_transfer(broke.pubkey(), payer.pubkey(), 1)],
                fees=WriteFees(PRIO, TIP),
                blockhash=blockhash,
            ),
            [KeypairSigner(broke)],
        )
    ]
    failed_id = engine.send_bundle(failing)
    assert _bundle_failed(engine, failed_id, client, [str(failing[0].signatures[0])], wait=10)
