"""coins/create through the real handler against moto, the devstack chain and the pin server:
form rules, delegation, per-creator restrictions, first-buy rules 1-6, bundles and faults."""

from __future__ import annotations

import base64
import dataclasses
import json
import os

import pytest
import urllib3

from testkit.chain import airdrop, balance, rpc, token_balance, wait
from testkit.helpers import connect, invoke, tx_status

SOL = 10**9
CAP = 25_000_000 * 10**6
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + os.urandom(32)
STATUS_RESOURCE = "/partner/v1/transactions/{signature}/status"


def form(image: bytes | None = PNG, filename: str = "logo.png", ctype: str = "image/png", **fields):
    parts: dict = {"name": "Test Coin", "symbol": "TST"}
    parts.update(fields)
    parts = {k: v for k, v in parts.items() if v is not None}
    if image is not None:
        parts["image"] = (filename, image, ctype)
    return urllib3.encode_multipart_formdata(parts)


def create(conn, body_ctype):
    body, ctype = body_ctype
    return invoke(
        "coins_create", "POST", "/partner/v1/coins/create", headers={**conn.bearer(), "Content-Type": ctype}, body=body
    )


def status(conn, signature: str):
    return tx_status(signature, conn.bearer())


def account(url: str, pubkey: str):
    return rpc(url, "getAccountInfo", [pubkey, {"encoding": "base64"}])["value"]


def no_launch(user_id: str) -> bool:
    """Nothing recorded for the user: no launch, no cooldown, no slot held."""
    record = launches(user_id) or {}
    return not ({"launches", "last_at", "claim_until"} & record.keys())


def launches(user_id: str) -> dict | None:
    from partner.core.settings import get_settings
    from partner.store import ddb

    return ddb.get(get_settings().counters_table, f"LAUNCH#{user_id}")


@pytest.fixture
def conn(launcher):
    return launcher


@pytest.fixture
def second_conn(aws_stack, ip, creator, conn):
    """The same user through another client."""
    from partnerctl import admin

    app = admin.create_client(admin.NewClient(name="Other Launcher", redirect_uri="http://localhost:8080/callback"))
    return connect(app, creator, scope="coin:create", ip=ip)


# ------------------------------------------------------------------ launch without a first buy


def test_launch_pins_normalizes_and_lands(chain, pin_server, conn, creator):
    from partner.chain import governance_math as GM
    from partner.chain import programs as P
    from partner.chain.layouts import BondingCurve, Governance, TokenMetadata
    from testkit.chain import launchpad_instructions

    result = create(
        conn,
        form(
            name="  Cafe\u0301 Coin ",
            symbol=" caf1 ",
            description="hot",
            website="example.com",
            twitter="@cafe",
            priorityFeeLamports="5000",
        ),
    )
    assert result.status == 200, result.body
    body = result.json
    assert body["status"] == "submitted" and body["initialBuyPlan"] is None and "signatures" not in body
    assert result.headers["x-ratelimit-limit"] == "20"
    assert wait(chain.url, body["signature"])["err"] is None
    mint_raw = account(chain.url, body["mint"])  # a Token-2022 mint carrying its TokenMetadata
    assert mint_raw["owner"] == str(P.TOKEN_2022_PROGRAM_ID)
    meta = TokenMetadata.from_mint(base64.b64decode(mint_raw["data"][0]))
    assert (meta.name, meta.symbol, meta.uri) == ("Caf\u00e9 Coin", "CAF1", body["metadataUri"])
    assert str(meta.mint) == body["mint"] and meta.update_authority == P.governance_pda(body["mint"])[0]
    curve_raw = account(chain.url, str(P.bonding_curve_pda(body["mint"])[0]))
    assert str(BondingCurve.decode(base64.b64decode(curve_raw["data"][0])).creator) == creator["wallet"]
    image, ctype = pin_server.get(body["imageUri"].removeprefix("ipfs://"))
    assert image == PNG and ctype == "image/png"
    document = json.loads(pin_server.get(body["metadataUri"].removeprefix("ipfs://"))[0])
    assert document == {
        "name": "Caf\u00e9 Coin",
        "symbol": "CAF1",
        "description": "hot",
        "image": body["imageUri"],
        "website": "https://example.com",
        "twitter": "https://x.com/cafe",
        "telegram": "",
    }
    record = launches(creator["user_id"])
    assert [(e["n"], e["s"], e["m"]) for e in record["launches"]] == [("Caf\u00e9 Coin", "CAF1", body["mint"])]
    # create_coin commits to the pinned document's uri-borne fields (docs/programs.md "The uri-borne locks")
    [(name, args)] = launchpad_instructions(chain.url, body["signature"])
    assert name == "create_coin" and args["content_digests"] == GM.content_digests(document)
    gov_raw = account(chain.url, str(P.governance_pda(body["mint"])[0]))
    assert Governance.decode(base64.b64decode(gov_raw["data"][0])).content_digests == args["content_digests"]


def test_image_type_is_read_from_content_not_declared_type(conn, pin_server):
    gif = b"GIF89a" + os.urandom(20)
    result = create(conn, form(image=gif, filename="x.png", ctype="image/png", symbol="GIFC"))
    assert result.status == 200, result.body
    assert pin_server.get(result.json["imageUri"].removeprefix("ipfs://"))[1] == "image/gif"


# ------------------------------------------------------------------ form errors


@pytest.mark.parametrize(
    "kwargs,code",
    [
        ({"image": None}, "image_required"),
        ({"image": b"hello, not an image", "ctype": "image/png"}, "invalid_image_type"),
        ({"name": "   "}, "invalid_name"),
        ({"name": None}, "invalid_name"),
        ({"name": "x" * 33}, "name_too_long"),
        ({"name": "\u20ac" * 11}, "name_too_long"),  # 33 bytes in UTF-8
        ({"symbol": " "}, "invalid_symbol"),
        ({"symbol": "AB-C"}, "invalid_symbol"),
        ({"symbol": "ÄBC"}, "invalid_symbol"),
        ({"symbol": "ABCDEFGHIJK"}, "symbol_too_long"),
        ({"initialBuySol": "1000", "initialBuyTokens": "1000", "initialBuyMaxSolIn": "1000"}, "invalid_input"),
        ({"initialBuyMaxSolIn": "1000"}, "invalid_input"),
        ({"initialBuyTokens": "1000"}, "invalid_input"),
        ({"initialBuySol": "0.5"}, "invalid_input"),
        ({"initialBuySol": "0"}, "invalid_input"),
        ({"priorityFeeLamports": "999"}, "invalid_input"),
        ({"priorityFeeLamports": "18446744073709551615"}, "invalid_input"),  # issue 17 item 2: was 500
        ({"slippageBps": "10001"}, "invalid_input"),
        ({"slippageBps": "-1"}, "invalid_input"),
        ({"maxBypassFeeLamports": "1e9"}, "invalid_input"),
        ({"surprise": "x"}, "invalid_input"),
        ({"website": "ftp://example.com"}, "invalid_website"),
    ],
)
def test_form_errors(conn, creator, kwargs, code, pin_server):
    pinned = len(pin_server.pinned())
    result = create(conn, form(**kwargs))
    assert result.status == 400, result.body
    assert result.json["error"] == code
    assert len(pin_server.pinned()) == pinned  # refused before anything was pinned
    assert no_launch(creator["user_id"])


def test_unparseable_form_is_invalid_multipart(conn):
    result = create(conn, (b"--nope\r\nbroken", "multipart/form-data; boundary=abc"))
    assert result.status == 400 and result.json["error"] == "invalid_multipart"
    result = create(conn, (b"{}", "application/json"))
    assert result.status == 400 and result.json["error"] == "invalid_multipart"


def test_validation_before_delegation_then_403(chain, pin_server, clock, ip):
    from partnerctl import admin

    user = admin.create_user(trading=False)
    app = admin.create_client(admin.NewClient(name="No Delegation", redirect_uri="http://localhost:8080/callback"))
    conn = connect(app, user, scope="coin:create", ip=ip)
    assert create(conn, form(image=None)).json["error"] == "image_required"
    result = create(conn, form())
    assert result.status == 403 and result.json["error"] == "delegation_missing"


def test_scope_is_required(chain, pin_server, clock, ip, creator):
    from partnerctl import admin

    app = admin.create_client(admin.NewClient(name="Trader Only", redirect_uri="http://localhost:8080/callback"))
    conn = connect(app, creator, scope="trade:execute", ip=ip)
    result = create(conn, form())
    assert result.status == 403 and result.json["error"] == "insufficient_scope"


# ------------------------------------------------------------------ per-creator restrictions


def test_cooldown_belongs_to_the_user_across_clients(conn, second_conn, clock):
    assert create(conn, form(name="First", symbol="FIRST")).status == 200
    refused = create(second_conn, form(name="Second", symbol="SECOND"))
    assert refused.status == 429, refused.body
    assert refused.json["error"] == "deploy_cooldown_active"
    assert refused.json["cooldownRemainingSeconds"] == 60 and refused.headers["retry-after"] == "60"
    clock.advance(45)
    refused = create(second_conn, form(name="Second", symbol="SECOND"))
    assert refused.json["cooldownRemainingSeconds"] == 15 and refused.headers["retry-after"] == "15"
    clock.advance(15)
    assert create(second_conn, form(name="Second", symbol="SECOND")).status == 200


def test_identity_allowance_and_bypass_fee_across_clients(chain, conn, second_conn, clock, creator):
    from partner.core.settings import get_settings

    treasury = get_settings().platform_treasury
    assert create(conn, form(name="Moon", symbol="MOON")).status == 200
    clock.advance(61)
    # same name, other symbol, through another client of the same user
    refused = create(second_conn, form(name="Moon", symbol="LUNA"))
    assert refused.status == 422, refused.body
    assert refused.json["error"] == "launch_identity_limit_reached"
    assert refused.json["totalBypassFeeLamports"] == str(SOL // 10)
    low = create(second_conn, form(name="Moon", symbol="LUNA", maxBypassFeeLamports=str(SOL // 10 - 1)))
    assert low.status == 422 and low.json["error"] == "launch_identity_limit_reached"
    before = balance(chain.url, treasury)
    paid = create(second_conn, form(name="Moon", symbol="LUNA", maxBypassFeeLamports=str(SOL)))
    assert paid.status == 200, paid.body
    assert wait(chain.url, paid.json["signature"])["err"] is None
    assert balance(chain.url, treasury) - before == SOL // 10  # the quote, not the maximum
    clock.advance(61)
    # a symbol already used: two launches share the name or the symbol now -> 0.2 SOL
    refused = create(conn, form(name="Sun", symbol="MOON"))
    assert refused.json["error"] == "launch_identity_limit_reached"
    assert refused.json["totalBypassFeeLamports"] == str(SOL // 10)
    refused = create(conn, form(name="Moon", symbol="SUN"))
    assert refused.json["totalBypassFeeLamports"] == str(2 * SOL // 10)
    # the symbol is compared after normalizing
    refused = create(conn, form(name="Other", symbol=" luna "))
    assert refused.json["error"] == "launch_identity_limit_reached"


def test_without_a_treasury_no_bypass_is_offered_or_taken(chain, conn, clock, monkeypatch):
    from partner.core.settings import get_settings
    from partner.features.launch import execute, limits

    unconfigured = get_settings().model_copy(update={"platform_treasury": None})
    for module in (execute, limits):
        monkeypatch.setattr(module, "get_settings", lambda: unconfigured)
    assert create(conn, form(name="Star", symbol="STAR")).status == 200
    clock.advance(61)
    refused = create(conn, form(name="Star", symbol="NOVA", maxBypassFeeLamports=str(SOL)))
    assert refused.status == 422 and refused.json["error"] == "launch_identity_limit_reached"
    assert "totalBypassFeeLamports" not in refused.json


def test_identity_is_per_user(chain, conn, pin_server, clock, ip):
    from partnerctl import admin

    assert create(conn, form(name="Shared", symbol="SHARE")).status == 200
    other = admin.create_user()
    airdrop(chain.url, other["wallet"], 2 * SOL)
    app = admin.create_client(admin.NewClient(name="Elsewhere", redirect_uri="http://localhost:8080/callback"))
    other_conn = connect(app, other, scope="coin:create", ip=ip)
    assert create(other_conn, form(name="Shared", symbol="SHARE")).status == 200


# ------------------------------------------------------------------ first buy


def test_first_buy_sol_is_one_bundle_and_reported_by_status(chain, conn, creator):
    from partner.chain import curve

    sol = SOL // 2
    result = create(conn, form(initialBuySol=str(sol), slippageBps="100"))
    assert result.status == 200, result.body
    body = result.json
    expected, _ = curve.buy_quote(curve.INITIAL_CURVE, sol)
    assert body["initialBuyPlan"] == {
        "kind": "buy",
        "authorizedMaxSolIn": str(sol),
        "expectedSolIn": str(sol),
        "expectedTokensOut": str(expected),
        "capacityTokensOut": str(CAP),
        "clamped": False,
        "clampReasons": [],
    }
    assert len(body["signatures"]) == 2 and body["signatures"][0] == body["signature"]
    for signature in body["signatures"]:
        assert wait(chain.url, signature)["err"] is None
    assert token_balance(chain.url, creator["wallet"], body["mint"]) == expected
    slots = {wait(chain.url, s)["slot"] for s in body["signatures"]}
    assert len(slots) == 1  # the creator buys in the creation slot
    reported = status(conn, body["signatures"][1])
    assert reported.status == 200, reported.body
    assert reported.json["bundle"]["signatures"] == body["signatures"]
    assert reported.json["status"] in ("processed", "confirmed", "finalized")


def test_a_first_buy_rides_out_the_block_engine_rate_limit(chain, conn, creator):
    """Issue 25: the block engine answers 429 over its rate limit (Jito: 1 request a second per IP);
    the service waits and tries again (bounded), so the launch lands and is reported as usual."""
    from testkit.chain import block_engine, use_up_rate_limit

    with block_engine(chain.url, rateLimitPerSecond=0.5):
        use_up_rate_limit(chain.bundle_url)  # the launch's sendBundle meets a 429 first
        result = create(conn, form(initialBuySol=str(SOL // 10)))
        assert result.status == 200, result.body
        signatures = result.json["signatures"]
        for signature in signatures:
            assert wait(chain.url, signature)["err"] is None
        use_up_rate_limit(chain.bundle_url)
        reported = status(conn, signatures[1])
    assert reported.status == 200, reported.body
    assert reported.json["status"] in ("processed", "confirmed", "finalized")
    assert reported.json["bundle"]["signatures"] == signatures


def test_a_pending_launch_bundle_is_submitted_and_reported_pending(chain, conn, creator, monkeypatch):
    """Issue 25: a bundle lands after the engine accepted it. One still `Pending` when the launch
    stops following it is answered `submitted`, and the status endpoint reports it pending (not
    failed) until it lands."""
    from partner.send import pipeline
    from testkit.chain import block_engine

    monkeypatch.setattr(pipeline, "BUNDLE_WAIT_SECONDS", 0.0)  # answer at once: the bundle is still pending

    with block_engine(chain.url, landDelayMs=3_600_000):
        result = create(conn, form(initialBuySol=str(SOL // 10)))
        assert result.status == 200, result.body
        assert result.json["status"] == "submitted"
        signatures = result.json["signatures"]
        for signature in signatures:
            reported = status(conn, signature)
            assert reported.status == 200, reported.body
            assert (reported.json["status"], reported.json["error"], reported.json["slot"]) == ("pending", None, None)
            assert reported.json["bundle"] == {
                "bundleId": result.json["bundleId"],
                "signatures": signatures,
                "status": "pending",
            }
        assert rpc(chain.url, "getSignatureStatuses", [signatures])["value"] == [None, None]
        rpc(chain.url, "devstack_landBundles")
    for signature in signatures:
        assert wait(chain.url, signature)["err"] is None
    landed = status(conn, signatures[0])
    assert landed.json["status"] in ("processed", "confirmed", "finalized") and landed.json["error"] is None
    assert landed.json["bundle"]["status"] == landed.json["status"]


def test_first_buy_sol_above_the_cap_is_clamped(chain, conn, creator):
    from partner.chain import curve
    from partner.chain.tx import TIP_ACCOUNTS

    tips_before = sum(balance(chain.url, str(t)) for t in TIP_ACCOUNTS)
    lamports_before = balance(chain.url, creator["wallet"])
    result = create(conn, form(initialBuySol=str(5 * SOL)))
    assert result.status == 200, result.body
    plan = result.json["initialBuyPlan"]
    cost = curve.buy_exact_out(curve.INITIAL_CURVE, CAP).sol_in
    assert plan == {
        "kind": "buy",
        "authorizedMaxSolIn": str(5 * SOL),
        "expectedSolIn": str(cost),
        "expectedTokensOut": str(CAP),
        "capacityTokensOut": str(CAP),
        "clamped": True,
        "clampReasons": ["token_balance", "net_bought"],
    }
    assert token_balance(chain.url, creator["wallet"], result.json["mint"]) == int(plan["expectedTokensOut"])
    assert sum(balance(chain.url, str(t)) for t in TIP_ACCOUNTS) - tips_before == 1_000_000
    spent = lamports_before - balance(chain.url, creator["wallet"])
    assert cost < spent < cost + SOL // 10  # the buy plus rent, fees and tip; far below 5 SOL


def test_first_buy_tokens_exact_and_per_trade_caps_do_not_apply(chain, aws_stack, pin_server, clock, ip):
    from partner.chain import curve
    from partnerctl import admin

    user = admin.create_user()
    airdrop(chain.url, user["wallet"], 10 * SOL)
    app = admin.create_client(
        admin.NewClient(
            name="Tiny Caps",
            redirect_uri="http://localhost:8080/callback",
            max_trade_lamports=1000,
            daily_volume_cap_lamports=1000,
        )
    )
    conn = connect(app, user, scope="coin:create", ip=ip)
    tokens = CAP
    cost = curve.buy_exact_out(curve.INITIAL_CURVE, tokens).sol_in
    result = create(conn, form(initialBuyTokens=str(tokens), initialBuyMaxSolIn=str(SOL)))
    assert result.status == 200, result.body
    plan = result.json["initialBuyPlan"]
    assert (plan["expectedTokensOut"], plan["expectedSolIn"], plan["authorizedMaxSolIn"], plan["clamped"]) == (
        str(tokens),
        str(cost),
        str(SOL),
        False,
    )
    assert token_balance(chain.url, user["wallet"], result.json["mint"]) == tokens


def test_first_buy_tokens_above_the_cap_is_refused_before_upload(chain, conn, creator, pin_server):
    pinned = len(pin_server.pinned())
    result = create(conn, form(initialBuyTokens=str(CAP + 1), initialBuyMaxSolIn=str(10 * SOL)))
    assert result.status == 422, result.body
    assert result.json["error"] == "buy_limit_exceeded"
    assert len(pin_server.pinned()) == pinned
    assert no_launch(creator["user_id"])


def test_failing_first_buy_lands_neither_transaction(chain, conn, creator, monkeypatch):
    """The buy's ceiling is one lamport short of its cost on-chain: the bundle lands nothing."""
    from partner.features.launch import first_buy as launch

    real = launch.plan_first_buy

    def short(*args, **kwargs):
        plan = real(*args, **kwargs)
        return dataclasses.replace(plan, authorized_max_sol_in=plan.expected_sol_in - 1)

    monkeypatch.setattr(launch, "plan_first_buy", short)
    lamports = balance(chain.url, creator["wallet"])
    result = create(conn, form(initialBuyTokens=str(10**12), initialBuyMaxSolIn=str(SOL)))
    assert result.status == 422, result.body
    assert result.json["error"] == "tx_failed"
    mint = result.json["mint"]
    assert account(chain.url, mint) is None
    assert balance(chain.url, creator["wallet"]) == lamports
    signatures = result.json["signatures"]
    assert rpc(chain.url, "getSignatureStatuses", [signatures])["value"] == [None, None]
    reported = status(conn, signatures[0])
    assert reported.json["status"] == "failed" and reported.json["bundle"]["signatures"] == signatures
    assert no_launch(creator["user_id"])  # nothing launched, nothing recorded
    monkeypatch.setattr(launch, "plan_first_buy", real)
    assert create(conn, form()).status == 200


def test_first_buy_the_creator_cannot_pay_lands_nothing(chain, aws_stack, pin_server, clock, ip):
    from partnerctl import admin

    poor = admin.create_user()
    airdrop(chain.url, poor["wallet"], SOL // 10)  # enough to create, not to buy 0.5 SOL
    app = admin.create_client(admin.NewClient(name="Poor", redirect_uri="http://localhost:8080/callback"))
    conn = connect(app, poor, scope="coin:create", ip=ip)
    result = create(conn, form(initialBuySol=str(SOL // 2)))
    assert result.status == 422 and result.json["error"] == "tx_failed", result.body
    assert account(chain.url, result.json["mint"]) is None
    assert balance(chain.url, poor["wallet"]) == SOL // 10
    assert no_launch(poor["user_id"])


# ------------------------------------------------------------------ faults


def test_pinning_down_leaves_nothing_on_chain(chain, conn, creator):
    from devstack.pinserver import clear_fault, set_fault

    lamports = balance(chain.url, creator["wallet"])
    set_fault("down", count=None)
    try:
        result = create(conn, form(initialBuySol=str(SOL // 2)))
    finally:
        clear_fault()
    assert result.status == 502 and result.json["error"] == "pinning_unavailable"
    assert balance(chain.url, creator["wallet"]) == lamports
    assert no_launch(creator["user_id"])
    assert create(conn, form()).status == 200  # no cooldown was started


def test_block_engine_down_leaves_nothing_on_chain(chain, conn, creator):
    lamports = balance(chain.url, creator["wallet"])
    rpc(chain.url, "devstack_setFault", [{"target": "bundle", "mode": "down", "count": 1}])
    result = create(conn, form(initialBuySol=str(SOL // 2)))
    assert result.status == 502 and result.json["error"] == "rpc_unavailable", result.body
    assert balance(chain.url, creator["wallet"]) == lamports
    assert no_launch(creator["user_id"])
    again = create(conn, form(initialBuySol=str(SOL // 2)))
    assert again.status == 200, again.body


@pytest.mark.parametrize("first_buy", [True, False])
def test_an_ambiguous_launch_keeps_the_cooldown_and_the_identity(
    chain, conn, creator, clock, monkeypatch, ports, first_buy
):
    """Issue 17 item 4: the send times out (`bundle slow` / `rpc slow`), so the launch may still land:
    the 502 carries the signature(s) and the mint, says retryable false, and the creator's cooldown
    and identity are recorded as for a submitted launch."""
    from partner.chain.rpc import BlockEngine
    from partner.features.launch import execute as launch

    monkeypatch.setattr(launch, "BlockEngine", lambda url: BlockEngine(url, timeout=0.5))
    ports.install(rpc=lambda timeout=None: ports.settings_rpc(0.5))
    extra = {"initialBuySol": str(SOL // 100)} if first_buy else {}
    target, method = ("bundle", "sendBundle") if first_buy else ("rpc", "sendTransaction")
    rpc(
        chain.url,
        "devstack_setFault",
        [{"target": target, "mode": "slow", "delayMs": 1500, "count": 1, "methods": [method]}],
    )
    first = create(conn, form(name="Maybe", symbol="MAYBE", **extra))
    assert first.status == 502 and first.json["error"] == "rpc_unavailable", first.body
    assert first.json["retryable"] is False
    if first_buy:
        assert len(first.json["signatures"]) == 2
    else:
        assert first.json["signature"]
    again = create(conn, form(name="Other", symbol="OTHER"))
    assert again.status == 429 and again.json["error"] == "deploy_cooldown_active", again.body
    assert first.json["mint"]
    clock.advance(61)
    same = create(conn, form(name="Maybe", symbol="MAYBE2"))
    assert same.status == 422 and same.json["error"] == "launch_identity_limit_reached", same.body
    record = launches(creator["user_id"])
    assert [entry["m"] for entry in record["launches"]] == [first.json["mint"]]


def test_rpc_down_before_upload(chain, conn, creator, pin_server):
    pinned = len(pin_server.pinned())
    rpc(
        chain.url,
        "devstack_setFault",
        [{"target": "rpc", "mode": "down", "methods": ["getMultipleAccounts"], "count": 1}],
    )
    result = create(conn, form())
    assert result.status == 502 and result.json["error"] == "rpc_unavailable", result.body
    assert len(pin_server.pinned()) == pinned
    assert no_launch(creator["user_id"])


# ------------------------------------------------------------------ limits


def test_form_limits(conn):
    files = {f"extra{i}": (f"x{i}.png", PNG, "image/png") for i in range(4)}
    body = urllib3.encode_multipart_formdata(
        {"name": "N", "symbol": "S", "image": ("a.png", PNG, "image/png"), **files}
    )
    assert create(conn, body).json["error"] == "invalid_multipart"  # 5 files
    many = {f"f{i}": "x" for i in range(15)}
    body = urllib3.encode_multipart_formdata({"name": "N", "symbol": "S", "image": ("a.png", PNG, "image/png"), **many})
    assert create(conn, body).json["error"] == "invalid_multipart"  # 17 fields
    big = PNG + bytes(5 * 1024 * 1024)
    result = create(conn, form(image=big))
    assert result.status == 413 and result.json["error"] == "payload_too_large"


def test_bucket_is_twenty_a_minute_per_token(conn, clock):
    for _ in range(20):
        assert create(conn, form(image=None)).json["error"] == "image_required"
    limited = create(conn, form())
    assert limited.status == 429 and "error" not in limited.json
    assert limited.headers["x-ratelimit-limit"] == "20" and "retry-after" in limited.headers


# ------------------------------------------------------------------ concurrency


def test_concurrent_launches_by_one_user_let_exactly_one_through(conn, second_conn, chain, lambdas):
    """Two clients of the same user launching at once: the creator's slot is claimed atomically."""
    from concurrent.futures import ThreadPoolExecutor

    conns = [conn, second_conn] * 3

    def launch(i):
        return create(conns[i], form(name=f"Race {i}", symbol=f"RACE{i}"))

    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(launch, range(6)))
    winners = [r for r in results if r.status == 200]
    assert len(winners) == 1, [r.body for r in results]
    for refused in (r for r in results if r.status != 200):
        assert refused.status == 429 and refused.json["error"] == "deploy_cooldown_active"
        assert int(refused.headers["retry-after"]) >= 1
    assert account(chain.url, winners[0].json["mint"]) is not None
    record = launches(conn.user["user_id"])
    assert len(record["launches"]) == 1 and "claim_until" not in record


def test_a_launch_that_sends_nothing_gives_the_slot_back(conn, chain, pin_server):
    from devstack import pinserver

    pinserver.set_fault("down", count=1)
    try:
        failed = create(conn, form(name="Unlucky", symbol="UNLCK"))
    finally:
        pinserver.clear_fault()
    assert failed.status == 502 and failed.json["error"] == "pinning_unavailable"
    assert "claim_until" not in (launches(conn.user["user_id"]) or {})
    assert create(conn, form(name="Lucky", symbol="LUCKY")).status == 200  # no cooldown was started
