"""The one send pipeline of every partner write (trades, governance writes, update-content, coin create).

A write does its own checks, then hands what it will send to `send`, which assembles, checks fee and
balance, runs `finish` and the added refusals, signs, records and submits, in that order, and with
several RPC endpoints keeps the write's slot for the user's next write (docs/writes.md,
"Writes: one send pipeline").
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from solders.hash import Hash
from solders.instruction import Instruction
from solders.message import Message
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.transaction import Transaction

from partner.chain import ports, units
from partner.chain import tx as T
from partner.chain.rpc import Ambiguous, BlockEngine, Rpc, RpcError, TxEngine, unavailable
from partner.chain.signer import Signer
from partner.core import observability
from partner.core.errors import ApiError
from partner.core.limits import TRADE_UNITS
from partner.core.principal import Principal
from partner.core.settings import get_settings
from partner.send import presend, txstatus
from partner.store import users

# ------------------------------------------------------------------ compute units

# Each transaction asks for the units its instructions take, as partner.chain.units models them
# (the programs' fixed units measured in LiteSVM, each bump search's tries from the keys, what the
# transaction creates from `Tx.hint`), with a margin of 5% plus 500 (docs/programs.md, "Compute
# units"). The fee estimate prices a trade at limits.TRADE_UNITS: the dearest trade's limit.
if units.limit(units.DEAREST_TRADE_UNITS) != TRADE_UNITS:
    raise RuntimeError("limits.TRADE_UNITS must equal the dearest trade's limit (units.DEAREST_TRADE_UNITS)")


def compute_unit_limit(tx: Tx) -> int:
    """The SetComputeUnitLimit of `tx`: the seam where the unit model goes. SetComputeUnitPrice
    spreads `priorityFeeLamports` over this limit."""
    trailer = [tx.memo] if tx.memo is not None else []
    transfers = (tx.partner_fee is not None and tx.partner_fee[1] > 0) + bool(tx.tip)
    return units.limit_for([*tx.instructions, *trailer], tx.hint, transfers)


# ------------------------------------------------------------------ what a write sends


@dataclass(frozen=True)
class Tx:
    """One transaction of a write, before assembly."""

    purpose: str  # what it is for (trade, first_buy, coin_create, propose_update_content, governance)
    instructions: Sequence[Instruction]  # the program's, in order
    signers: Sequence[Signer]  # the fee payer first
    fees: T.WriteFees
    partner_fee: tuple[Pubkey, int] | None = None
    tip: bool = True  # a transfer of `fees.tip_lamports` to a tip account (a launch's own transaction has none)
    memo: Instruction | None = None  # the request's unique memo (partner.chain.unique), last
    hint: units.Hint = units.Hint()  # what its units depend on beyond its instructions (created accounts, ...)

    @property
    def payer(self) -> Pubkey:
        return self.signers[0].pubkey


@dataclass(frozen=True)
class Funds:
    """What the payer must hold: `spend` (lamports the write moves besides the network fee: the
    venue's SOL, rent) plus each transaction's network fee; a sell's tip comes out of its proceeds."""

    available: int
    spend: int = 0
    tip_from_proceeds: bool = False


@dataclass(frozen=True)
class Added:
    """A check the API adds to the spec's; raises its ApiError to refuse (module docstring, step 3).
    `program=False` when the refusal is the program's own answer, already in the program's order
    (a dust amount: the programs refuse a trade that moves nothing with `invalid_input` themselves)."""

    check: Callable[[], object]
    program: bool = True


@dataclass(frozen=True)
class Write:
    kind: str  # the transaction record's kind (partner.store.txrecords.KINDS)
    mint: str | None
    txs: Sequence[Tx]  # one, or a bundle's in order
    blockhash: Hash
    last_valid_block_height: int
    funds: Funds | None = None  # None: no balance check (a launch: the program's own)
    # after the checks, before signing: the transactions to send instead (None: as they are)
    finish: Callable[[], Sequence[Tx] | None] | None = None
    added: Sequence[Added] = ()  # in order, after finish


@dataclass(frozen=True)
class Sent:
    signatures: tuple[str, ...]
    bundle_id: str | None = None

    @property
    def signature(self) -> str:
        return self.signatures[0]


# ------------------------------------------------------------------ holds


class Held:
    """What a write holds until it sends: `with Held() as held: held.add(release) ... send(..., held=held)`.

    Leaving the block with an exception gives everything back (last first) unless the send had
    started and did not end in a refusal that names no signature: then it may be in flight and
    stays held (a day's volume stays counted, a staged upload stays used)."""

    def __init__(self) -> None:
        self._releases: list[Callable[[], None]] = []
        self.in_flight = False

    def add(self, release: Callable[[], None]) -> None:
        self._releases.append(release)

    def __enter__(self) -> Held:
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        if exc is not None and not self.in_flight:
            while self._releases:
                self._releases.pop()()


def names_a_signature(exc: BaseException) -> bool:
    """Whether an error answers with the transaction(s) it sent: they may have reached the network."""
    return isinstance(exc, ApiError) and ("signature" in exc.extra or "signatures" in exc.extra)


# ------------------------------------------------------------------ delivery


class Delivery:
    """How the signed transactions go out. `send` returns the bundle id (or None)."""

    chain: Rpc  # the node that simulates (and, but for a bundle, takes) the transactions

    def send(self, txs: list[Transaction], last_valid_block_height: int) -> str | None:  # pragma: no cover
        raise NotImplementedError


def tx_engine() -> TxEngine | None:
    """The block engine's transaction endpoint (`BLOCK_ENGINE_TX_URL`), or None: sends go through the RPC."""
    url = get_settings().block_engine_tx_url.strip()
    return TxEngine(url) if url else None


@dataclass
class Submit(Delivery):
    """sendTransaction with preflight (trades, coin create without a first buy): `submitted`.
    `ambiguous`: fields a timeout after sending answers besides the signature (a launch's `mint`).
    `engine`: where a tipped transaction goes first (`partner.chain.tx.submit`; a write passes
    `tx_engine()`); None: the RPC only."""

    chain: Rpc
    ambiguous: dict[str, Any] = field(default_factory=dict)
    engine: TxEngine | None = None

    def send(self, txs: list[Transaction], last_valid_block_height: int) -> str | None:
        (tx,) = txs
        try:
            T.submit(self.chain, tx, self.engine)
        except ApiError as exc:
            if names_a_signature(exc):
                for name, value in self.ambiguous.items():
                    exc.extra.setdefault(name, value)
            raise
        return None


@dataclass
class Processed(Delivery):
    """Submit, then wait (bounded) for `processed` (governance writes).
    `engine`: as `Submit`'s."""

    chain: Rpc
    engine: TxEngine | None = None

    def send(self, txs: list[Transaction], last_valid_block_height: int) -> str | None:
        (tx,) = txs
        T.land_processed(self.chain, tx, last_valid_block_height, engine=self.engine)
        return None


# How long a launch bundle is followed after the engine accepted it: a block engine answers the
# bundle id at once and lands it later (Jito: `Pending`, then `Landed`, `Failed` or `Invalid`).
BUNDLE_WAIT_SECONDS = 8.0
BUNDLE_POLL_SECONDS = 0.5  # the engine lands in about a slot; its rate limit is 1 request a second


@dataclass
class Bundle(Delivery):
    """One all-or-nothing bundle to the block engine (a launch with its first buy). The bundle is
    recorded for the status endpoint, then followed for up to `BUNDLE_WAIT_SECONDS` while it is
    `Pending`: one the engine reports `Failed` or `Invalid` answers 422 tx_failed (nothing of it
    landed); one still pending after that is answered `submitted` (the status endpoint follows it)."""

    engine: BlockEngine
    chain: Rpc
    ambiguous: dict[str, Any] = field(default_factory=dict)

    def send(self, txs: list[Transaction], last_valid_block_height: int) -> str | None:
        signatures = [str(t.signatures[0]) for t in txs]
        sent = time.monotonic()
        try:
            bundle_id = self.engine.send_bundle(txs)
        except RpcError as exc:
            raise ApiError("tx_failed", f"The block engine rejected the bundle: {exc.message[:200]}") from exc
        except Ambiguous as exc:
            raise unavailable(
                "The block engine did not answer after the bundle was sent; it may still land.",
                signatures=signatures,
                **self.ambiguous,
                action="Check the signatures' status before resending.",
            ) from exc
        txstatus.record_bundle(bundle_id, signatures, last_valid_block_height=last_valid_block_height)
        if bundle_failed(self.engine, bundle_id, self.chain, signatures, wait=BUNDLE_WAIT_SECONDS, sent=sent):
            raise ApiError(
                "tx_failed",
                "The launch bundle failed; neither transaction landed.",
                **self.ambiguous,
                signatures=signatures,
                bundleId=bundle_id,
            )
        return bundle_id


def bundle_failed(
    engine: BlockEngine,
    bundle_id: str,
    chain: Rpc,
    signatures: list[str],
    *,
    wait: float = 0.0,
    sent: float | None = None,
) -> bool:
    """Whether the engine knows the bundle did not land (then nothing of it landed), following it
    for up to `wait` seconds while it is `Pending`. False when it landed, is still pending, or the
    engine cannot tell (unreachable, or rate limiting past its retries): the status endpoint follows it.
    `Failed` is final at once; `Invalid` (an id the engine does not hold) only once the bundle was
    sent `txstatus.INVALID_SETTLE_SECONDS` ago (`sent`: its time.monotonic(); None: long ago), as
    an engine may not have registered a bundle it just accepted.

    A bundle whose transactions the network already processed (this very bundle sent before, by a
    retry) may be reported `Failed` or `Invalid` although it landed: the transactions' own statuses
    tell the two apart, so that is never answered as a failure."""
    deadline = time.monotonic() + wait
    while True:
        try:
            found = engine.inflight_statuses([bundle_id])[0] or {}
        except (ApiError, RpcError, KeyError, IndexError, TypeError):
            return False
        status = found.get("status")
        settled = sent is None or time.monotonic() - sent >= txstatus.INVALID_SETTLE_SECONDS
        if status == "Failed" or (status == "Invalid" and settled):
            break
        if status not in ("Pending", "Invalid") or time.monotonic() + BUNDLE_POLL_SECONDS > deadline:
            return False
        time.sleep(BUNDLE_POLL_SECONDS)
    try:
        statuses = chain.signature_statuses([Signature.from_string(s) for s in signatures])
    except (ApiError, RpcError, KeyError, IndexError, TypeError, ValueError):
        return True
    return not all(s is not None and s.get("err") is None for s in statuses)


# ------------------------------------------------------------------ the pipeline


def assemble(tx: Tx, blockhash: Hash) -> Message:
    """Step 1 for one transaction (422 tx_too_large over 1232 bytes)."""
    return T.assemble(
        tx.payer,
        tx.instructions,
        fees=tx.fees,
        blockhash=blockhash,
        units=compute_unit_limit(tx),
        trailer=T.Trailer(tx.partner_fee, tx.tip, tx.memo),
    )


def required_lamports(funds: Funds, txs: Sequence[Tx], messages: Sequence[Message]) -> int:
    required = funds.spend + sum(T.network_fee(m, t.fees) for t, m in zip(txs, messages, strict=True))
    if funds.tip_from_proceeds:
        required -= sum(t.fees.tip_lamports for t in txs if t.tip)
    return required


def check_funds(funds: Funds, txs: Sequence[Tx], messages: Sequence[Message]) -> None:
    """Step 2: 422 insufficient_sol when the payer cannot cover the write."""
    required = required_lamports(funds, txs, messages)
    if funds.available < required:
        raise ApiError("insufficient_sol", requiredLamports=str(required), availableLamports=str(funds.available))


def program_answer(chain: Rpc, message: Message) -> ApiError | None:
    """What the network would answer `message` now, as the spec's error (the mapping a preflight
    failure gets): simulateTransaction of the unsigned transaction (sigVerify false, so nothing is
    signed for a write that may be refused); None when it would succeed or the node cannot tell."""
    encoded = base64.b64encode(bytes(Transaction.new_unsigned(message))).decode()
    try:
        result = chain.call(
            "simulateTransaction", [encoded, {"encoding": "base64", "sigVerify": False, "commitment": "processed"}]
        )
        err = result["value"].get("err")
    except (ApiError, RpcError, KeyError, TypeError, AttributeError):
        return None
    return None if err is None else T.map_failure(err, message)


def run_added(write: Write, delivery: Delivery, messages: Sequence[Message]) -> None:
    """The write's added checks (step 3). A refusal yields to the program's own answer, if any (for a
    bundle: its first transaction's, the one that stands alone)."""
    for added in write.added:
        try:
            added.check()
        except ApiError as refusal:
            answer = program_answer(delivery.chain, messages[0]) if added.program else None
            if answer is not None:
                raise answer from refusal
            raise


def send(
    principal: Principal,
    write: Write,
    delivery: Delivery,
    *,
    held: Held | None = None,
) -> Sent:
    """Assemble, check the funds, finish, sign (the port's signing step, partner.chain.ports), record
    and submit `write` (module docstring)."""
    txs = list(write.txs)
    messages = [assemble(t, write.blockhash) for t in txs]
    if write.funds is not None:
        check_funds(write.funds, txs, messages)
    if write.finish is not None:
        final = write.finish()
        if final is not None:
            txs = list(final)
            messages = [assemble(t, write.blockhash) for t in txs]
    run_added(write, delivery, messages)
    sign = ports.current().sign
    signed = [sign(m, t.signers) for t, m in zip(txs, messages, strict=True)]
    signatures = tuple(str(s.signatures[0]) for s in signed)
    presend.before_send(
        principal,
        presend.Outgoing(write.kind, signatures, write.mint, str(txs[0].payer), write.last_valid_block_height),
    )
    if held is not None:
        held.in_flight = True
    try:
        bundle_id = delivery.send(signed, write.last_valid_block_height)
    except ApiError as exc:
        if held is not None and not names_a_signature(exc):
            held.in_flight = False  # refused outright: nothing of it reached the network
        raise
    remember_slot(principal, delivery.chain)
    return Sent(signatures, bundle_id)


def reading_for(principal: Principal, chain: Rpc) -> Rpc:
    """`chain`, its DECIDE reads at the user's last write's slot or later (`remember_slot`)."""
    chain.min_context_slot = principal.user.write_slot or None
    return chain


def remember_slot(principal: Principal, chain: Rpc) -> None:
    """With several RPC endpoints, keep on the user's record the newest slot the write's reads and
    landing were answered at (`Rpc.seen_slot`): `reading_for` names it as the next write's
    `minContextSlot`, so an endpoint behind it is failed over instead of deciding on state that
    lacks this write. One endpoint needs none (`processed` there holds the user's last write), and
    costs no write. The write is done: a failure to keep the slot is logged, not answered."""
    if len(chain.urls) < 2 or chain.seen_slot <= principal.user.write_slot:
        return
    try:
        users.raise_write_slot(principal.user.user_id, chain.seen_slot)
    except ApiError:
        observability.logger.warning("the write's slot was not kept", extra={"slot": chain.seen_slot})
