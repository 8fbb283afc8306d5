"""Governance over HTTP through the gateway: propose (extend-mutability), three votes, warp,
settle, withdraw the votes and the bond; checked on the chain."""

from __future__ import annotations

import base64

from testkit.chain import airdrop, rpc, token_balance, wait, warp
from testkit.helpers import connect, gateway_client, partner_client

SOL = 10**9
TIP = 1_000_000
PRIO = 5_000
FEES = {"priorityFeeLamports": str(PRIO), "tipLamports": str(TIP)}
T = 10**6
BOND = 10**15 * 100 // 10_000
QUORUM = 10**15 * 500 // 10_000
DAY = 86_400
SCOPES = "trade:execute governance:vote governance:propose"


def _decode(chain, cls, key) -> object:
    value = rpc(chain.url, "getAccountInfo", [str(key), {"encoding": "base64"}])["value"]
    return cls.decode(base64.b64decode(value["data"][0]))


def test_proposal_votes_settle_and_withdrawals_over_http(devstack, chain):
    from partner.chain import layouts as L
    from partner.chain import programs as P
    from partner.chain.governance_math import Outcome
    from partner.chain.rpc import Rpc
    from partner.store.users import get_user
    from partner.store.wallets import SealedWalletSigner
    from partnerctl import admin
    from partnerctl.coins import create_coin_now

    client = partner_client("HTTP Governance", daily_volume_cap_lamports=10**15)
    creator = admin.create_user()
    airdrop(chain.url, creator["wallet"], SOL)
    mint = create_coin_now(Rpc(chain.url), SealedWalletSigner(get_user(creator["user_id"])), "Gov HTTP", "GOVH")
    warp(chain.url, 1)
    holdings = {"proposer": BOND, "v1": QUORUM - 2 * T, "v2": T, "v3": T}
    people = {}
    with gateway_client(devstack.url, timeout=30) as http:
        for n, (name, amount) in enumerate(holdings.items()):
            user = admin.create_user()
            airdrop(chain.url, user["wallet"], 10 * SOL)
            conn = connect(client, user, scope=SCOPES, ip=f"172.30.0.{n + 1}")
            headers = {"Authorization": f"Bearer {conn.access}"}
            buying = {"mint": mint, "tokensOut": str(amount), "maxSolIn": str(3 * SOL), **FEES}
            bought = http.post("/partner/v1/trades/buy-exact-out", headers=headers, json=buying)
            assert bought.status_code == 200, bought.text
            assert wait(chain.url, bought.json()["signature"])["err"] is None
            assert token_balance(chain.url, user["wallet"], mint) == amount
            people[name] = (user, headers)

        def post(who: str, path: str, body: dict) -> dict:
            response = http.post(
                f"/partner/v1/governance/{path}",
                headers=people[who][1],
                json={**FEES, **body},
            )
            assert response.status_code == 200, response.text
            assert response.headers["x-ratelimit-limit"] == "60"
            out = response.json()
            assert out["status"] == "processed" and out["mint"] == mint
            return out

        governance = str(P.governance_pda(mint)[0])
        before = _decode(chain, L.Governance, governance).mutable_until
        created = post(
            "proposer",
            "proposals/extend-mutability",
            {"mint": mint, "additionalSeconds": str(DAY), "voteDurationSeconds": "60"},
        )
        proposal = created["proposal"]
        assert created["governance"] == governance
        assert token_balance(chain.url, people["proposer"][0]["wallet"], mint) == 0

        for name in ("v1", "v2", "v3"):
            voted = post(name, "votes", {"proposal": proposal, "side": "yes", "amount": str(holdings[name])})
            assert voted["proposal"] == proposal
            assert token_balance(chain.url, people[name][0]["wallet"], mint) == 0
        still_open = http.post(
            "/partner/v1/governance/proposals/settle",
            headers=people["v2"][1],
            json={"proposal": proposal, **FEES},
        )
        assert (still_open.status_code, still_open.json()["error"]) == (422, "proposal_still_open")

        warp(chain.url, 61)
        post("v2", "proposals/settle", {"proposal": proposal})
        p = _decode(chain, L.Proposal, proposal)
        assert (p.settled, p.outcome, p.executed, p.participating_supply, p.participating_voters) == (
            True,
            Outcome.PASSED,
            True,
            QUORUM,
            3,
        )
        g = _decode(chain, L.Governance, governance)
        assert g.mutability_extended and g.mutable_until == before + DAY

        post("v1", "votes/withdraw", {"proposal": proposal})
        post("v3", "votes/withdraw", {"proposal": proposal, "voter": people["v2"][0]["wallet"]})  # a crank
        post("v3", "votes/withdraw", {"proposal": proposal})
        for name in ("v1", "v2", "v3"):
            assert token_balance(chain.url, people[name][0]["wallet"], mint) == holdings[name]
        post("v1", "bonds/withdraw", {"proposal": proposal})  # anyone; the bond goes to the proposer
        assert token_balance(chain.url, people["proposer"][0]["wallet"], mint) == BOND
        assert token_balance(chain.url, people["v1"][0]["wallet"], mint) == holdings["v1"]
