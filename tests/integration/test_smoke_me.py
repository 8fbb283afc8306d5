from testkit.helpers import connect, invoke


def test_connect_and_read_profile(client, user, ip):
    conn = connect(client, user, ip=ip)
    me = invoke("me", "GET", "/partner/v1/me", headers=conn.bearer())
    assert me.status == 200, me.body
    assert me.json == {
        "user": {"walletSolana": user["wallet"], "twitterHandle": "alice", "tradingEnabled": True},
        "client": client["client_id"],
        "scopes": ["profile:read"],
        # additive (issue 20): the grant's effective caps (the client's defaults here) and today's spend
        "limits": {
            "maxTradeLamports": "10000000000",
            "dailyVolumeCapLamports": "100000000000",
            "spentTodayLamports": "0",
        },
    }
    assert me.headers["x-ratelimit-limit"] == "300"
    assert me.headers["x-ratelimit-remaining"] == "299"
