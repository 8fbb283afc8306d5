"""`make bench`: cold starts, call budgets, warm latency, chain throughput, layer sizes, the
programs' compute units and the tracker's throughput and lag.

Starts the devstack once (moto server, devstack chain, pin server, gateway on 127.0.0.1,
any free ports), seeds what the requests need, measures, and writes bench/results.json and
docs/benchmarks.md. Benchmarks print figures; nothing here is a test and nothing asserts a
goal. Scratch files go to bench/out/ (ignored).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from bench.stack import BOND, GOV_PATHS, REDIRECT, SOL, Bench, T

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out"
PY = str(ROOT / ".venv" / "bin" / "python")
CHILD = str(ROOT / "bench" / "coldstart_child.py")
GOALS = {
    "cold_ratio": 2.0,
    "snapstart_ratio": 1.5,
    "snapstart_add_ms": 30,
    "latency_ratio": 1.3,
    "get_ddb_calls": 3,
    "trade_rpc": 3,
    "trade_kms": 1,
    "tps_ratio": 0.25,
    "layer_mb": 60,
    "tracker_records_per_s": 1000,  # at 1,000 open records, on one devstack pass
    "tracker_lag_s": 5,
}
GOV_WRITES = (*GOV_PATHS, "governance_update_content")
# governance writes that change chain state answer 200 once per fresh voter / proposal, so
# each of those requests gets its own (built before the request, not timed)
GOV_FRESH = (
    "governance_vote",
    "governance_vote_cancel",
    "governance_vote_withdraw",
    "governance_settle",
    "governance_bond_withdraw",
)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def log(*parts: Any) -> None:
    print("bench:", *parts, file=sys.stderr, flush=True)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


# --------------------------------------------------------------------------- the stack


LISTED_VOTES = 10  # votes on the proposal whose votes the bench lists


def _png(i: int) -> tuple[str, bytes, str]:
    """A small PNG of its own (request `i`), as a multipart file."""
    from testkit.images import png

    return ("logo.png", png(i), "image/png")


class Requests:
    """One representative request per function. `make(name, i)` returns the request for
    the i-th call (some need a fresh code, token or wallet per call)."""

    READ_ONLY = (
        "me",
        "governance_read",
        "governance_votes_list",
        "transaction_status",
        "oauth_authorize",
        "account_apps",
        "trades_quote",
        "fees_estimate",
        "tracker",
    )

    def __init__(self, bench: Bench) -> None:
        self.b = bench
        self.reader = bench.member(sol=0)
        # each read endpoint its own connection: the read bucket is 300/min per token
        self.readers = {
            "me": self.reader,
            "governance_read": bench.member(sol=0),
            "governance_votes_list": bench.member(sol=0),
            "trades_quote": bench.member(sol=0),
            "fees_estimate": bench.member(sol=0),
        }
        self.traders = {
            name: bench.member(sol=20, tokens=True) for name in ("trades_buy", "trades_buy_exact_out", "trades_sell")
        }
        # every governance endpoint draws on its own member's bucket (60/min per token)
        self.gov_members = {name: bench.member(sol=2, tokens=True) for name in GOV_WRITES}
        self.gov = self.gov_members["governance_vote"]
        from partnerctl import admin

        self.cookie = admin.create_session(self.reader.user["user_id"])["cookie"]
        from testkit.helpers import invoke

        out = invoke(
            "trades_buy",
            "POST",
            "/partner/v1/trades/buy",
            body=bench.buy_body(SOL // 100),
            headers={**self.gov.bearer(), "Content-Type": "application/json"},
        )
        self.signature = out.json["signature"]
        from partner.store import ddb, txrecords

        # the tracker's cold start gets the same work every time (below): this landed buy's record
        self.tracked = {**(ddb.get(txrecords.table(), self.signature) or {}), "status": "sent"}
        # a real proposal on the bench coin, open for the whole run: reads, votes and cancels
        # answer 200; proposing again on this coin answers 422 active_proposal_exists
        self.proposal = self._propose(bench.coin, "3600")
        # the votes to list: a proposal of its own with a fixed set of votes (the one above gains a
        # voter with every governance_vote request, which would grow the listing as the run goes on)
        listed_coin = bench.new_coin()
        self.listed = self._propose(listed_coin, "3600")
        for _ in range(LISTED_VOTES):
            self._voter(listed_coin, self.listed)
        self.hook_client = self._webhook_receiver()
        self._closed: list[tuple[Any, Any, str]] = []  # (proposer, voter, proposal): voting over
        self._settled_voters: list[tuple[Any, str]] = []
        self._uploaders: dict[int, Any] = {}
        self.revoker = admin.create_user()
        self.platform_sub = f"bench-platform-{uuid.uuid4().hex[:8]}"
        admin.create_user(sub=self.platform_sub)  # with its wallet: the wallet call answers the same one

    def _propose(self, mint: str, duration: str) -> str:
        proposer = self.b.member(sol=5)
        self.b.buy_exact(proposer, mint, BOND + T)
        out = self.b.gov(
            proposer,
            "governance_extend_mutability",
            {"mint": mint, "additionalSeconds": "86400", "voteDurationSeconds": duration},
        )
        assert out.status == 200, out.body
        self._last_proposer = proposer
        return out.json["proposal"]

    def _voter(self, mint: str, proposal: str | None = None) -> Any:
        """A fresh member holding 2 tokens of `mint` (and, with `proposal`, voting 1 on it)."""
        voter = self.b.member(sol=1)
        self.b.buy_exact(voter, mint, 2 * T, max_sol=SOL // 2)
        if proposal:
            out = self.b.gov(voter, "governance_vote", {"proposal": proposal, "side": "yes", "amount": str(T)})
            assert out.status == 200, out.body
        return voter

    def _closed_proposal(self) -> tuple[Any, Any, str]:
        """A proposal whose voting is over (not settled): each on its own coin, made in
        batches of 4 with 60-second votes, then one warp of the chain clock past them."""
        if not self._closed:
            from testkit.chain import warp

            for _ in range(4):
                mint = self.b.new_coin()
                proposal = self._propose(mint, "60")
                self._closed.append((self._last_proposer, self._voter(mint, proposal), proposal))
            warp(self.b.chain_url, 61)
        return self._closed.pop(0)

    def _settle(self, conn: Any, proposal: str) -> None:
        out = self.b.gov(conn, "governance_settle", {"proposal": proposal})
        assert out.status == 200, out.body

    def _get(self, conn: Any, path: str, resource: str | None = None) -> dict[str, Any]:
        """A GET as `conn`; `resource`: the route's template, as API Gateway sends it."""
        request = {"method": "GET", "path": path, "headers": conn.bearer()}
        return {**request, "resource": resource} if resource else request

    def _json(self, conn: Any, path: str, body: dict[str, Any]) -> dict[str, Any]:
        return {
            "method": "POST",
            "path": path,
            "body": json.dumps(body),
            "headers": {**conn.bearer(), "Content-Type": "application/json"},
        }

    def _multipart(self, conn: Any, path: str, fields: dict[str, Any]) -> dict[str, Any]:
        import urllib3

        body, ctype = urllib3.encode_multipart_formdata(fields)
        return {"method": "POST", "path": path, "body": body, "headers": {**conn.bearer(), "Content-Type": ctype}}

    def _webhook_receiver(self) -> str:
        """A local receiver answering 200, registered as the reader's client's webhook."""
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        from partner.jobs import webhooks

        class Ok(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # http.server's name
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *_: Any) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Ok)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        client_id = self.reader.client["client_id"]
        webhooks.configure(client_id, f"http://127.0.0.1:{server.server_address[1]}/hook")
        return client_id

    def make(self, name: str, i: int) -> dict[str, Any]:
        b, r = self.b, self.reader
        prio = {"priorityFeeLamports": "1000", "tipLamports": "1000000"}
        if name == "me":
            return self._get(self.readers[name], "/partner/v1/me")
        if name == "governance_read":
            return self._get(self.readers[name], f"/partner/v1/governance/{b.coin}", "/partner/v1/governance/{mint}")
        if name == "governance_votes_list":
            path = f"/partner/v1/governance/proposals/{self.listed}/votes"
            return self._get(self.readers[name], path, "/partner/v1/governance/proposals/{proposal}/votes")
        if name == "transaction_status":
            path = f"/partner/v1/transactions/{self.signature}/status"
            return self._get(self.gov, path, "/partner/v1/transactions/{signature}/status")
        if name == "trades_quote":
            return self._json(
                self.readers[name],
                "/partner/v1/trades/quote",
                {"side": "buy", "mint": b.coin, "maxSolIn": str(SOL // 100 + i), "slippageBps": 500},
            )
        if name == "trades_buy":
            return self._json(self.traders[name], "/partner/v1/trades/buy", b.buy_body(SOL // 100 + i))
        if name == "trades_buy_exact_out":
            return self._json(
                self.traders[name],
                "/partner/v1/trades/buy-exact-out",
                {"mint": b.coin, "tokensOut": str(1_000_000_000 + i), "slippageBps": 500, **prio},
            )
        if name == "trades_sell":
            return self._json(
                self.traders[name],
                "/partner/v1/trades/sell",
                {"mint": b.coin, "tokensIn": str(1_000_000 + i), "slippageBps": 500, **prio},
            )
        if name.startswith("platform_user_"):  # the platform API: IAM is API Gateway's, not timed here
            sub = f"bench-{name}-{i}" if name == "platform_user_upsert" else self.platform_sub
            path = f"/platform/v1/users/{sub}" + {
                "platform_user_wallet": "/wallet",
                "platform_user_delegation": "/delegation",
            }.get(name, "")
            method = {"platform_user_read": "GET", "platform_user_wallet": "POST"}.get(name, "PUT")
            body = {
                "platform_user_upsert": {"twitterHandle": "bench"},
                "platform_user_delegation": {"tradingEnabled": bool(i % 2)},
            }.get(name)
            return {
                "method": method,
                "path": path,
                "body": json.dumps(body) if body is not None else None,
                "headers": {"Content-Type": "application/json"},
                "resource": path.replace(sub, "{sub}"),
            }
        if name == "account_signin":  # without a configured provider: its "not configured" page
            return {"method": "GET", "path": "/account/signin", "query": {"next": "account/apps"}, "source_ip": b.ip()}
        if name == "oauth_authorize":
            from testkit.helpers import authorize_query, pkce_pair

            return {
                "method": "GET",
                "path": "/oauth/authorize",
                "headers": {"Cookie": self.cookie},
                "query": authorize_query(b.client, pkce_pair()[1], "profile:read", redirect_uri=REDIRECT),
                "source_ip": b.ip(),
            }
        if name == "oauth_token":
            from testkit.helpers import FORM, basic, get_code

            ip = b.ip()
            code, verifier, _ = get_code(b.client, r.user, ip=ip)
            return {
                "method": "POST",
                "path": "/oauth/token",
                "source_ip": ip,
                "headers": {**FORM, "Authorization": basic(b.client["client_id"], b.client["api_key"])},
                "body": urlencode(
                    {
                        "grant_type": "authorization_code",
                        "code": code,
                        "code_verifier": verifier,
                        "redirect_uri": REDIRECT,
                    }
                ),
            }
        if name == "oauth_revoke":
            from testkit.helpers import FORM, basic, connect

            ip = b.ip()
            # a user of its own: revoking a refresh token revokes its grant's access tokens,
            # and the reader's grant serves the other requests
            conn = connect(b.client, self.revoker, ip=ip)
            return {
                "method": "POST",
                "path": "/oauth/revoke",
                "source_ip": ip,
                "headers": {**FORM, "Authorization": basic(b.client["client_id"], b.client["api_key"])},
                "body": urlencode({"token": conn.refresh}),
            }
        if name == "coins_create":
            fields = {"name": f"Bench {i}", "symbol": "BN", "image": _png(i), "priorityFeeLamports": "1000"}
            return self._multipart(b.member(sol=1), "/partner/v1/coins/create", fields)
        if name in GOV_PATHS:
            conn = self.gov_members[name]
            if name == "governance_vote":
                conn, body = self._voter(b.coin), {"proposal": self.proposal, "side": "yes", "amount": str(T)}
            elif name == "governance_vote_cancel":
                conn, body = self._voter(b.coin, self.proposal), {"proposal": self.proposal}
            elif name == "governance_settle":
                _, voter, proposal = self._closed_proposal()
                self._settled_voters.append((voter, proposal))  # settled by this request
                body = {"proposal": proposal}
            elif name == "governance_bond_withdraw":
                proposer, voter, proposal = self._closed_proposal()
                self._settle(conn, proposal)
                self._settled_voters.append((voter, proposal))
                conn, body = proposer, {"proposal": proposal}
            elif name == "governance_vote_withdraw":
                if not self._settled_voters:
                    _, voter, proposal = self._closed_proposal()
                    self._settle(conn, proposal)
                    self._settled_voters.append((voter, proposal))
                conn, proposal = self._settled_voters.pop(0)
                body = {"proposal": proposal}
            elif name == "governance_extend_mutability":
                body = {"mint": b.coin, "additionalSeconds": "86400", "voteDurationSeconds": "60"}
            elif name == "governance_finalize_metadata":
                body = {"mint": b.coin, "voteDurationSeconds": "60"}
            else:  # governance_finalize_expired
                body = {"mint": b.coin}
            return self._json(conn, GOV_PATHS[name][1], {**body, **prio})
        if name == "governance_update_content":
            fields = {"mint": b.coin, "name": "New Name", "image": _png(i), "voteDurationSeconds": "60", **prio}
            return self._multipart(self.gov_members[name], "/partner/v1/governance/proposals/update-content", fields)
        if name == "migrator":
            return {"scheduled": "MigratorFunction"}
        if name == "tracker":
            # the same pass for every cold start, this checkout's and the one compared alike:
            # drain what the other functions' sends left open (a warm pass in this process),
            # then reopen one landed buy, which the measured pass moves to finalized (statuses,
            # the client's webhook settings, the record's update, its events enqueued)
            from partner.jobs import tracker
            from partner.store import ddb, txrecords

            tracker.run()
            ddb.put(txrecords.table(), self.tracked)
            return {"scheduled": "TrackerFunction"}
        if name == "health":
            return {"method": "GET", "path": "/health", "source_ip": b.ip()}
        if name == "fees_estimate":
            return {
                "method": "GET",
                "path": "/partner/v1/fees/estimate",
                "query": {"mint": b.coin},
                "headers": self.readers[name].bearer(),
                "resource": "/partner/v1/fees/estimate",
            }
        if name == "webhook_delivery":  # one signed event, delivered to the bench's receiver
            from partner.core import clock

            event = {
                "id": f"evt_bench{i:028d}",
                "type": "transaction.confirmed",
                "created": clock.now_int(),
                "data": {
                    "signature": self.signature,
                    "kind": "buy",
                    "mint": b.coin,
                    "wallet": None,
                    "slot": None,
                    "error": None,
                },
            }
            return {"sqs": {"event": event, "client_id": self.hook_client}}
        if name == "account_apps":  # the user's connected apps page (a platform session, per-IP bucket)
            return {"method": "GET", "path": "/account/apps", "headers": {"Cookie": self.cookie}, "source_ip": b.ip()}
        if name == "uploads_create":  # a presigned POST; the upload bucket is 30/min per token: a member per 25
            if i // 25 not in self._uploaders:
                self._uploaders[i // 25] = b.member(sol=0)
            return self._json(
                self._uploaders[i // 25],
                "/partner/v1/uploads",
                {"contentType": "image/png", "contentLength": str(100_000 + i)},
            )
        raise KeyError(name)


def event_for(req: dict[str, Any]) -> dict[str, Any]:
    from devstack.events import ApiRequest, api_event

    if "scheduled" in req:
        from devstack.run import scheduled_event

        return scheduled_event(req["scheduled"])
    if "sqs" in req:  # an SQS event source batch of one message
        return {
            "Records": [
                {
                    "messageId": str(uuid.uuid4()),
                    "body": json.dumps(req["sqs"]),
                    "attributes": {"ApproximateReceiveCount": "1"},
                    "eventSource": "aws:sqs",
                }
            ]
        }
    body = req.get("body")
    return api_event(
        ApiRequest(
            req["method"],
            req["path"],
            headers=req.get("headers"),
            query=req.get("query"),
            body=body,
            source_ip=req.get("source_ip", "127.0.0.1"),
            resource=req.get("resource"),
        )
    )


FUNCTIONS = sorted(p.name for p in (ROOT / "functions").iterdir() if (p / "app.py").exists())


# --------------------------------------------------------------------------- 1. cold start

RUNTIME_PACKAGES = ("boto3", "botocore", "s3transfer", "jmespath", "dateutil", "urllib3", "six.py")


def _layer_path(build: Path) -> str | None:
    """sys.path as Lambda builds it for a function: the layers (/opt/python: SharedLayer,
    DependenciesLayer from `sam build`), then what the python3.13 runtime provides (boto3,
    botocore and their dependencies; here symlinks into the venv). None without a build."""
    shared, deps = build / "SharedLayer" / "python", build / "DependenciesLayer" / "python"
    if not (shared.is_dir() and deps.is_dir()):
        return None
    site = ROOT / ".venv" / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    runtime = OUT / "runtime"
    runtime.mkdir(parents=True, exist_ok=True)
    for name in RUNTIME_PACKAGES:
        link = runtime / name
        if not link.exists() and (site / name).exists():
            link.symlink_to(site / name)
    return os.pathsep.join(map(str, (shared, deps, runtime)))


def _child(
    spec: dict[str, Any], floor: bool, env: dict[str, str], isolated: bool = False, importtime: bool = False
) -> dict[str, Any]:
    path = OUT / ("floor.json" if floor else f"cold-{spec['function']}.json")
    path.write_text(json.dumps(spec))
    flags = [*(["-S"] if isolated else []), *(["-X", "importtime"] if importtime else [])]
    t0 = time.perf_counter()
    # isolated: no site-packages (-S), so only the PYTHONPATH of _layer_path is importable
    proc = subprocess.run(
        [PY, *flags, CHILD, *(["--floor"] if floor else []), str(path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    wall = (time.perf_counter() - t0) * 1000
    if proc.returncode != 0:
        raise RuntimeError(f"cold start child failed ({spec.get('function', 'floor')}): {proc.stderr[-2000:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["wall_ms"] = wall
    # the child's perf_counter is the same CLOCK_MONOTONIC: spawn to the response being ready
    out["response_ms"] = (out.pop("done_at") - t0) * 1000
    if importtime:
        out["importtime"] = proc.stderr
    return out


def import_breakdown(stderr: str, top_n: int = 15) -> dict[str, Any]:
    """`python -X importtime` output as the top modules by cumulative time (what app.py imports
    and one level below) and by self time."""
    rows: list[dict[str, Any]] = []
    for line in stderr.splitlines():
        if not line.startswith("import time:") or line.count("|") != 2:
            continue
        self_us, cum_us, name = line[len("import time:") :].split("|")
        if not self_us.strip().isdigit():
            continue  # the header line
        depth = (len(name) - 1 - len(name[1:].lstrip(" "))) // 2
        rows.append(
            {
                "module": name.strip(),
                "self_ms": round(int(self_us) / 1000, 1),
                "cumulative_ms": round(int(cum_us) / 1000, 1),
                "depth": depth,
            }
        )
    total = sum(r["self_ms"] for r in rows)
    # the child executes app.py itself (not through the import system), so its own imports
    # are the depth-0 rows
    top = sum(r["cumulative_ms"] for r in rows if r["depth"] == 0)
    near = [r for r in rows if r["depth"] <= 1]
    return {
        "total_ms": round(total, 1),
        "app_ms": round(top, 1),
        "cumulative": sorted(near, key=lambda r: -r["cumulative_ms"])[:top_n],
        "self": sorted(rows, key=lambda r: -r["self_ms"])[:top_n],
    }


def _tree_env(env: dict[str, str], tree: Path | None, layers: str | None) -> dict[str, str]:
    """The child's environment for the code in `tree` (None: this checkout): a Lambda init's."""
    env = {**env, "AWS_LAMBDA_INITIALIZATION_TYPE": "on-demand"}
    if layers is not None:
        env["PYTHONPATH"] = layers
    elif tree is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(tree / "shared"), str(tree)])
    elif os.environ.get("BENCH_SHARED"):  # an alternative copy of shared/ (before/after comparisons)
        env["PYTHONPATH"] = os.environ["BENCH_SHARED"]
    return env


def _summary(rows: list[dict[str, Any]], floor_ms: float, floor_response_ms: float) -> dict[str, Any]:
    wall = statistics.median(r["wall_ms"] for r in rows)
    response = statistics.median(r["response_ms"] for r in rows)
    return {
        "ms": round(wall, 1),
        "ratio": round(wall / floor_ms, 2),
        "response_ms": round(response, 1),
        "response_ratio": round(response / floor_response_ms, 2),
        "import_ms": round(statistics.median(r["import_ms"] for r in rows), 1),
        "first_request_ms": round(statistics.median(r["first_ms"] for r in rows), 1),
        "status": sorted({r["status"] for r in rows}, key=str),
        # both clocks: spawn to exit (the goal as first set) and spawn to response (what a Lambda
        # cold start is; init is frozen out of the collector, which also makes the interpreter's
        # exit cheaper, a gain Lambda never sees)
        # without SnapStart: spawn to the first response (what a Lambda cold start is) at most
        # GOALS["cold_ratio"] x the floor's; judged in the layers column (as deployed)
        "goal_met": response / floor_response_ms <= GOALS["cold_ratio"],
    }


def _has(root: Path, name: str) -> bool:
    """Whether the checkout at `root` has function `name` (an older one may not have it yet)."""
    return (root / "functions" / name / "app.py").exists()


FLOOR_EVERY = 5  # a floor measurement before every 5 functions of a round (not once per round)


def cold_starts(
    bench: Bench,
    reqs: Requests,
    runs: int,
    only: list[str] | None,
    layers: str | None = None,
    before: Path | None = None,
    before_layers: str | None = None,
) -> dict[str, Any]:
    """Cold starts in the dev venv, or (`layers`: a PYTHONPATH from _layer_path) with only
    what a deployed function can import. `before`: another checkout (e.g. `git archive` of an
    older commit) measured in the same rounds, alternating with this one, so both see the
    same load (with `layers`, its own build's layers: `before_layers`)."""
    from partner.core.settings import get_settings

    base = {k: v for k, v in bench.env.items() if not k.startswith("PYTEST")}
    base.pop("PYTHONDONTWRITEBYTECODE", None)
    iso = layers is not None
    env = _tree_env(base, None, layers)
    trees: dict[str, tuple[Path, dict[str, str]]] = {"now": (ROOT, env)}
    if before is not None and (not iso or before_layers):
        trees["before"] = (before, _tree_env(base, before, before_layers if iso else None))
    table = get_settings().users_table
    floor_spec = {"table": table, "key": {"pk": {"S": "bench-none"}}}
    _child(floor_spec, True, env, iso)  # warm the OS file cache and .pyc files once
    names = only or FUNCTIONS
    for _, (root, tree_env) in trees.items():
        for name in names:
            if _has(root, name):
                _child(
                    {"root": str(root), "function": name, "event": event_for(reqs.make(name, 0))}, False, tree_env, iso
                )
    floors: list[dict[str, Any]] = []
    per: dict[str, dict[str, list[dict[str, Any]]]] = {t: {n: [] for n in names} for t in trees}
    for i in range(runs):
        order = list(trees) if i % 2 == 0 else list(reversed(trees))
        for k, name in enumerate(names):
            if k % FLOOR_EVERY == 0:  # the denominator of every ratio, sampled through the round
                floors.append(_child(floor_spec, True, env, iso))
            for tree in order:
                root, tree_env = trees[tree]
                if not _has(root, name):
                    continue
                spec = {"root": str(root), "function": name, "event": event_for(reqs.make(name, i + 1))}
                per[tree][name].append(_child(spec, False, tree_env, iso))
        log(
            f"cold start ({'layers' if iso else 'venv'}) round {i + 1}/{runs}: floor "
            f"{statistics.median(f['wall_ms'] for f in floors[-_ceil_div(len(names), FLOOR_EVERY) :]):.0f} ms"
        )
    floor_ms = statistics.median(f["wall_ms"] for f in floors)
    floor_response = statistics.median(f["response_ms"] for f in floors)
    result: dict[str, Any] = {
        "runs": runs,
        "floor_runs": len(floors),
        "floor_import_ms": round(statistics.median(f["import_ms"] for f in floors), 1),
        "floor_first_ms": round(statistics.median(f["first_ms"] for f in floors), 1),
        "floor_ms": round(floor_ms, 1),
        "floor_response_ms": round(floor_response, 1),
        "functions": {},
        "python_path": "layers" if iso else "venv",
    }
    for name in names:
        result["functions"][name] = _summary(per["now"][name], floor_ms, floor_response)
        if "before" in per and per["before"][name]:
            result["functions"][name]["before"] = _summary(per["before"][name], floor_ms, floor_response)
    if "before" in trees and before is not None:
        rev = before / ".rev"  # written by `make bench BEFORE=<rev>`
        result["before"] = rev.read_text().strip() if rev.exists() else str(before)
        result["warm_paired"] = warm_paired(reqs, [n for n in names if n in WARM_PAIRED], trees, iso)
    slowest = max(names, key=lambda n: result["functions"][n]["response_ms"])
    result["import_breakdown"] = breakdown_of(bench, reqs, slowest, layers, runs + 1)
    return result


SNAP_WARM = 10  # warm requests after the parent's own restore (the first is left out of the p50)
# functions whose calls run on a pool of their own, which bench.latency.Live's clock does not follow
# (the waiting thread keeps the real time): their `+ms` under the model is the real clock's
SNAP_OWN_POOL = ("tracker",)


def snapstart_starts(
    bench: Bench, reqs: Requests, runs: int, only: list[str] | None, layers: str | None = None
) -> dict[str, Any]:
    """SnapStart: per function, one init process (import + before-snapshot hooks) forks `runs`
    restored children, each serving one first request (bench/coldstart_child.py `snapstart`).
    Goal: what the restore adds to the same function's warm p50 for the same kind of request (measured
    in the parent after its own restore), at most GOALS["snapstart_add_ms"], judged as the service's own
    time plus the latency model's (bench.latency.Live); the times against moto are kept beside."""
    from devstack.latency import DEFAULTS, model

    figures = model.figures or dict(DEFAULTS)
    base = {k: v for k, v in bench.env.items() if not k.startswith("PYTEST")}
    base.pop("PYTHONDONTWRITEBYTECODE", None)
    env = _tree_env(base, None, layers)
    result: dict[str, Any] = {
        "runs": runs,
        "warm_requests": SNAP_WARM - 1,
        "python_path": "layers" if layers else "venv",
        "figures_ms": figures,
        "functions": {},
    }
    for name in only or FUNCTIONS:
        spec = {
            "root": str(ROOT),
            "function": name,
            "events": [event_for(reqs.make(name, 5000 + i)) for i in range(runs)],
            "warm": [event_for(reqs.make(name, 5500 + i)) for i in range(SNAP_WARM)],
            "model": figures,
        }
        path = OUT / f"snap-{name}.json"
        path.write_text(json.dumps(spec))
        proc = subprocess.run(
            [PY, *(["-S"] if layers else []), CHILD, "--snapstart", str(path)],
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"snapstart child failed ({name}): {proc.stderr[-2000:]}")
        out = json.loads(proc.stdout.strip().splitlines()[-1])
        restore = statistics.median(r["restore_ms"] for r in out["restores"])
        warm = pct(out["warm_ms"], 0.5)
        ratio = restore / warm if warm else float("inf")
        # what the restore adds to the warm p50, and the same with the hash secret's KMS GenerateMac
        # (the one call only a restored copy makes) at the latency model's KMS figure instead of what
        # moto took for it (20-40 ms here, against 6 ms in the model)
        secret = statistics.median(r.get("secret_ms", 0.0) for r in out["restores"])
        adds = restore - warm
        # the same, every call to a stand-in at the latency model's figure instead of the stand-in's time
        # (bench.latency.Live): the service's own time plus the model's, as section 7 measures
        restore_model = statistics.median(r["restore_model_ms"] for r in out["restores"])
        warm_model = pct(out["warm_model_ms"], 0.5)
        secret_model = statistics.median(r.get("secret_model_ms", 0.0) for r in out["restores"])
        adds_model = restore_model - warm_model
        # the first request itself: from the restored copy's first line to its response, hooks included. The
        # fork before it (the parent's page tables copied, 3-6 ms here) stands in for Lambda restoring the
        # environment, which Lambda reports apart (Restore Duration); the copy-on-write faults after it stay in
        request_model = statistics.median(r["restore_model_ms"] - r["fork_ms"] for r in out["restores"])
        adds_request = request_model - warm_model
        result["functions"][name] = row = {
            "restore_ms": round(restore, 1),
            "restore_max_ms": round(max(r["restore_ms"] for r in out["restores"]), 1),
            "warm_p50_ms": round(warm, 1),
            "ratio": round(ratio, 2),
            "adds_ms": round(adds, 1),
            "secret_ms": round(secret, 1),
            "restore_model_ms": round(restore_model, 1),
            "restore_model_max_ms": round(max(r["restore_model_ms"] for r in out["restores"]), 1),
            "warm_model_p50_ms": round(warm_model, 1),
            "secret_model_ms": round(secret_model, 1),
            "adds_model_ms": round(adds_model, 1),
            "request_model_ms": round(request_model, 1),
            "adds_request_model_ms": round(adds_request, 1),
            "before_snapshot_ms": round(out["before_snapshot_ms"], 1),
            # minor page faults in the restored request (the fork's copy-on-write) and in a warm one
            "page_faults": statistics.median(r["page_faults"] for r in out["restores"]),
            "fork_ms": round(statistics.median(r["fork_ms"] for r in out["restores"]), 1),
            "hooks_ms": round(statistics.median(r["hooks_ms"] for r in out["restores"]), 1),
            "warm_page_faults": pct(out["warm_page_faults"], 0.5),
            "status": sorted({r["status"] for r in out["restores"]} | {out["warm_status"]}, key=str),
            "model_followed": name not in SNAP_OWN_POOL,
            "goal_met": adds_request <= GOALS["snapstart_add_ms"],
        }
        log(
            f"snapstart {name}: service + model: restore {restore_model:.1f} ms, warm p50 {warm_model:.1f} ms "
            f"(+{adds_model:.1f} ms, +{adds_request:.1f} ms after the fork; hash secret {secret_model:.1f} ms); "
            f"against moto: restore {restore:.1f} ms, "
            f"warm p50 {warm:.1f} ms (+{adds:.1f} ms; hash secret {secret:.1f} ms); page faults "
            f"{row['page_faults']} restored, {row['warm_page_faults']} warm; fork {row['fork_ms']} ms, "
            f"hooks {row['hooks_ms']} ms"
        )
    return result


# the read endpoints (not the tracker, a stateful batch, nor authorize, which renders a page)
WARM_PAIRED = tuple(n for n in Requests.READ_ONLY if n not in ("tracker", "oauth_authorize"))


def warm_paired(
    reqs: Requests,
    names: list[str],
    trees: dict[str, tuple[Path, dict[str, str]]],
    iso: bool,
    processes: int = 3,
    repeat: int = 30,
) -> dict[str, Any]:
    """Warm latency of the read endpoints, both checkouts alternating under the same load: in
    each of `processes` fresh processes per checkout, `repeat` more of the same request after
    the cold one (in-process handler calls against the devstack; percentiles of those)."""
    out: dict[str, Any] = {"processes": processes, "repeat": repeat, "functions": {}}
    for name in names:
        times: dict[str, list[float]] = {t: [] for t in trees}
        for i in range(processes):
            for tree in list(trees) if i % 2 == 0 else list(reversed(trees)):
                root, tree_env = trees[tree]
                if not _has(root, name):
                    continue
                spec = {
                    "root": str(root),
                    "function": name,
                    "event": event_for(reqs.make(name, 7000 + i)),
                    "repeat": repeat,
                }
                times[tree] += _child(spec, False, tree_env, iso)["warm_ms"]
        out["functions"][name] = {
            t: {"p50_ms": round(pct(v, 0.5), 2), "p90_ms": round(pct(v, 0.9), 2)} for t, v in times.items() if v
        }
        log(
            f"warm (paired) {name}: "
            + ", ".join(f"{t} p50 {v['p50_ms']} ms" for t, v in out["functions"][name].items())
        )
    return out


def breakdown_of(bench: Bench, reqs: Requests, name: str, layers: str | None, i: int = 0) -> dict[str, Any]:
    """One cold start of `name` under `python -X importtime`, as `import_breakdown`; logged."""
    base = {k: v for k, v in bench.env.items() if not k.startswith("PYTEST")}
    base.pop("PYTHONDONTWRITEBYTECODE", None)
    spec = {"root": str(ROOT), "function": name, "event": event_for(reqs.make(name, 9000 + i))}
    out = {
        "function": name,
        **import_breakdown(_child(spec, False, _tree_env(base, None, layers), layers is not None, True)["importtime"]),
    }
    log(f"import breakdown of the slowest function ({name}, {'layers' if layers else 'venv'}):")
    for row in out["cumulative"]:
        log(
            f"  {row['cumulative_ms']:8.1f} ms cumulative {row['self_ms']:7.1f} ms self  "
            f"{'  ' * row['depth']}{row['module']}"
        )
    return out


# --------------------------------------------------------------------------- 2. call budgets


def call_budgets(bench: Bench, reqs: Requests, names: list[str]) -> dict[str, Any]:
    """Per function, what its second request makes (bench.calls: only that request's calls,
    not the devstack's background pollers'), and its own CPU time (the measuring thread's)."""
    from bench.calls import measure
    from devstack.events import lambda_context
    from testkit.helpers import handler

    out: dict[str, Any] = {}
    for name in names:
        fn = handler(name)
        try:
            fn(event_for(reqs.make(name, 1000)), lambda_context(name))  # per-process work (hash secret, clients)
        except Exception as exc:
            out[name] = {"error": f"{type(exc).__name__}: {exc}"}
            continue
        event = event_for(reqs.make(name, 1001))
        cpu0 = time.thread_time()
        calls, result = measure(fn, event, lambda_context(name))
        cpu_ms = (time.thread_time() - cpu0) * 1000
        row = {
            "status": result.get("statusCode"),
            "aws": dict(sorted(calls.aws.items())),
            "dynamodb": calls.service("dynamodb"),
            "kms": calls.service("kms"),
            "s3": calls.service("s3"),
            "sqs": calls.service("sqs"),
            "rpc_round_trips": len(calls.rpc_methods),
            "rpc_methods": calls.rpc_methods,
            "ddb_read_units": calls.read_units,
            "ddb_write_units": calls.write_units,
            "log_bytes": calls.log_bytes,
            "cpu_ms": round(cpu_ms, 1),
        }
        if name in ("me", "governance_read", "governance_votes_list", "transaction_status"):
            row["goal"] = f"<= {GOALS['get_ddb_calls']} DynamoDB"
            row["goal_met"] = row["dynamodb"] <= GOALS["get_ddb_calls"]
        if name.startswith("trades_"):
            row["goal"] = f"<= {GOALS['trade_rpc']} RPC, <= {GOALS['trade_kms']} KMS"
            row["goal_met"] = row["rpc_round_trips"] <= GOALS["trade_rpc"] and row["kms"] <= GOALS["trade_kms"]
        out[name] = row
        log(
            f"calls {name}: {row['dynamodb']} DynamoDB ({row['ddb_read_units']} RRU, {row['ddb_write_units']} WRU), "
            f"{row['kms']} KMS, {row['rpc_round_trips']} RPC, {row['log_bytes']} log bytes, {row['cpu_ms']} ms CPU"
        )
    return out


# --------------------------------------------------------------------------- 3. warm latency

WARM_LIMITS = {
    "trades_buy": 40,
    "trades_buy_exact_out": 40,
    "trades_sell": 40,
    "oauth_token": 12,
    "oauth_revoke": 12,
    "oauth_authorize": 25,
    "account_apps": 25,
    "coins_create": 10,
    "migrator": 0,
    "tracker": 0,
    "webhook_delivery": 0,
}


def warm_latency(bench: Bench, reqs: Requests, names: list[str], n: int) -> dict[str, Any]:
    import httpx

    from partner.store import ratelimit

    out: dict[str, Any] = {}
    base = bench.stack.url
    assert base.startswith("http://127.0.0.1:")
    with httpx.Client(base_url=base, timeout=30) as http:
        for name in names:
            count = min(n, WARM_LIMITS.get(name, n))
            if name in GOV_FRESH:
                count = min(count, 5)  # each request needs a fresh voter or proposal (built untimed)
            elif name in GOV_WRITES:
                count = min(count, 20)  # each endpoint's own member: within its 60/min bucket
            if count == 0:
                continue
            times: list[float] = []
            statuses: Counter[int] = Counter()
            for i in range(count + 2):
                req = reqs.make(name, 2000 + i)
                body = req.get("body")
                t0 = time.perf_counter()
                resp = http.request(
                    req["method"], req["path"], headers=req.get("headers"), params=req.get("query"), content=body
                )
                dt = (time.perf_counter() - t0) * 1000
                if i >= 2:  # the first two warm the gateway's handler for this function
                    times.append(dt)
                    statuses[resp.status_code] += 1
            out[name] = {
                "n": count,
                "p50_ms": round(pct(times, 0.5), 1),
                "p99_ms": round(pct(times, 0.99), 1),
                "status": dict(statuses),
            }
            log(f"warm {name}: p50 {out[name]['p50_ms']} ms p99 {out[name]['p99_ms']} ms {dict(statuses)}")
    del ratelimit
    return out


# --------------------------------------------------------------------------- 4. chain throughput

RPC_BATCH = 100


def chain_tps(n: int) -> dict[str, Any]:
    from solders.keypair import Keypair

    from bench.chain_engines import _rpc, _timed, _transfers
    from devstack.chain.features import new_litesvm
    from devstack.chain.server import start_chain

    result: dict[str, Any] = {"transactions": n}
    payer = Keypair()

    svm = new_litesvm()
    svm.airdrop(payer.pubkey(), 1000 * SOL)
    txs = _transfers(n, svm.latest_blockhash(), payer)
    t0 = time.perf_counter()
    failed = 0
    for tx in txs:
        if not hasattr(svm.send_transaction(tx), "signature"):
            failed += 1
    result["litesvm_tps"] = round(n / (time.perf_counter() - t0), 1)
    result["litesvm_failed"] = failed

    handle = start_chain(port=0)
    try:
        bank = handle.bank
        with bank.lock:
            bank.airdrop(payer.pubkey(), 1000 * SOL)
            txs = _transfers(n, bank.latest_blockhash()[0], payer)
        inproc = _timed(bank, txs)
        result.update(bank_tps=inproc["tps"], bank_failed=inproc["failed"])

        payer2 = Keypair()
        with bank.lock:
            bank.airdrop(payer2.pubkey(), 1000 * SOL)
        rpc = _rpc(handle, payer2, n, RPC_BATCH)
        result.update(
            rpc_tps=rpc["tps"],
            rpc_ok_tps=rpc["ok_tps"],
            rpc_batch=RPC_BATCH,
            rpc_failed=rpc["failed"],
            rpc_errors=rpc["errors"],
        )
    finally:
        handle.stop()
    from bench.chain_engines import measure as workload_figures

    try:  # transfers in-process and over JSON-RPC, curve buys on the SBF launchpad
        result["workloads"] = workload_figures(min(n, 1000))
    except Exception as exc:  # a figure missing must not cost the others
        result["workloads"] = {"error": f"{type(exc).__name__}: {exc}"}
    result["bank_vs_litesvm"] = round(result["bank_tps"] / result["litesvm_tps"], 3)
    result["rpc_vs_litesvm"] = round(result["rpc_tps"] / result["litesvm_tps"], 3)
    result["compared"] = (
        "bank (in-process, SvmBank.process_transaction: LiteSVM plus the ledger) vs LiteSVM.send_transaction alone"
    )
    result["goal_met"] = result["bank_vs_litesvm"] >= GOALS["tps_ratio"]
    return result


# --------------------------------------------------------------------------- 5. layer sizes


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def layer_sizes(build: Path) -> dict[str, Any]:
    if not build.is_dir():
        return {"error": f"{build} not found: run `make build` first"}
    mb = 1024 * 1024
    out: dict[str, Any] = {
        "build_dir": str(build.relative_to(ROOT)) if build.is_relative_to(ROOT) else str(build),
        "lambda_limit_mb": 250,
        "goal_mb": GOALS["layer_mb"],
    }
    for layer in ("SharedLayer", "DependenciesLayer"):
        out[layer] = round(_size(build / layer) / mb, 2)
    functions = {p.name: _size(p) for p in build.iterdir() if p.is_dir() and p.name.endswith("Function")}
    largest = max(functions, key=functions.__getitem__)
    out["largest_function"] = {"name": largest, "mb": round(functions[largest] / mb, 3)}
    deps = build / "DependenciesLayer" / "python"
    if deps.is_dir():
        tops: dict[str, int] = {}
        for p in deps.iterdir():
            if p.name.endswith(".dist-info"):
                continue
            key = p.name.split(".")[0]
            tops[key] = tops.get(key, 0) + (_size(p) if p.is_dir() else p.stat().st_size)
        out["largest_packages_mb"] = {k: round(v / mb, 1) for k, v in sorted(tops.items(), key=lambda kv: -kv[1])[:8]}
    out["total_unzipped_mb"] = round(out["SharedLayer"] + out["DependenciesLayer"] + functions[largest] / mb, 2)
    out["goal_met"] = out["DependenciesLayer"] <= GOALS["layer_mb"]
    return out


# --------------------------------------------------------------------------- main


def machine() -> dict[str, Any]:
    info = {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return info


def tracker_part() -> dict[str, Any]:
    """8. The tracker (bench/tracker.py) in a process of its own: its moto and chain, its environment."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.tracker", "--json"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "shared"), str(ROOT)])},
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])  # its lines went to stderr
    return result


def soak_part(rounds: int = 5) -> dict[str, Any]:
    """9. The devstack soak under its own faults (bench/soak.py) in a process of its own: the counts
    and `problems`, the invariants broken (empty when all held)."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.soak", "--rounds", str(rounds), "--json"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        check=False,  # exit 1: an invariant broke, reported in `problems`
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "shared"), str(ROOT)])},
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])  # its lines went to stderr
    return result


DEFAULT_PARTS = "cold,snap,calls,warm,latency,tps,layers,cu,tracker,soak"


def cost_table(results: dict[str, Any]) -> dict[str, Any]:
    """5. Cost per million requests of each endpoint (bench/cost.py), printed as it is built."""
    from bench import cost

    out = cost.table(results, cost.template_memory(ROOT / "template.yaml"))
    for name, row in out["functions"].items():
        log(
            f"cost {name}: ${row['total']:.2f} per million at {row['memory_mb']} MB "
            f"(HTTP API ${row['total_http_api']:.2f}; "
            + ", ".join(f"{m} MB ${v['total']:.2f}" for m, v in row["at_memory"].items())
            + ")"
        )
    return out


def main(argv: list[str] | None = None) -> int:
    from bench import latency

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="cold starts per function (median; >= 5)")
    parser.add_argument("--warm", type=int, default=200, help="warm requests per read endpoint")
    parser.add_argument("--tx", type=int, default=2000, help="SOL transfers for the throughput comparison")
    parser.add_argument("--only", nargs="*", help="limit to these functions")
    parser.add_argument("--parts", default=DEFAULT_PARTS)
    parser.add_argument("--build-dir", default=str(ROOT / ".aws-sam" / "build"))
    parser.add_argument(
        "--before",
        help="another checkout (e.g. `git archive REV | tar -x -C DIR`) to measure "
        "in the same cold-start rounds; its DIR/.aws-sam/build for the layers",
    )
    parser.add_argument(
        "--latency-n",
        type=int,
        default=latency.DEFAULT_N,
        help=f"requests per endpoint and setting (latency; default {latency.DEFAULT_N})",
    )
    parser.add_argument("--latency-before", help="bench.latency's JSON from an older checkout: its figures beside")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results.json"))
    parser.add_argument("--doc", default=str(ROOT / "docs" / "benchmarks.md"))
    parser.add_argument(
        "--render", action="store_true", help="measure nothing: write --doc again from --out and bench/notes.json"
    )
    args = parser.parse_args(argv)
    if args.render:
        from bench import report

        stored = json.loads(Path(args.out).read_text())
        stored["notes"] = json.loads((ROOT / "bench" / "notes.json").read_text())
        stored["cost"] = cost_table(stored)
        Path(args.out).write_text(json.dumps(stored, indent=2) + "\n")
        Path(args.doc).write_text(report.render(stored))
        return 0
    parts = set(args.parts.split(","))
    OUT.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {
        "machine": machine(),
        "goals": GOALS,
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    previous = json.loads(Path(args.out).read_text()) if Path(args.out).exists() else {}
    names = args.only or FUNCTIONS
    results["load_average"] = {}

    def load(section: str) -> None:
        """The 1-minute load average as a section starts (the machine is shared)."""
        results["load_average"][section] = round(os.getloadavg()[0], 2)
        log(f"{section}: load average {results['load_average'][section]}")

    load("start")
    if parts & {"cold", "snap", "calls", "warm", "latency", "imports"}:
        bench = Bench()
        try:
            reqs = Requests(bench)
            if "calls" in parts:
                load("calls")
                results["calls"] = call_budgets(bench, reqs, names)
            if "warm" in parts:
                load("warm")
                results["warm"] = warm_latency(bench, reqs, names, args.warm)
            if "latency" in parts:  # 7. the latency model (bench/latency.py)
                load("latency")
                results["latency_model"] = latency.measure(bench, args.latency_n)
                if args.latency_before:
                    stored = json.loads(Path(args.latency_before).read_text())
                    results["latency_model"]["before"] = {
                        "rev": stored.get("rev"),
                        "load_average": stored.get("load_average"),
                        "endpoints": {
                            k: {f: v[f] for f in ("p50_ms", "ratio", "floor_ms", "sequential_ms")}
                            for k, v in stored["endpoints"].items()
                        },
                    }
            if "cold" in parts:
                log("cold starts")
                layers = _layer_path(Path(args.build_dir))
                load("cold")
                before = Path(args.before).resolve() if args.before else None
                before_layers = _layer_path(before / ".aws-sam" / "build") if before else None
                results["cold_start"] = cold_starts(bench, reqs, max(5, args.runs), args.only, before=before)
                if layers:  # again with only what the deployed function can import
                    load("cold_layers")
                    try:
                        results["cold_start_layers"] = cold_starts(
                            bench,
                            reqs,
                            max(5, args.runs),
                            args.only,
                            layers,
                            before=before,
                            before_layers=before_layers,
                        )
                    except RuntimeError as exc:
                        results["cold_start_layers"] = {"error": str(exc)[-500:]}
            if "snap" in parts:
                load("snapstart")
                results["snapstart"] = snapstart_starts(
                    bench, reqs, max(7, args.runs), args.only, _layer_path(Path(args.build_dir))
                )
                old = previous.get("snapstart") or {}
                if any("adds_modeled_ms" in v for v in (old.get("functions") or {}).values()):
                    # the previous run's figures, measured the earlier way (against moto, the hash
                    # secret's GenerateMac alone counted at the model's figure): for comparison
                    loads = previous.get("load_average") or {}
                    snap_keys = [k for k in loads if k.endswith("snapstart")]  # the latest run of this part
                    last = snap_keys[-1] if snap_keys else "snapstart"
                    results["snapstart"]["previous"] = {
                        "measured_at": last.split()[1] if last.startswith("re-run") else previous.get("measured_at"),
                        "load_average": loads.get(last),
                        "functions": {
                            k: {f: v.get(f) for f in ("adds_ms", "adds_modeled_ms", "goal_met")}
                            for k, v in old["functions"].items()
                        },
                    }
                elif old.get("previous"):
                    results["snapstart"]["previous"] = old["previous"]
            if "imports" in parts and "cold" not in parts:  # again, for the stored cold-start results
                layers = _layer_path(Path(args.build_dir))
                for key, path in (("cold_start", None), ("cold_start_layers", layers)):
                    stored = (previous.get(key) or {}).get("functions")
                    if stored and (key == "cold_start" or path):
                        slowest = max(stored, key=lambda n: stored[n]["ms"])
                        results[key] = {**previous[key], "import_breakdown": breakdown_of(bench, reqs, slowest, path)}
        finally:
            bench.stop()
    if "tps" in parts:
        load("tps")
        results["chain_tps"] = chain_tps(args.tx)
    if "layers" in parts:
        results["layers"] = layer_sizes(Path(args.build_dir))
    if "tracker" in parts:  # 8. records moved per second and lag at 10, 100 and 1,000 open records
        load("tracker")
        results["tracker"] = tracker_part()
    if "soak" in parts:  # 9. concurrent keyed writes under each fault kind, reconciled with the chain
        load("soak")
        results["soak"] = soak_part()
    if "cu" in parts:  # each instruction of the SBF programs in LiteSVM (needs `make programs`)
        load("cu")
        from bench import compute_units

        results["compute_units"] = compute_units.measure()
    for key in (
        "cold_start",
        "cold_start_layers",
        "snapstart",
        "calls",
        "warm",
        "latency_model",
        "chain_tps",
        "layers",
        "compute_units",
        "tracker",
        "soak",
    ):
        if key not in results and key in previous:
            results[key] = previous[key]  # a partial run keeps the other sections
        elif args.only and key in ("calls", "warm") and key in previous:
            results[key] = {**previous[key], **results[key]}  # and the other functions' rows
    results["cost"] = cost_table(results)  # from the figures above: nothing measured
    load("end")
    if (args.only or parts != set(DEFAULT_PARTS.split(","))) and previous:  # a partial re-run
        rerun = f"re-run {results['measured_at']} ({args.parts}; {', '.join(names) if args.only else 'all'})"
        results["measured_at"] = previous.get("measured_at", results["measured_at"])
        results["load_average"] = {
            **previous.get("load_average", {}),
            **{f"{rerun}: {k}": v for k, v in results["load_average"].items()},
        }
    notes = ROOT / "bench" / "notes.json"
    if notes.exists():
        results["notes"] = json.loads(notes.read_text())
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n")
    from bench import report

    Path(args.doc).write_text(report.render(results))
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
