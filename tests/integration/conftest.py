"""Integration fixtures: the devstack pin server over the session's moto bucket, and the coins,
connections and wallets several modules trade, launch and migrate with."""

from __future__ import annotations

import os

import pytest
from solders.keypair import Keypair

from devstack import faults
from testkit.chain import airdrop, new_coin, rpc
from testkit.helpers import connect

SOL = 10**9


@pytest.fixture(scope="session")
def pin_server(aws_stack):
    """A Kubo-RPC-compatible pin server storing content in the template's staging bucket;
    PINNING_URL points at it for the rest of the session."""
    from devstack.pinserver import clear_fault, start_pin_server
    from partner.core.settings import reset_settings

    handle = start_pin_server(aws_stack.physical_id("StagingBucket"), port=0, endpoint_url=aws_stack.endpoint_url)
    previous = os.environ.get("PINNING_URL")
    os.environ["PINNING_URL"] = handle.url
    reset_settings()
    yield handle
    clear_fault()
    handle.stop()
    if previous is None:
        os.environ.pop("PINNING_URL", None)
    else:
        os.environ["PINNING_URL"] = previous
    reset_settings()


@pytest.fixture(autouse=True)
def _no_platform_sign_in(request, monkeypatch):
    """The pages' own no-session answer (the sign-in page) in every integration test but the OIDC
    ones (fixture `oidc`), even where the session's e2e devstack configured its stand-in provider."""
    if "oidc" in request.fixturenames:
        return
    from partner.features.oauth import signin

    monkeypatch.setattr(signin, "configured", lambda: False)


@pytest.fixture
def coin(chain, aws_stack):
    """A fresh coin created by its own user, one slot in the past."""
    return new_coin(chain.url, "Test Coin", "TEST")


@pytest.fixture
def fee_wallet():
    return str(Keypair().pubkey())


@pytest.fixture
def partner_conn(aws_stack, chain, ip, fee_wallet):
    from partnerctl import admin

    client = admin.create_client(
        admin.NewClient(
            name="Partner App", redirect_uri="http://localhost:8080/callback", tier="Partner", fee_wallet=fee_wallet
        )
    )
    user = admin.create_user()
    airdrop(chain.url, user["wallet"], 20 * SOL)
    return connect(client, user, scope="trade:execute", ip=ip)


@pytest.fixture
def no_faults_left(chain):
    """No chain or AWS fault before or after the test (modules that inject faults use it)."""
    rpc(chain.url, "devstack_clearFaults")
    faults.clear()
    yield
    rpc(chain.url, "devstack_clearFaults")
    faults.clear()


@pytest.fixture
def creator(aws_stack, chain):
    from partnerctl import admin

    user = admin.create_user()
    airdrop(chain.url, user["wallet"], 10 * SOL)
    return user


@pytest.fixture
def launcher(aws_stack, chain, pin_server, clock, ip, creator):
    """`creator` connected through a client with coin:create."""
    from partnerctl import admin

    app = admin.create_client(admin.NewClient(name="Launcher", redirect_uri="http://localhost:8080/callback"))
    return connect(app, creator, scope="coin:create", ip=ip)


@pytest.fixture
def whales(aws_stack, chain, ip):
    """Two traders of one client whose caps allow buying a whole curve."""
    from partnerctl import admin

    client = admin.create_client(
        admin.NewClient(
            name="Whale App",
            redirect_uri="http://localhost:8080/callback",
            max_trade_lamports=200 * SOL,
            daily_volume_cap_lamports=1000 * SOL,
        )
    )
    out = []
    for _ in range(2):
        user = admin.create_user()
        airdrop(chain.url, user["wallet"], 150 * SOL)
        out.append(connect(client, user, scope="trade:execute", ip=ip))
    return out


@pytest.fixture
def crank_signer(aws_stack, chain):
    from partner.jobs import migration
    from partnerctl import admin

    wallet = admin.create_crank_wallet()
    assert admin.create_crank_wallet() == wallet  # idempotent
    assert wallet["user_id"] == migration.CRANK_USER_ID
    airdrop(chain.url, wallet["wallet"], 2 * SOL)
    return migration.crank_signer()


@pytest.fixture
def poller(aws_stack):
    """The webhook queue's poller, delivering with the webhook_delivery function in this process
    (so with the test's stand-ins); the e2e devstack's own poller, if this process runs one, stays
    out of the queue meanwhile."""
    from devstack.sqs import QueuePoller
    from testkit.helpers import handler

    queue = aws_stack.physical_id("WebhookQueue")
    with QueuePoller.alone(queue):
        yield QueuePoller(
            handler("webhook_delivery"),
            queue,
            aws_stack.arn("WebhookQueue"),
            aws_stack.endpoint_url,
            name="WebhookDeliveryFunction",
        )
