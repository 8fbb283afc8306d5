"""The TypeScript SDK (sdks/typescript): strict tsc, eslint, its `node --test` unit tests on the
compiled output, the generated files in sync, and `npm pack` installable and type-checkable.

Needs `make sdks/typescript/node_modules/.ready` (a dependency of `make test`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tools import openapi

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / "sdks" / "typescript"
BIN = SDK / "node_modules" / ".bin"

SAMPLE = """\
import { PartnerClient, TokenStore, OAuthClient, isError, verifyWebhook } from "@launchpad/partner-sdk";
import type { TradeResult, WebhookEventType } from "@launchpad/partner-sdk";

const base = "https://api.example";
const oauth = new OAuthClient({ baseUrl: base, clientId: "c", apiKey: "k", redirectUri: "https://app/cb" });
const store = new TokenStore(oauth);
const client = new PartnerClient({ baseUrl: base, auth: store.forUser("u1") });

export async function trade(mint: string): Promise<TradeResult | string> {
  try {
    return await client.buy(mint, 10_000_000n, { slippageBps: 100 });
  } catch (err) {
    if (isError(err, "trade_cap_exceeded")) return err.body.maxTradeLamports ?? "";
    if (isError(err, "rate_limit_exceeded")) return String(err.body.retryAfterSeconds);
    throw err;
  }
}

export function hook(body: string, headers: Record<string, string>): string {
  const event = verifyWebhook("whsec_c2VjcmV0", headers, body);
  const kind: WebhookEventType = event.type;
  return kind + event.data.signature;
}
"""


def run(*args: str | Path, cwd: Path = SDK, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)


@pytest.fixture(scope="module")
def built() -> Path:
    assert (SDK / "node_modules" / ".ready").exists(), "run `make sdks/typescript/node_modules/.ready`"
    result = run(BIN / "tsc", "-p", "tsconfig.json")
    assert result.returncode == 0, result.stdout + result.stderr
    return SDK / "dist"


def test_strict_tsc_and_eslint_are_clean(built: Path) -> None:
    assert json.loads((SDK / "tsconfig.json").read_text())["compilerOptions"]["strict"] is True
    typecheck = run(BIN / "tsc", "-p", "tsconfig.json", "--noEmit")
    assert typecheck.returncode == 0, typecheck.stdout + typecheck.stderr
    lint = run(BIN / "eslint", ".")
    assert lint.returncode == 0, lint.stdout + lint.stderr


def test_node_unit_tests_pass(built: Path) -> None:
    result = run("node", "--test", "test/")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "# fail 0" in result.stdout
    passed = int(result.stdout.split("# pass ")[1].split()[0])
    assert passed >= 40, result.stdout[-2000:]


def test_generated_error_catalogue_is_fresh() -> None:
    path = ROOT / openapi.TS_CODES
    assert path.read_text() == openapi.render_ts_codes(), f"{openapi.TS_CODES} is stale: run `make openapi`"


def test_generated_error_union_types_code_specific_fields() -> None:
    text = openapi.render_ts_codes()
    assert 'readonly error: "trade_cap_exceeded"; readonly maxTradeLamports?: string;' in text
    assert "readonly requiredLamports?: string;" in text.split('error: "insufficient_sol"')[1].split("\n")[0]
    assert "readonly retryAfterSeconds?: number;" in text.split('error: "pool_not_open"')[1].split("\n")[0]


def test_npm_pack_installs_into_an_empty_project_and_type_checks(built: Path, tmp_path: Path) -> None:
    packed = run("npm", "pack", "--silent", "--pack-destination", tmp_path)
    assert packed.returncode == 0, packed.stderr
    tarball = tmp_path / packed.stdout.strip().splitlines()[-1]
    assert tarball.exists()
    project = tmp_path / "app"
    project.mkdir()
    (project / "package.json").write_text(json.dumps({"name": "app", "private": True, "type": "module"}))
    flags = ("--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error")
    installed = run("npm", "install", *flags, tarball, "@types/node@20.19.43", cwd=project)
    assert installed.returncode == 0, installed.stderr
    assert (project / "node_modules" / "@launchpad" / "partner-sdk" / "dist" / "index.d.ts").exists()
    assert not (project / "node_modules" / "@launchpad" / "partner-sdk" / "src").exists()
    (project / "sample.ts").write_text(SAMPLE)
    tsconfig = {
        "compilerOptions": {
            "target": "ES2022",
            "module": "NodeNext",
            "moduleResolution": "NodeNext",
            "lib": ["ES2022", "DOM"],
            "strict": True,
            "noEmit": True,
            "types": ["node"],
        },
        "files": ["sample.ts"],
    }
    (project / "tsconfig.json").write_text(json.dumps(tsconfig))
    checked = run(BIN / "tsc", "-p", "tsconfig.json", cwd=project)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # and a wrong field on a narrowed error is a type error: the check above can fail
    (project / "sample.ts").write_text(SAMPLE.replace("err.body.maxTradeLamports", "err.body.requiredLamports"))
    broken = run(BIN / "tsc", "-p", "tsconfig.json", cwd=project)
    assert broken.returncode != 0 and "requiredLamports" in broken.stdout
    script = "import('@launchpad/partner-sdk').then(m => console.log(typeof m.PartnerClient))"
    imported = run("node", "-e", script, cwd=project)
    assert imported.stdout.strip() == "function", imported.stderr
    shutil.rmtree(project / "node_modules")


def test_node_webhook_receiver_example_verifies_and_deduplicates(built: Path) -> None:
    import base64
    import hashlib
    import hmac
    import socket
    import time
    import urllib.error
    import urllib.request

    key = b"k" * 24
    secret = "whsec_" + base64.b64encode(key).decode()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    receiver = ROOT / "examples" / "node" / "webhook_receiver.mjs"
    env = {**os.environ, "WEBHOOK_SECRET": secret, "PORT": str(port)}
    proc = subprocess.Popen(["node", str(receiver)], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and "listening" in proc.stdout.readline()
        event = {"id": "evt_" + "b" * 32, "type": "transaction.confirmed", "created": 1, "data": {}}
        event["data"] = {"signature": "S1g", "kind": "buy", "mint": None, "wallet": "w", "slot": 1, "error": None}
        body = json.dumps(event).encode()

        def post(payload: bytes, stamp: int) -> int:
            mac = hmac.new(key, f"msg_1.{stamp}.".encode() + body, hashlib.sha256).digest()
            headers = {
                "webhook-id": "msg_1",
                "webhook-timestamp": str(stamp),
                "webhook-signature": "v1," + base64.b64encode(mac).decode(),
            }
            request = urllib.request.Request(f"http://127.0.0.1:{port}/", data=payload, headers=headers)
            try:
                return int(urllib.request.urlopen(request, timeout=10).status)
            except urllib.error.HTTPError as exc:
                return exc.code

        now = int(time.time())
        assert post(body, now) == 204
        assert post(body, now) == 204  # a redelivery: answered, printed once
        assert post(body.replace(b"buy", b"sell"), now) == 400
        assert post(body, now - 3600) == 400
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=10)
    assert out.splitlines() == ["transaction.confirmed S1g buy"]
