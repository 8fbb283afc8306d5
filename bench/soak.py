"""python -m bench.soak [--rounds N] [--users U] [--writes W] [--json]: the devstack soak of
devstack/soak.py (issue 36 item 5), longer than tests/e2e/test_soak.py's one round: N rounds of
each fault kind in turn (chain, KMS, DynamoDB, pinning), on a devstack of its own (gateway, moto
and chain on free ports, the scheduled functions every 0.5 s for the webhook events), then the
reconciliation against the chain. Prints the counts (`--json`: one JSON object as the last line,
for `make bench`'s `soak` part in bench/run.py); exits 1 if an invariant broke (`problems`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# the project's modules and the SDK (the webhook receiver verifies with its verify_webhook), as pytest's pythonpath
for _path in (ROOT / "shared", ROOT / "sdk" / "src", ROOT):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))


def run(rounds: int, users: int = 3, writes: int = 4) -> dict[str, Any]:
    from devstack.run import Devstack, StackPorts

    stack = Devstack(StackPorts(gateway=0, chain=0), log=False, prefix="partner-soak").start()
    try:
        os.environ.update(stack.env)
        os.environ["RPC_URL"] = os.environ["RPC_URLS"] = stack.chain.url
        os.environ["BLOCK_ENGINE_URL"] = stack.chain.bundle_url
        from partner.core.settings import reset_settings

        reset_settings()
        from partnerctl import dev

        dev.crank_wallet(10 * 10**9)  # the migrator's wallet (a scheduled function the stack runs)
        stack.start_schedules(0.5)
        from devstack.soak import run_soak

        return run_soak(
            stack.url,
            stack.chain.url,
            rounds=rounds,
            users=users,
            writes_each=writes,
            report=lambda line: print(line, file=sys.stderr, flush=True),
        )
    finally:
        stack.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--users", type=int, default=3)
    parser.add_argument("--writes", type=int, default=4, help="writes of each user in each phase")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    counts = run(args.rounds, args.users, args.writes)
    print(json.dumps(counts, sort_keys=True) if args.json else json.dumps(counts, indent=2, sort_keys=True))
    if counts["problems"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
