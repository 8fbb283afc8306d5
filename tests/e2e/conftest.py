"""End-to-end fixtures: the whole devstack (moto server, chain, gateway) on free ports."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session")
def devstack(aws_stack):
    """The devstack on free ports, sharing the session's moto tables (separate prefix)."""
    from devstack.run import Devstack, seed

    saved = dict(os.environ)
    stack = Devstack(gateway_port=0, chain_port=0, prefix="partner-e2e", log=False).start()
    stack.seeded = seed(stack)
    yield stack
    stack.stop()
    os.environ.clear()
    os.environ.update(saved)
    from partner.settings import reset_settings

    reset_settings()
