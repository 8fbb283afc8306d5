"""End-to-end fixtures: the gateway over the session's moto server and devstack chain."""

from __future__ import annotations

import shutil

import pytest


@pytest.fixture(scope="session")
def devstack(aws_stack, chain):
    """The devstack gateway on a free port, over the same moto tables and chain as the
    integration tests of this process, seeded like `make run`."""
    from devstack.run import Devstack, StackPorts, seed

    stack = Devstack(
        StackPorts(gateway=0), prefix="partner-test", log=False, moto=pytest.moto_handle, chain=chain
    ).start()
    stack.seeded = seed(stack)
    yield stack
    stack.stop()


# Debian's Chromium driven by Playwright (no browser download), for the browser tests.
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# without the background-networking flags Chromium keeps trying hosts this machine cannot reach
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield b
        b.close()


@pytest.fixture(autouse=True)
def browser_ip_buckets(request):
    """A browser test starts with 127.0.0.1's per-IP buckets empty: Chromium always connects from
    127.0.0.1, so without this a worker's earlier consent flows decide whether its pages answer 429
    (tests/e2e/test_browser_buckets.py). The HTTP tests take loopback addresses of their own."""
    if request.node.get_closest_marker("browser") is not None:
        request.getfixturevalue("devstack")
        from partner.core.settings import get_settings
        from partner.store import aws

        table, ddb = get_settings().counters_table, aws.client("dynamodb")
        scan = {"TableName": table, "ProjectionExpression": "pk", "FilterExpression": "contains(pk, :ip)"}
        for page in ddb.get_paginator("scan").paginate(**scan, ExpressionAttributeValues={":ip": {"S": "#127.0.0.1#"}}):
            for item in page["Items"]:
                ddb.delete_item(TableName=table, Key={"pk": item["pk"]})
    yield
