"""The launch's rules: the restrictions' and the first buy's defaults (`RULES`)."""

from __future__ import annotations

from dataclasses import dataclass

BPS = 10_000


@dataclass(frozen=True)
class LaunchRules:
    """The launch restrictions' defaults (tests may swap `RULES`)."""

    cooldown_seconds: int = 60
    identity_allowance: int = 1  # launches per normalized name and per symbol per creator
    bypass_fee_lamports: int = 100_000_000  # x launches already made with that name or symbol
    first_buy_cap_bps: int = 250  # of total supply
    default_priority_fee_lamports: int = 10_000
    bundle_tip_lamports: int = 1_000_000


RULES = LaunchRules()
