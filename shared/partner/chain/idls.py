"""The launchpad's and the pool's interfaces: their IDLs (partner.chain.idl) with the governance
types that carry behaviour of their own (partner.chain.governance_math) bound to them."""

from __future__ import annotations

from . import governance_math as GM
from .idl import load

BINDINGS: dict[str, type] = {
    "ActionKind": GM.ActionKind,
    "Outcome": GM.Outcome,
    "VoteSide": GM.VoteSide,
    "GovernanceParams": GM.GovernanceParams,
}
LAUNCHPAD = load("launchpad", BINDINGS)
POOL = load("pool", BINDINGS)
PROGRAMS = (LAUNCHPAD, POOL)
