"""The partner SDK against the devstack gateway: connect (consent over plain HTTP), profile,
a trade checked on the chain, status reconcile, refresh rotation, revoke."""

from __future__ import annotations

import itertools
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from partner_sdk import (
    AuthenticationError,
    OAuthClient,
    PartnerClient,
    ReauthorizationRequired,
    TokenStore,
    TradeError,
)
from testkit.chain import airdrop, new_coin, token_balance, wait, warp
from testkit.helpers import hidden_inputs

SOL = 10**9
REDIRECT = "http://127.0.0.1:9/sdk-callback"
_loopback = itertools.count(60)


def _http() -> httpx.Client:
    """Each test from its own loopback address: the per-IP OAuth buckets stay its own."""
    return httpx.Client(timeout=30, transport=httpx.HTTPTransport(local_address=f"127.0.0.{next(_loopback)}"))


def _connect(
    devstack, client: dict, user: dict, http: httpx.Client, scopes=("profile:read", "trade:execute")
) -> tuple[OAuthClient, TokenStore]:
    from partnerctl import admin

    oauth = OAuthClient(devstack.url, client["client_id"], client["api_key"], REDIRECT, http=http)
    request = oauth.authorization_request(scopes)
    cookie = admin.create_session(user["user_id"])["cookie"]
    page = http.get(request.url, headers={"Cookie": cookie})
    assert page.status_code == 200, page.text
    approved = http.post(
        f"{devstack.url}/oauth/authorize",
        data=hidden_inputs(page.text) | {"decision": "approve"},
        headers={"Cookie": cookie},
    )
    assert approved.status_code == 302
    location = urlsplit(approved.headers["location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == REDIRECT
    tokens = oauth.complete(request, {k: v[0] for k, v in parse_qs(location.query).items()})
    assert tokens.access_token.startswith("app_at_") and tokens.refresh_token.startswith("app_rt_")
    store = TokenStore(oauth)
    store.save(user["user_id"], tokens)
    return oauth, store


@pytest.fixture
def trader(devstack, chain):
    from partnerctl import admin

    client = admin.create_client(admin.NewClient(name="SDK App", redirect_uri=REDIRECT, tier="Partner"))
    user = admin.create_user(twitter="sdkuser")
    airdrop(chain.url, user["wallet"], 5 * SOL)
    http = _http()
    oauth, store = _connect(devstack, client, user, http)
    api = PartnerClient(devstack.url, store.for_user(user["user_id"]), http=http)
    yield client, user, oauth, store, api
    http.close()


def test_connect_profile_trade_reconcile(devstack, chain, trader):
    client, user, _, store, api = trader
    profile = api.me()
    assert profile.wallet_solana == user["wallet"] and profile.twitter_handle == "sdkuser"
    assert profile.trading_enabled and profile.client == client["client_id"]
    assert profile.scopes == ["profile:read", "trade:execute"]

    mint = new_coin(chain.url, "SDK Coin", "SDKC")
    before = token_balance(chain.url, user["wallet"], mint)
    bought = api.buy(mint, SOL // 10, slippage_bps=100)
    assert bought.status == "submitted" and bought.mint == mint
    assert wait(chain.url, bought.signature)["err"] is None
    held = token_balance(chain.url, user["wallet"], mint)
    assert held > before

    status = api.reconcile(bought.signature, timeout=10, interval=0.1)
    assert status.landed and status.error is None and status.signature == bought.signature

    sold = api.sell(mint, held // 2, slippage_bps=500)
    wait(chain.url, sold.signature)
    assert token_balance(chain.url, user["wallet"], mint) == held - held // 2

    with pytest.raises(TradeError) as info:  # typed 422, not retried
        api.sell(mint, 10**18, slippage_bps=10)
    # the venue's answer comes first: caps, then the wallet's balances (issue 17 item 13)
    assert info.value.status == 422 and info.value.code == "insufficient_liquidity"


def test_fee_estimate_after_a_trade(devstack, chain, trader):
    from partner.chain.programs import bonding_curve_pda
    from partner.core.limits import TRADE_UNITS
    from partner_sdk import FeeEstimate, ValidationError

    *_, api = trader
    mint = new_coin(chain.url, "SDK Fee Coin", "SDKF")
    bought = api.buy(mint, SOL // 20, slippage_bps=500, priority_fee_lamports=400_000)
    wait(chain.url, bought.signature)
    warp(chain.url, 1)  # the trade's slot completes: the fee cache reports completed slots only
    estimate = api.fees_estimate(mint)
    assert isinstance(estimate, FeeEstimate) and estimate.mint == mint and estimate.slots >= 1
    assert estimate.compute_unit_limit == TRADE_UNITS and estimate.tip_lamports == "1000000"
    values = [int(estimate.priority_fee_lamports[k]) for k in ("p25", "p50", "p75", "p95")]
    assert values == sorted(values) and 1000 <= values[0]  # other tests' trades share the fee recipient
    assert estimate.recommended_percentile == 75
    assert estimate.recommended_priority_fee_lamports == estimate.priority_fee_lamports["p75"]
    assert str(bonding_curve_pda(mint)[0]) in estimate.raw["accounts"]
    with pytest.raises(ValidationError) as info:
        api.fees_estimate("not-a-mint")
    assert info.value.code == "invalid_input"


def test_governance_read_and_not_found(devstack, trader):
    *_, api = trader
    from partner_sdk import GovernanceError

    with pytest.raises(GovernanceError) as info:
        api.governance("not-a-mint")
    assert info.value.code == "governance_not_found" and info.value.status == 404
    assert api.proposal_votes("not-a-proposal") == []


def test_refresh_rotates_and_revoke_needs_reauthorization(devstack, trader):
    client, user, oauth, store, api = trader
    first = store.get(user["user_id"])
    fresh = store.refresh(user["user_id"])
    assert fresh.refresh_token != first.refresh_token and fresh.access_token != first.access_token
    assert api.me().wallet_solana == user["wallet"]

    # the server forgets the grant: the 401 triggers one refresh, which answers invalid_grant
    oauth.revoke(fresh.refresh_token, "refresh_token")
    with pytest.raises(ReauthorizationRequired):
        api.me()
    assert store.needs_reauthorization(user["user_id"])
    with pytest.raises(AuthenticationError):
        PartnerClient(devstack.url, fresh.access_token, http=api.http).me()


def test_quote_then_keyed_trade_over_http(devstack, chain, trader):
    """A new partner's first steps: quote, trade at once with the quote's bound, send it again with the
    same key and see one trade."""
    _, user, _, _, api = trader
    mint = new_coin(chain.url, "SDK Quote", "SDKQ")
    quote = api.quote(mint, "buy", SOL // 10, slippage_bps=100)
    assert quote.venue == "curve" and quote.completes_curve is False
    first = api.buy(mint, SOL // 10, min_tokens_out=quote.bound, idempotency_key="sdk-order-1")
    assert wait(chain.url, first.signature)["err"] is None
    held = token_balance(chain.url, user["wallet"], mint)
    assert held == int(quote.expected_tokens_out)
    again = api.buy(mint, SOL // 10, min_tokens_out=quote.bound, idempotency_key="sdk-order-1")
    assert again.signature == first.signature and again.raw == first.raw
    assert token_balance(chain.url, user["wallet"], mint) == held  # one trade
    response = api.http.post(
        f"{api.base_url}/partner/v1/trades/buy",
        headers={"Authorization": f"Bearer {api.auth.token()}", "Idempotency-Key": "sdk-order-1"},
        json={
            "mint": mint,
            "maxSolIn": str(SOL // 10),
            "minTokensOut": quote.bound,
            "priorityFeeLamports": "10000",
            "tipLamports": "1000000",
        },
    )
    assert response.status_code == 200 and response.headers["idempotent-replayed"] == "true"
    assert response.json()["signature"] == first.signature


def test_upload_image_and_a_staged_launch(devstack, chain, tmp_path, clock):
    """`upload_image(path)` stages a file through POST /partner/v1/uploads and S3; create_coin stages an
    image over 4 MiB by itself (sent as imageUploadId)."""
    from partner.core import cid
    from partner_sdk.client import STAGED_UPLOAD_BYTES
    from partnerctl import admin
    from tests.e2e.test_uploads_http import big_png

    client = admin.create_client(admin.NewClient(name="SDK Launcher", redirect_uri=REDIRECT, tier="Partner"))
    user = admin.create_user()
    airdrop(chain.url, user["wallet"], 5 * SOL)
    with _http() as http:
        _, store = _connect(devstack, client, user, http, scopes=("coin:create",))
        api = PartnerClient(devstack.url, store.for_user(user["user_id"]), http=http)
        small = tmp_path / "small.png"
        small.write_bytes(big_png(2048))
        upload_id = api.upload_image(small)
        assert upload_id.startswith("upl_")

        image = big_png(STAGED_UPLOAD_BYTES + 4096)
        path = tmp_path / "big.png"
        path.write_bytes(image)
        launched = api.create_coin("SDK Big", "SDKB", path)
        assert launched.image_uri == "ipfs://" + cid.cid_v0(image)
        assert wait(chain.url, launched.signature)["err"] is None
        # an upload staged by hand, named by id (examples/staged_launch.py), after the launch cooldown
        clock.advance(61)
        by_id = api.create_coin("SDK Small", "SDKS", image_upload_id=upload_id)
        assert by_id.image_uri == "ipfs://" + cid.cid_v0(small.read_bytes())
