"""partner.core.parallel: a request's pool tasks log and count as the request, and a fork gets a
working pool."""

from __future__ import annotations

import io
import json
import logging
import os
import threading

import pytest

from partner.core import observability, parallel, request, requestid


@pytest.fixture
def log_lines(monkeypatch):
    stream = io.StringIO()
    monkeypatch.setattr(observability.logger.registered_handler, "stream", stream)
    observability.logger.setLevel(logging.INFO)
    return lambda: [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]


def test_a_task_logs_with_the_requests_keys_on_another_thread(log_lines):
    observability.logger.append_keys(correlation_id="req-parallel-1")
    try:

        def work() -> str:
            observability.logger.info("from the pool")
            return threading.current_thread().name

        name = parallel.submit(work).result(timeout=10)
    finally:
        observability.logger.remove_keys(["correlation_id"])
    assert name.startswith("partner-io") and name != threading.current_thread().name
    (line,) = [line for line in log_lines() if line["message"] == "from the pool"]
    assert line["correlation_id"] == "req-parallel-1"


def test_a_task_counts_into_the_callers_invocation():
    with observability.invocation():
        parallel.submit(observability.count, "RateLimited", layer="tier").result(timeout=10)
        parallel.submit(observability.count, "RateLimited", layer="tier").result(timeout=10)
        (key,) = observability._counted or ()
        values = observability._by_dimensions[key].provider.metric_set["RateLimited"]["Value"]
    assert key == (("layer", "tier"),)
    assert values == [1.0, 1.0]


def test_a_task_sees_the_callers_context_variables_and_leaves_its_own_thread_clean():
    token = request.begin({"requestContext": {"requestId": "req-parallel-2"}})
    try:
        seen = parallel.submit(requestid.current).result(timeout=10)
    finally:
        request.end(token)
    assert seen == "req-parallel-2"
    # outside the task the worker has not the context; outside an invocation, nothing is counted
    assert parallel.submit(requestid.current).result(timeout=10) != "req-parallel-2"
    assert parallel.submit(lambda: observability._counted).result(timeout=10) is None


def test_errors_come_back_to_the_caller():
    def fail() -> None:
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        parallel.submit(fail).result(timeout=10)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_a_forked_child_gets_a_working_pool():
    """The SnapStart stand-in forks a process whose pool may have started threads: the child's pool
    must still run tasks (the parent's threads do not exist there)."""
    assert parallel.submit(lambda: 1).result(timeout=10) == 1  # the parent's pool has threads now
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            ok = parallel.submit(lambda: 41 + 1).result(timeout=5) == 42
        except BaseException:
            ok = False
        os.write(write_end, b"1" if ok else b"0")
        os._exit(0)
    os.close(write_end)
    got = os.read(read_end, 1)
    os.waitpid(pid, 0)
    assert got == b"1"
