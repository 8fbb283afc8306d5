"""End-to-end fixtures: the gateway over the session's moto server and devstack chain."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def devstack(aws_stack, chain):
    """The devstack gateway on a free port, over the same moto tables and chain as the
    integration tests of this process, seeded like `make run`."""
    from devstack.run import Devstack, seed

    stack = Devstack(gateway_port=0, prefix="partner-test", log=False, moto=pytest.moto_handle, chain=chain).start()
    stack.seeded = seed(stack)
    yield stack
    stack.stop()
