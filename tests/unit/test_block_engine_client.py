"""partner.chain.rpc.BlockEngine against an HTTP server that rate-limits it (issue 25): a 429 is
tried again after the wait the server asks for (`Retry-After`, or Jito's "Retry after Nms"), else
after a doubling backoff; at most RATE_LIMIT_TRIES tries and RATE_LIMIT_BUDGET seconds of waiting,
then rpc_unavailable. Status queries go 5 ids at a time (Jito's limit)."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from partner.chain import rpc as R
from partner.core.errors import ApiError
from testkit.helpers import Served, answer


class Engine(Served):
    """Answers each POST with the next of `script` ((status, headers, body)), then 200s."""

    def __init__(self, script: list[tuple[int, dict[str, str], dict]]) -> None:
        self.script = list(script)
        self.requests: list[dict] = []
        engine = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                req = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                engine.requests.append(req)
                if engine.script:
                    status, headers, body = engine.script.pop(0)
                else:
                    ids = req["params"][0] if req["method"] != "sendBundle" else None
                    value = [{"bundle_id": b, "status": "Pending", "landed_slot": None} for b in ids or []]
                    status, headers, body = (
                        200,
                        {},
                        {
                            "jsonrpc": "2.0",
                            "id": req["id"],
                            "result": "bid" if ids is None else {"context": {"slot": 1}, "value": value},
                        },
                    )
                answer(self, status, json.dumps(body).encode(), headers)

        self.serve(ThreadingHTTPServer(("127.0.0.1", 0), Handler))
        self.url = f"http://127.0.0.1:{self.port}/api/v1/bundles"

    def close(self) -> None:
        self.stop()


LIMITED = {
    "jsonrpc": "2.0",
    "id": 1,
    "error": {"code": -32097, "message": "Rate limit exceeded. Limit: 1 per second for txn requests"},
}


@pytest.fixture
def sleeps(monkeypatch):
    """The pauses BlockEngine takes (recorded instead of slept)."""
    taken: list[float] = []
    monkeypatch.setattr(R.time, "sleep", taken.append)
    return taken


def run(script, call):
    engine = Engine(script)
    try:
        return call(R.BlockEngine(engine.url)), engine.requests
    finally:
        engine.close()


def test_a_429_is_retried_after_the_retry_after_it_names(sleeps):
    script = [
        (429, {"Retry-After": "2"}, LIMITED),
        (
            429,
            {},
            {
                **LIMITED,
                "error": {
                    "code": -32097,
                    "message": LIMITED["error"]["message"] + ". Back-off triggered: Retry after 1606ms",
                },
            },
        ),
        (429, {}, LIMITED),
    ]
    bid, requests = run(script, lambda be: be.send_bundle([]))
    assert bid == "bid"
    assert [r["method"] for r in requests] == ["sendBundle"] * 4  # the same bundle each time
    assert sleeps == [2.0, 1.606, R.BlockEngine.RATE_LIMIT_FIRST_WAIT * 4]  # asked, asked, then the backoff


def test_the_retries_are_bounded_then_rpc_unavailable(sleeps):
    script = [(429, {}, LIMITED)] * 10
    with pytest.raises(ApiError) as caught:
        run(script, lambda be: be.inflight_statuses(["a"]))
    assert caught.value.code == "rpc_unavailable"
    tries = R.BlockEngine.RATE_LIMIT_TRIES
    assert len(sleeps) == tries - 1 and sum(sleeps) <= R.BlockEngine.RATE_LIMIT_BUDGET
    assert sleeps == [R.BlockEngine.RATE_LIMIT_FIRST_WAIT * 2**i for i in range(tries - 1)]


def test_a_wait_past_the_budget_is_not_taken(sleeps):
    with pytest.raises(ApiError) as caught:
        run([(429, {"Retry-After": "60"}, LIMITED)], lambda be: be.inflight_statuses(["a"]))
    assert caught.value.code == "rpc_unavailable" and sleeps == []


def test_status_queries_go_five_ids_at_a_time(sleeps):
    ids = [f"b{i}" for i in range(12)]
    found, requests = run([], lambda be: be.inflight_statuses(ids))
    assert [r["params"][0] for r in requests] == [ids[:5], ids[5:10], ids[10:]]
    assert [f["bundle_id"] for f in found] == ids and sleeps == []
