"""RPC_URLS (several endpoints, comma-separated) and the old single RPC_URL (issue 26 item 3)."""

from __future__ import annotations

import json

import pytest

from partner.core.settings import Settings, endpoints

BASE = {
    "CLIENTS_TABLE": "c",
    "AUTH_TABLE": "a",
    "USERS_TABLE": "u",
    "COUNTERS_TABLE": "n",
    "HASH_KEY_ID": "h",
    "WALLET_KEY_ID": "w",
}


def test_rpc_urls_is_a_comma_separated_list_in_order():
    s = Settings.model_validate({**BASE, "RPC_URLS": "https://rpc-a.example.com/k1, https://rpc-b.example.com"})
    assert s.rpc_endpoints == ("https://rpc-a.example.com/k1", "https://rpc-b.example.com")


def test_the_old_single_rpc_url_still_works():
    s = Settings.model_validate({**BASE, "RPC_URL": "https://rpc.example.com"})
    assert s.rpc_endpoints == ("https://rpc.example.com",)
    # an empty RPC_URLS (a template that sets it to nothing) falls back to RPC_URL too
    assert Settings.model_validate({**BASE, "RPC_URLS": " ", "RPC_URL": "http://x:1"}).rpc_endpoints == ("http://x:1",)


def test_rpc_urls_wins_over_rpc_url():
    s = Settings.model_validate({**BASE, "RPC_URL": "http://old:1", "RPC_URLS": "http://new:1,http://new:2"})
    assert s.rpc_endpoints == ("http://new:1", "http://new:2")


def test_the_default_is_the_local_chain():
    assert Settings.model_validate(BASE).rpc_endpoints == ("http://127.0.0.1:8899",)


@pytest.mark.parametrize(
    "value",
    [
        "",
        "ftp://x",
        "http://a,,http://b",
        "http://a,",
        "rpc.example.com",
        "http://a b",
        "http://a,http://a",
        "https://",
    ],
)
def test_malformed_lists_are_refused(value):
    with pytest.raises(ValueError):
        endpoints(value)
    with pytest.raises(ValueError):
        _ = Settings.model_validate({**BASE, "RPC_URL": value or ","}).rpc_endpoints


def test_a_sequence_is_accepted():
    assert endpoints(["http://a:1", "https://b"]) == ("http://a:1", "https://b")


def test_a_batch_is_sent_as_solders_writes_it():
    """`Rpc.batch` writes the JSON array itself from each request's own `to_json` (solders'
    `batch_to_json` took 112 us for a trade's two reads, the join 4 us): byte for byte what
    `batch_to_json` writes, for every request kind the service batches."""
    from solders.pubkey import Pubkey
    from solders.rpc import requests as rq

    from partner.chain.rpc import Rpc

    rpc = Rpc("http://localhost:8899")
    rpc.min_context_slot = 123
    keys = [Pubkey.new_unique() for _ in range(4)]
    batches = [
        [rpc.multiple_accounts_request(keys, 1), Rpc.latest_blockhash_request(2)],
        [rpc.multiple_accounts_request(keys[:1], 7)],
        [Rpc.latest_blockhash_request(1)],
    ]
    sent: list[str] = []

    def post(payload: str, sending: bool = False) -> list[dict]:
        sent.append(payload)
        return [{"jsonrpc": "2.0", "id": item["id"], "result": None} for item in json.loads(payload)]

    rpc._post = post  # type: ignore[method-assign]  # the node's answer, without a node
    for requests in batches:
        rpc.batch(requests)
        assert sent.pop() == rq.batch_to_json(requests)
