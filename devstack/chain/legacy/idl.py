"""The pre-switch IDLs (idl/*.json here) for the Python chain engine."""
from __future__ import annotations

import json
from pathlib import Path

from partner.chain.idl import Program

_DIR = Path(__file__).resolve().parent / "idl"
LAUNCHPAD = Program(json.loads((_DIR / "launchpad.json").read_text()))
POOL = Program(json.loads((_DIR / "pool.json").read_text()))
PROGRAMS = (LAUNCHPAD, POOL)
