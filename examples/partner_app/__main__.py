"""python -m examples.partner_app [--api URL] [--client-id ID --api-key KEY] [--redirect-uri URI] [--port N]

Without --client-id it registers its own client on the running devstack (`make run`) with
`.venv/bin/partnerctl --json client create --redirect-uri http://127.0.0.1:<port>/callback`,
since a client's redirect URI must match exactly (the seeded demo client's points at the
gateway's own /demo/callback). The seeded coin from `.devstack/seed.json` fills the trade form.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
from pathlib import Path

from examples.partner_app.app import PartnerApp, attach, bind

ROOT = Path(__file__).resolve().parents[2]


def register_client(redirect_uri: str) -> dict[str, str]:
    partnerctl = ROOT / ".venv" / "bin" / "partnerctl"
    command = [
        str(partnerctl) if partnerctl.exists() else sys.executable,
        *([] if partnerctl.exists() else ["-m", "partnerctl"]),
        "--json",
        "client",
        "create",
        "--name",
        "Example Partner App",
        "--redirect-uri",
        redirect_uri,
        "--tier",
        "Partner",
        "--scopes",
        "profile:read trade:execute",
    ]
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"could not register a client (is `make run` up?): {out.stderr.strip() or out.stdout}")
    return json.loads(out.stdout)


def seeded_mint() -> str:
    try:
        return json.loads((ROOT / ".devstack" / "seed.json").read_text())["coin"]["mint"]
    except (OSError, KeyError, ValueError):
        return ""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Example partner web app using the partner SDK")
    parser.add_argument("--api", default="http://127.0.0.1:3000", help="the Partner API base URL")
    parser.add_argument("--client-id")
    parser.add_argument("--api-key")
    parser.add_argument("--redirect-uri", help="default http://127.0.0.1:<port>/callback")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8090)
    args = parser.parse_args(argv)
    redirect_uri = args.redirect_uri or f"http://{args.host}:{args.port}/callback"
    if bool(args.client_id) != bool(args.api_key):
        parser.error("--client-id and --api-key go together")
    if args.client_id:
        client_id, api_key = args.client_id, args.api_key
    else:
        created = register_client(redirect_uri)
        client_id, api_key = created["client_id"], created["api_key"]
        print(f"registered client {client_id} (redirect {redirect_uri})")
    server = attach(
        bind(args.host, args.port), PartnerApp(args.api, client_id, api_key, redirect_uri, default_mint=seeded_mint())
    )
    print(f"Example partner app on http://{args.host}:{args.port}/  (API {args.api}); Ctrl-C stops it", flush=True)
    with server, contextlib.suppress(KeyboardInterrupt):  # Ctrl-C stops it; the with block closes it
        server.serve_forever()


if __name__ == "__main__":
    main()
