"""Fixtures for the devstack's own tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def chain_engine():
    """The engine of `chain`: None = the default (LiteSVM). A test about the Python engine's own
    behaviour pins it with ``@pytest.mark.parametrize("chain_engine", ["python"])``."""
    return None


@pytest.fixture
def chain(chain_engine):
    """A fresh devstack chain with only the built-in programs (no launchpad or pool).

    Test files that need more (a registered test program, the reference programs) define
    their own `chain`, which takes precedence over this one."""
    from devstack.chain.server import start_chain

    handle = start_chain(port=0, plugins=False, engine=chain_engine)
    yield handle
    handle.stop()
