"""The whole connect flow over HTTP through the gateway: authorize, consent, token, /me, refresh, revoke."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import httpx

from testkit.helpers import gateway_client, hidden_inputs, pkce_pair


def test_connect_flow_over_http(devstack):
    from partnerctl import admin

    base = devstack.url
    client = admin.create_client(admin.NewClient(name="HTTP App", redirect_uri="http://127.0.0.1:9/cb"))
    user = admin.create_user(twitter="carol")
    cookie = admin.create_session(user["user_id"])["cookie"]
    verifier, challenge = pkce_pair()
    with gateway_client(base, timeout=30, follow_redirects=False) as http:
        page = http.get(
            "/oauth/authorize",
            params={
                "response_type": "code",
                "client_id": client["client_id"],
                "redirect_uri": "http://127.0.0.1:9/cb",
                "scope": "profile:read trade:execute",
                "state": "st-1",
                "code_challenge": challenge,
                "code_challenge_method": "S256",
            },
            headers={"Cookie": cookie},
        )
        assert page.status_code == 200
        assert "HTTP App" in page.text and user["wallet"] in page.text
        assert page.headers["x-frame-options"] == "DENY"
        assert page.headers["x-ratelimit-limit"] == "30"
        form = hidden_inputs(page.text) | {"decision": "approve"}
        approved = http.post("/oauth/authorize", data=form, headers={"Cookie": cookie})
        assert approved.status_code == 302
        location = urlsplit(approved.headers["location"])
        assert f"{location.scheme}://{location.netloc}{location.path}" == "http://127.0.0.1:9/cb"
        query = {k: v[0] for k, v in parse_qs(location.query).items()}
        assert query["state"] == "st-1" and query["code"].startswith("app_ac_")

        token = http.post(
            "/oauth/token",
            auth=(client["client_id"], client["api_key"]),
            data={
                "grant_type": "authorization_code",
                "code": query["code"],
                "redirect_uri": "http://127.0.0.1:9/cb",
                "code_verifier": verifier,
            },
        )
        assert token.status_code == 200, token.text
        assert token.headers["cache-control"] == "no-store" and token.headers["pragma"] == "no-cache"
        pair = token.json()
        assert pair["token_type"] == "Bearer" and pair["expires_in"] == 1800
        assert pair["scope"] == "profile:read trade:execute"

        me = http.get("/partner/v1/me", headers={"Authorization": f"Bearer {pair['access_token']}"})
        assert me.status_code == 200
        assert me.json()["user"] == {"walletSolana": user["wallet"], "twitterHandle": "carol", "tradingEnabled": True}
        assert me.json()["scopes"] == ["profile:read", "trade:execute"]
        assert int(me.headers["x-ratelimit-remaining"]) == 299

        # refresh rotates; the old access token keeps working until it expires
        refreshed = http.post(
            "/oauth/token",
            data={
                "grant_type": "refresh_token",
                "refresh_token": pair["refresh_token"],
                "client_id": client["client_id"],
                "client_secret": client["api_key"],
            },
        )
        assert refreshed.status_code == 200, refreshed.text
        new = refreshed.json()
        assert new["refresh_token"] != pair["refresh_token"]

        # revoking the new refresh token kills its family's access tokens
        revoked = http.post(
            "/oauth/revoke",
            auth=(client["client_id"], client["api_key"]),
            data={"token": new["refresh_token"], "token_type_hint": "refresh_token"},
        )
        assert revoked.status_code == 200 and revoked.json() == {}
        gone = http.get("/partner/v1/me", headers={"Authorization": f"Bearer {new['access_token']}"})
        assert gone.status_code == 401
        assert gone.json()["error"] == "invalid_token"
        assert gone.headers["www-authenticate"] == 'Bearer error="invalid_token"'


def test_unknown_route_is_json_404(devstack):
    response = httpx.get(f"{devstack.url}/partner/v1/nothing-here", timeout=10)
    assert response.status_code == 404
    assert response.json()["error"] == "not_found"
