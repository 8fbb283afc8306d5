"""Issue 23 item 7 (the service's half): every route with a path parameter answers the spec's code
for whatever parameter API Gateway hands the function.

API Gateway (REST) routes on the resource and gives the function `resource` (the template),
`path` as received (still percent-encoded) and `pathParameters` decoded once. The value is
API Gateway's `pathParameters`, whatever `path` holds: `a%2Fb` arrives as `a/b`, `%41` as `A`.
These events carry exactly that, and also the odd ones (a decoded `/` in `path`, an empty value,
no `pathParameters` at all), so the answer never depends on what the path looks like:

* `GET /partner/v1/governance/{mint}`: a malformed mint is `404 governance_not_found` (spec);
* `GET /partner/v1/governance/proposals/{proposal}/votes`: a malformed proposal is `200` with
  an empty `votes` array (spec);
* `GET /partner/v1/transactions/{signature}/status`: a malformed signature is `400 invalid_input`.
"""

from __future__ import annotations

import os
import re

import pytest
from solders.signature import Signature

from devstack.events import ApiRequest, api_event, lambda_context
from testkit.chain import new_coin
from testkit.helpers import connect, handler

GOVERNANCE = "/partner/v1/governance/{mint}"
VOTES = "/partner/v1/governance/proposals/{proposal}/votes"
STATUS = "/partner/v1/transactions/{signature}/status"


@pytest.fixture
def conn(aws_stack, chain, ip):
    from partnerctl import admin

    app = admin.create_client(admin.NewClient(name="Path App", redirect_uri="http://localhost:8080/callback"))
    return connect(app, admin.create_user(), scope="profile:read", ip=ip)


def call(function: str, conn, resource: str, segment: str, params: dict[str, str] | None) -> tuple[int, dict]:
    """GET `resource` with `segment` as its path parameter in `path`, and `params` as pathParameters."""
    import json

    path = re.sub(r"\{\w+\}", lambda _: segment, resource)
    event = api_event(ApiRequest("GET", path, headers=conn.bearer(), resource=resource, path_params=params or {}))
    if params is None:
        event["pathParameters"] = None
    out = handler(function)(event, lambda_context(function))
    return out["statusCode"], json.loads(out["body"])


def encoded(value: str) -> str:
    """`value` with its first character percent-encoded (API Gateway decodes it in pathParameters)."""
    return f"%{ord(value[0]):02X}{value[1:]}"


# (path as API Gateway delivers it, pathParameters value; None: no pathParameters at all)
MALFORMED = [
    ("a%2Fb", "a/b"),
    ("a/b", "a/b"),
    ("a%252Fb", "a%2Fb"),
    ("", ""),
    ("x!y", "x!y"),
    ("0OIl" * 10, "0OIl" * 10),
    ("abc", None),
    ("%0A", "\n"),
]


@pytest.mark.parametrize("segment,value", MALFORMED)
def test_a_malformed_mint_is_governance_not_found(conn, segment, value):
    status, body = call("governance_read", conn, GOVERNANCE, segment, None if value is None else {"mint": value})
    assert (status, body["error"]) == (404, "governance_not_found"), body


@pytest.mark.parametrize("segment,value", MALFORMED)
def test_a_malformed_proposal_has_no_votes(conn, segment, value):
    params = None if value is None else {"proposal": value}
    status, body = call("governance_votes_list", conn, VOTES, segment, params)
    assert (status, body) == (200, {"votes": []})


@pytest.mark.parametrize("segment,value", MALFORMED)
def test_a_malformed_signature_is_invalid_input(conn, segment, value):
    params = None if value is None else {"signature": value}
    status, body = call("transaction_status", conn, STATUS, segment, params)
    assert (status, body["error"]) == (400, "invalid_input"), body
    assert body["field"] == "signature"


def test_a_mint_is_read_as_api_gateway_decoded_it(chain, conn):
    mint = new_coin(chain.url, "Path Coin", "PATH")
    status, body = call("governance_read", conn, GOVERNANCE, encoded(mint), {"mint": mint})
    assert status == 200, body
    assert body["governance"]["mint"] == mint


def test_a_signature_is_read_as_api_gateway_decoded_it(conn):
    signature = str(Signature(os.urandom(64)))
    status, body = call("transaction_status", conn, STATUS, encoded(signature), {"signature": signature})
    assert status == 200, body
    assert body == {"signature": signature, "status": "not_found", "slot": None, "error": None, "bundle": None}


def test_the_token_is_still_checked_first(aws_stack):
    """Admission before input: a malformed parameter without a token is 401, as before."""
    for function, resource, path, name in (
        ("governance_read", GOVERNANCE, "/partner/v1/governance/a/b", "mint"),
        ("transaction_status", STATUS, "/partner/v1/transactions/x/y/status", "signature"),
        ("governance_votes_list", VOTES, "/partner/v1/governance/proposals/a/b/votes", "proposal"),
    ):
        event = api_event(ApiRequest("GET", path, resource=resource, path_params={name: "a/b"}))
        out = handler(function)(event, lambda_context(function))
        assert out["statusCode"] == 401 and '"invalid_token"' in out["body"], (function, out["body"])
