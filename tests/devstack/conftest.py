"""Fixtures for the devstack's own tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def chain():
    """A fresh devstack chain with only the programs LiteSVM ships (no launchpad or pool).

    Test files that need more (the SBF programs) define their own `chain`, which takes
    precedence over this one."""
    from devstack.chain.server import start_chain

    handle = start_chain(port=0, plugins=False)
    yield handle
    handle.stop()
