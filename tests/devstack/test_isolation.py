"""Per-thread resolver state: what one thread sets is what it reads, whatever others do."""

from __future__ import annotations

import threading

from aws_lambda_powertools.event_handler import APIGatewayRestResolver
from aws_lambda_powertools.event_handler.api_gateway import BaseRouter

from devstack import isolation


def _interleave(isolated_install: bool) -> tuple[object, dict]:
    if isolated_install:
        isolation.install()
    app = APIGatewayRestResolver()
    a_set, b_done = threading.Event(), threading.Event()
    seen: dict[str, object] = {}

    def thread_a():
        BaseRouter.current_event = "event-A"  # what resolve() does
        app.context["_route"] = "route-A"
        a_set.set()
        b_done.wait(5)
        seen["event"] = app.current_event
        seen["route"] = app.context.get("_route")

    def thread_b():
        a_set.wait(5)
        BaseRouter.current_event = "event-B"
        app.context["_route"] = "route-B"
        b_done.set()

    threads = [threading.Thread(target=thread_a), threading.Thread(target=thread_b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    return seen["event"], seen


def test_a_thread_keeps_its_own_event_and_route():
    event, seen = _interleave(isolated_install=True)
    assert event == "event-A"
    assert seen["route"] == "route-A"


def test_class_level_reads_are_per_thread_too():
    isolation.install()
    BaseRouter.current_event = "main"
    other: dict[str, object] = {}
    t = threading.Thread(target=lambda: other.setdefault("v", getattr(BaseRouter, "current_event", None)))
    t.start()
    t.join(5)
    assert BaseRouter.current_event == "main"
    assert other["v"] != "main"
