"""Renders bench/results.json as docs/benchmarks.md (figures, goals met or not, what is in the way)."""

from __future__ import annotations

from typing import Any

# The last measurement with the Python engine still selectable (bench/chain_engines.py, 500
# transactions, 1 round, 2026-11-25, machine under load): kept as history since its removal.
ENGINE_HISTORY = (
    (
        "history: Python engine (Python bank and reference programs)",
        {"transfer_inproc": 4275.3, "transfer_rpc": 484.9, "buy_inproc": 2745.8},
    ),
    ("history: LiteSVM engine, same run", {"transfer_inproc": 5147.2, "transfer_rpc": 479.0, "buy_inproc": 1023.1}),
)


def _yes(ok: Any) -> str:
    return "met" if ok else "**not met**"


def render(r: dict[str, Any]) -> str:
    m = r.get("machine", {})
    g = r.get("goals", {})
    lines = [
        "# Benchmarks",
        "",
        "Written by `make bench` (`bench/run.py`) from `bench/results.json`; figures, not tests.",
        f"Machine: {m.get('cpus')} cores, {m.get('cpu', '?')}, Python {m.get('python')}, {m.get('platform')}; "
        f"measured {r.get('measured_at')}. The devstack (moto server, devstack chain, pin server, gateway) runs "
        "on the same 2 cores as the code measured, so every figure includes the local stand-ins' own time.",
        "",
    ]
    lines += _headline(r, g)
    cold = r.get("cold_start")
    if cold:
        lines += ["## 1. Cold start", ""]
        lines += _cold(cold, g, "venv")
        layers = r.get("cold_start_layers") or {}
        if layers.get("functions"):
            lines += _cold(layers, g, "layers")
        lines += [
            "`import ms` is interpreter start to the handler being ready; `first request ms` is the "
            "first handler call (it derives the per-process hash secret with KMS GenerateMac, creates "
            "the boto3 clients and the RPC client). `to response` is spawn to the first response being "
            "ready (the same clock in both processes), i.e. without the interpreter's exit, which a "
            "Lambda cold start does not include. The goal (issue 19, now that SnapStart pays for imports) "
            "is judged to the response, in the layers column: a cold start without SnapStart at most "
            f"{g.get('cold_ratio')}x the floor's; spawn to exit is shown beside it.",
            "",
        ]
        for key, label in (("cold_start", "dev venv"), ("cold_start_layers", "layers")):
            breakdown = (r.get(key) or {}).get("import_breakdown")
            if breakdown:
                lines += _breakdown(breakdown, label)
    snap = r.get("snapstart")
    if snap and snap.get("functions"):
        lines += _snapstart(snap, g)
    calls = r.get("calls")
    if calls:
        lines += _calls(calls, g)
    warm = r.get("warm")
    if warm:
        lines += _warm(warm)
    tps = r.get("chain_tps")
    if tps:
        lines += _chain_tps(tps, g)
    cost = r.get("cost")
    if cost and cost.get("functions"):
        lines += _cost(cost)
    cu = r.get("compute_units")
    if cu and "launchpad" in cu:
        lines += _compute_units(cu)
    latency = r.get("latency_model")
    if latency and latency.get("endpoints"):
        lines += _latency(latency, g)
    tracker = r.get("tracker")
    if tracker and tracker.get("lines"):
        lines += _tracker(tracker, g)
    layers = r.get("layers")
    if layers and "error" not in layers:
        lines += _layers(layers)
    notes = r.get("notes")
    if notes:
        lines += ["## What stands in the way / what was fixed", ""] + [f"- {n}" for n in notes] + [""]
    load = r.get("load_average")
    if load:
        lines += [
            "## Load while measuring",
            "",
            "1-minute load average as each section started (2 cores, shared with other engineers' test runs):",
            "",
            "| when | load |",
            "|---|---:|",
            *(f"| {k} | {v} |" for k, v in load.items()),
            "",
        ]
    return "\n".join(lines)


def _tally(fns: dict[str, Any]) -> str:
    """Whether every function met its goal, and how many did."""
    met = sum(1 for v in fns.values() if v["goal_met"])
    return f"{_yes(met == len(fns))} ({met}/{len(fns)})"


def _row(*cells: Any) -> str:
    """One row of a Markdown table, its header too: `| a | b |`."""
    return "| " + " | ".join(map(str, cells)) + " |"


def _pick(v: dict[str, Any], *keys: str, missing: Any = "") -> list[Any]:
    """The cells of these keys of a row's figures, in order (`missing` for an absent one)."""
    return [v.get(k, missing) for k in keys]


def _status(v: dict[str, Any]) -> str:
    """The statuses a function answered, as one cell."""
    return ", ".join(map(str, v["status"]))


def _calls(calls: dict[str, Any], g: dict[str, Any]) -> list[str]:
    lines = [
        "## 2. AWS calls and RPC round trips per request",
        "",
        "Counted in-process on the second request (per-process work such as the hash-secret derivation "
        "is done by the first), with botocore hooks (`partner.store.aws.add_hook`) and by counting "
        "`Rpc._post`, for the measured request only (`bench/calls.py`: the call runs in a context of its "
        "own and the hooks count only inside it, so the devstack's pollers and timers, which share the "
        "process, are not counted; until issue 26 a buy showed 13 DynamoDB calls where the code makes 6). "
        "DynamoDB units from each call's parameters (items under 1 KB written, 4 KB read; a Query by its "
        "answer's size), log bytes as written to stdout plus Lambda's own lines, CPU ms of the measuring "
        f"thread. Goals: authenticated GET at most {g.get('get_ddb_calls')} DynamoDB calls; "
        f"a trade at most {g.get('trade_rpc')} RPC round trips and {g.get('trade_kms')} KMS call.",
        "",
        _row(*"endpoint,status,DynamoDB,RRU / WRU,KMS,S3,RPC,log B,CPU ms,AWS operations,RPC methods,goal".split(",")),
        "|---|---|---:|---|---:|---:|---:|---:|---:|---|---|---|",
    ]
    for name, v in calls.items():
        if "error" in v:
            lines.append(f"| {name} | error: {v['error'][:120]} | | | | | | | | | | |")
            continue
        ops = ", ".join(f"{k} x{n}" for k, n in v["aws"].items())
        goal = f"{v['goal']}: {_yes(v['goal_met'])}" if "goal" in v else ""
        units = f"{v['ddb_read_units']:g} / {v['ddb_write_units']:g}" if "ddb_read_units" in v else ""
        lines.append(
            _row(
                name,
                v["status"],
                v["dynamodb"],
                units,
                *_pick(v, "kms", "s3", "rpc_round_trips", "log_bytes", "cpu_ms"),
                ops,
                ", ".join(map(str, v["rpc_methods"])),
                goal,
            )
        )
    return [*lines, ""]


def _warm(warm: dict[str, Any]) -> list[str]:
    lines = [
        "## 3. Warm latency through the gateway",
        "",
        "Sequential HTTP requests to the devstack gateway on 127.0.0.1 (each function in a warm process of "
        "its own; two unmeasured requests first). Loops are bounded by the rate-limit "
        "buckets (read 300/min, trade and governance 60/min per connection, OAuth 30/min per IP); each "
        "read, trade and governance endpoint has its own connection. Governance: a real proposal is "
        "open on the bench coin; vote and votes/cancel get a fresh voter per request, settle, "
        "bonds/withdraw and votes/withdraw a proposal whose vote is over (built before each request, "
        "untimed), so those rows are real 200s; extend-mutability, finalize-metadata and "
        "update-content answer 422 active_proposal_exists on that coin and finalize-expired 422 "
        "(the mutability window is open): refusals after authentication, input and chain reads.",
        "",
        _row("endpoint", "n", "p50 ms", "p99 ms", "statuses"),
        "|---|---:|---:|---:|---|",
    ]
    for name, v in warm.items():
        statuses = ", ".join(f"{k}: {n}" for k, n in v["status"].items())
        lines.append(_row(name, v["n"], v["p50_ms"], v["p99_ms"], statuses))
    return [*lines, ""]


def _chain_tps(tps: dict[str, Any], g: dict[str, Any]) -> list[str]:
    batch = (
        f": signed in batches of {tps['rpc_batch']}, each just before it is sent with a blockhash "
        "fetched then (getLatestBlockhash), only the sends timed; failures are counted apart "
        f"(tx/s of accepted transactions only: {tps.get('rpc_ok_tps')}"
        + (f"; errors: {tps['rpc_errors']}" if tps.get("rpc_errors") else "")
        + ")"
        if tps.get("rpc_batch")
        else ""
    )
    lines = [
        "## 4. Devstack chain throughput",
        "",
        f"{tps['transactions']} signed single-transfer SOL transactions, one at a time, each to a new "
        "account. Compared: the devstack chain's `SvmBank.process_transaction` in-process (LiteSVM plus "
        "the ledger the chain keeps around it, under the bank lock, as the RPC server calls it) against "
        "solders' `LiteSVM.send_transaction` alone; JSON-RPC `sendTransaction` "
        f"(HTTP to the chain server, one request each) is shown beside it{batch}.",
        "",
        _row("engine", "tx/s", "vs LiteSVM", "failed"),
        "|---|---:|---:|---:|",
        _row("solders LiteSVM", tps["litesvm_tps"], 1, tps["litesvm_failed"]),
        _row("devstack chain in-process (compared)", tps["bank_tps"], tps["bank_vs_litesvm"], tps["bank_failed"]),
        _row("devstack JSON-RPC sendTransaction", tps["rpc_tps"], tps["rpc_vs_litesvm"], tps["rpc_failed"]),
        "",
        f"Goal: at least {g.get('tps_ratio')}x LiteSVM (bank) — {_yes(tps['goal_met'])}.",
        "",
    ]
    work = tps.get("workloads")
    cols = ("transfer_inproc", "transfer_rpc", "buy_inproc")
    lines += [
        "Per workload (`bench/chain_engines.py`: transfers, a quarter as many first curve buys on the "
        "SBF launchpad; tx/s, failed in brackets). Every transaction executes in LiteSVM. The rows marked "
        "history are the last measurement made while the Python engine could still be chosen (500 "
        "transactions, 1 round, 2026-11-25, machine under load): kept as the before figures.",
        "",
        _row("chain", "transfer (in-process)", "transfer (JSON-RPC)", "curve buy (in-process)"),
        "|---|---:|---:|---:|",
    ]
    if work and "error" not in work:
        cells = [f"{work[c]['tps']} ({work[c]['failed']})" if c in work and "tps" in work[c] else "-" for c in cols]
        lines.append(_row(f"LiteSVM, {work['transactions']} transfers", *cells))
    elif work:
        lines.append(f"| LiteSVM | {work['error']} | | |")
    lines += [_row(label, *(fig[c] for c in cols)) for label, fig in ENGINE_HISTORY]
    return [*lines, ""]


def _layers(layers: dict[str, Any]) -> list[str]:
    return [
        "## 9. Layer sizes (`sam build`)",
        "",
        f"Unzipped size of each build folder under `{layers['build_dir']}`. Lambda's limit is "
        f"{layers['lambda_limit_mb']} MB unzipped for function plus layers; goal: the dependency layer "
        f"at most {layers['goal_mb']} MB — {_yes(layers['goal_met'])}.",
        "",
        _row("part", "MB"),
        "|---|---:|",
        _row("SharedLayer", layers["SharedLayer"]),
        _row("DependenciesLayer", layers["DependenciesLayer"]),
        _row(f"largest function ({layers['largest_function']['name']})", layers["largest_function"]["mb"]),
        _row("total (both layers + largest function)", layers["total_unzipped_mb"]),
        "",
        "Largest packages in the dependency layer (MB): "
        + ", ".join(f"{k} {v}" for k, v in layers.get("largest_packages_mb", {}).items())
        + ".",
        "",
    ]


def _cells(earlier: dict[str, Any], group: str, name: str, keys: tuple[str, ...]) -> str:
    """The extra cells of a row for an earlier run's figures (`earlier[group][name]`), none without one."""
    if not earlier:
        return ""
    row = (earlier.get(group) or {}).get(name) or {}
    return "".join(f" {cell} |" for cell in _pick(row, *keys))


def _snapstart_forks(snap: dict[str, Any]) -> str:
    return (
        f"As Lambda pays it with SnapStart ({snap['python_path']}): one process imports the function and runs "
        "its before-snapshot hooks (Lambda's init, once per published version), then forks; each fork stands in "
        "for an environment restored from the snapshot, runs the after-restore hooks and serves one first "
        f"request. `restore ms` is fork to response, median of {snap['runs']} forks"
    )


def _snapstart_warm(snap: dict[str, Any]) -> str:
    return (
        ". `warm p50` is the same function's warm latency for the same kind of request "
        f"({snap['warm_requests']} requests in the parent after its own restore and first request)."
    )


def _snapstart(snap: dict[str, Any], g: dict[str, Any]) -> list[str]:
    fns = snap["functions"]
    if any("adds_model_ms" in v for v in fns.values()):
        return _snapstart_model(snap, g)
    if not any("adds_ms" in v for v in fns.values()):
        return _snapstart_ratio(snap, g)
    before = snap.get("before") or {}
    lines = [
        "### SnapStart",
        "",
        _snapstart_forks(snap)
        + _snapstart_warm(snap)
        + " `+ms` is what the restore adds to the warm p50. `hash secret "
        "ms` is the per-process secret's derivation inside the restored request: one KMS GenerateMac, the one call "
        "only a restored copy makes, which moto answers in 20-40 ms where the latency model (section 7) says 6 ms; "
        "`+ms, model` counts it at 6 ms (the stand-in's excess subtracted, as section 7 does for every call). "
        f"Goal (issue 26): a restore adds at most {g.get('snapstart_add_ms')} ms, judged on `+ms, model` — "
        f"{_tally(fns)}."
        + (
            f" `before`: the checkout `{before.get('rev')}` measured the same way in the same session."
            if before
            else ""
        ),
        "",
        "| function | restore ms | warm p50 ms | +ms | hash secret ms | +ms, model | x warm | status | goal |"
        + (" before +ms | before +ms, model |" if before else ""),
        "|---|---:|---:|---:|---:|---:|---:|---|---|" + ("---:|---:|" if before else ""),
    ]
    for name, v in sorted(fns.items(), key=lambda kv: kv[1].get("adds_modeled_ms", 0)):
        cells = _pick(v, "restore_ms", "warm_p50_ms", "adds_ms", "secret_ms", "adds_modeled_ms", "ratio")
        row = _row(name, *cells, _status(v), _yes(v["goal_met"]))
        lines.append(row + _cells(before, "functions", name, ("adds_ms", "adds_modeled_ms")))
    return [*lines, ""]


def _snapstart_model(snap: dict[str, Any], g: dict[str, Any]) -> list[str]:
    fns = snap["functions"]
    f = snap.get("figures_ms") or {}
    prev = snap.get("previous") or {}
    after = all("adds_request_model_ms" in v for v in fns.values())  # the first request apart from the fork
    judged = (
        "`+ms after the fork`: the restored copy's first request, from its first line (the after-restore hooks "
        "included) to its response. The fork before it (`fork ms`: the parent's page tables copied) stands in for "
        "Lambda restoring the environment, which Lambda reports apart as its Restore Duration; the copy-on-write "
        "faults that follow it are counted"
        if after
        else "`+ms`"
    )
    lines = [
        "### SnapStart",
        "",
        _snapstart_forks(snap) + "; `warm p50` is the same "
        f"function's warm p50 for the same kind of request ({snap['warm_requests']} requests in the parent after "
        "its own restore and first request); `+ms` is what the restore adds. Measured as section 7 measures: the "
        "service's own time plus the latency model's (DynamoDB "
        f"{f.get('ddb')} ms, a transaction {f.get('transact')} ms, KMS {f.get('kms')} ms, an RPC read "
        f"{f.get('rpc_read')} ms, a send {f.get('rpc_send')} ms; 0 for S3, SQS, the block engine and the pin "
        "server). A restored request cannot be answered from recordings (each function's first request is its "
        "own), so every call goes to the devstack's stand-ins for real, and the time each took there is replaced "
        "by the model's figure on the calling thread's virtual clock (`bench.latency.Live`: botocore's "
        "`before-send`, `partner.core.transport`; tasks on `partner.core.parallel` start from their submitter's "
        "clock and join it, the wait not counted twice). A new connection's setup stays in (opened before the "
        "timed call, over loopback, without TLS); a webhook's delivery (`egress`) keeps its real time. `hash "
        "secret` is the per-process secret's derivation (one KMS GenerateMac, the one call only a restored copy "
        "makes) on the same clock. `page faults`: minor page faults in the restored request (the fork's "
        "copy-on-write of every page it touches; a copy restored by Lambda pages its memory in from the snapshot "
        "instead) and, in brackets, in a warm one. `against moto` is the same run on the real clock (the "
        "measure before: moto's own time, 20-80 ms from run to run, swamped it). Goal (issue 26): a restore "
        "adds at most "
        f"{g.get('snapstart_add_ms')} ms to the warm p50, judged on {judged} — {_tally(fns)}."
        + (
            f" `earlier`: what the run of {prev.get('measured_at')} (1-minute load {prev.get('load_average')}) "
            "gave the old way (against moto; only the GenerateMac at the model's figure)."
            if prev
            else ""
        ),
        "",
        "| function | restore ms | warm p50 ms | +ms |"
        + (" fork ms | +ms after the fork |" if after else "")
        + " hash secret ms | page faults (warm) | status | goal "
        "| against moto: restore ms | warm p50 ms | +ms |" + (" earlier +ms, old way |" if prev else ""),
        "|---|---:|---:|---:|"
        + ("---:|---:|" if after else "")
        + "---:|---:|---|---|---:|---:|---:|"
        + ("---:|" if prev else ""),
    ]
    judge = "adds_request_model_ms" if after else "adds_model_ms"
    for name, v in sorted(fns.items(), key=lambda kv: kv[1][judge]):
        mark = "" if v.get("model_followed", True) else " (†)"
        shown = ("fork_ms", "adds_request_model_ms") if after else ()
        cells = _pick(v, "restore_model_ms", "warm_model_p50_ms", "adds_model_ms", *shown, "secret_model_ms")
        faults = f"{v.get('page_faults', '')} ({v.get('warm_page_faults', '')})"
        moto = _pick(v, "restore_ms", "warm_p50_ms", "adds_ms")
        row = _row(name + mark, *cells, faults, _status(v), _yes(v["goal_met"]), *moto)
        lines.append(row + _cells(prev, "functions", name, ("adds_modeled_ms",)))
    if any(not v.get("model_followed", True) for v in fns.values()):
        lines += [
            "",
            "(†) Its calls run on a pool of its own (the tracker's passes), which the model's clock does not "
            "follow: its waits keep the real time, so its `+ms` is the real clock's.",
        ]
    return [*lines, ""]


def _snapstart_ratio(snap: dict[str, Any], g: dict[str, Any]) -> list[str]:
    fns = snap["functions"]
    lines = [
        "### SnapStart",
        "",
        _snapstart_forks(snap) + _snapstart_warm(snap) + f" Goal: every function's restore at most "
        f"{g.get('snapstart_ratio')}x its own warm p50 — {_tally(fns)}.",
        "",
        "| function | restore ms | max ms | warm p50 ms | x warm | before-snapshot hooks ms | status | goal |",
        "|---|---:|---:|---:|---:|---:|---|---|",
    ]
    for name, v in sorted(fns.items(), key=lambda kv: kv[1]["ratio"]):
        lines.append(
            _row(
                name,
                *_pick(v, "restore_ms", "restore_max_ms", "warm_p50_ms", "ratio", "before_snapshot_ms"),
                _status(v),
                _yes(v["goal_met"]),
            )
        )
    return [*lines, ""]


def _latency(lat: dict[str, Any], g: dict[str, Any]) -> list[str]:
    f = lat["figures_ms"]
    eps = lat["endpoints"]
    met = sum(1 for name, v in eps.items() if name.startswith("trades_") and v["goal_met"])
    trades = sum(1 for name in eps if name.startswith("trades_"))
    before = lat.get("before") or {}
    lines = [
        "## 7. A trade at the latency floor (latency model)",
        "",
        f"The latency model (`devstack.latency`, issue 26): DynamoDB {f['ddb']} ms a call, a transaction "
        f"{f['transact']} ms, KMS {f['kms']} ms, an RPC read {f['rpc_read']} ms, a send with preflight "
        f"{f['rpc_send']} ms (`DEVSTACK_LATENCY` sets them). The floor is the sum over an endpoint's critical "
        "path of each stage's slowest call: the calls of a stage need nothing from each other, and a stage "
        "waits for the one before. `sequential` is every call one after another.",
        "",
        "How the service's own time plus the model's is measured (`bench/latency.py`): moto's own time would "
        "swamp the model (a DynamoDB call there takes 5-10 ms on this shared machine, a KMS GenerateMac 20-40 ms, "
        "a TransactWriteItems 100-370 ms), so each request is a handler call in this process whose AWS and RPC "
        "calls are answered from the answers the real stand-ins gave the same endpoint's first requests "
        "(botocore's `before-send`; `Rpc._post_to`; a send answers its own signature), each taking its kind's "
        "time on a virtual clock: per thread, a call adds its figure; a task the request hands to its pool "
        "(`partner.core.parallel`) starts from its submitter's time, and taking its result moves the submitter "
        "up to the task's. A request's time is its wall time (the service's own: handler, validation, botocore, "
        "signing, threads) plus its clock at the end: the model along the critical path as the code really ran "
        "it. `slept` is the same with real sleeps instead of the virtual clock (late wake-ups on a loaded machine "
        "count there); `devstack` is against the devstack's own stand-ins held to the model (`DEVSTACK_LATENCY`), "
        "where the stand-ins' excess over the model still shows (`over` calls); `bare` without the model. "
        f"{lat['n']} requests per endpoint and setting, alternating request by request. Goal: every trade within "
        f"{g.get('latency_ratio', lat.get('goal_ratio'))}x its floor — {_yes(met == trades)} ({met}/{trades}); "
        "`/me` at its one read plus the buckets.",
        "",
        "| endpoint | critical path | floor ms | sequential ms | p50 ms | x floor | p90 ms | slept p50 "
        "| devstack p50 (over) | bare p50 | goal |" + (" before p50 | before x floor |" if before else ""),
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|" + ("---:|---:|" if before else ""),
    ]
    for name, v in eps.items():
        path = " → ".join(" ‖ ".join(stage) for stage in v["stages"])
        goal = _yes(v["goal_met"]) if name.startswith("trades_") else ("met" if v["ratio"] <= 1.3 else "**not met**")
        cells = _pick(v, "floor_ms", "sequential_ms", "p50_ms", "ratio", "p90_ms", "slept_p50_ms")
        devstack = f"{v.get('devstack_p50_ms', '')} ({v.get('over_model', '')})"
        row = _row(name, path, *cells, devstack, v.get("bare_p50_ms", ""), goal)
        lines.append(row + _cells(before, "endpoints", name, ("p50_ms", "ratio")))
    if before:
        lines += [
            "",
            f"`before`: the checkout `{before.get('rev')}` measured by the same script just before, in the same "
            f"session (1-minute load {before.get('load_average')}); its floor is this table's floor.",
        ]
    return [*lines, ""]


# records/s and lag s by open records, before this round (`python -m bench.tracker`, 2026-11-27T09:26Z)
TRACKER_BEFORE = {10: (16, 2.71), 100: (50, 2.19), 1000: (7, 138.73)}


def _tracker(t: dict[str, Any], g: dict[str, Any]) -> list[str]:
    rows = t.get("throughput") or []
    goal_rate, goal_lag = g.get("tracker_records_per_s", 1000), g.get("tracker_lag_s", 5)
    model = ", ".join(f"{k} {v:g}" for k, v in (t.get("model_ms") or {}).items())
    lines = [
        "## 8. Tracker throughput and lag",
        "",
        f"`python -m bench.tracker` (`make bench`'s `tracker` part; issue 26 item 1), {t.get('measured_at')}, "
        f"1-minute load {' -> '.join(str(v) for v in t.get('load_average') or [])}, {t.get('shards', 4)} index "
        "partitions, on a moto (a process of its own) and a devstack chain of their own: N transactions land in a "
        "burst, their records are written as the service writes them (150 clients, each with a webhook: every move "
        "queues its events, and a stand-in consumer drains the queue), and passes run as the scheduled function "
        "runs them until no record is `sent`. Records moved per second = N / the time of the passes; lag = from "
        "the last landing to the end of the pass that moved the last record (it includes the devstack's one-slot "
        "confirmation, 400 ms). Then the cost of one pass over N open records the chain does not know.",
        "",
        "`model`: the same passes on the latency model's clock (`bench.tracker.ModelClock`, ms per call: "
        f"{model}; SQS is an assumption, `devstack.latency` has no figure for it): each thread's own CPU time plus "
        "the model's figure for each call it made; the calls a pass makes at once (`parallel.map_at_most`) are "
        "placed on the map's workers in order, each on the first free one, and the map takes the later of that "
        "schedule's end and the sum of its tasks' CPU (one interpreter). moto's own time, one request at a time, "
        "is not in it. Its lag = one pause (1 s, the longest a landing waits for the next pass) + the passes on "
        "the model + the pauses between them.",
        "",
        f"`groups`: 1, and TRACKER_GROUPS ({t.get('groups', 1)}), the groups of index partitions the scheduled "
        "run hands out, one invocation each (`functions/tracker`): the groups pass at once, each on a thread of "
        "its own here; on the model a pass takes the longest group's time (its CPU the CPU of that group), as "
        "separate invocations run on CPUs of their own, while on moto's clock the threads share one interpreter.",
        "",
    ]
    if rows:
        lines += [
            "| open records | groups | records/s | lag s | passes | ms in passes | model: records/s | model: lag s | "
            "model: ms (CPU) | events | errors | before: records/s | before: lag s |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for row in rows:
            before = TRACKER_BEFORE.get(row["records"], ("-", "-"))
            lines.append(
                _row(
                    row["records"],
                    row.get("groups", 1),
                    f"{row['records_per_s']:.0f}",
                    *_pick(row, "lag_s", "passes", "pass_ms"),
                    *_pick(row, "model_records_per_s", "model_lag_s", missing="-"),
                    f"{row.get('model_pass_ms', '-')} ({row.get('model_cpu_ms', '-')})",
                    row["events"],
                    row["errors"],
                    *before,
                )
            )
        at = {row["records"]: row for row in rows}.get(1000)
        if at:
            lines += ["", *_tracker_goal(at, goal_rate, goal_lag)]
        lines.append("")
    lines += ["What it printed:", "", "```", *t["lines"], "```", ""]
    return lines + ([t["note"], ""] if t.get("note") else [])


def _headline(r: dict[str, Any], g: dict[str, Any]) -> list[str]:
    """The headline figures against their goals, as a table (each from its section below)."""
    rows: list[tuple[str, str, str, str]] = []
    trades = {
        k: v for k, v in ((r.get("latency_model") or {}).get("endpoints") or {}).items() if k.startswith("trades_")
    }
    for label, fns, worst, goal in (
        (
            "1. Cold start without SnapStart (layers), spawn to response",
            (r.get("cold_start_layers") or {}).get("functions") or {},
            lambda f: f"worst {max(v['response_ratio'] for v in f.values())}x the floor",
            f"at most {g.get('cold_ratio')}x",
        ),
        (
            "1. SnapStart restore to response",
            (r.get("snapstart") or {}).get("functions") or {},
            lambda f: f"worst {max(v['restore_max_ms'] for v in f.values())} ms",
            f"{g.get('snapstart_ratio')}x warm or +{g.get('snapstart_add_ms')} ms",
        ),
        (
            "7. Trade latency, p50 over its floor (AWS call model)",
            trades,
            lambda f: f"worst {max(v['ratio'] for v in f.values())}x",
            f"at most {g.get('latency_ratio')}x",
        ),
    ):
        if fns:
            rows.append((label, worst(fns), goal, f"{sum(1 for v in fns.values() if v['goal_met'])}/{len(fns)}"))
    tps = r.get("chain_tps")
    if tps:
        rows.append(
            (
                "4. Chain throughput, LiteSVM bank over bare LiteSVM",
                f"{tps['bank_vs_litesvm']}x",
                f"at least {g.get('tps_ratio')}x",
                _yes(tps["goal_met"]),
            )
        )
    lay = r.get("layers")
    if lay:
        rows.append(
            (
                "9. Dependency layer, unzipped",
                f"{lay['DependenciesLayer']} MB",
                f"at most {lay['goal_mb']} MB",
                _yes(lay["goal_met"]),
            )
        )
    cu = (r.get("compute_units") or {}).get("launchpad_trades") or {}
    trade_cu = {n: cu[n]["max"] for n in ("buy", "sell", "buy_exact_out") if n in cu}
    if trade_cu:
        worst_cu = max(trade_cu.values())
        rows.append(
            (
                "6. A curve trade's compute units, into an existing token account",
                f"at most {worst_cu:,}",
                "at most 10,000 (issue 35)",
                _yes(worst_cu <= 10_000),
            )
        )
    if not rows:
        return []
    return [
        "## Headline figures",
        "",
        "| figure (section) | measured | goal | met |",
        "|---|---|---|---|",
        *(f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows),
        "",
    ]


def _tracker_goal(at: dict[str, Any], rate: float, lag: float) -> list[str]:
    model_rate, model_lag = at.get("model_records_per_s", 0), at.get("model_lag_s", float("inf"))
    return [
        f"Goal ({at.get('groups', 1)} group(s)): {rate} records a second on one devstack pass — on moto's clock "
        f"{_yes(at['records_per_s'] >= rate)} "
        f"({at['records_per_s']:.0f}), on the model {_yes(model_rate >= rate)} ({model_rate}); a lag under {lag} s "
        f"at 1,000 open records — on moto's clock {_yes(at['lag_s'] < lag)} ({at['lag_s']} s), on the model "
        f"{_yes(model_lag < lag)} ({model_lag} s). `before`: {TRACKER_BEFORE_NOTE}",
    ]


TRACKER_BEFORE_NOTE = (
    "the tracker before this round (every move a conditional UpdateItem, passes 2 s apart; moto in the "
    "tracker's process), 2026-11-27T09:26Z, 1-minute load 7.3-7.65, on moto's clock (no model then)."
)


def _cold(cold: dict[str, Any], g: dict[str, Any], column: str) -> list[str]:
    fns = cold["functions"]
    met = sum(1 for v in fns.values() if v["goal_met"])
    before = any("before" in v for v in fns.values())
    split = (
        f"; import {cold['floor_import_ms']} ms, client and GetItem {cold['floor_first_ms']} ms"
        if cold.get("floor_import_ms") is not None
        else ""
    )
    if column == "venv":
        intro = (
            f"A fresh `.venv/bin/python` process imports the function's `app.py` and serves one request "
            f"against the devstack (wall time of the whole process, spawn to exit), median of {cold['runs']} "
            f"runs. Floor: a fresh process that imports boto3 and makes one DynamoDB GetItem on the same "
            f"moto: **{cold['floor_ms']} ms** ({cold.get('floor_response_ms')} ms to its response; "
            f"median of {cold.get('floor_runs', cold['runs'])} floor runs spread through the rounds{split})."
        )
    else:
        intro = (
            "With only the layers: the same, run with `python -S` and only the `sam build` layers "
            "(SharedLayer, DependenciesLayer) plus the runtime's boto3/botocore on the path, as in Lambda "
            "(the dev venv also holds dev-only packages such as rich and click, which `import httpx` picks "
            f"up). Floor there: **{cold['floor_ms']} ms** ({cold.get('floor_response_ms')} ms to its response"
            f"{split})."
        )
    goal = (
        f" Goal (this column, as deployed): every function at most {g.get('cold_ratio')}x the floor to the "
        f"response — {_tally(fns)}."
        if column == "layers"
        else f" (The goal is judged in the layers column; here {met}/{len(fns)} are within {g.get('cold_ratio')}x "
        "to the response.)"
    )
    lines = [intro + goal, ""]
    if before:
        lines += [
            f"`before`: the checkout `{cold.get('before')}` (the code before this round), measured in the "
            "same rounds, alternating with this one, so both saw the same load.",
            "",
        ]
    head = (
        f"| function ({column}) | ms | x floor | to response ms | x floor | import ms | first request ms "
        "| status | goal |"
    )
    rule = "|---|---:|---:|---:|---:|---:|---:|---|---|"
    if before:
        head += " before ms | before x floor | before to response x floor |"
        rule += "---:|---:|---:|"
    lines += [head, rule]
    earlier = {"functions": {name: v.get("before") for name, v in fns.items()}} if before else {}
    for name, v in sorted(fns.items(), key=lambda kv: kv[1]["ms"]):
        cells = _pick(v, "ms", "ratio", "response_ms", "response_ratio", "import_ms", "first_request_ms")
        row = _row(name, *cells, _status(v), _yes(v["goal_met"]))
        lines.append(row + _cells(earlier, "functions", name, ("ms", "ratio", "response_ratio")))
    lines.append("")
    warm = cold.get("warm_paired") or {}
    if warm.get("functions"):
        lines += [
            f"Warm latency, paired ({column}): in {warm['processes']} fresh processes per checkout, "
            f"alternating, {warm['repeat']} more of the same read request after the cold one "
            "(in-process handler calls against the devstack; p50 and p90 of those, ms):",
            "",
            _row("function", "p50", "p90", "before p50", "before p90"),
            "|---|---:|---:|---:|---:|",
        ]
        for name, v in warm["functions"].items():
            now, was = v.get("now", {}), v.get("before", {})
            lines.append(
                _row(name, now.get("p50_ms", ""), now.get("p90_ms", ""), was.get("p50_ms", ""), was.get("p90_ms", ""))
            )
        lines.append("")
    return lines


def _breakdown(b: dict[str, Any], label: str) -> list[str]:
    lines = [
        f"Import-time breakdown of the slowest function, `{b['function']}` ({label}; one "
        f"`python -X importtime` run: app.py's imports {b.get('app_ms')} ms, {b.get('total_ms')} ms of imports "
        "in all; what app.py imports and one level below, by cumulative ms):",
        "",
        "| module | cumulative ms | self ms |",
        "|---|---:|---:|",
    ]
    for row in b["cumulative"]:
        lines.append(_row("&nbsp;" * 2 * row["depth"] + row["module"], row["cumulative_ms"], row["self_ms"]))
    lines += [
        "",
        "Largest self times: " + ", ".join(f"{row['module']} {row['self_ms']}" for row in b["self"]) + " ms.",
        "",
    ]
    return lines


def _compute_units(cu: dict[str, Any]) -> list[str]:
    """6. Compute units of each instruction of the SBF programs (bench/compute_units.py)."""
    lines = [
        "## 6. Compute units per instruction (SBF programs)",
        "",
        f"Measured in {cu['engine']} on `programs/out/*.so` (`make programs`), {cu.get('rounds', 1)} rounds with "
        f"fresh keys (`bench/compute_units.py`), measured {cu.get('measured_at', '?')}: the launchpad's figures are "
        f"{cu['measured']['launchpad']}; the pool's are {cu['measured']['pool']}. Runs differ by multiples of "
        "1,500 CU: the keys are random, and each try of a PDA bump search costs 1,500 CU.",
        "",
        "| program | instruction | min CU | median CU | max CU | runs |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for program in ("launchpad", "pool"):
        for name, f in cu[program].items():
            lines.append(_row(program, name, f["min"], f["median"], f["max"], f["runs"]))
    for key, intro, column in (
        (
            "launchpad_trades",
            "The curve's trades by case (into an existing token account: no bump search):",
            "curve case",
        ),
        (
            "pool_cases",
            "The pool's swaps by case (creating the trader's token account costs the ATA program's CPI):",
            "pool case",
        ),
    ):
        cases = cu.get(key)
        if cases:
            lines += ["", intro, "", f"| {column} | min CU | median CU | max CU | runs |", "|---|---:|---:|---:|---:|"]
            lines += [_row(name, f["min"], f["median"], f["max"], f["runs"]) for name, f in cases.items()]
    return lines + [""]


def _cost(cost: dict[str, Any]) -> list[str]:
    p = cost["prices"]
    rows = cost["functions"]
    sizes = list(next(iter(rows.values()))["at_memory"])
    lines = [
        "## 5. Cost per million requests",
        "",
        f"USD per million requests of each endpoint (`bench/cost.py`), {p['region']} list prices as of "
        f"{p['as_of']}: API Gateway REST ${p['api_gateway_rest_per_million']}/M (HTTP API "
        f"${p['api_gateway_http_per_million']}/M), Lambda ${p['lambda_requests_per_million']}/M requests + "
        f"${p['lambda_gb_second_x86']}/GB-s (x86), DynamoDB on-demand ${p['dynamodb_write_unit_per_million']}/M "
        f"WRU and ${p['dynamodb_read_unit_per_million']}/M RRU, KMS ${p['kms_requests_per_million']}/M, S3 "
        f"${p['s3_put_per_million']}/M PUT and ${p['s3_get_per_million']}/M GET, SQS "
        f"${p['sqs_requests_per_million']}/M, CloudWatch Logs ${p['logs_ingest_per_gb']}/GB. Calls, units and "
        "log bytes from section 2; the duration is the warm p50 of section 3 (a full core, the stand-ins' "
        "time included: an upper bound), billed in whole ms; at other memory sizes the function's own CPU "
        "time (section 2) stretches by 1769 MB / memory (Lambda's CPU share) and the rest does not. "
        "Not included: X-Ray traces ($5/M recorded, sampled), SnapStart cache and restores, data transfer, "
        "KMS keys and storage (per month, not per request).",
        "",
        "| endpoint | MB | billed ms | API GW | Lambda | DynamoDB | KMS | S3 | SQS | logs | total (REST) | "
        "total (HTTP API) | " + " | ".join(f"total at {m} MB" for m in sizes) + " |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|" + "---:|" * len(sizes),
    ]
    for name, v in rows.items():
        at = (f"{v['at_memory'][m]['total']:.2f} ({v['at_memory'][m]['billed_ms']:g} ms)" for m in sizes)
        usd = (f"{v[k]:.2f}" for k in ("api_gateway", "lambda", "dynamodb", "kms", "s3", "sqs", "logs"))
        lines.append(
            _row(
                name,
                v["memory_mb"],
                f"{v['billed_ms']:g}",
                *usd,
                f"**{v['total']:.2f}**",
                f"{v['total_http_api']:.2f}",
                *at,
            )
        )
    lines.append("")
    return lines
