"""GET /partner/v1/fees/estimate through the real handler, and the devstack chain's
getRecentPrioritizationFees answering from what processed transactions paid."""

from __future__ import annotations

from tests.chainutil import airdrop, new_coin, rpc, wait
from tests.helpers import connect, invoke

SOL = 10**9
PATH = "/partner/v1/fees/estimate"


def estimate(headers: dict | None, query=None):
    return invoke("fees_estimate", "GET", PATH, headers=headers, query=query)


def test_estimate_reflects_what_trades_on_the_mint_paid(aws_stack, chain, ip):
    from partner.features import admin, fees
    from partner.chain import programs as P

    mint = new_coin(chain.url, "Fee Coin", "FEES")
    client = admin.create_client(name="Fees", redirect_uri="http://localhost:8080/callback")
    trader = admin.create_user()
    airdrop(chain.url, trader["wallet"], 3 * SOL)
    conn = connect(client, trader, scope="trade:execute", ip=ip)
    from partner.core.limits import TRADE_UNITS

    # lamports for a trade's limit: 100k, 1M, 10M micro-lamports per unit
    paid = [price * TRADE_UNITS // 1_000_000 for price in (100_000, 1_000_000, 10_000_000)]
    for lamports in paid:
        bought = invoke("trades_buy", "POST", "/partner/v1/trades/buy",
                        headers={**conn.bearer(), "Content-Type": "application/json"},
                        body={"mint": mint, "maxSolIn": str(SOL // 50), "slippageBps": 500,
                              "priorityFeeLamports": str(lamports), "tipLamports": "1000000"})
        assert bought.status == 200, bought.body
        wait(chain.url, bought.json["signature"])
        rpc(chain.url, "devstack_warp", [1])  # each in its own slot
    curve = str(P.bonding_curve_pda(mint)[0])
    samples = rpc(chain.url, "getRecentPrioritizationFees", [[curve]])
    prices = [s["prioritizationFee"] for s in samples]
    assert {100_000, 1_000_000, 10_000_000} <= set(prices)
    assert [s["slot"] for s in samples] == sorted(s["slot"] for s in samples)

    reader = connect(client, trader, scope="profile:read", ip=ip)  # any valid token, no scope
    for _ in range(3):  # the 150-slot window moves with time: compare answers read back to back
        answer = estimate(reader.bearer(), {"mint": mint})
        assert answer.status == 200, answer.body
        body = answer.json
        direct = fees.from_samples(mint, rpc(chain.url, "getRecentPrioritizationFees",
                                             [[curve, str(P.pool_pda(mint)[0])]]))
        if body == direct:
            break
    assert body == direct
    assert answer.headers["x-ratelimit-limit"] == "300"
    assert body["mint"] == mint and body["computeUnitLimit"] == TRADE_UNITS and body["tipLamports"] == "1000000"
    assert int(body["priorityFeeLamports"]["p95"]) <= paid[-1]  # nothing above the highest price paid
    values = [int(body["priorityFeeLamports"][k]) for k in ("p25", "p50", "p75", "p95")]
    assert values == sorted(values) and values[0] >= 1000


def test_bad_or_missing_mint_is_invalid_input(aws_stack, chain, client, user, ip):
    conn = connect(client, user, ip=ip)
    for query in ({"mint": "not-a-key"}, {}, {"mint": ["11111111111111111111111111111111"] * 2}, {"mint": ""}):
        answer = estimate(conn.bearer(), query)
        assert answer.status == 400, (query, answer.body)
        assert answer.json["error"] == "invalid_input" and answer.json["field"] == "mint"
    assert estimate(None, {"mint": "11111111111111111111111111111111"}).status == 401


def test_chain_prioritization_fees_params_as_solana(chain):
    import httpx

    def call(params):
        return httpx.post(chain.url, json={"jsonrpc": "2.0", "id": 1, "method": "getRecentPrioritizationFees",
                                           "params": params}, timeout=30).json()

    assert isinstance(call([])["result"], list)  # no accounts: the block minimums
    assert all(set(e) == {"slot", "prioritizationFee"} for e in call([])["result"])
    assert call([["not-a-key"]])["error"]["code"] == -32602
    assert call([["11111111111111111111111111111111"] * 129])["error"]["code"] == -32602
