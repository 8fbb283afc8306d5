"""How a scheduled tracker run splits the open index's partitions among its invocations."""

from __future__ import annotations

import pytest


@pytest.fixture
def settings_env(monkeypatch):
    from partner.core.settings import reset_settings

    for name in ("CLIENTS_TABLE", "AUTH_TABLE", "USERS_TABLE", "COUNTERS_TABLE", "HASH_KEY_ID", "WALLET_KEY_ID"):
        monkeypatch.setenv(name, "unit")  # required settings (not read here)

    def use(shards: str, groups: str) -> None:
        monkeypatch.setenv("TRACKER_SHARDS", shards)
        monkeypatch.setenv("TRACKER_GROUPS", groups)
        reset_settings()

    yield use
    monkeypatch.undo()
    reset_settings()


@pytest.mark.parametrize(
    ("shards", "groups", "expected"),
    [
        ("4", "4", [[0], [1], [2], [3]]),
        ("4", "2", [[0, 2], [1, 3]]),
        ("7", "3", [[0, 3, 6], [1, 4], [2, 5]]),
        ("4", "1", [[0, 1, 2, 3]]),
        ("2", "9", [[0], [1]]),  # at most one group per partition
        ("3", "0", [[0, 1, 2]]),  # at least one group
    ],
)
def test_every_partition_is_in_exactly_one_group(settings_env, shards, groups, expected):
    from partner.jobs import tracker

    settings_env(shards, groups)
    assert tracker.groups() == expected
