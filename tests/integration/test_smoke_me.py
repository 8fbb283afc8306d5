from tests.helpers import connect, invoke


def test_connect_and_read_profile(client, user, ip):
    conn = connect(client, user, ip=ip)
    me = invoke("me", "GET", "/partner/v1/me", headers=conn.bearer())
    assert me.status == 200, me.body
    assert me.json == {
        "user": {"walletSolana": user["wallet"], "twitterHandle": "alice", "tradingEnabled": True},
        "client": client["client_id"],
        "scopes": ["profile:read"],
    }
    assert me.headers["x-ratelimit-limit"] == "300"
    assert me.headers["x-ratelimit-remaining"] == "299"
