"""Atomicity under concurrency, against moto in server mode (the in-process mock loses updates)."""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from testkit.helpers import connect, invoke, lost_race, token_call


def test_exactly_120_of_150_concurrent_first_requests(aws_stack, user, ip, ports, lambdas):
    """With the window pinned, 150 concurrent requests on a fresh 120 budget admit exactly 120."""
    from partner.core import clock
    from partnerctl import admin

    fixed = (int(clock.now()) // 60) * 60 + 1.0
    ports.install(clock=lambda: fixed)
    client = admin.create_client(
        admin.NewClient(name="Pinned App", redirect_uri="http://localhost:8080/callback", tier="Basic")
    )
    conn = connect(client, user, ip=ip)

    def call(_):
        result = invoke("me", "GET", "/partner/v1/me", headers=conn.bearer())
        return result.status, (result.json.get("error") if result.status != 200 else None)

    with ThreadPoolExecutor(max_workers=32) as pool:
        outcomes = Counter(pool.map(call, range(150)))
    assert outcomes == Counter({(200, None): 120, (429, "rate_limit_exceeded"): 30})
    # the stored count is exactly the budget: refusals are never counted
    from partner.store import counters

    assert counters.read(f"RL#tier#{client['client_id']}#{int(fixed) // 60 * 60}") == 120


def test_16_concurrent_refreshes_have_at_most_one_winner(aws_stack, client, user, ip, lambdas):
    conn = connect(client, user, ip=ip)

    def refresh(_):
        return token_call(client, {"grant_type": "refresh_token", "refresh_token": conn.refresh}, ip=f"{ip}-{_}")

    with ThreadPoolExecutor(max_workers=16) as pool:
        results = list(pool.map(refresh, range(16)))
    winners = [r for r in results if r.status == 200]
    losers = [r for r in results if r.status != 200]
    assert len(winners) <= 1
    assert all(lost_race(r) for r in losers), [r.body for r in losers]
    # a replay of a rotated-out refresh token revoked the grant: the winner's pair is dead too
    for winner in winners:
        me = invoke("me", "GET", "/partner/v1/me", headers={"Authorization": f"Bearer {winner.json['access_token']}"})
        assert me.status == 401 and me.json["error"] == "invalid_token"
        again = token_call(
            client, {"grant_type": "refresh_token", "refresh_token": winner.json["refresh_token"]}, ip=ip
        )
        assert again.status == 400 and again.json["error"] == "invalid_grant"
