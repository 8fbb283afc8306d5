"""Parallel trades from one client against a daily volume cap that fits only some of them.

Against moto in server mode (atomic conditional updates) and the devstack chain, through the
real handlers in threads: the admitted trades never exceed the cap, the counter is exactly
their sum, every refusal is 403 daily_cap_exceeded, nothing was refused that would have fit,
and what reached the chain is exactly what was admitted.
"""

from __future__ import annotations

import base64
import struct
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

from testkit.chain import airdrop, rpc, wait
from testkit.helpers import connect, partner_client
from tests.integration.test_trades import trade

SOL = 10**9
TIP = 1_000_000
PRIO = 10_000
PARALLEL = 12
CAP = 400_000_000
# distinct values (so no two transactions are byte-identical), 12 of them summing to ~2.2x the cap
VALUES = [120_000_000 - i * 7_919_000 for i in range(PARALLEL)]


def _volume(client_id: str) -> int:
    from partner.core import clock
    from partner.store import counters

    day = datetime.fromtimestamp(clock.now(), UTC).strftime("%Y-%m-%d")
    return counters.read(f"VOL#{client_id}#{day}")


def _sol_in_of(chain_url: str, signature: str) -> int:
    """The sol_in of the launchpad buy instruction in a landed transaction."""
    from solders.transaction import Transaction

    from partner.chain import instructions as ix
    from partner.chain import programs as P

    raw = rpc(chain_url, "getTransaction", [signature, {"encoding": "base64"}])["transaction"][0]
    tx = Transaction.from_bytes(base64.b64decode(raw))
    keys = tx.message.account_keys
    buys = [
        bytes(i.data)
        for i in tx.message.instructions
        if keys[i.program_id_index] == P.LAUNCHPAD_PROGRAM_ID and bytes(i.data).startswith(ix.IX_BUY)
    ]
    assert len(buys) == 1
    return struct.unpack_from("<Q", buys[0], len(ix.IX_BUY))[0]


def test_parallel_trades_never_exceed_the_daily_cap(aws_stack, chain, coin, ip, lambdas):
    from partnerctl import admin

    assert sum(VALUES) > 2 * CAP and min(VALUES) < CAP // 4 and len(set(VALUES)) == PARALLEL
    client = partner_client("Busy App", daily_volume_cap_lamports=CAP)
    user = admin.create_user()
    airdrop(chain.url, user["wallet"], 5 * SOL)
    conn = connect(client, user, scope="trade:execute", ip=ip)

    start = threading.Barrier(PARALLEL)

    def one(value: int):
        start.wait()
        return value, trade(
            conn,
            "buy",
            {
                "mint": coin,
                "maxSolIn": str(value),
                "slippageBps": 2000,
                "priorityFeeLamports": str(PRIO),
                "tipLamports": str(TIP),
            },
        )

    with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        outcomes = list(pool.map(one, VALUES))

    admitted = [(v, r) for v, r in outcomes if r.status == 200]
    refused = [(v, r) for v, r in outcomes if r.status != 200]
    for _, r in refused:
        assert r.status == 403, r.body
        assert r.json["error"] == "daily_cap_exceeded" and r.json["retryable"] is False
        assert r.json["dailyVolumeCapLamports"] == str(CAP)
    admitted_sum = sum(v for v, _ in admitted)
    assert admitted and refused
    assert admitted_sum <= CAP
    counter = _volume(client["client_id"])
    assert counter == admitted_sum
    for value, r in refused:
        spent = int(r.json["spentTodayLamports"])
        assert spent + value > CAP  # refused because it did not fit at that moment
        assert spent <= counter
        assert value > CAP - counter  # and it would not fit now either: nothing was refused needlessly

    # what reached the chain is exactly what was admitted, each once
    signatures = [r.json["signature"] for _, r in admitted]
    assert len(set(signatures)) == len(signatures)
    for value, r in admitted:
        assert r.json["mint"] == coin and r.json["status"] == "submitted"
        wait(chain.url, r.json["signature"])
        assert _sol_in_of(chain.url, r.json["signature"]) == value
    landed = {s["signature"] for s in rpc(chain.url, "getSignaturesForAddress", [user["wallet"]])}
    assert set(signatures) <= landed
    assert len(landed) == len(signatures) + 1  # plus the airdrop

    # the day's remaining room is still usable, exactly
    room = CAP - counter
    if room > 0:
        last = trade(
            conn,
            "buy",
            {
                "mint": coin,
                "maxSolIn": str(room),
                "slippageBps": 2000,
                "priorityFeeLamports": str(PRIO),
                "tipLamports": str(TIP),
            },
        )
        assert last.status == 200, last.body
    over = trade(
        conn,
        "buy",
        {
            "mint": coin,
            "maxSolIn": "1000000",
            "slippageBps": 2000,
            "priorityFeeLamports": str(PRIO),
            "tipLamports": str(TIP),
        },
    )
    assert over.status == 403 and over.json["error"] == "daily_cap_exceeded"
    assert over.json["spentTodayLamports"] == str(CAP)
    assert _volume(client["client_id"]) == CAP


def test_concurrent_requests_each_see_their_own_event(aws_stack, ip, lambdas):
    """Requests at once, each in a process of its own, processes reused while warm: no request reads
    another's event (bearer token, body)."""
    from partnerctl import admin
    from testkit.helpers import invoke

    client = partner_client("Many Users")
    conns = [connect(client, admin.create_user(twitter=f"user{i}"), ip=ip) for i in range(6)]

    def me(i: int):
        conn = conns[i % len(conns)]
        result = invoke("me", "GET", "/partner/v1/me", headers=conn.bearer())
        assert result.status == 200, result.body
        return result.json["user"]["walletSolana"], conn.user["wallet"]

    with ThreadPoolExecutor(max_workers=16) as pool:
        answers = list(pool.map(me, range(240)))
    assert [got for got, _ in answers] == [want for _, want in answers]


HOT_USERS, HOT_TRADES = 10, 100
HOT_CAP = 1_000_000_000


def test_a_hundred_concurrent_trades_of_one_client_never_5xx_nor_overshoot(aws_stack, chain, coin, ip, lambdas):
    """100 buys of one client at once (10 users, 10 each) on the devstack, whose DynamoDB cancels
    overlapping transactions as DynamoDB does: no 5xx, the client's and every grant's counter is
    exactly the sum of what was admitted, and that never passes the cap."""
    from partner.core import clock
    from partner.features import grantlimits
    from partner.store import counters
    from partnerctl import admin

    client = partner_client("Hot App", daily_volume_cap_lamports=HOT_CAP)
    conns = []
    for i in range(HOT_USERS):
        user = admin.create_user(twitter=f"hot{i}")
        airdrop(chain.url, user["wallet"], 3 * SOL)
        conns.append(connect(client, user, scope="trade:execute", ip=ip))
    values = [15_000_000 + i * 97_001 for i in range(HOT_TRADES)]  # ~1.98 SOL in all: about half fit
    start = threading.Barrier(HOT_TRADES)

    def one(i: int):
        start.wait(30)
        return i, trade(
            conns[i % HOT_USERS],
            "buy",
            {
                "mint": coin,
                "maxSolIn": str(values[i]),
                "slippageBps": 2000,
                "priorityFeeLamports": str(PRIO),
                "tipLamports": str(TIP),
            },
        )

    with ThreadPoolExecutor(max_workers=HOT_TRADES) as pool:
        outcomes = list(pool.map(one, range(HOT_TRADES)))

    assert [r.status for _, r in outcomes if r.status >= 500] == []
    for _, r in outcomes:
        assert r.status in (200, 403), r.body
        if r.status == 403:
            assert r.json["error"] == "daily_cap_exceeded"
    admitted = [i for i, r in outcomes if r.status == 200]
    assert admitted and len(admitted) < HOT_TRADES
    total = sum(values[i] for i in admitted)
    assert total <= HOT_CAP
    assert _volume(client["client_id"]) == total
    day = datetime.fromtimestamp(clock.now(), UTC).strftime("%Y-%m-%d")
    for u, conn in enumerate(conns):
        mine = sum(values[i] for i in admitted if i % HOT_USERS == u)
        key = grantlimits.grant_volume_key(client["client_id"], conn.user["user_id"], day)
        assert counters.read(key) == mine
