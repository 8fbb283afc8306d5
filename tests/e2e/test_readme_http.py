"""The shell examples of docs/guide.md (where the README sends partners) run as pasted (issue 39,
newcomer 3): the Idempotency-Key example defines what it uses (`BASE`, `AT`, `MINT` from
`.devstack/seed.json`), and run twice it buys once
and replays the first answer."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

from testkit.helpers import connect_http, gateway_client

ROOT = Path(__file__).resolve().parents[2]


def readme_block(section: str) -> str:
    """The first ```sh block of the section titled `section` of docs/guide.md (where the README sends partners)."""
    text = (ROOT / "docs" / "guide.md").read_text()
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    match = re.search(r"```sh\n(.*?)```", body, re.S)
    assert match is not None, f"no sh block in {section}"
    return match.group(1)


def test_the_idempotency_key_example_runs_as_pasted(devstack, tmp_path):
    script = readme_block("Safe retries (Idempotency-Key)")
    assert re.search(r"^BASE=http://127\.0\.0\.1:3000$", script, re.M), script
    assert re.search(r"^AT=", script, re.M) and re.search(r"^MINT=", script, re.M), script
    assert "..." not in script
    # the test's gateway is on a free port, and the token is a real one: only these two values change
    alice = devstack.seeded["users"][0]
    with gateway_client(devstack.url) as http:
        bearer = connect_http(http, devstack.seeded["client"], alice, "trade:execute", f"{devstack.url}/demo/callback")
    script = re.sub(r"^BASE=.*$", f"BASE={devstack.url}", script, flags=re.M)
    script = re.sub(r"^AT=.*$", f"AT={bearer['Authorization'].split()[1]}", script, flags=re.M)
    (tmp_path / ".devstack").mkdir()
    (tmp_path / ".devstack" / "seed.json").write_text(json.dumps(devstack.seeded))
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

    def run() -> tuple[str, dict]:
        out = subprocess.run(
            ["bash", "-euc", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
        )
        assert out.returncode == 0, out.stderr
        head, _, body = out.stdout.replace("\r\n", "\n").partition("\n\n")
        return head.lower(), json.loads(body)

    first_head, first = run()
    assert first_head.startswith("http/1.1 200"), (first_head, first)
    assert first["signature"] and "idempotent-replayed" not in first_head
    again_head, again = run()
    assert again_head.startswith("http/1.1 200") and "idempotent-replayed: true" in again_head
    assert again == first
