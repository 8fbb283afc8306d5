"""Sync Solana JSON-RPC and block-engine client over partner.core.transport, with solders' request types.
Transport failures, timeouts, 5xx and "node unhealthy" answers are `rpc_unavailable`; with several
endpoints (`RPC_URLS`) a read fails over and a send goes to all at once (docs/operations.md, "RPC endpoints").
"""

from __future__ import annotations

import base64
import functools
import json
import re
import threading
import time
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

from solders.account_decoder import UiAccountEncoding
from solders.commitment_config import CommitmentLevel
from solders.hash import Hash
from solders.pubkey import Pubkey
from solders.rpc import requests as rq
from solders.rpc.config import RpcAccountInfoConfig, RpcContextConfig, RpcSendTransactionConfig
from solders.rpc.responses import GetLatestBlockhashResp, GetMultipleAccountsResp
from solders.signature import Signature
from solders.transaction import Transaction, VersionedTransaction

from partner.core import observability, transport
from partner.core.errors import ApiError
from partner.core.settings import endpoints, on_reset

JSON_HEADERS = {"Content-Type": "application/json"}

# The commitment of every read (a node's default is `finalized`, ~32 slots behind); the reasons
# are in docs/chain.md, "Commitment".
DECIDE = CommitmentLevel.Processed  # the accounts a write decides on, and its preflight/simulation
BLOCKHASH = CommitmentLevel.Confirmed  # the blockhash a write is signed with
LOOKUP = "confirmed"  # getTransaction, getSignaturesForAddress, the block height expiry is judged at


class RpcError(Exception):
    """A JSON-RPC error answer (the node answered, and said no)."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        self.code, self.message, self.data = code, message, data
        super().__init__(f"{code}: {message}")


class Ambiguous(Exception):
    """The request may have reached the node (a timeout after sending)."""


UNHEALTHY = {-32005, -32004, -32007, -32009, -32014, -32016}
PREFLIGHT_FAILURE = -32002
COOL_DOWN_SECONDS = 30.0  # an endpoint that failed is tried last for this long
MAX_CONNECT_SECONDS = 2.0  # with several endpoints, a dead one costs at most this much

_cooling: dict[str, float] = {}  # endpoint -> time.monotonic() until which it is tried last
_sender: ThreadPoolExecutor | None = None
_sender_lock = threading.Lock()


def _mark(url: str, healthy: bool) -> None:
    if healthy:
        _cooling.pop(url, None)
    else:
        _cooling[url] = time.monotonic() + COOL_DOWN_SECONDS


@on_reset
def forget_health() -> None:
    """Forget which endpoints failed (tests switch endpoints)."""
    _cooling.clear()


def _in_order(urls: tuple[str, ...]) -> list[str]:
    """Healthy endpoints in their configured order, then the cooling ones (soonest back first)."""
    now = time.monotonic()
    healthy = [u for u in urls if _cooling.get(u, 0.0) <= now]
    cooling = sorted((u for u in urls if _cooling.get(u, 0.0) > now), key=lambda u: _cooling.get(u, 0.0))
    return healthy + cooling


def _unhealthy_code(body: Any) -> int | None:
    """The unhealthy JSON-RPC error code in `body` (an answer or a batch of answers), if any."""
    for item in body if isinstance(body, list) else [body]:
        if isinstance(item, dict) and isinstance(item.get("error"), dict):
            try:
                code = int(item["error"].get("code", 0))
            except (TypeError, ValueError):
                continue
            if code in UNHEALTHY:
                return code
    return None


def _already_processed(body: dict[str, Any]) -> bool:
    """A refusal that says the network already holds this very transaction (the same signature)."""
    err = body.get("error")
    if not isinstance(err, dict):
        return False
    data = err.get("data")
    return (isinstance(data, dict) and data.get("err") == "AlreadyProcessed") or "already been processed" in str(
        err.get("message", "")
    ).lower()


def _executor() -> ThreadPoolExecutor:
    global _sender
    if _sender is None:
        with _sender_lock:
            if _sender is None:
                _sender = ThreadPoolExecutor(max_workers=8, thread_name_prefix="rpc-send")
    return _sender


@dataclass(frozen=True)
class AccountData:
    lamports: int
    owner: Pubkey
    data: bytes


def unavailable(message: str = "The chain network is unavailable.", **extra: Any) -> ApiError:
    return ApiError("rpc_unavailable", message, **extra)


class EndpointRateLimited(ApiError):
    """HTTP 429: the endpoint refused the request before doing anything (nothing was sent on).
    `retry_after`: the seconds it asked to wait (a `Retry-After` header, or Jito's "Retry after
    Nms" in its JSON-RPC error message), else None. An `rpc_unavailable` to whoever does not retry."""

    def __init__(self, retry_after: float | None) -> None:
        super().__init__("rpc_unavailable", "The chain network is rate limiting this service.")
        self.retry_after = retry_after


_JITO_RETRY_AFTER = re.compile(r"retry after (\d+)\s*ms", re.IGNORECASE)


def _retry_after(response: Any) -> float | None:
    """Seconds a 429 asks to wait: `Retry-After` in seconds, else Jito's "Retry after 1606ms"."""
    header = (getattr(response, "headers", None) or {}).get("retry-after")
    if header is not None:
        try:
            return max(0.0, float(header))
        except ValueError:
            pass  # an HTTP date: not worth parsing, the backoff applies
    found = _JITO_RETRY_AFTER.search(response.data[:2000].decode("utf-8", "replace"))
    return int(found.group(1)) / 1000.0 if found else None


def _counted(method):
    """Count `RpcUnavailable` (by upstream: rpc or block_engine) when `method` fails for transport."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except ApiError as exc:
            if exc.code == "rpc_unavailable":
                observability.count("RpcUnavailable", upstream=self.upstream)
            raise
        except Ambiguous:
            observability.count("RpcUnavailable", upstream=self.upstream)
            raise

    return wrapper


class Rpc:
    """Requests are built with `solders.rpc.requests` and successful responses parsed with
    `solders.rpc.responses`; JSON-RPC errors are read from the raw body so preflight
    failures can be mapped to the spec's codes. Transport failures, timeouts, 5xx and
    "node unhealthy" answers are `rpc_unavailable`.

    Several endpoints (`RPC_URLS`, comma-separated; docs/operations.md, "RPC endpoints"):
    a read goes to the first healthy endpoint and fails over to the next on a timeout, a
    transport error, HTTP 5xx/429, or an unhealthy JSON-RPC answer (-32005 node unhealthy or
    behind, -32016 a `minContextSlot` not reached, ...); an endpoint that failed is skipped
    for `COOL_DOWN_SECONDS` (tried last, not never). A send goes to every endpoint at once:
    the first acceptance wins (every endpoint returns the same signature); a definite refusal
    (a preflight failure, any JSON-RPC error that is not "unhealthy") is the answer at once;
    a transport error or an unhealthy answer from one endpoint only waits for the others.
    """

    upstream = "rpc"  # the metric dimension of its failures

    def __init__(self, url: str | Sequence[str], timeout: float = 10.0, *, connect: float | None = None) -> None:
        """`url`: one endpoint, a comma-separated list, or a sequence of them (in preference order).
        `connect`: the connect timeout (default: `timeout` for one endpoint, at most
        `MAX_CONNECT_SECONDS` with several)."""
        self.urls = endpoints(url)
        self.url = self.urls[0]
        self.timeout = timeout
        self.connect = connect
        self.round_trips = 0
        # the user's last write: the slot its reads and landing were answered at (`seen_slot` of the
        # write's client, kept on the user's record: partner.send.pipeline.remember_slot). The
        # DECIDE reads name it as `minContextSlot`, so a node behind it answers -32016 and the read
        # fails over (docs/chain.md, "Commitment").
        self.min_context_slot: int | None = None
        self.seen_slot = 0  # the newest context slot an answer to this client carried

    def _post_to(self, url: str, payload: str, *, sending: bool) -> Any:
        """One request to one endpoint: its JSON body; `ApiError` rpc_unavailable or `Ambiguous`."""
        connect = None if len(self.urls) == 1 else min(self.timeout, MAX_CONNECT_SECONDS)
        if self.connect is not None:
            connect = self.connect
        try:
            response = transport.post(
                url, body=payload.encode(), timeout=self.timeout, connect=connect, headers=JSON_HEADERS
            )
        except transport.Failed as exc:
            if sending and exc.maybe_sent:  # a read timeout or a dropped connection after sending
                raise Ambiguous() from exc
            raise unavailable() from exc
        if response.status == 429:
            raise EndpointRateLimited(_retry_after(response))
        if response.status >= 500:
            raise unavailable()
        try:
            return json.loads(response.data)
        except ValueError as exc:
            raise unavailable("The chain network answered with something that is not JSON-RPC.") from exc

    def _post(self, payload: str, *, sending: bool = False) -> Any:
        """One logical round trip: a read fails over along the endpoints; a send goes to all."""
        self.round_trips += 1
        if len(self.urls) == 1:
            return self._post_to(self.url, payload, sending=sending)
        if sending:
            return self._send_to_all(payload)
        failure: Exception | None = None
        unhealthy: Any = None
        for url in _in_order(self.urls):
            try:
                body = self._post_to(url, payload, sending=False)
            except ApiError as exc:
                _mark(url, False)
                failure = exc
                continue
            if _unhealthy_code(body) is not None:
                _mark(url, False)
                unhealthy = body  # answered, but not fit to serve: the next one may be
                continue
            _mark(url, True)
            return body
        if unhealthy is not None:
            return unhealthy  # the caller reports the node's own code (rpc_unavailable)
        assert failure is not None
        raise failure

    def _send_to_all(self, payload: str) -> Any:
        """The same signed transaction to every endpoint at once. The first acceptance or definite
        refusal is the answer; transport errors and unhealthy answers wait for the others. None
        answered: the last unhealthy answer, else `Ambiguous` if any may have received it, else
        rpc_unavailable."""
        pending = {_executor().submit(self._post_to, url, payload, sending=True): url for url in self.urls}
        ambiguous = False
        unhealthy: Any = None
        held: Any = None
        failure: Exception | None = None
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                url = pending.pop(future)
                try:
                    body = future.result()
                except Ambiguous as exc:
                    _mark(url, False)
                    ambiguous, failure = True, exc
                    continue
                except ApiError as exc:
                    _mark(url, False)
                    failure = exc
                    continue
                if _unhealthy_code(body) is not None or not isinstance(body, dict):
                    _mark(url, False)
                    unhealthy = body
                    continue
                _mark(url, True)
                if _already_processed(body):  # another endpoint's copy got there first: its acceptance follows
                    held = body
                    continue
                return body  # accepted, or refused by a healthy node (preflight): the others say the same
        if held is not None:
            return held  # the network holds this very transaction (partner.chain.tx.submit: accepted)
        if ambiguous:
            raise Ambiguous() from failure
        if unhealthy is not None:
            return unhealthy
        assert failure is not None
        raise failure

    @staticmethod
    def _result(body: Any) -> Any:
        if not isinstance(body, dict):
            raise unavailable("Malformed JSON-RPC answer.")
        if "error" in body:
            err = body["error"] or {}
            code = int(err.get("code", 0))
            if code in UNHEALTHY:
                raise unavailable(f"The chain node is unhealthy ({code}).")
            raise RpcError(code, str(err.get("message", "")), err.get("data"))
        return body

    def _seen(self, body: dict[str, Any]) -> dict[str, Any]:
        """`body`, its context slot (if any) noted in `seen_slot`."""
        result = body.get("result")
        context = result.get("context") if isinstance(result, dict) else None
        if isinstance(context, dict) and isinstance(context.get("slot"), int):
            self.seen_slot = max(self.seen_slot, context["slot"])
        return body

    @_counted
    def call(self, method: str, params: list[Any] | None = None) -> Any:
        payload = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params or []})
        return self._seen(self._result(self._post(payload)))["result"]

    @_counted
    def batch(self, requests: list[Any]) -> list[dict[str, Any]]:
        """Several solders requests in one round trip; answers in request order. The array is joined here
        from each request's own `to_json`: the same bytes as solders' `batch_to_json`, at a fraction of
        its cost (docs/benchmarks.md, "What stands in the way / what was fixed")."""
        body = self._post("[" + ",".join(request.to_json() for request in requests) + "]")
        if isinstance(body, dict):  # a single error for the whole batch
            self._result(body)
            raise unavailable("Malformed JSON-RPC batch answer.")
        by_id = {item.get("id"): item for item in body if isinstance(item, dict)}
        out = []
        for request in requests:
            item = by_id.get(request.id)
            if item is None:
                raise unavailable("The chain node dropped part of a batch.")
            out.append(self._seen(self._result(item)))
        return out

    # ------------------------------------------------------------ typed helpers
    def multiple_accounts_request(self, pubkeys: list[Pubkey], id: int) -> Any:
        """getMultipleAccounts at `processed` (DECIDE): the newest state, the user's own last write
        included; at `min_context_slot` or later when set."""
        config = RpcAccountInfoConfig(
            encoding=UiAccountEncoding.Base64, commitment=DECIDE, min_context_slot=self.min_context_slot
        )
        return rq.GetMultipleAccounts(pubkeys, config, id=id)

    @staticmethod
    def latest_blockhash_request(id: int) -> Any:
        """getLatestBlockhash at `confirmed` (BLOCKHASH)."""
        return rq.GetLatestBlockhash(RpcContextConfig(commitment=BLOCKHASH), id=id)

    @staticmethod
    def parse_multiple_accounts(raw: dict[str, Any]) -> list[AccountData | None]:
        parsed = GetMultipleAccountsResp.from_json(json.dumps(raw))
        if not isinstance(parsed, GetMultipleAccountsResp):
            raise unavailable("The chain node answered getMultipleAccounts with an error.")
        accounts: list[Any] = list(parsed.value)
        return [None if a is None else AccountData(a.lamports, a.owner, bytes(a.data)) for a in accounts]

    @staticmethod
    def parse_latest_blockhash(raw: dict[str, Any]) -> tuple[Hash, int]:
        parsed = GetLatestBlockhashResp.from_json(json.dumps(raw))
        if not isinstance(parsed, GetLatestBlockhashResp):
            raise unavailable("The chain node answered getLatestBlockhash with an error.")
        return parsed.value.blockhash, parsed.value.last_valid_block_height

    def latest_blockhash(self) -> tuple[Hash, int]:
        return self.parse_latest_blockhash(self.batch([self.latest_blockhash_request(1)])[0])

    def block_height(self) -> int:
        """The block height at `confirmed` (LOOKUP), the level the blockhash was read at: a
        blockhash is expired once this height is past its lastValidBlockHeight."""
        return int(self.call("getBlockHeight", [{"commitment": LOOKUP}]))

    def accounts(self, pubkeys: list[Pubkey]) -> list[AccountData | None]:
        return self.parse_multiple_accounts(self.batch([self.multiple_accounts_request(pubkeys, 1)])[0])

    @_counted
    def send_transaction(self, tx: Transaction | VersionedTransaction, *, skip_preflight: bool = False) -> Signature:
        """Submit with preflight; RpcError on a preflight failure; Ambiguous on a timeout after sending."""
        config = RpcSendTransactionConfig(skip_preflight=skip_preflight, preflight_commitment=CommitmentLevel.Processed)
        request = rq.SendRawTransaction(bytes(tx), config, id=1)
        body = json.loads(request.to_json())
        # base64 is what current nodes prefer; solders emits base58 by default
        body["params"][0] = base64.b64encode(bytes(tx)).decode()
        body["params"][1] = {**(body["params"][1] or {}), "encoding": "base64"}
        result = self._result(self._post(json.dumps(body), sending=True))["result"]
        return Signature.from_string(result)

    def signature_statuses(self, signatures: list[Signature]) -> list[dict[str, Any] | None]:
        return self.call("getSignatureStatuses", [[str(s) for s in signatures], {"searchTransactionHistory": True}])[
            "value"
        ]


class BlockEngine:
    """A Jito block engine (docs.jito.wtf, "Low Latency Transaction Send"): sendBundle,
    getBundleStatuses, getInflightBundleStatuses (at most `MAX_STATUS_IDS` ids a query).

    Its rate limit answers HTTP 429 (Jito's default: 1 request per second per IP). A rate-limited
    call is tried again, as a client of Jito should: after the wait the engine asks for
    (`Retry-After`, or "Retry after Nms" in its message), else `RATE_LIMIT_FIRST_WAIT` seconds,
    doubled each time; at most `RATE_LIMIT_TRIES` tries and `RATE_LIMIT_BUDGET` seconds of waiting
    in all, then `rpc_unavailable`. Retrying a refused `sendBundle` is safe: a 429 is answered
    before the bundle is looked at, and a bundle's id is its signatures', so a copy is one bundle."""

    upstream = "block_engine"
    MAX_STATUS_IDS = 5
    RATE_LIMIT_TRIES = 5
    RATE_LIMIT_BUDGET = 6.0
    RATE_LIMIT_FIRST_WAIT = 0.25

    def __init__(self, url: str, timeout: float = 10.0) -> None:
        self.rpc = Rpc(url, timeout)
        self.rpc.upstream = self.upstream

    def _post(self, payload: str, *, sending: bool = False) -> Any:
        """One call, tried again while the engine rate-limits it (class docstring)."""
        waited, wait = 0.0, self.RATE_LIMIT_FIRST_WAIT
        for attempt in range(1, self.RATE_LIMIT_TRIES + 1):
            try:
                return self.rpc._post(payload, sending=sending)
            except EndpointRateLimited as exc:
                pause = wait if exc.retry_after is None else exc.retry_after
                if attempt == self.RATE_LIMIT_TRIES or waited + pause > self.RATE_LIMIT_BUDGET:
                    raise  # rpc_unavailable (counted as RpcUnavailable{upstream=block_engine})
                time.sleep(pause)
                waited += pause
                wait *= 2
        raise AssertionError("unreachable")  # pragma: no cover

    def call(self, method: str, params: list[Any] | None = None) -> Any:
        payload = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params or []})
        return self.rpc._result(self._post(payload))["result"]

    @_counted
    def send_bundle(self, txs: list[Transaction | VersionedTransaction]) -> str:
        encoded = [base64.b64encode(bytes(tx)).decode() for tx in txs]
        payload = json.dumps(
            {"jsonrpc": "2.0", "id": 1, "method": "sendBundle", "params": [encoded, {"encoding": "base64"}]}
        )
        return str(self.rpc._result(self._post(payload, sending=True))["result"])

    @_counted
    def bundle_statuses(self, bundle_ids: list[str]) -> list[dict[str, Any] | None]:
        """getBundleStatuses, `MAX_STATUS_IDS` ids a query: per id, the landed bundle or None."""
        return self._chunked("getBundleStatuses", bundle_ids)

    @_counted
    def inflight_statuses(self, bundle_ids: list[str]) -> list[dict[str, Any] | None]:
        """getInflightBundleStatuses, `MAX_STATUS_IDS` ids a query: per id, its entry
        (`status` Pending | Landed | Failed | Invalid, `landed_slot`), or None."""
        return self._chunked("getInflightBundleStatuses", bundle_ids)

    def _chunked(self, method: str, bundle_ids: list[str]) -> list[dict[str, Any] | None]:
        out: list[dict[str, Any] | None] = []
        for start in range(0, len(bundle_ids), self.MAX_STATUS_IDS):
            chunk = bundle_ids[start : start + self.MAX_STATUS_IDS]
            value = self.call(method, [chunk])["value"] or []
            out.extend(list(value) + [None] * (len(chunk) - len(value)))
        return out


class TxEngine(BlockEngine):
    """A block engine's transaction endpoint (`BLOCK_ENGINE_TX_URL`; Jito's `sendTransaction` at
    `/api/v1/transactions`, docs.jito.wtf "Low Latency Transaction Send"). Jito always skips the
    preflight there, so a caller runs its own first (`partner.chain.tx.submit`).

    Whatever goes wrong here, the caller sends the same signed transaction through the RPC, so this
    client gives up sooner than the bundle client: a rate limit is waited out at most
    `RATE_LIMIT_BUDGET` seconds in all (`RATE_LIMIT_TRIES` tries), a connection at most
    `CONNECT_SECONDS`. Its failures are not `RpcUnavailable` (the write does not fail): the caller
    counts them as `TippedSendFallback`."""

    RATE_LIMIT_TRIES = 2
    RATE_LIMIT_BUDGET = 1.0
    CONNECT_SECONDS = 2.0
    TIMEOUT_SECONDS = 5.0

    def __init__(self, url: str, timeout: float | None = None) -> None:
        self.rpc = Rpc(url, self.TIMEOUT_SECONDS if timeout is None else timeout, connect=self.CONNECT_SECONDS)
        self.rpc.upstream = self.upstream

    def send_transaction(self, tx: Transaction | VersionedTransaction) -> Signature:
        """sendTransaction, base64. The engine's signature; `EndpointRateLimited` (after the retries) or
        `ApiError` rpc_unavailable, `RpcError` (a refusal: the tip, ...), or `Ambiguous` (it may
        have the transaction)."""
        payload = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "sendTransaction",
                "params": [base64.b64encode(bytes(tx)).decode(), {"encoding": "base64"}],
            }
        )
        result = self.rpc._result(self._post(payload, sending=True))["result"]
        try:
            return Signature.from_string(str(result))
        except ValueError as exc:
            raise unavailable("The block engine answered something that is not a signature.") from exc
