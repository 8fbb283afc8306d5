"""devstack.workers under its own faults: a fault or clock look-up is safe from any thread of a
function's process, and an invocation ends at the function's Timeout as Lambda ends it (the
worker killed, its environment discarded, the next request in a fresh one).

The first test starts from the stack trace of the soak that wedged `make run`: two threads of one
TradesBuyFunction worker (the main thread and a `partner-io` thread of `counters.reserve_all`)
asked the gateway over one socket at once, and both blocked for good in `_Gateway.take`.
"""

from __future__ import annotations

import os
import socket
import textwrap
import threading
import time

import pytest

from devstack import faults
from devstack.workers import FunctionError, Pool, Spec, _Gateway, receive, send


def _gateway_side(sock: socket.socket) -> tuple[threading.Thread, dict]:
    """The gateway's end of a worker's socket, as Pool._serve answers it: the time, a fault."""
    done: dict = {}

    def serve() -> None:
        try:
            while True:
                message = receive(sock)
                if message[0] == "now":
                    send(sock, time.time())
                elif message[0] == "take":
                    fault = faults.registry.take(message[1], message[2])
                    send(sock, None if fault is None else fault.mode)
                else:
                    done["reply"] = message
                    return
        except BaseException as exc:  # noqa: BLE001  (shown by the assertion)
            done["error"] = exc

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return thread, done


def test_fault_and_clock_lookups_from_two_threads_of_one_worker():
    """The main thread asks for the time while a pool thread asks for faults, many times over one
    socket: each gets its own answer, and neither blocks."""
    faults.set_fault("dynamodb", "throttle", operations=["UpdateItem"])
    try:
        ours, theirs = socket.socketpair()
        server, done = _gateway_side(ours)
        remote = _Gateway(theirs)
        remote.active = True
        results: dict[str, list] = {"now": [], "take": []}

        def clock() -> None:
            for _ in range(400):
                results["now"].append(remote.now())

        def lookups() -> None:
            for _ in range(400):
                results["take"].append(remote.take("dynamodb", "UpdateItem"))

        threads = [threading.Thread(target=clock, daemon=True), threading.Thread(target=lookups, daemon=True)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(20)
        wedged = [t.name for t in threads if t.is_alive()]
        assert not wedged, "a look-up blocked for good (the wedge of the soak)"
        assert len(results["now"]) == 400 and all(isinstance(v, float) for v in results["now"])
        assert len(results["take"]) == 400 and all(v is not None and v.mode == "throttle" for v in results["take"])
        send(theirs, ("result", "ok"))
        server.join(10)
        assert done.get("reply") == ("result", "ok"), done
    finally:
        faults.clear()


HANDLER = textwrap.dedent(
    """
    import os
    import time


    def handler(event, context):
        if event.get("hang"):
            time.sleep(3600)
        return {"pid": os.getpid(), "remaining_ms": context.get_remaining_time_in_millis()}
    """
)


@pytest.fixture
def hanging_function(tmp_path):
    module = tmp_path / "hangs.py"
    module.write_text(HANDLER)
    pool = Pool(limit=2)
    yield pool, Spec("HangingFunction", str(module), "handler", 128, 2)
    pool.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie has ended too
        return f.read().split(")")[-1].split()[0] != "Z"


def test_an_invocation_ends_at_the_functions_timeout_and_the_next_gets_a_fresh_environment(hanging_function, capfd):
    from devstack.workers import FunctionTimeout

    pool, spec = hanging_function
    warm = pool.invoke(spec, {})["pid"]
    started = time.monotonic()
    with pytest.raises(FunctionTimeout) as caught:
        pool.invoke(spec, {"hang": True})
    took = time.monotonic() - started
    assert "Task timed out after 2.00 seconds" in str(caught.value)
    assert isinstance(caught.value, FunctionError) and caught.value.error_type == "Sandbox.Timedout"
    assert 2.0 <= took < 10, took
    assert "Task timed out after 2.00 seconds" in capfd.readouterr().err  # the function's log says it
    # the hung worker was the warm one: killed, its environment discarded
    deadline = time.monotonic() + 5
    while _alive(warm) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(warm)
    fresh = pool.invoke(spec, {})
    assert fresh["pid"] != warm and fresh["remaining_ms"] > 0


def test_timeouts_do_not_use_up_the_functions_workers(hanging_function):
    """More hung invocations than the pool's limit: each ends at the timeout and frees its slot,
    so the function keeps serving (the devstack never wedges)."""
    from devstack.workers import FunctionTimeout

    pool, spec = hanging_function
    errors: list[BaseException] = []

    def hang() -> None:
        try:
            pool.invoke(spec, {"hang": True})
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=hang, daemon=True) for _ in range(pool.limit + 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not any(t.is_alive() for t in threads)
    assert len(errors) == pool.limit + 1 and all(isinstance(e, FunctionTimeout) for e in errors)
    assert pool.invoke(spec, {})["pid"] > 0
