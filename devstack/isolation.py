"""Per-thread request state for Powertools resolvers, for processes that serve many requests at once.

In Lambda an execution environment handles one request at a time, so Powertools may keep
the current event on the `BaseRouter` class and per-request routing state in each
resolver's `context` dict. The devstack gateway (a threading HTTP server) and the
threaded concurrency tests run many invocations in one process; without this, two
concurrent requests could read each other's event or route. `install()` turns those
attributes into per-thread slots, which is what separate execution environments give.
Production code never calls it.
"""

from __future__ import annotations

import threading
from abc import ABCMeta
from typing import Any

_installed = False
_lock = threading.Lock()


class _PerThread:
    """A data descriptor: one value per (object, thread)."""

    def __init__(self, name: str, default_factory=None, *, per_instance: bool = False) -> None:
        self.name = name
        self.default_factory = default_factory
        self.per_instance = per_instance  # else one value per thread for the whole class
        self.local = threading.local()

    def _key(self, obj: Any) -> int:
        return id(obj) if self.per_instance and obj is not None else 0

    def _slots(self) -> dict[int, Any]:
        slots = getattr(self.local, "slots", None)
        if slots is None:
            slots = self.local.slots = {}
        return slots

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        key = self._key(obj)
        slots = self._slots()
        if key not in slots:
            if self.default_factory is None:
                raise AttributeError(self.name)
            slots[key] = self.default_factory()
        return slots[key]

    def __set__(self, obj: Any, value: Any) -> None:
        self._slots()[self._key(obj)] = value


class _RouterMeta(ABCMeta):
    """Class-level assignments of the per-thread attributes go to their slots."""

    def __setattr__(cls, name: str, value: Any) -> None:
        slot = cls.__dict__.get(name)
        if isinstance(slot, _PerThread):
            slot.__set__(None, value)
        else:
            super().__setattr__(name, value)


def install() -> None:
    global _installed
    with _lock:
        if _installed:
            return
        from aws_lambda_powertools.event_handler import api_gateway as ag

        base = ag.BaseRouter
        base.__class__ = _RouterMeta  # type: ignore[method-assign,assignment]  # BaseRouter.current_event = ... per thread
        type.__setattr__(base, "current_event", _PerThread("current_event"))
        type.__setattr__(base, "lambda_context", _PerThread("lambda_context"))
        type.__setattr__(ag.ApiGatewayResolver, "context", _PerThread("context", dict, per_instance=True))
        type.__setattr__(
            ag.ApiGatewayResolver,
            "processed_stack_frames",
            _PerThread("processed_stack_frames", list, per_instance=True),
        )
        _installed = True
