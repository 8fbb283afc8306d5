"""Infrastructure failures on trades, through the real handlers against moto and the devstack
chain: the spec's status, `error` and `retryable`, and nothing lost or double-counted (the
client's daily volume, the wallet's balances, what reached the chain).

Chain faults go through the chain's own `devstack_setFault`; AWS faults through
`devstack.faults` (a `partner.store.aws` hook in this process, where the handlers run).
"""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime

import pytest

from devstack import faults
from testkit.chain import balance, rpc, token_balance, warp
from testkit.helpers import FEES, trade

pytestmark = pytest.mark.usefixtures("no_faults_left")

SOL = 10**9
BLOCKHASH_SECONDS = 150 * 0.4


def chain_fault(
    chain,
    mode: str,
    *,
    methods: list[str] | None = None,
    count: int | None = 1,
    delay_ms: int | None = None,
    target: str = "rpc",
) -> dict:
    spec: dict = {"target": target, "mode": mode}
    if methods:
        spec["methods"] = methods
    if count is not None:
        spec["count"] = count
    if delay_ms is not None:
        spec["delayMs"] = delay_ms
    return rpc(chain.url, "devstack_setFault", [spec])


def volume(client_id: str) -> int:
    from partner.core import clock
    from partner.store import counters

    day = datetime.fromtimestamp(clock.now(), UTC).strftime("%Y-%m-%d")
    return counters.read(f"VOL#{client_id}#{day}")


def grant_volume(conn) -> int:
    from partner.core import clock
    from partner.features import grantlimits
    from partner.store import counters

    day = datetime.fromtimestamp(clock.now(), UTC).strftime("%Y-%m-%d")
    return counters.read(grantlimits.grant_volume_key(conn.client["client_id"], conn.user["user_id"], day))


def snapshot(chain, conn, mint: str) -> dict:
    wallet = conn.user["wallet"]
    return {
        "volume": volume(conn.client["client_id"]),
        "lamports": balance(chain.url, wallet),
        "tokens": token_balance(chain.url, wallet, mint),
        "signatures": [s["signature"] for s in rpc(chain.url, "getSignaturesForAddress", [wallet])],
    }


def buy(conn, mint: str, max_in: int = SOL // 10):
    return trade(conn, "buy", {"mint": mint, "maxSolIn": str(max_in), "slippageBps": 500, **FEES})


def assert_error(result, status: int, code: str, retryable: bool) -> dict:
    assert result.status == status, result.body
    body = result.json
    assert body["error"] == code, body
    assert body["retryable"] is retryable, body
    assert body.get("message")
    return body


def assert_retry_counts_once(chain, conn, mint: str, before: dict, max_in: int = SOL // 10) -> None:
    """With the fault gone the same trade goes through, and is counted exactly once."""
    retry = buy(conn, mint, max_in)
    assert retry.status == 200, retry.body
    from testkit.chain import wait

    assert wait(chain.url, retry.json["signature"])["err"] is None
    assert volume(conn.client["client_id"]) == before["volume"] + max_in
    assert token_balance(chain.url, conn.user["wallet"], mint) > before["tokens"]


# ------------------------------------------------------------------ the seam itself


def test_aws_hooks_reach_existing_and_new_clients(aws_stack):
    from partner.store import aws

    seen: list[str] = []

    def record(model=None, **_):
        seen.append(model.name)

    aws.dynamodb()  # already created
    aws.add_hook("before-call.dynamodb.GetItem", record)
    aws.add_hook("before-call.dynamodb.GetItem", record)  # a repeat is ignored
    try:
        from partner.store import counters

        counters.read("SEAM#probe")
        assert seen == ["GetItem"]
    finally:
        aws.remove_hook("before-call.dynamodb.GetItem", record)
    counters.read("SEAM#probe")
    assert seen == ["GetItem"]


def test_fault_registry_counts_down_and_filters_operations(aws_stack):
    from partner.core.errors import ApiError
    from partner.store import counters

    faults.set_fault("dynamodb", "throttle", count=2, operations=["GetItem"])
    for _ in range(2):
        with pytest.raises(ApiError) as err:
            counters.read("FAULT#probe")
        assert err.value.code == "internal" and err.value.retryable is True
    assert counters.read("FAULT#probe") == 0  # the fault cleared itself after two calls
    assert faults.list_faults() == []
    faults.set_fault("dynamodb", "down", operations=["PutItem"])
    assert counters.read("FAULT#probe") == 0  # other operations pass
    assert faults.list_faults()[0]["hits"] == 0
    with pytest.raises(ValueError):
        faults.set_fault("s3", "down")
    with pytest.raises(ValueError):
        faults.set_fault("kms", "slow")


def test_gateway_routes(aws_stack):
    from devstack.gateway import Request

    routes = faults.routes()

    def call(method: str, body: bytes = b"", query: str = ""):
        status, _, payload = routes[(method, faults.PATH)](Request(method, faults.PATH, query, [], body, "127.0.0.1"))
        import json

        return status, json.loads(payload)

    status, fault = call("POST", b'{"target": "kms", "mode": "throttle", "count": 3, "methods": ["Decrypt"]}')
    assert status == 200 and fault["target"] == "kms" and fault["operations"] == ["Decrypt"] and fault["count"] == 3
    assert call("POST", b'{"target": "kms", "mode": "melt"}')[0] == 400
    assert call("POST", b'{"target": "kms", "mode": "down", "count": 0}')[0] == 400
    assert call("POST", b"not json")[0] == 400
    call("POST", b'{"target": "pinning", "mode": "down"}')
    assert [f["target"] for f in call("GET")[1]["faults"]] == ["kms", "pinning"]
    assert call("DELETE", query="target=pinning")[1] == {"cleared": 1}
    assert call("DELETE")[1] == {"cleared": 1}
    assert call("GET")[1] == {"faults": []}


def test_pinning_is_a_registry_entry(aws_stack):
    from botocore.exceptions import ClientError

    faults.set_fault("pinning", "throttle", count=1, operations=["add"])
    assert faults.take("pinning", "pin") is None
    error = faults.take("pinning", "add")
    assert isinstance(error, ClientError) and error.response["Error"]["Code"] == "ThrottlingException"
    assert faults.take("pinning", "add") is None


# ------------------------------------------------------------------ chain (RPC) faults


def test_rpc_down_before_anything_is_read(chain, coin, partner_conn):
    before = snapshot(chain, partner_conn, coin)
    chain_fault(chain, "down")
    result = buy(partner_conn, coin)
    assert_error(result, 502, "rpc_unavailable", True)
    assert result.headers["x-ratelimit-limit"] == "60"
    assert snapshot(chain, partner_conn, coin) == before
    assert_retry_counts_once(chain, partner_conn, coin, before)


@pytest.mark.parametrize("mode", ["down", "error"])
def test_rpc_failing_on_send_releases_the_volume(chain, coin, partner_conn, mode):
    before = snapshot(chain, partner_conn, coin)
    chain_fault(chain, mode, methods=["sendTransaction"])
    result = buy(partner_conn, coin)
    body = assert_error(result, 502, "rpc_unavailable", True)
    assert "signature" not in body  # the node refused it: nothing is in flight
    assert snapshot(chain, partner_conn, coin) == before
    assert_retry_counts_once(chain, partner_conn, coin, before)


def test_rpc_slower_than_the_client_timeout(chain, coin, partner_conn, ports):
    """A read that times out is rpc_unavailable. (A send that times out is ambiguous, below.)"""
    from partner.chain.rpc import Rpc

    ports.install(rpc=lambda timeout=None: Rpc(chain.url, timeout=0.5))
    before = snapshot(chain, partner_conn, coin)
    chain_fault(chain, "slow", methods=["getMultipleAccounts"], delay_ms=1500)
    result = buy(partner_conn, coin)
    body = assert_error(result, 502, "rpc_unavailable", True)
    assert "signature" not in body
    assert snapshot(chain, partner_conn, coin) == before


def test_timeout_after_sending_is_ambiguous_and_keeps_the_volume(chain, coin, partner_conn, ports):
    from solders.signature import Signature

    from partner.chain.confirm import wait_for
    from partner.chain.rpc import Rpc

    ports.install(rpc=lambda timeout=None: Rpc(chain.url, timeout=0.5))
    max_in = SOL // 10
    before = snapshot(chain, partner_conn, coin)
    # the node accepts the transaction but answers too late, and it never lands
    chain_fault(chain, "slow", methods=["sendTransaction"], delay_ms=1500)
    chain_fault(chain, "drop", methods=["sendTransaction"])
    result = buy(partner_conn, coin, max_in)
    body = assert_error(result, 502, "rpc_unavailable", False)  # it may be in flight: spec retry rule 5
    signature = body["signature"]
    assert Signature.from_string(signature) != Signature.default()
    assert "before resending" in body["action"]
    # ambiguous: the reservation stays, so a landing cannot overshoot the cap
    assert volume(partner_conn.client["client_id"]) == before["volume"] + max_in
    # reconcile: it has not landed, and once its blockhash is past it never will
    latest = rpc(chain.url, "getLatestBlockhash")["value"]
    assert rpc(chain.url, "getSignatureStatuses", [[signature], {"searchTransactionHistory": True}])["value"] == [None]
    warp(chain.url, int(BLOCKHASH_SECONDS) + 2)
    assert rpc(chain.url, "getBlockHeight") > latest["lastValidBlockHeight"]
    assert (
        wait_for(
            Rpc(chain.url),
            Signature.from_string(signature),
            timeout=5,
            last_valid_block_height=latest["lastValidBlockHeight"],
        )
        is None
    )
    after = snapshot(chain, partner_conn, coin)
    assert signature not in after["signatures"]
    assert (after["lamports"], after["tokens"], after["signatures"]) == (
        before["lamports"],
        before["tokens"],
        before["signatures"],
    )
    assert after["volume"] == before["volume"] + max_in  # counted once, not released, not doubled


def test_slow_send_that_lands_is_ambiguous_and_counted_once(chain, coin, partner_conn, ports):
    """The answer comes too late but the transaction executes: the caller reconciles and finds it."""
    from partner.chain.rpc import Rpc
    from testkit.chain import wait

    ports.install(rpc=lambda timeout=None: Rpc(chain.url, timeout=0.5))
    max_in = SOL // 10
    before = snapshot(chain, partner_conn, coin)
    chain_fault(chain, "slow", methods=["sendTransaction"], delay_ms=1500)
    result = buy(partner_conn, coin, max_in)
    body = assert_error(result, 502, "rpc_unavailable", False)
    assert wait(chain.url, body["signature"])["err"] is None
    after = snapshot(chain, partner_conn, coin)
    assert after["signatures"][0] == body["signature"]
    assert after["tokens"] > before["tokens"]
    assert after["volume"] == before["volume"] + max_in


def test_expired_blockhash_is_tx_expired_and_releases_the_volume(chain, coin, partner_conn, ports):
    """The chain moves past the blockhash's validity between the read and the send."""
    from partner.chain.rpc import Rpc

    class ReadThenWait(Rpc):
        """The trade's one batched read (accounts and blockhash), then the chain moves on."""

        def batch(self, requests):
            answers = super().batch(requests)
            warp(chain.url, int(BLOCKHASH_SECONDS) + 2)
            return answers

    real = ports.install(rpc=lambda timeout=None: ReadThenWait(chain.url))
    before = snapshot(chain, partner_conn, coin)
    result = buy(partner_conn, coin)
    body = assert_error(result, 422, "tx_expired", True)
    assert "signature" not in body
    assert snapshot(chain, partner_conn, coin) == before
    ports.install(real)
    assert_retry_counts_once(chain, partner_conn, coin, before)


# ------------------------------------------------------------------ AWS faults


@pytest.mark.parametrize("mode", ["throttle", "error", "down"])
def test_kms_failing_on_decrypt_is_wallet_sign_failed(chain, coin, partner_conn, mode):
    """The Decrypt runs beside the chain read and the reservation; its failure is answered at signing,
    after every check, and the reservation made meanwhile is given back."""
    before, grant_before = snapshot(chain, partner_conn, coin), grant_volume(partner_conn)
    faults.set_fault("kms", mode, count=1, operations=["Decrypt"])
    result = buy(partner_conn, coin)
    body = assert_error(result, 502, "wallet_sign_failed", True)
    assert "signature" not in body
    assert faults.list_faults() == []  # exactly one Decrypt was attempted (and faulted)
    assert snapshot(chain, partner_conn, coin) == before  # volume released, nothing on chain
    assert grant_volume(partner_conn) == grant_before
    assert_retry_counts_once(chain, partner_conn, coin, before)


def _update_pks():
    """Records the pk of every UpdateItem (from any thread: a trade's independent updates run at once)."""
    updates: list[str] = []

    def record(params=None, **_):
        updates.append(params["Key"]["pk"]["S"])

    return updates, record


@contextlib.contextmanager
def _throttled_first(prefix: str):
    """Throttles the first UpdateItem whose pk starts with `prefix` (itself: under concurrent updates
    "the next UpdateItem" is no longer one call); yields the list of every pk updated meanwhile."""
    from partner.store import aws

    updates: list[str] = []
    thrown = []

    def hook(params=None, **_):
        pk = params["Key"]["pk"]["S"]
        updates.append(pk)
        if pk.startswith(prefix) and not thrown:
            thrown.append(pk)
            raise faults.error_for("dynamodb", "throttle", "UpdateItem")

    aws.add_hook("before-parameter-build.dynamodb.UpdateItem", hook)
    try:
        yield updates
    finally:
        aws.remove_hook("before-parameter-build.dynamodb.UpdateItem", hook)


def tier_count(conn) -> int:
    from partner.core import clock
    from partner.store import counters, ratelimit

    start = int(clock.now() // ratelimit.WINDOW) * ratelimit.WINDOW
    return counters.read(f"RL#tier#{conn.client['client_id']}#{start}")


def test_dynamodb_throttled_on_the_rate_limit_update_is_internal(chain, coin, partner_conn):
    """The bucket and the tier budget are drawn at once; the bucket's update fails: 500, nothing drawn
    from the bucket, and the tier's unit, drawn meanwhile, given back (in sequence it was never drawn)."""
    with _throttled_first("RL#trade#") as updates:
        before, tier_before = snapshot(chain, partner_conn, coin), tier_count(partner_conn)
        result = buy(partner_conn, coin)
    assert_error(result, 500, "internal", True)
    assert sorted(u.split("#")[1] for u in updates) == ["tier", "tier", "trade"]  # drawn, given back
    assert result.headers["x-ratelimit-remaining"] == "60"  # nothing was drawn from the bucket
    assert tier_count(partner_conn) == tier_before
    assert snapshot(chain, partner_conn, coin) == before
    assert_retry_counts_once(chain, partner_conn, coin, before)


def test_a_full_bucket_gives_the_tier_budget_back(chain, coin, partner_conn):
    """The bucket refuses (429 without `error`) while the tier's unit was drawn at the same time: the
    answer is the bucket's and the tier budget is back where it was."""
    from partner.core import clock
    from partner.store import counters, crypto, ratelimit

    token = partner_conn.bearer()["Authorization"].split(" ", 1)[1]
    start = int(clock.now() // ratelimit.WINDOW) * ratelimit.WINDOW
    bucket = f"RL#trade#{crypto.digest(token, 'access')}#{start}"
    counters.add(bucket, ratelimit.BUCKETS["trade"] - counters.read(bucket), start + 120)
    tier_before = tier_count(partner_conn)
    before = snapshot(chain, partner_conn, coin)
    result = buy(partner_conn, coin)
    if int(clock.now() // ratelimit.WINDOW) * ratelimit.WINDOW != start:
        pytest.skip("the minute's window turned during the request")
    assert result.status == 429, result.body
    assert "error" not in result.json and result.headers["x-ratelimit-remaining"] == "0"
    assert tier_count(partner_conn) == tier_before
    assert snapshot(chain, partner_conn, coin) == before


@pytest.mark.parametrize("mode", ["error", "down"])
@pytest.mark.parametrize("operation", ["BatchGetItem", "UpdateItem"])
def test_dynamodb_failing_in_the_request_path_is_internal_retryable(chain, coin, partner_conn, mode, operation):
    """A 5xx or an unreachable endpoint is transient, like throttling."""
    before = snapshot(chain, partner_conn, coin)
    faults.set_fault("dynamodb", mode, count=1, operations=[operation])
    result = buy(partner_conn, coin)
    assert_error(result, 500, "internal", True)
    assert snapshot(chain, partner_conn, coin) == before


def test_dynamodb_throttled_on_the_volume_reservation(chain, coin, partner_conn):
    """The reservation: the client's day (one conditional UpdateItem) and, the user having set no lower
    limit, the grant's day added at once beside it (beside the chain read and the Decrypt too).
    Throttled on the client's day: 500, the grant's day, added meanwhile, given back; nothing is sent
    or counted."""
    client_id = partner_conn.client["client_id"]
    grant_before = grant_volume(partner_conn)
    with _throttled_first(f"VOL#{client_id}") as updates:
        before = snapshot(chain, partner_conn, coin)
        result = buy(partner_conn, coin)
    assert_error(result, 500, "internal", True)
    assert sorted(u.split("#")[0] + ("#" + u.split("#")[1] if u.startswith("RL") else "") for u in updates) == [
        "GVOL",
        "GVOL",
        "RL#tier",
        "RL#trade",
        "VOL",
    ]  # the grant's day reserved and released
    assert snapshot(chain, partner_conn, coin) == before
    assert grant_volume(partner_conn) == grant_before


def test_a_refused_grant_reservation_gives_the_clients_day_back(chain, coin, partner_conn):
    """Throttled on the grant's day while the client's day was reserved: the client's day is
    released (the compensation), so nothing stays counted, and nothing is sent."""
    client_id = partner_conn.client["client_id"]
    with _throttled_first(f"GVOL#{client_id}") as updates:
        before = snapshot(chain, partner_conn, coin)
        result = buy(partner_conn, coin)
    assert_error(result, 500, "internal", True)
    assert [u.split("#")[0] for u in updates].count("VOL") == 2  # reserved, then released
    assert snapshot(chain, partner_conn, coin) == before


def test_a_failed_chain_read_releases_a_reservation_made_meanwhile(chain, coin, partner_conn):
    """The chain read fails while the reservation, made at the same time, succeeded: the client's and
    the grant's day are both given back and nothing is sent."""
    from partner.store import aws

    updates, record = _update_pks()
    grant_before = grant_volume(partner_conn)
    before = snapshot(chain, partner_conn, coin)
    chain_fault(chain, "down", methods=["getMultipleAccounts"])
    aws.add_hook("before-parameter-build.dynamodb.UpdateItem", record)
    try:
        result = buy(partner_conn, coin)
    finally:
        aws.remove_hook("before-parameter-build.dynamodb.UpdateItem", record)
    body = assert_error(result, 502, "rpc_unavailable", True)
    assert "signature" not in body
    kinds = [u.split("#")[0] for u in updates]
    assert kinds.count("VOL") == 2 and kinds.count("GVOL") == 2  # each reserved, then released
    assert snapshot(chain, partner_conn, coin) == before
    assert grant_volume(partner_conn) == grant_before


# ------------------------------------------------------------------ partnerctl dev fault


def test_partnerctl_dev_fault(chain, monkeypatch, capsys):
    import json

    from devstack.gateway import start_gateway
    from partnerctl.cli import main
    from testkit.helpers import ROOT

    gateway = start_gateway(ROOT / "template.yaml", port=0, extra_routes=faults.routes(), log=False)
    try:
        monkeypatch.setenv("GATEWAY_URL", gateway.url)
        monkeypatch.setenv("RPC_URL", chain.url)
        monkeypatch.setenv("PARTNER_DEVSTACK_ENV", str(ROOT / ".devstack" / "absent.json"))

        def cli(*args: str) -> tuple[int, dict]:
            code = main(["--json", "dev", "fault", *args])
            return code, json.loads(capsys.readouterr().out)

        code, out = cli("rpc", "slow", "--count", "2", "--methods", "getSlot,getHealth", "--delay-ms", "5")
        assert code == 0 and out["target"] == "rpc" and out["methods"] == ["getSlot", "getHealth"]
        assert out["count"] == 2 and out["delayMs"] == 5
        code, out = cli("bundle", "drop")
        assert code == 0 and out["target"] == "bundle" and out["count"] is None
        assert len(rpc(chain.url, "devstack_getFaults")) == 2
        code, out = cli("kms", "throttle", "--count", "1", "--methods", "Decrypt")
        assert code == 0 and out["target"] == "kms" and out["operations"] == ["Decrypt"]
        assert [f["target"] for f in faults.list_faults()] == ["kms"]  # the gateway's process is this one
        assert cli("kms", "slow")[0] == 1
        assert cli("dynamodb", "down", "--delay-ms", "10")[0] == 1
        assert cli("rpc", "throttle")[0] == 1
        assert cli("s3", "down")[0] == 1
        assert cli("rpc")[0] == 1
        code, out = cli("clear")
        assert code == 0 and out["gateway"] == {"cleared": 1}
        assert rpc(chain.url, "devstack_getFaults") == [] and faults.list_faults() == []
    finally:
        gateway.stop()
