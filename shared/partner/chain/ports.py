"""The domain's way out of the process, in one port: the chain client, the signing step and the clock.

Domain code takes them from `current()`; the process default is built from settings. A test passes
fakes with `install(...)` (and `reset()` gives the default back), instead of patching module attributes.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from solders.message import Message
from solders.transaction import Transaction

from partner.chain import tx
from partner.chain.rpc import Rpc
from partner.chain.signer import Signer
from partner.core import clock as wall_clock
from partner.core.settings import get_settings


@dataclass(frozen=True)
class Ports:
    rpc: Callable[..., Rpc]  # rpc(timeout=None): a client of the configured endpoints (RPC_URLS)
    sign: Callable[[Message, Sequence[Signer]], Transaction]  # a message, signed by its signers
    clock: Callable[[], float]  # Unix seconds, as `partner.core.clock.now` answers them


def settings_rpc(timeout: float | None = None) -> Rpc:
    endpoints = get_settings().rpc_endpoints
    return Rpc(endpoints) if timeout is None else Rpc(endpoints, timeout)


DEFAULT = Ports(rpc=settings_rpc, sign=tx.sign, clock=time.time)
_current = DEFAULT


def current() -> Ports:
    return _current


def install(ports: Ports | None = None, **changes: Callable) -> Ports:
    """Use `ports` (default: the current ones) with `changes` from now on; returns the ports it replaced."""
    global _current
    previous = _current
    _current = dataclasses.replace(ports or _current, **changes)
    wall_clock.use(_current.clock)
    return previous


def reset() -> None:
    install(DEFAULT)
