"""Chromium reaches the gateway from 127.0.0.1 whatever the test (the HTTP tests' clients each take a
loopback address of their own, testkit.helpers.gateway_client), so every browser test of a worker
shares 127.0.0.1's per-IP OAuth buckets (30 a minute). A browser test starts with them empty
(tests/e2e/conftest.py, `browser_ip_buckets`): before it, a worker's earlier consent flows could
leave the page answering 429 mid-test."""

from __future__ import annotations

import pytest


def test_earlier_flows_use_up_the_browsers_address(devstack):
    from partner.core.errors import RateLimited
    from partner.store import ratelimit

    with pytest.raises(RateLimited):
        for _ in range(ratelimit.BUCKETS["authorize"] + 1):
            ratelimit.take("authorize", "127.0.0.1")


@pytest.mark.browser
def test_a_browser_test_starts_with_the_address_unspent(devstack):
    from partner.store import ratelimit

    state = ratelimit.take("authorize", "127.0.0.1")
    assert state.remaining == ratelimit.BUCKETS["authorize"] - 1
