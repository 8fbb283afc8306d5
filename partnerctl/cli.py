"""partnerctl — operator CLI for clients, keys, users and (devstack) chain helpers.

With `make run` up it reads `.devstack/env.json` (written by the launcher) from the
repository root, so no flags are needed; elsewhere it uses the environment (the same
variables the functions use, with real AWS credentials).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

ENV_FILE = Path(".devstack/env.json")


def _load_env() -> None:
    path = Path(os.environ.get("PARTNER_DEVSTACK_ENV", ENV_FILE))
    if path.exists():
        for key, value in json.loads(path.read_text()).items():
            os.environ.setdefault(key, str(value))


def _print(result: Any, as_json: bool) -> None:
    if as_json:
        print(json.dumps(result))
    elif isinstance(result, dict):
        for key, value in result.items():
            print(f"{key}: {value}")
    else:
        print(result)


LIMITS = ("max_trade_lamports", "daily_volume_cap_lamports", "max_fee_lamports")


def _limit_args(parser: argparse.ArgumentParser, fee_default: str) -> None:
    parser.add_argument("--max-trade-lamports", type=int, default=None)
    parser.add_argument("--daily-volume-cap-lamports", type=int, default=None)
    parser.add_argument(
        "--max-fee-lamports",
        type=int,
        default=None,
        help=f"ceiling on priorityFeeLamports + tipLamports per transaction {fee_default}".strip(),
    )


def _given(args: argparse.Namespace, *names: str) -> dict[str, Any]:
    """The options among `names` given on the command line (an omitted one keeps its default)."""
    return {name: value for name in names if (value := getattr(args, name)) is not None}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="partnerctl", description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON")
    top = parser.add_subparsers(dest="group", required=True)

    client = top.add_parser("client", help="registered apps").add_subparsers(dest="cmd", required=True)
    client.add_parser("list", help="every client: id, name, tier, status, active keys, webhook (no secrets)")
    client.add_parser(
        "show", help="one client's settings, key ids and states and webhook URL (no secrets)"
    ).add_argument("client_id")
    create = client.add_parser("create", help="register an app; its first API key is shown once")
    create.add_argument("--name", required=True)
    create.add_argument("--redirect-uri", required=True)
    create.add_argument("--tier", choices=["Basic", "Partner"], default="Basic")
    create.add_argument("--status", choices=["development", "live", "suspended"], default="development")
    create.add_argument(
        "--scopes", dest="scope", default=None, help='space-separated, e.g. "profile:read trade:execute"'
    )
    create.add_argument("--fee-wallet", default=None)
    _limit_args(create, "(default 100000000)")
    limits = client.add_parser(
        "limits", help="show or change a client's per-trade cap, daily volume cap and fee ceiling"
    )
    limits.add_argument("client_id")
    _limit_args(limits, "")
    create.add_argument(
        "--website", default=None, help="the app's website (http/https), shown to users on /account/apps"
    )
    key = client.add_parser("key", help="the client's API keys").add_subparsers(dest="keycmd", required=True)
    rotate = key.add_parser("rotate", help="a new API key (shown once); the old ones stay active")
    rotate.add_argument("client_id")
    revoke = key.add_parser("revoke", help="refuse one API key from now on")
    revoke.add_argument("client_id")
    revoke.add_argument("key_id")
    suspend = client.add_parser("suspend", help="refuse the client's keys and tokens (status suspended)")
    suspend.add_argument("client_id")
    activate = client.add_parser("status", help="set the client's status")
    activate.add_argument("client_id")
    activate.add_argument("status", choices=["development", "live", "suspended"])
    hook = client.add_parser(
        "webhook",
        help="signed transaction events (the secret is shown once)",
        description="A live client needs an https URL to a public host (no IP literal of a "
        "private, loopback or reserved address in any form, no internal name such "
        "as localhost or *.internal); each delivery also refuses a host that "
        "resolves to such an address (outcome 'refused: ...', not retried). A "
        "development client may use http on localhost or 127.0.0.1, and loopback "
        "hosts.",
    ).add_subparsers(dest="hookcmd", required=True)
    hook_set = hook.add_parser("set", help="register (or replace) the URL with a new secret")
    hook_set.add_argument("client_id")
    hook_set.add_argument("url")
    hook.add_parser("rotate", help="a new secret for the registered URL").add_argument("client_id")
    hook.add_parser("remove", help="stop sending events").add_argument("client_id")
    hook_log = hook.add_parser("deliveries", help="recent delivery attempts, newest first")
    hook_log.add_argument("client_id")
    hook_log.add_argument("--limit", type=int, default=20)

    user = top.add_parser("user", help="platform users").add_subparsers(dest="cmd", required=True)
    ucreate = user.add_parser("create", help="a user with a delegated wallet (trading on unless --no-trading)")
    ucreate.add_argument("--twitter", default=None)
    ucreate.add_argument("--no-trading", action="store_true")
    ucreate.add_argument("--sol", type=int, default=None, help="lamports to airdrop to the new wallet (devstack)")
    ucreate.add_argument(
        "--sub",
        default=None,
        help="the platform OpenID provider's subject to link (default: a new local-... one); "
        "an existing sub updates that user (idempotent, as the platform API's upsert)",
    )
    ushow = user.add_parser("show", help="a user by the provider's sub (the platform API's read)")
    ushow.add_argument("sub")
    deleg = user.add_parser("delegation", help="turn a user's 1-click trading on or off")
    deleg.add_argument("user_id", help="the user id, or the provider's sub")
    deleg.add_argument("state", choices=["on", "off"])
    session = user.add_parser("session", help="a signed-in session cookie for the user (the consent page)")
    session.add_argument("user_id")

    from partnerctl import dev

    dev.add_parser(top)
    return parser


def run(args: argparse.Namespace) -> Any:
    from partnerctl import admin

    if args.group == "client":
        if args.cmd == "list":
            return admin.list_clients()
        if args.cmd == "show":
            return admin.show_client(args.client_id)
        if args.cmd == "create":
            fields = ("name", "redirect_uri", "tier", "status", "scope", "fee_wallet", *LIMITS, "website")
            return admin.create_client(admin.NewClient(**_given(args, *fields)))
        if args.cmd == "limits":
            return admin.set_limits(args.client_id, **_given(args, *LIMITS))
        if args.cmd == "key":
            if args.keycmd == "rotate":
                return admin.rotate_key(args.client_id)
            return admin.revoke_key(args.client_id, args.key_id)
        if args.cmd == "suspend":
            return admin.set_client_status(args.client_id, "suspended")
        if args.cmd == "status":
            return admin.set_client_status(args.client_id, args.status)
        if args.cmd == "webhook":
            from partner.jobs import webhooks

            if args.hookcmd == "set":
                return {"webhook_secret": webhooks.configure(args.client_id, args.url)["webhook_secret"]}
            if args.hookcmd == "rotate":
                return {"webhook_secret": webhooks.rotate(args.client_id)["webhook_secret"]}
            if args.hookcmd == "remove":
                return webhooks.remove(args.client_id)
            return {"deliveries": webhooks.deliveries(args.client_id, max(1, min(args.limit, 200)))}
    if args.group == "user":
        if args.cmd == "create":
            result = admin.create_user(twitter=args.twitter, trading=not args.no_trading, sub=args.sub)
            if args.sol:
                from partnerctl import dev

                dev.airdrop(result["wallet"], args.sol)
                result["lamports"] = args.sol
            return result
        if args.cmd == "show":
            return admin.show_user(args.sub)
        if args.cmd == "delegation":
            return admin.set_delegation(args.user_id, args.state == "on")
        if args.cmd == "session":
            return admin.create_session(args.user_id)
    if args.group == "dev":
        from partnerctl import dev

        return dev.run(args)
    raise SystemExit(f"unknown command {args.group}")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    _load_env()
    try:
        result = run(args)
    except (LookupError, ValueError) as exc:
        message = exc.args[0] if exc.args else str(exc)
        if args.json:
            print(json.dumps({"error": str(message)}))
        else:
            print(f"partnerctl: {message}", file=sys.stderr)
        return 1
    _print(result, args.json)
    return 0
