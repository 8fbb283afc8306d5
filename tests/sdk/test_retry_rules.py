"""The SDK's retry rules against httpx.MockTransport: 429, 409, read 5xx ceiling, writes never
retried (AmbiguousWriteError), refresh once on 401 invalid_token."""

from __future__ import annotations

import json

import httpx
import pytest

from partner_sdk import (
    AmbiguousWriteError,
    AuthenticationError,
    CapExceededError,
    GovernanceError,
    OAuthClient,
    PartnerClient,
    PartnerError,
    RateLimitError,
    ReauthorizationRequired,
    RetryPolicy,
    ServerError,
    TokenSet,
    TokenStore,
    TradeError,
    TransportError,
    VenueNotReadyError,
)

BASE = "http://api.test"
MINT = "Mint1111111111111111111111111111111111111111"
TRADE = {"signature": "5igSig", "mint": MINT, "status": "submitted"}
PROFILE = {
    "user": {"walletSolana": "W", "twitterHandle": "alice", "tradingEnabled": True},
    "client": "c",
    "scopes": ["profile:read", "trade:execute"],
}


class Script:
    """A MockTransport handler answering from a list, recording every request."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        if callable(answer):
            return answer(request)
        return answer


def err(status, code, headers=None, **extra):
    return httpx.Response(status, json={"error": code, "message": code, **extra}, headers=headers or {})


def ok(body):
    return httpx.Response(200, json=body)


def make(script, token="app_at_1", keys: bool = True, **policy):
    sleeps: list[float] = []
    retry = RetryPolicy(sleep=sleeps.append, jitter=0, **policy)
    client = PartnerClient(
        BASE, token, http=httpx.Client(transport=httpx.MockTransport(script)), retry=retry, idempotency_keys=keys
    )
    return client, sleeps


# ----------------------------------------------------------------------------- rule 1: 429
def test_429_waits_retry_after_then_succeeds():
    script = Script(err(429, "rate_limit_exceeded", {"retry-after": "7"}, retryAfterSeconds=7), ok(TRADE))
    client, sleeps = make(script)
    result = client.buy(MINT, 100_000_000, slippage_bps=100)
    assert result.signature == "5igSig" and result.status == "submitted"
    assert sleeps == [7.0]
    assert len(script.requests) == 2
    # the same body both times
    assert script.requests[0].content == script.requests[1].content


def test_429_per_endpoint_bucket_without_code_uses_header():
    script = Script(
        httpx.Response(429, json={"message": "Too Many Requests"}, headers={"retry-after": "3"}), ok(PROFILE)
    )
    client, sleeps = make(script)
    assert client.me().wallet_solana == "W"
    assert sleeps == [3.0]


def test_429_is_bounded():
    script = Script(err(429, "rate_limit_exceeded", {"retry-after": "1"}))
    client, sleeps = make(script, rate_limit_retries=2)
    with pytest.raises(RateLimitError) as info:
        client.me()
    assert info.value.status == 429 and info.value.retryable and info.value.retry_after == 1.0
    assert len(script.requests) == 3 and sleeps == [1.0, 1.0]


def test_429_longer_than_max_wait_is_raised_at_once():
    script = Script(err(429, "too_many_failed_attempts", {"retry-after": "290"}))
    client, sleeps = make(script, max_retry_after=60)
    with pytest.raises(RateLimitError) as info:
        client.me()
    assert info.value.code == "too_many_failed_attempts" and sleeps == []


# ----------------------------------------------------------------------------- rule 2: 409
@pytest.mark.parametrize("code", ["migration_pending", "pool_not_open"])
def test_409_venue_backs_off_and_retries(code):
    script = Script(err(409, code, retryable=True), err(409, code, retryable=True), ok(TRADE))
    client, sleeps = make(script, conflict_backoff=2.0, conflict_factor=1.5)
    assert client.sell(MINT, 1_000_000, slippage_bps=100).signature == "5igSig"
    assert sleeps == [2.0, 3.0]
    assert len(script.requests) == 3


def test_409_is_bounded():
    script = Script(err(409, "migration_pending"))
    client, sleeps = make(script, conflict_retries=3)
    with pytest.raises(VenueNotReadyError) as info:
        client.buy(MINT, 1000, slippage_bps=1)
    assert info.value.code == "migration_pending" and info.value.status == 409 and info.value.retryable
    assert len(script.requests) == 4 and len(sleeps) == 3


def test_other_409_is_not_retried():
    script = Script(err(409, "something_else"))
    client, sleeps = make(script)
    with pytest.raises(PartnerError) as info:
        client.buy(MINT, 1000, slippage_bps=1)
    assert info.value.code == "something_else" and not isinstance(info.value, VenueNotReadyError)
    assert len(script.requests) == 1 and sleeps == []


# ----------------------------------------------------------------------------- rule 3: reads on 5xx
def test_read_5xx_exponential_backoff_with_ceiling():
    script = Script(err(502, "rpc_unavailable"))
    client, sleeps = make(script, read_attempts=4, read_backoff=0.5)
    with pytest.raises(ServerError) as info:
        client.transaction_status("sig")
    assert info.value.code == "rpc_unavailable" and info.value.status == 502
    assert len(script.requests) == 4
    assert sleeps == [0.5, 1.0, 2.0]


def test_read_5xx_recovers():
    script = Script(
        err(500, "internal"),
        err(502, "rpc_unavailable"),
        ok({"signature": "s", "status": "confirmed", "slot": 9, "error": None, "bundle": None}),
    )
    client, sleeps = make(script)
    status = client.transaction_status("s")
    assert status.landed and status.slot == 9
    assert len(sleeps) == 2


def test_read_timeout_is_retried_up_to_the_ceiling():
    script = Script(httpx.ReadTimeout("slow"))
    client, sleeps = make(script, read_attempts=3)
    with pytest.raises(TransportError):
        client.me()
    assert len(script.requests) == 3 and len(sleeps) == 2


# ----------------------------------------------------------------------------- rule 4: no retry
@pytest.mark.parametrize(
    "status,code,cls",
    [
        (422, "slippage_exceeded", TradeError),
        (403, "trade_cap_exceeded", CapExceededError),
        (404, "governance_not_found", GovernanceError),
        (401, "invalid_client", AuthenticationError),
    ],
)
def test_client_errors_are_typed_and_not_retried(status, code, cls):
    script = Script(err(status, code, maxTradeLamports="5"))
    client, sleeps = make(script)
    with pytest.raises(cls) as info:
        client.buy(MINT, 10, slippage_bps=1)
    assert info.value.code == code and info.value.status == status and not info.value.retryable
    assert info.value.maxTradeLamports == "5" and info.value.extra["maxTradeLamports"] == "5"
    assert len(script.requests) == 1 and sleeps == []


# ----------------------------------------------------------------------------- rule 5: writes
@pytest.mark.parametrize("status,code", [(500, "internal"), (502, "rpc_unavailable"), (502, "wallet_sign_failed")])
def test_write_5xx_is_never_retried_and_carries_signature(status, code):
    script = Script(err(status, code, signature="3xSig", retryable=True))
    client, sleeps = make(script)
    with pytest.raises(AmbiguousWriteError) as info:
        client.buy(MINT, 100, slippage_bps=10)
    assert info.value.signature == "3xSig" and info.value.code == code and info.value.status == status
    assert info.value.retryable is False
    assert len(script.requests) == 1 and sleeps == []


WRITES = [
    lambda c: c.sell(MINT, 5, slippage_bps=1),
    lambda c: c.vote("P", "yes", 5),
    lambda c: c.settle_proposal("P"),
    lambda c: c.create_coin("N", "SYM", b"\x89PNG\r\n\x1a\n"),
    lambda c: c.propose_update_content(MINT, name="X"),
]


@pytest.mark.parametrize("call", WRITES)
def test_write_timeout_without_a_key_is_never_retried(call):
    script = Script(httpx.ReadTimeout("slow"))
    client, sleeps = make(script, keys=False)
    with pytest.raises(AmbiguousWriteError) as info:
        call(client)
    assert info.value.code == "timeout" and info.value.signature is None and info.value.idempotency_key is None
    assert len(script.requests) == 1 and sleeps == []
    assert "idempotency-key" not in script.requests[0].headers


@pytest.mark.parametrize("call", WRITES)
def test_keyed_write_timeout_is_retried_with_the_same_key(call):
    script = Script(httpx.ReadTimeout("slow"), httpx.ReadTimeout("slow"), ok(TRADE | {"status": "submitted"}))
    client, sleeps = make(script)
    call(client)
    keys = [r.headers["idempotency-key"] for r in script.requests]
    assert len(keys) == 3 and len(set(keys)) == 1 and len(keys[0]) == 36  # one uuid4 for the call
    assert sleeps == [0.5, 1.0]


def test_keyed_write_timeouts_are_bounded_and_carry_the_key():
    script = Script(httpx.ReadTimeout("slow"))
    client, _ = make(script)
    with pytest.raises(AmbiguousWriteError) as info:
        client.buy(MINT, 5, slippage_bps=1, idempotency_key="order-7")
    assert len(script.requests) == 3 and info.value.idempotency_key == "order-7"
    assert {r.headers["idempotency-key"] for r in script.requests} == {"order-7"}


def test_every_write_call_gets_its_own_key_and_reads_none():
    script = Script(ok(TRADE), ok(TRADE), ok(PROFILE))
    client, _ = make(script)
    client.buy(MINT, 5, slippage_bps=1)
    client.buy(MINT, 5, slippage_bps=1)
    client.me()
    first, second, read = script.requests
    assert first.headers["idempotency-key"] != second.headers["idempotency-key"]
    assert "idempotency-key" not in read.headers


def test_key_in_use_waits_retry_after_with_the_same_key():
    script = Script(err(409, "idempotency_key_in_use", {"retry-after": "1"}, retryable=True), ok(TRADE))
    client, sleeps = make(script)
    assert client.sell(MINT, 5, min_sol_out=0).signature == "5igSig"
    assert sleeps == [1.0]
    assert len({r.headers["idempotency-key"] for r in script.requests}) == 1


def test_stored_venue_409_is_retried_under_a_new_key():
    script = Script(err(409, "migration_pending", retryable=True), ok(TRADE))
    client, _ = make(script)
    client.buy(MINT, 5, slippage_bps=1)
    assert len({r.headers["idempotency-key"] for r in script.requests}) == 2


def test_key_reused_is_typed_and_not_retried():
    from partner_sdk import IdempotencyError

    script = Script(err(422, "idempotency_key_reused"))
    client, _ = make(script)
    with pytest.raises(IdempotencyError):
        client.buy(MINT, 5, slippage_bps=1, idempotency_key="k")
    assert len(script.requests) == 1


def test_keyed_write_5xx_is_not_retried_and_carries_the_key():
    script = Script(err(502, "rpc_unavailable", signature="3xSig"))
    client, _ = make(script)
    with pytest.raises(AmbiguousWriteError) as info:
        client.vote("P", "yes", 5, idempotency_key="vote-1")
    assert info.value.idempotency_key == "vote-1" and info.value.signature == "3xSig"
    assert len(script.requests) == 1


def test_quote_is_a_read_with_a_typed_answer():
    answer = {
        "venue": "curve",
        "expectedSolIn": "1010",
        "maxSolIn": "1041",
        "protocolFeeLamports": "10",
        "partnerFeeLamports": "0",
        "priceImpactBps": 3,
        "completesCurve": False,
        "contextSlot": 42,
    }
    script = Script(ok(answer))
    client, _ = make(script)
    q = client.quote(MINT, "buy-exact-out", 1_000_000, slippage_bps=300)
    assert (q.venue, q.expected_sol_in, q.bound, q.price_impact_bps, q.context_slot) == ("curve", "1010", "1041", 3, 42)
    sent = script.requests[0]
    assert sent.url.path == "/partner/v1/trades/quote" and "idempotency-key" not in sent.headers
    assert json.loads(sent.content) == {
        "side": "buy-exact-out",
        "mint": MINT,
        "tokensOut": "1000000",
        "slippageBps": 300,
    }
    with pytest.raises(ValueError):
        client.quote(MINT, "swap", 1)


def test_write_connect_error_is_retried_since_nothing_was_sent():
    script = Script(httpx.ConnectError("refused"), ok(TRADE))
    client, _ = make(script)
    assert client.buy(MINT, 5, slippage_bps=1).signature == "5igSig"


def test_reconcile_polls_the_status_endpoint():
    answers = [
        ok({"signature": "3xSig", "status": "not_found", "slot": None, "error": None, "bundle": None}),
        ok({"signature": "3xSig", "status": "pending", "slot": None, "error": None, "bundle": None}),
        ok({"signature": "3xSig", "status": "processed", "slot": 42, "error": None, "bundle": None}),
    ]
    script = Script(err(502, "rpc_unavailable", signature="3xSig"), *answers)
    client, _ = make(script)
    with pytest.raises(AmbiguousWriteError) as info:
        client.buy(MINT, 5, slippage_bps=1)
    status = client.reconcile(info.value.signature, interval=0, sleep=lambda s: None)
    assert status.landed and status.slot == 42
    assert [r.url.path for r in script.requests[1:]] == ["/partner/v1/transactions/3xSig/status"] * 3


# ----------------------------------------------------------------------------- 401: refresh once
def _store_with(tokens_handler):
    oauth = OAuthClient(
        BASE, "cid", "app_sk_x", "http://app/cb", http=httpx.Client(transport=httpx.MockTransport(tokens_handler))
    )
    store = TokenStore(oauth)
    store.save("u1", TokenSet("app_at_old", "app_rt_old", 9e12, "profile:read"))
    return store


def test_401_invalid_token_refreshes_once_then_retries_once():
    refreshes = []

    def token_endpoint(request):
        refreshes.append(dict(x.split("=") for x in request.content.decode().split("&")))
        return ok(
            {
                "access_token": "app_at_new",
                "refresh_token": "app_rt_new",
                "token_type": "Bearer",
                "expires_in": 1800,
                "scope": "profile:read",
            }
        )

    store = _store_with(token_endpoint)

    def api(request):
        if request.headers["authorization"] == "Bearer app_at_new":
            return ok(PROFILE)
        return err(401, "invalid_token")

    script = Script(api)
    client = PartnerClient(
        BASE,
        store.for_user("u1"),
        http=httpx.Client(transport=httpx.MockTransport(script)),
        retry=RetryPolicy(sleep=lambda s: None),
    )
    assert client.me().twitter_handle == "alice"
    assert [r.headers["authorization"] for r in script.requests] == ["Bearer app_at_old", "Bearer app_at_new"]
    assert len(refreshes) == 1 and refreshes[0]["grant_type"] == "refresh_token"
    assert refreshes[0]["refresh_token"] == "app_rt_old"
    stored = store.get("u1")
    assert (stored.access_token, stored.refresh_token) == ("app_at_new", "app_rt_new")


def test_401_after_refresh_is_raised_not_looped():
    calls = []
    store = _store_with(
        lambda r: (
            calls.append(1)
            or ok(
                {
                    "access_token": f"app_at_{len(calls)}",
                    "refresh_token": f"app_rt_{len(calls)}",
                    "expires_in": 1800,
                    "scope": "",
                }
            )
        )
    )
    script = Script(err(401, "invalid_token"))
    client = PartnerClient(BASE, store.for_user("u1"), http=httpx.Client(transport=httpx.MockTransport(script)))
    with pytest.raises(AuthenticationError) as info:
        client.me()
    assert info.value.code == "invalid_token"
    assert len(calls) == 1 and len(script.requests) == 2


def test_401_with_invalid_grant_on_refresh_asks_for_reauthorization():
    store = _store_with(lambda r: err(400, "invalid_grant"))
    script = Script(err(401, "invalid_token"))
    client = PartnerClient(BASE, store.for_user("u1"), http=httpx.Client(transport=httpx.MockTransport(script)))
    with pytest.raises(ReauthorizationRequired) as info:
        client.me()
    assert info.value.cause.code == "invalid_grant"
    assert store.needs_reauthorization("u1")
    assert len(script.requests) == 1


def test_static_token_401_is_raised_without_refresh():
    script = Script(err(401, "invalid_token"))
    client, _ = make(script)
    with pytest.raises(AuthenticationError):
        client.me()
    assert len(script.requests) == 1


# ----------------------------------------------------------------------------- request shapes
def test_trade_bodies_are_strings_and_fees_default():
    script = Script(ok(TRADE))
    client, _ = make(script)
    client.buy_exact_out(MINT, 5_000_000, max_sol_in=10**9, slippage_bps=50, partner_fee_bps=25, tip_lamports=2_000_000)
    body = json.loads(script.requests[0].content)
    assert body == {
        "mint": MINT,
        "tokensOut": "5000000",
        "maxSolIn": "1000000000",
        "slippageBps": 50,
        "partnerFeeBps": 25,
        "priorityFeeLamports": "10000",
        "tipLamports": "2000000",
    }
    assert script.requests[0].url.path == "/partner/v1/trades/buy-exact-out"


def test_update_content_is_multipart_even_without_image():
    script = Script(
        ok(
            {
                "signature": "s",
                "status": "processed",
                "mint": MINT,
                "governance": "G",
                "proposal": "P",
                "metadataUri": "ipfs://m",
                "imageUri": None,
            }
        )
    )
    client, _ = make(script)
    result = client.propose_update_content(MINT, description="", vote_duration_seconds=60)
    request = script.requests[0]
    assert request.headers["content-type"].startswith("multipart/form-data")
    text = request.content.decode()
    assert 'name="description"' in text and 'name="voteDurationSeconds"' in text and 'name="tipLamports"' in text
    assert result.proposal == "P" and result.metadata_uri == "ipfs://m"


def test_coin_create_typed_result():
    plan = {
        "kind": "buy",
        "authorizedMaxSolIn": "5",
        "expectedSolIn": "4",
        "expectedTokensOut": "9",
        "capacityTokensOut": "9",
        "clamped": True,
        "clampReasons": ["token_balance", "net_bought"],
    }
    script = Script(
        ok(
            {
                "signature": "s1",
                "signatures": ["s1", "s2"],
                "mint": MINT,
                "status": "submitted",
                "metadataUri": "ipfs://m",
                "imageUri": "ipfs://i",
                "initialBuyPlan": plan,
            }
        )
    )
    client, _ = make(script)
    result = client.create_coin("My Coin", "MINE", ("logo.png", b"\x89PNG", "image/png"), initial_buy_sol=5)
    assert result.initial_buy_plan.clamped and result.initial_buy_plan.clamp_reasons == ["token_balance", "net_bought"]
    assert result.signatures == ["s1", "s2"] and result.image_uri == "ipfs://i"
    text = script.requests[0].content
    assert b'filename="logo.png"' in text and b'name="initialBuySol"' in text


def test_governance_read_typed():
    gov = {
        "governance": "G",
        "mint": MINT,
        "metadata": "M",
        "creator": "C",
        "totalSupply": "1",
        "createdAtUnix": "1",
        "mutableUntilUnix": "2",
        "minVoterCount": 3,
        "minLockAmount": "1",
        "minParticipatingSupplyBps": 10,
        "approvalBps": 5000,
        "proposalBondBps": 100,
        "finalized": False,
        "contentRevision": "0",
        "mutabilityExtended": False,
        "nameLocked": True,
    }
    vote = {
        "proposal": "P",
        "voter": "V",
        "side": "yes",
        "amount": "5",
        "countedAsVoter": True,
        "active": True,
        "withdrawn": False,
        "signature": "s",
        "blockTime": "2024-01-01T00:00:00Z",
    }
    script = Script(ok({"governance": gov, "proposals": [], "viewerVotes": [vote]}), ok({"votes": [vote]}))
    client, _ = make(script)
    view = client.governance(MINT)
    assert view.governance.name_locked and view.governance.min_voter_count == 3
    assert view.viewer_votes[0].counted_as_voter
    assert client.proposal_votes("P", limit=200)[0].side == "yes"
    assert script.requests[1].url.params["limit"] == "200"


def test_amounts_reject_floats():
    client, _ = make(Script(ok(TRADE)))
    with pytest.raises(TypeError):
        client.buy(MINT, 0.5, slippage_bps=1)
