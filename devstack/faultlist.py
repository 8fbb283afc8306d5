"""The list behind the devstack's fault injection: the chain's (`devstack_setFault`) and the AWS one
(`devstack.faults`). Faults in the order they were added, numbered from 1, each used up after its
`count` uses (None: until cleared)."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar


class CountedFault(Protocol):
    id: int
    target: str
    count: int | None

    def to_json(self) -> dict[str, Any]: ...


F = TypeVar("F", bound=CountedFault)


class FaultList(Generic[F]):
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._faults: list[F] = []
        self._ids = itertools.count(1)

    def _add(self, make: Callable[[int], F]) -> F:
        """Append the fault `make` builds for the next id."""
        with self._lock:
            fault = make(next(self._ids))
            self._faults.append(fault)
            return fault

    def clear(self, target: str | None = None) -> int:
        """Remove every fault (of `target`); -> how many were removed."""
        with self._lock:
            keep = [f for f in self._faults if target is not None and f.target != target]
            removed = len(self._faults) - len(keep)
            self._faults = keep
            return removed

    def list(self) -> list[dict[str, Any]]:
        with self._lock:
            return [f.to_json() for f in self._faults]

    def _take(self, matches: Callable[[F], bool]) -> F | None:
        """The first fault `matches` accepts, with one of its uses consumed (the last removes it)."""
        with self._lock:
            for fault in self._faults:
                if matches(fault):
                    self._use(fault)
                    return fault
        return None

    def _use(self, fault: F) -> None:
        if fault.count is not None:
            fault.count -= 1
            if fault.count <= 0:
                self._faults.remove(fault)
