"""Issue 17, "done when": on the running stack, a refresh during `partnerctl dev fault dynamodb
error` answers 500 `internal` with `retryable: true`, and the retry with the same refresh token
succeeds: nothing was consumed. Over HTTP through the gateway, faults set with partnerctl."""

from __future__ import annotations

import json

import pytest

from devstack import faults
from testkit.helpers import connect, gateway_client

REDIRECT = "http://localhost:8080/callback"


@pytest.fixture
def cli(devstack, monkeypatch, capsys):
    from partnerctl.cli import main

    monkeypatch.setenv("GATEWAY_URL", devstack.url)

    def run(*args: str) -> dict:
        capsys.readouterr()
        assert main(["--json", "dev", "fault", *args]) == 0
        return json.loads(capsys.readouterr().out)

    faults.clear()
    yield run
    faults.clear()


@pytest.fixture
def http(devstack):
    with gateway_client(devstack.url, timeout=30) as client:
        yield client


def refresh(http, client, token):
    return http.post(
        "/oauth/token",
        auth=(client["client_id"], client["api_key"]),
        data={"grant_type": "refresh_token", "refresh_token": token},
    )


def assert_internal_retryable(response):
    assert response.status_code == 500, response.text
    body = response.json()
    assert body["error"] == "internal" and body["retryable"] is True, body
    assert "access_token" not in body


def test_refresh_during_dev_fault_dynamodb_error_succeeds_on_retry(aws_stack, http, cli):
    from partnerctl import admin

    client = admin.create_client(admin.NewClient(name="Fault App", redirect_uri=REDIRECT))
    conn = connect(client, admin.create_user(twitter="dave"))

    assert cli("dynamodb", "error")["count"] is None  # every DynamoDB call fails until cleared
    assert_internal_retryable(refresh(http, client, conn.refresh))
    assert cli("clear")["gateway"] == {"cleared": 1}
    retry = refresh(http, client, conn.refresh)
    assert retry.status_code == 200, retry.text
    pair = retry.json()
    me = http.get("/partner/v1/me", headers={"Authorization": f"Bearer {pair['access_token']}"})
    assert me.status_code == 200, me.text
    assert refresh(http, client, pair["refresh_token"]).status_code == 200


def test_refresh_with_the_token_write_faulted_succeeds_on_retry(aws_stack, http, cli):
    """The fault lands on the token-writing step itself (the one TransactWriteItems that
    consumes the refresh token and writes the new pair): the retry still succeeds."""
    from partnerctl import admin

    client = admin.create_client(admin.NewClient(name="Fault App", redirect_uri=REDIRECT))
    conn = connect(client, admin.create_user(twitter="erin"))

    cli("dynamodb", "error", "--count", "1", "--methods", "TransactWriteItems")
    assert_internal_retryable(refresh(http, client, conn.refresh))
    assert faults.list_faults() == []  # the fault fired on that step
    retry = refresh(http, client, conn.refresh)
    assert retry.status_code == 200, retry.text
    pair = retry.json()
    me = http.get("/partner/v1/me", headers={"Authorization": f"Bearer {pair['access_token']}"})
    assert me.status_code == 200, me.text
    # a real replay of the consumed token still revokes the grant
    replay = refresh(http, client, conn.refresh)
    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
    dead = http.get("/partner/v1/me", headers={"Authorization": f"Bearer {pair['access_token']}"})
    assert dead.status_code == 401 and dead.json()["error"] == "invalid_token"
