"""Integration fixtures: the devstack pin server over the session's moto bucket."""

from __future__ import annotations

import os

import pytest


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
