"""`make run`: the whole service on this machine, seeded.

moto (DynamoDB, S3, KMS) in server mode with the template's own resources, the devstack
chain (JSON-RPC + block engine), and the gateway on 127.0.0.1:3000 invoking the real
handlers. Writes .devstack/env.json so partnerctl works with no flags.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from devstack.gateway import GatewayHandle

ROOT = Path(__file__).resolve().parents[1]
# Launch bypass fees on the devstack: the bytes of sha256(b"devstack-platform-treasury") as an
# address, off the ed25519 curve, so no key exists for it. Never configure it on a real cluster.
DEVSTACK_TREASURY = "3rTbQhrFfJAcSuU5cbEAJ7JuuKN9Dbv1CMhLpBT7DTgB"
STATE = ROOT / ".devstack"
# The platform's users as its OpenID provider knows them (the stand-in's sign-in page lists them);
# seed() links each to a service user with a funded wallet through the platform's domain functions.
PLATFORM_USERS = (
    ("alice", {"name": "Alice", "preferred_username": "alice"}),
    ("bob", {"name": "Bob", "preferred_username": "bob"}),
    ("carol", {"name": "Carol", "preferred_username": "carol"}),
)


@dataclass(frozen=True)
class StackPorts:
    """Where the devstack's services listen (0: any free port). `pin` and `oidc` default to 5001 and
    9400, or to any free port when `gateway` is 0 (tests). `rpc_proxy` (0: any free port) starts a
    second chain endpoint, a proxy with faults of its own (devstack/rpcproxy.py), listed first in
    RpcUrls so that its faults show the failover; None: the chain alone."""

    gateway: int = 3000
    chain: int = 8899
    moto: int = 0
    pin: int | None = None
    oidc: int | None = None
    rpc_proxy: int | None = None

    @property
    def pin_server(self) -> int:
        return self.pin if self.pin is not None else (5001 if self.gateway else 0)

    @property
    def oidc_provider(self) -> int:
        return self.oidc if self.oidc is not None else (9400 if self.gateway else 0)


class Devstack:
    """Starts and stops every local service; usable from tests too."""

    def __init__(
        self,
        ports: StackPorts | None = None,
        *,
        prefix: str = "partner-dev",
        log: bool = True,
        moto: Any = None,
        chain: Any = None,
        tipped_sends: bool = False,
    ) -> None:
        """`moto` and `chain` may be handles already running (tests share them); they are
        then left running by `stop()`. `tipped_sends`: tipped writes go through the chain's block
        engine `sendTransaction` (BlockEngineTxUrl; docs/chain.md, "Tipped sends"); off: through
        the RPC."""
        self.ports = ports or StackPorts()
        self.tipped_sends = tipped_sends
        self.rpc_proxy: Any = None
        self.provider: Any = None
        self.platform_credentials: tuple[str, str] | None = None
        self._saved_env: dict[str, str | None] = {}
        self.pinning: Any = None
        self._pin_hook: Any = None
        self.prefix, self.log = prefix, log
        self.moto, self.chain = moto, chain
        self.gateway: GatewayHandle | None = None
        self.schedules: ScheduleTimer | None = None
        self.pollers: list[Any] = []
        self.stack: Any = None
        self.invoker: Any = None  # Lambda's Invoke API on the gateway (devstack.lambdas)
        self._owned: list[Any] = []
        self.env: dict[str, str] = {}

    def start(self) -> Devstack:
        from devstack.aws import aws_env, create_resources, start_moto
        from devstack.gateway import start_gateway

        if self.moto is None:
            self.moto = start_moto(port=self.ports.moto)
            self._owned.append(self.moto)
        if self.chain is None:
            self.chain = _start_chain(self.ports.chain)
            if self.chain is not None:
                self._owned.append(self.chain)
        parameters: dict[str, Any] = {}
        if self.chain is not None:
            parameters["RpcUrls"] = self.chain.url
            parameters["BlockEngineUrl"] = self.chain.bundle_url
            if self.tipped_sends:
                parameters["BlockEngineTxUrl"] = self.chain.url + "/api/v1/transactions"
            if self.ports.rpc_proxy is not None:
                from devstack.rpcproxy import start_rpc_proxy

                self.rpc_proxy = start_rpc_proxy(self.chain.url, port=self.ports.rpc_proxy)
                self._owned.insert(0, self.rpc_proxy)
                parameters["RpcUrls"] = f"{self.rpc_proxy.url},{self.chain.url}"
        stack = create_resources(ROOT / "template.yaml", self.moto.url, prefix=self.prefix, parameters=parameters)
        self.stack = stack
        self.env = {**aws_env(self.moto.url), **stack.environment()}
        if self.chain is not None:
            self.env["RPC_URL"] = self.chain.url  # the chain itself (partnerctl dev talks to it)
        self.env["TRACKER_RUN_SECONDS"] = "0"  # one pass per tick: the schedule timer ticks every 2 s
        self.env.setdefault("PLATFORM_TREASURY", DEVSTACK_TREASURY)
        self._start_pinning(stack, parameters)
        self.gateway = start_gateway(
            ROOT / "template.yaml", self.env, port=self.ports.gateway, parameters=parameters, log=self.log
        )
        self._owned.insert(0, self.gateway)
        from devstack import docs_routes, faults

        self.gateway.extra_routes.update(faults.routes())
        self.gateway.extra_routes.update(docs_routes.routes())  # Swagger UI at /docs
        self._serve_invoke(parameters)
        self._start_platform()
        from partner.core.settings import reset_settings

        reset_settings()
        self._start_queue_pollers()
        return self

    def follow_chain_clock(self) -> Any:
        """Make the service's clock (partner.core.clock, in this process and every function's) the wall
        clock plus what the chain is warped from now on, so that `partnerctl dev warp` moves both: token
        lifetimes, upload expiry, consent-form age and rate-limit windows. -> the ports it replaced."""
        from devstack.workers import WarpedClock
        from partner.chain import ports

        assert self.chain is not None and self.chain.bank is not None
        previous = ports.current()
        ports.install(clock=WarpedClock(self.chain.bank))
        return previous

    def _serve_invoke(self, parameters: dict[str, Any]) -> None:
        """Lambda's Invoke for the functions (devstack.lambdas, on the gateway): their lambda clients
        call the gateway (moto cannot run functions), set before any function's process starts. It
        answers requests signed with the keys the functions are given (their execution role's), as
        their boto3 signs them, and refuses every other request."""
        from devstack.events import ACCOUNT_ID
        from devstack.lambdas import Invoker

        assert self.gateway is not None
        role = f"arn:aws:iam::{ACCOUNT_ID}:role/{self.prefix}-functions"
        keys = {self.env["AWS_ACCESS_KEY_ID"]: (self.env["AWS_SECRET_ACCESS_KEY"], role)}
        self.invoker = Invoker(self.gateway.gateway, parameters, keys)
        self.gateway.extra_routes.update(self.invoker.routes())
        self._saved_env.setdefault("AWS_ENDPOINT_URL_LAMBDA", os.environ.get("AWS_ENDPOINT_URL_LAMBDA"))
        os.environ["AWS_ENDPOINT_URL_LAMBDA"] = self.env["AWS_ENDPOINT_URL_LAMBDA"] = self.gateway.url

    def _start_platform(self) -> None:
        """The platform's parts: its credentials for the IAM-authorized /platform/v1 routes
        (the gateway checks their SigV4 signatures), and its OpenID provider (devstack.oidc) with this
        service registered as a client, its secret in SSM."""
        import secrets

        from devstack import oidc
        from devstack.events import ACCOUNT_ID

        assert self.gateway is not None
        key_id = "AKIA" + secrets.token_hex(8).upper()
        secret = secrets.token_urlsafe(30)
        self.platform_credentials = (key_id, secret)
        self.gateway.gateway.iam_credentials[key_id] = (secret, f"arn:aws:iam::{ACCOUNT_ID}:role/platform-backend")
        self.provider = oidc.start_provider(list(PLATFORM_USERS), port=self.ports.oidc_provider)
        self._owned.append(self.provider)
        redirect = f"{self.url}/account/signin/callback"
        registered = self.provider.register_client(redirect)
        added = {
            "PLATFORM_ACCESS_KEY_ID": key_id,
            "PLATFORM_SECRET_ACCESS_KEY": secret,
            "OIDC_ISSUER": self.provider.url,
            "OIDC_CLIENT_ID": registered["client_id"],
            "OIDC_CLIENT_SECRET_PARAMETER": oidc.store_secret(self.moto.url, registered["client_secret"]),
            "OIDC_REDIRECT_URI": redirect,
        }
        for name, value in added.items():
            self._saved_env.setdefault(name, os.environ.get(name))
            os.environ[name] = value
        self.env.update(added)

    def _start_queue_pollers(self) -> None:
        """Each function with an SQS event gets a poller thread (Lambda's event source mapping)."""
        import functools

        from devstack.sqs import QueuePoller

        assert self.gateway is not None
        gateway = self.gateway.gateway
        for fn in gateway.template.functions():
            for ev in fn.events.values():
                if (ev or {}).get("Type") != "SQS":
                    continue
                queue = ((ev.get("Properties") or {}).get("Queue") or {}).get("Fn::GetAtt", [None])[0]
                if queue not in self.stack:
                    continue
                poller = QueuePoller(
                    functools.partial(_call, gateway, fn),
                    self.stack.physical_id(queue),
                    self.stack.arn(queue),
                    self.moto.url,
                    name=fn.logical_id,
                    timeout_seconds=fn.timeout,
                ).start()
                self.pollers.append(poller)
                self._owned.insert(0, poller)

    def _start_pinning(self, stack: Any, parameters: dict[str, Any]) -> None:
        """The Kubo-RPC pin server, content in the staging bucket; pinning faults hooked in."""
        import functools

        from devstack import faults
        from devstack.pinserver import start_pin_server
        from partner.features import pinning

        self.pinning = start_pin_server(
            stack.physical_id("StagingBucket"), port=self.ports.pin_server, endpoint_url=self.moto.url
        )
        self._owned.append(self.pinning)
        parameters["PinningUrl"] = self.env["PINNING_URL"] = self.pinning.url
        self._pin_hook = functools.partial(faults.take, "pinning")
        pinning.add_hook(self._pin_hook)

    @property
    def url(self) -> str:
        assert self.gateway is not None
        return self.gateway.url

    def start_schedules(self, interval: float = 2.0) -> ScheduleTimer:
        """Run the template's scheduled functions (the migrator) every `interval` seconds."""
        assert self.gateway is not None
        self.schedules = ScheduleTimer(self.gateway.gateway, interval).start()
        self._owned.insert(0, self.schedules)
        return self.schedules

    def stop(self) -> None:
        for part in self._owned:
            if part is not None:
                try:
                    part.stop()
                except Exception as exc:  # keep stopping the rest
                    print(f"devstack: stop failed: {exc}", file=sys.stderr)
        if self._pin_hook is not None:
            from partner.features import pinning

            pinning.remove_hook(self._pin_hook)
            self._pin_hook = None
        for name, value in self._saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        if self._saved_env:
            from partner.core.settings import reset_settings

            reset_settings()
        self._saved_env.clear()


def scheduled_event(rule: str) -> dict[str, Any]:
    """An EventBridge `Scheduled Event`, as a `Type: Schedule` rule delivers it."""
    from datetime import UTC, datetime

    from devstack.events import ACCOUNT_ID, REGION

    return {
        "version": "0",
        "id": str(uuid.uuid4()),
        "detail-type": "Scheduled Event",
        "source": "aws.events",
        "account": ACCOUNT_ID,
        "time": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "region": REGION,
        "resources": [f"arn:aws:events:{REGION}:{ACCOUNT_ID}:rule/{rule}"],
        "detail": {},
    }


class ScheduleTimer:
    """Stands in for EventBridge: invokes every function with a `Type: Schedule` event, in-process,
    every `interval` seconds from a background thread (the devstack's short timer)."""

    def __init__(self, gateway: Any, interval: float) -> None:
        self.gateway, self.interval = gateway, interval
        self.functions = [
            fn
            for fn in gateway.template.functions()
            if any((ev or {}).get("Type") == "Schedule" for ev in fn.events.values())
        ]
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="devstack-schedules", daemon=True)
        self._last_error: dict[str, str] = {}

    def start(self) -> ScheduleTimer:
        self._thread.start()
        return self

    def tick(self) -> dict[str, Any]:
        """Invoke each scheduled function once; a failure is printed once until it changes."""
        out: dict[str, Any] = {}
        for fn in self.functions:
            try:
                out[fn.logical_id] = self.gateway.call(fn, scheduled_event(fn.logical_id))
                self._last_error.pop(fn.logical_id, None)
            except Exception as exc:  # keep the timer alive
                message = f"{type(exc).__name__}: {exc}"
                if self._last_error.get(fn.logical_id) != message:
                    print(f"devstack: scheduled {fn.logical_id} failed: {message}", file=sys.stderr)
                self._last_error[fn.logical_id] = message
        return out

    def _loop(self) -> None:
        while not self._stopped.wait(self.interval):
            self.tick()

    def stop(self) -> None:
        self._stopped.set()
        if self._thread.is_alive():
            self._thread.join(timeout=150)


def _call(gateway: Any, fn: Any, event: dict[str, Any], _context: Any) -> Any:
    """A queue's event, run as the gateway runs its functions (the function's own processes)."""
    return gateway.call(fn, event)


def _start_chain(port: int):
    try:
        from devstack.chain.server import start_chain
    except ImportError:
        return None
    return start_chain(port=port)


CRANK_LAMPORTS = 10 * 10**9
SCHEDULE_SECONDS = 2.0


def seed(stack: Devstack) -> dict[str, Any]:
    """A demo client, three funded users (alice, bob, carol), the funded crank wallet, a coin by alice on a fresh
    curve, and the devstack pages."""
    from devstack.demo_app import DevPages
    from partnerctl import admin

    base = stack.url
    demo = admin.create_client(
        admin.NewClient(
            name="Demo Partner App", redirect_uri=f"{base}/demo/callback", tier="Partner", website=f"{base}/demo"
        )
    )
    users = []
    for label, _claims in PLATFORM_USERS:
        created = admin.create_user(twitter=label, sub=label)
        created["label"] = label
        if stack.chain is not None:
            from partnerctl import dev

            os.environ["RPC_URL"] = stack.chain.url
            dev.airdrop(created["wallet"], 50 * 10**9)
            created["lamports"] = 50 * 10**9
        users.append(created)
    seeded: dict[str, Any] = {"client": demo, "users": users}
    if stack.chain is not None:
        from partnerctl import dev

        seeded["crank"] = dev.crank_wallet(CRANK_LAMPORTS)
        alice = users[0]
        seeded["coin"] = {**dev.create_coin(alice["user_id"], "Alice Demo Coin", "ALICE"), "creator": alice["user_id"]}
    pages = DevPages(base, demo, users, mint=seeded.get("coin", {}).get("mint"))
    assert stack.gateway is not None
    stack.gateway.extra_routes.update(pages.routes())
    return seeded


def usage(stack: Devstack, seeded: dict[str, Any]) -> str:
    """What `make run` prints once the stack is up: its services, the demo and the calls to try."""
    base, client = stack.url, seeded["client"]
    mint = seeded.get("coin", {}).get("mint", "<mint>")
    return (
        _usage_services(stack)
        + _usage_connect(base, getattr(stack, "provider", None), seeded)
        + _usage_trade(base, client, mint)
        + _usage_launch(base)
        + _usage_governance(base, client, mint)
    )


def _usage_services(stack: Devstack) -> str:
    base = stack.url
    provider = getattr(stack, "provider", None)
    chain = (
        f"{stack.chain.url} (websocket {stack.chain.ws_url}, block engine {stack.chain.bundle_url})"
        if stack.chain
        else "not available"
    )
    proxy = getattr(stack, "rpc_proxy", None)
    if proxy is not None:
        chain += (
            f"\n  rpc proxy {proxy.url} (first in RPC_URLS; faults: curl -X POST "
            f'{proxy.url}/_devstack/fault -d \'{{"mode": "down"}}\')'
        )
    return f"""
Partner API devstack is up.

  gateway   {base}   ({{base_url}} and {{auth_url}})
  chain     {chain}
  aws       {stack.moto.url} (moto: DynamoDB, S3, KMS)
  pinning   {stack.pinning.url if stack.pinning else "not running"} (Kubo RPC /api/v0/add; gateway /ipfs/<cid>)
  platform  {provider.url if provider else "-"} (the stand-in OpenID provider: alice, bob, carol)
            /platform/v1/* answers SigV4 by the platform's credentials (.devstack/env.json:
            PLATFORM_ACCESS_KEY_ID / PLATFORM_SECRET_ACCESS_KEY, service execute-api, us-east-1)

"""


def _usage_connect(base: str, provider: Any, seeded: dict[str, Any]) -> str:
    client = seeded["client"]
    users = "\n                       ".join(
        f"{user.get('label', 'user')} {user['user_id']} wallet {user['wallet']}" for user in seeded["users"]
    )
    coin = ""
    if "coin" in seeded:
        coin = (
            f"Demo coin:             mint {seeded['coin']['mint']} (alice's, on a fresh curve)\n"
            f"Migrator:              every {SCHEDULE_SECONDS:g} s, crank wallet {seeded['crank']['wallet']}; "
            f"now: .venv/bin/partnerctl dev crank\n"
        )
    return f"""Connect in a browser:  {base}/demo   -> Connect -> the platform's sign-in ({provider.url if provider else "-"}):
                       Authorize as alice -> Approve
You stay in control:   on the consent page set "Your limit per day" to 0.1 SOL -> Approve -> Buy 0.2 SOL
                       on the demo page -> 403 daily_cap_exceeded (dailyVolumeCapLamports 100000000);
                       open {base}/account/apps -> today's spend, change limits, Disconnect ->
                       "Call /partner/v1/me again" on the demo page -> 401 invalid_token
Demo client:           client_id {client["client_id"]}
                       api_key   {client["api_key"]}
                       redirect  {base}/demo/callback
Users:                 {users}
{coin}
"""


def _usage_trade(base: str, client: dict[str, Any], mint: str) -> str:
    return f"""By hand (PKCE):
  open {base}/oauth/authorize?response_type=code&client_id={client["client_id"]}&redirect_uri={base}/demo/callback&scope=profile:read&state=s&code_challenge=<S256>&code_challenge_method=S256
  curl -s -u {client["client_id"]}:{client["api_key"]} {base}/oauth/token \\
       -d grant_type=authorization_code -d code=<app_ac_...> -d redirect_uri={base}/demo/callback -d code_verifier=<verifier>
  curl -s {base}/partner/v1/me -H 'Authorization: Bearer <app_at_...>'

Trade (the demo page's "Copy access token" gives one after Connect):
  curl -s {base}/partner/v1/trades/buy -H 'Authorization: Bearer <app_at_...>' -H 'Content-Type: application/json' \\
       -d '{{"mint":"{mint}","maxSolIn":"100000000","slippageBps":100,"priorityFeeLamports":"10000","tipLamports":"1000000"}}'
  # safe retries: the same Idempotency-Key again replays the first answer (idempotent-replayed: true), one trade
  curl -si {base}/partner/v1/trades/buy -H 'Authorization: Bearer <app_at_...>' -H 'Content-Type: application/json' \\
       -H 'Idempotency-Key: my-first-buy-1' \\
       -d '{{"mint":"{mint}","maxSolIn":"100000000","minTokensOut":"0","priorityFeeLamports":"10000","tipLamports":"1000000"}}'
  # quote first (nothing signed or sent), then trade in explicit mode with the quote's bound
  curl -s {base}/partner/v1/trades/quote -H 'Authorization: Bearer <app_at_...>' -H 'Content-Type: application/json' \\
       -d '{{"side":"buy","mint":"{mint}","maxSolIn":"100000000","slippageBps":100}}'
  curl -s {base}/partner/v1/trades/sell -H 'Authorization: Bearer <app_at_...>' -H 'Content-Type: application/json' \\
       -d '{{"mint":"{mint}","tokensIn":"1000000000","slippageBps":100,"priorityFeeLamports":"10000","tipLamports":"1000000"}}'
  curl -s {base}/partner/v1/transactions/<signature>/status -H 'Authorization: Bearer <app_at_...>'
"""


def _usage_launch(base: str) -> str:
    return f"""Launch a coin (image pinned to the devstack IPFS node; an optional first buy makes a bundle):
  curl -s {base}/partner/v1/coins/create -H 'Authorization: Bearer <app_at_...>' \\
       -F name='My Coin' -F symbol=MINE -F image=@logo.png -F initialBuySol=500000000 -F priorityFeeLamports=10000
Launch with a big image (up to 5 MiB), staged: ask for an upload, POST the file straight to S3 (here moto on
127.0.0.1) with the answer's fields, then name the upload (once, within 15 minutes; needs jq):
  UP=$(curl -s {base}/partner/v1/uploads -H 'Authorization: Bearer <app_at_...>' -H 'Content-Type: application/json' \\
       -d "{{\\"contentType\\":\\"image/png\\",\\"contentLength\\":\\"$(stat -c%s big.png)\\"}}")
  curl -s "$(echo "$UP" | jq -r .url)" $(echo "$UP" | jq -r '.fields | to_entries[] | "-F \\(.key)=\\(.value)"') \\
       -F file=@big.png
  curl -s {base}/partner/v1/coins/create -H 'Authorization: Bearer <app_at_...>' \\
       -F name='Big Coin' -F symbol=BIG -F imageUploadId="$(echo "$UP" | jq -r .uploadId)"

"""


def _usage_governance(base: str, client: dict[str, Any], mint: str) -> str:
    return f"""Governance (each of alice, bob and carol connects through /demo and buys some of the coin first;
the proposer needs 1% of supply, 10,000,000 tokens, for the bond; 3 voters make quorum):
  curl -s {base}/partner/v1/governance/{mint} -H 'Authorization: Bearer <app_at_...>'
  curl -s {base}/partner/v1/governance/proposals/update-content -H 'Authorization: Bearer <app_at_...>' \\
       -F mint={mint} -F name='New Name' -F description='Changed by vote' -F image=@logo.png -F voteDurationSeconds=60 \\
       -F priorityFeeLamports=10000 -F tipLamports=1000000
  curl -s {base}/partner/v1/governance/votes -H 'Authorization: Bearer <app_at_...>' -H 'Content-Type: application/json' \\
       -d '{{"proposal":"<proposal>","side":"yes","amount":"1000000","priorityFeeLamports":"10000","tipLamports":"1000000"}}'
  .venv/bin/partnerctl dev warp 61   # close the vote, then POST /partner/v1/governance/proposals/settle {{"proposal":...}}
  Curve to pool: buy ~86 SOL in total (users get 50 SOL each; .venv/bin/partnerctl dev airdrop <wallet> <lamports>),
  trades then answer 409 migration_pending until the migrator runs, then pool_not_open for 2 s, then the pool.

Webhooks (signed transaction events; the tracker runs every {SCHEDULE_SECONDS:g} s):
  .venv/bin/partnerctl --json client webhook set {client["client_id"]} http://127.0.0.1:8091/webhooks
  .venv/bin/python -m examples.webhook_receiver --secret <whsec_... from the line above>   # then buy
  curl -s '{base}/partner/v1/fees/estimate?mint={mint}' -H 'Authorization: Bearer <app_at_...>'

Operator CLI (from the repo root): .venv/bin/partnerctl --json client create --name App --redirect-uri http://localhost:8080/cb
Stop with Ctrl-C. State lives in memory and is gone when it stops.
"""


def write_env_file(stack: Devstack, directory: Path = STATE) -> Path:
    """`<directory>/env.json` (mode 0600): the functions' environment plus `GATEWAY_URL` (and the
    chain's PubSub websocket, `WS_URL`), so that partnerctl run from the repository root reaches
    this stack, on whatever port it runs (`dev fault kms|dynamodb|pinning` and `dev fault clear`
    talk to the gateway)."""
    directory.mkdir(mode=0o700, exist_ok=True)
    env_file = directory / "env.json"
    extra = {"GATEWAY_URL": stack.url}
    if stack.chain is not None and stack.chain.ws_url:
        extra["WS_URL"] = stack.chain.ws_url
    write_private(env_file, json.dumps({**stack.env, **extra}, indent=2))
    return env_file


def write_private(path: Path, text: str) -> Path:
    """Write `text` to `path`, readable by its owner only (0600), even if it existed with a wider
    mode: the files under `.devstack/` hold secrets (the demo API key, KMS key ids, tokens)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            fd = -1
            out.write(text)
    finally:
        if fd >= 0:
            os.close(fd)
    return path


def write_seed_file(seeded: dict[str, Any], directory: Path = STATE) -> Path:
    """`<directory>/seed.json` (mode 0600): the seeded client (with its API key) and users."""
    directory.mkdir(mode=0o700, exist_ok=True)
    return write_private(directory / "seed.json", json.dumps(seeded, indent=2))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=int(os.environ.get("GATEWAY_PORT", 3000)))
    parser.add_argument("--chain-port", type=int, default=int(os.environ.get("CHAIN_PORT", 8899)))
    parser.add_argument("--pin-port", type=int, default=int(os.environ.get("PIN_PORT", 5001)))
    parser.add_argument(
        "--oidc-port",
        type=int,
        default=int(os.environ.get("OIDC_PORT", 9400)),
        help="the stand-in platform OpenID provider",
    )
    parser.add_argument(
        "--rpc-proxy-port",
        type=int,
        default=None,
        help="also start a second chain endpoint on this port (0: any free port), a JSON-RPC "
        "proxy with faults of its own, first in RPC_URLS (docs/guide.md, 'Several RPC endpoints')",
    )
    parser.add_argument(
        "--tipped-sends",
        action="store_true",
        help="send tipped writes through the block engine's sendTransaction, the RPC when it "
        "refuses (BLOCK_ENGINE_TX_URL; docs/chain.md, 'Tipped sends')",
    )
    args = parser.parse_args(argv)
    ports = StackPorts(
        args.port, args.chain_port, pin=args.pin_port, oidc=args.oidc_port, rpc_proxy=args.rpc_proxy_port
    )
    stack = Devstack(ports, tipped_sends=args.tipped_sends).start()
    try:
        if stack.chain is not None:
            stack.follow_chain_clock()  # `partnerctl dev warp` moves the service's clock too
        seeded = seed(stack)
        stack.start_schedules(SCHEDULE_SECONDS)
        write_env_file(stack)
        write_seed_file(seeded)
        print(usage(stack, seeded), flush=True)
        stopped = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stopped.set())
        try:
            stopped.wait()
        except KeyboardInterrupt:
            pass
    finally:
        stack.stop()
        (STATE / "env.json").unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
