"""GET /partner/v1/fees/estimate through the real handler, and the devstack chain's
getRecentPrioritizationFees answering from what processed transactions paid."""

from __future__ import annotations

from testkit.chain import airdrop, compute_budget, new_coin, rpc, wait
from testkit.helpers import buy, connect, invoke

SOL = 10**9
PATH = "/partner/v1/fees/estimate"


def estimate(headers: dict | None, query=None):
    return invoke("fees_estimate", "GET", PATH, headers=headers, query=query)


def _pay_alone(url: str, micro_lamports: int) -> str:
    """A transfer at `micro_lamports` per compute unit that writes none of a trade's accounts."""
    from solders.compute_budget import set_compute_unit_price
    from solders.hash import Hash
    from solders.keypair import Keypair
    from solders.message import Message
    from solders.system_program import TransferParams, transfer
    from solders.transaction import VersionedTransaction

    payer = Keypair()
    airdrop(url, str(payer.pubkey()), SOL)
    blockhash = Hash.from_string(rpc(url, "getLatestBlockhash", [{"commitment": "confirmed"}])["value"]["blockhash"])
    msg = Message.new_with_blockhash(
        [
            set_compute_unit_price(micro_lamports),
            transfer(TransferParams(from_pubkey=payer.pubkey(), to_pubkey=Keypair().pubkey(), lamports=SOL // 10)),
        ],
        payer.pubkey(),
        blockhash,
    )
    import base64

    raw = base64.b64encode(bytes(VersionedTransaction(msg, [payer]))).decode()
    return rpc(url, "sendTransaction", [raw, {"encoding": "base64"}])


def _price_of(url: str, signature: str) -> int:
    """The SetComputeUnitPrice of a landed transaction, micro-lamports per unit."""
    _, price, _ = compute_budget(url, signature)
    assert price is not None
    return price


def test_estimate_is_the_market_of_the_accounts_a_trade_write_locks(aws_stack, chain, ip):
    """A mainnet-shaped market: 150 recent slots, most of them without a paid write of the trade's
    accounts (0, as mainnet's block minimum), a few where trades on this coin or on another one
    (both write the fee recipient) paid, and one where only an unrelated transfer paid a lot."""
    from partner.chain import programs as P
    from partner.core.limits import TRADE_UNITS
    from partner.features import fees
    from partnerctl import admin

    mint, other = new_coin(chain.url, "Fee Coin", "FEES"), new_coin(chain.url, "Other Fee Coin", "FEEO")
    client = admin.create_client(admin.NewClient(name="Fees", redirect_uri="http://localhost:8080/callback"))
    trader = admin.create_user()
    airdrop(chain.url, trader["wallet"], 3 * SOL)
    conn = connect(client, trader, scope="trade:execute", ip=ip)
    rpc(chain.url, "devstack_warp", [61])  # past the 150-slot window: only what follows is the market

    paid = []  # the compute-unit price each trade paid: its priority fee over its own limit

    def buy_at(coin: str, micro_lamports: int) -> None:
        bought = buy(conn, coin, SOL // 50, priority_fee=micro_lamports * TRADE_UNITS // 1_000_000)
        assert bought.status == 200, bought.body
        wait(chain.url, bought.json["signature"])
        paid.append(_price_of(chain.url, bought.json["signature"]))
        rpc(chain.url, "devstack_warp", [1])  # each in a slot of its own

    for price in (100_000, 1_000_000, 10_000_000):
        buy_at(mint, price)
    buy_at(other, 5_000_000)  # another coin's trade: it write-locks the same fee recipient
    # each trade's limit fits it (a first buy creates the token account), so its price is its own
    p25, p50, p75, p95 = sorted(paid)
    wait(chain.url, _pay_alone(chain.url, 50_000_000))  # a paid slot, but not for these accounts
    rpc(chain.url, "devstack_warp", [1])

    reader = connect(client, trader, scope="profile:read", ip=ip)  # any valid token, no scope
    answer = estimate(reader.bearer(), {"mint": mint})
    assert answer.status == 200, answer.body
    body = answer.json
    assert answer.headers["x-ratelimit-limit"] == "300"
    assert body["mint"] == mint and body["computeUnitLimit"] == TRADE_UNITS and body["tipLamports"] == "1000000"
    assert body["slots"] == 4 and body["sampledSlots"] == 150
    prices = {"p25": p25, "p50": p50, "p75": p75, "p95": p95}
    assert body["computeUnitPriceMicroLamports"] == {k: str(v) for k, v in prices.items()}
    lamports = {k: str(-(-v * TRADE_UNITS // 1_000_000)) for k, v in prices.items()}
    assert body["priorityFeeLamports"] == lamports
    assert body["recommended"] == {
        "percentile": 75,
        "priorityFeeLamports": lamports["p75"],
        "computeUnitPriceMicroLamports": str(p75),
    }
    from solders.pubkey import Pubkey

    from partner.chain.layouts import Global, decode_owned
    from partner.chain.rpc import Rpc

    config = decode_owned(Global, Rpc(chain.url).accounts([P.global_pda()[0]])[0], P.LAUNCHPAD_PROGRAM_ID)
    curve, pool = P.bonding_curve_pda(mint)[0], P.pool_pda(mint)[0]
    assert sorted(body["accounts"]) == sorted(
        map(
            str,
            [
                curve,
                P.associated_token_address(curve, mint),
                pool,
                P.associated_token_address(pool, mint),
                config.fee_recipient,
            ],
        )
    )
    assert body["accounts"] == [str(a) for a in fees.trade_accounts(Pubkey.from_string(mint), [config.fee_recipient])]

    # the chain's own answer for those accounts: every slot reported, the empty ones at 0
    samples = rpc(chain.url, "getRecentPrioritizationFees", [body["accounts"]])
    assert len(samples) == 150 and [s["slot"] for s in samples] == sorted(s["slot"] for s in samples)
    assert sorted(s["prioritizationFee"] for s in samples if s["prioritizationFee"]) == sorted(paid)


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
        return httpx.post(
            chain.url,
            json={"jsonrpc": "2.0", "id": 1, "method": "getRecentPrioritizationFees", "params": params},
            timeout=30,
        ).json()

    assert isinstance(call([])["result"], list)  # no accounts: the block minimums
    assert all(set(e) == {"slot", "prioritizationFee"} for e in call([])["result"])
    assert call([["not-a-key"]])["error"]["code"] == -32602
    assert call([["11111111111111111111111111111111"] * 129])["error"]["code"] == -32602


def test_a_key_that_is_not_a_coin_answers_as_the_quote_does(aws_stack, chain, client, user, ip):
    """The System program, wSOL, a wallet: each is a public key but not a coin of this launchpad,
    and the estimate refuses it with the quote's own 400 (issue 39, low 1)."""
    from solders.keypair import Keypair

    from testkit.helpers import trade

    conn = connect(client, user, ip=ip)
    trader = connect(client, user, scope="trade:execute", ip=ip)
    wallet = str(Keypair().pubkey())
    airdrop(chain.url, wallet, SOL)
    for key in ("11111111111111111111111111111111", "So11111111111111111111111111111111111111112", wallet):
        answer = estimate(conn.bearer(), {"mint": key})
        assert answer.status == 400, (key, answer.body)
        quoted = trade(trader, "quote", {"side": "sell", "mint": key, "tokensIn": "5"})
        assert quoted.status == 400, (key, quoted.body)
        assert {k: answer.json[k] for k in ("error", "message", "field")} == {
            "error": "invalid_input",
            "message": "mint is not a coin of this launchpad.",
            "field": "mint",
        }
        assert {k: quoted.json[k] for k in ("error", "message", "field")} == {
            k: answer.json[k] for k in ("error", "message", "field")
        }
    mint = new_coin(chain.url, "Real Fee Coin", "FEER")
    assert estimate(conn.bearer(), {"mint": mint}).status == 200
