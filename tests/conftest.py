"""Shared fixtures: one moto server per test process, with the template's own resources."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# The devstack block engine limits each caller to Jito's 1 request per second; every test process
# is one caller (127.0.0.1), so the chains tests start allow far more. Tests of the limit set it
# on their chain (`devstack_setBlockEngine`, `start_chain(engine=EngineSettings(rps=...))`).
os.environ.setdefault("DEVSTACK_BLOCK_ENGINE_RPS", "1000")

_ips = itertools.count(1)


@pytest.fixture(scope="session")
def aws_stack():
    """moto in server mode (atomic under threads), tables/keys/bucket from template.yaml."""
    from devstack.aws import aws_env, create_resources, start_moto

    moto = start_moto(port=0)
    pytest.moto_handle = moto
    env = aws_env(moto.url)
    os.environ.update(env)
    stack = create_resources(ROOT / "template.yaml", moto.url, prefix="partner-test")
    os.environ.update(stack.environment())
    from devstack.run import DEVSTACK_TREASURY

    os.environ.setdefault("PLATFORM_TREASURY", DEVSTACK_TREASURY)
    from partner.core.settings import reset_settings

    reset_settings()
    yield stack
    moto.stop()


@pytest.fixture(scope="session")
def chain(aws_stack):
    """The devstack chain (JSON-RPC + block engine) with the SBF launchpad and pool deployed."""
    from devstack.chain.server import start_chain
    from partner.core.settings import reset_settings

    handle = start_chain(port=0)
    from testkit.chain import POOL_OPEN_DELAY, set_pool_open_delay

    set_pool_open_delay(handle, POOL_OPEN_DELAY)
    os.environ["RPC_URL"] = os.environ["RPC_URLS"] = handle.url
    os.environ["BLOCK_ENGINE_URL"] = handle.bundle_url
    reset_settings()
    yield handle
    handle.stop()


class FakeClock:
    """A settable stand-in for partner.core.clock.now."""

    def __init__(self, t: float) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


@pytest.fixture(scope="module")
def _processes():  # per module: each test module's devstack has its own environment, so its own processes
    from devstack.workers import Pool

    pool = Pool(limit=32)
    yield pool
    pool.close()


@pytest.fixture
def lambdas(_processes):
    """Handlers (testkit.helpers.handler) called from threads other than the main one run in processes of
    their own, as Lambda and the devstack run them: for tests that call them from many threads at once.
    The clock a test moves and faults reach them; fake RPC clients and signers cannot (refused)."""
    from testkit import helpers

    helpers.processes = _processes
    yield _processes
    helpers.processes = None


@pytest.fixture
def ports():
    """partner.chain.ports, as it was again after the test: `ports.install(rpc=..., sign=..., clock=...)`
    passes fakes to the domain code."""
    from partner.chain import ports as chain_ports

    previous = chain_ports.current()
    yield chain_ports
    chain_ports.install(previous)


@pytest.fixture
def clock(ports):
    """Frozen at one second past the start of a 5-minute window (so also of a 1-minute one)."""
    import time

    fake = FakeClock(float((int(time.time()) // 300) * 300 + 1))
    ports.install(clock=fake)
    return fake


@pytest.fixture
def ip() -> str:
    """A fresh caller address per test, so per-IP OAuth buckets never leak across tests."""
    n = next(_ips)
    return f"10.{(n >> 16) & 255}.{(n >> 8) & 255}.{n & 255}"


@pytest.fixture
def client(aws_stack):
    from partnerctl import admin

    return admin.create_client(admin.NewClient(name="Demo App", redirect_uri="http://localhost:8080/callback"))


@pytest.fixture
def user(aws_stack):
    from partnerctl import admin

    return admin.create_user(twitter="alice")


@pytest.fixture
def listener():
    """A TCP listener on 127.0.0.1 counting the connections it accepts."""
    from testkit.helpers import Listener

    made = Listener()
    yield made
    made.stop()
