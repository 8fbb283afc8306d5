"""Write transactions: assembly, the 1232-byte limit, signing, submission, error mapping.

Every write is: SetComputeUnitLimit + SetComputeUnitPrice (derived from
priorityFeeLamports), the program instruction(s), the optional partner fee transfer,
and the tip transfer of tipLamports to one of the configured tip accounts.
"""

from __future__ import annotations

import base64
import secrets
import struct
from collections.abc import Sequence
from dataclasses import dataclass

from solders.hash import Hash
from solders.instruction import Instruction
from solders.message import Message
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.transaction import Transaction

from partner.chain import instructions as ix
from partner.chain.confirm import wait_for
from partner.chain.errors import spec_code_for_transaction_error
from partner.chain.programs import SYSTEM_PROGRAM_ID
from partner.chain.rpc import PREFLIGHT_FAILURE, Ambiguous, EndpointRateLimited, Rpc, RpcError, TxEngine, unavailable
from partner.chain.signer import Signer
from partner.core import observability
from partner.core.errors import ApiError

PACKET_DATA_SIZE = 1232
DEFAULT_UNITS = 200_000
# The public mainnet block-engine tip accounts (the devstack chain creates the same).
TIP_ACCOUNTS = tuple(
    Pubkey.from_string(s)
    for s in (
        "96gYZGLnJYVFmbjzopPSU6QiEV5fGqZNyN9nmNhvrZU5",
        "HFqU5x63VTqvQss8hp11i4wVV8bD44PvwucfZ2bU7gRe",
        "Cw8CFyM9FkoMi7K7Crf6HNQqf4uEMzpKw6QNghXLvLkY",
        "ADaUMid9yfUytqMBgopwjb2DTLSokTSzL1zt6iGPaS49",
        "DfXygSm4jCyNCybVYYK6DwvWqjKee8pbDmJGcLWNDXjh",
        "ADuUkR4vqLUMWXxW9gh6D6L8pMSawimctcNZ5pGwDcEt",
        "DttWaMuVvTiduZRnguLF7jNxTgiMBZ1hyAumKUiL2KRL",
        "3AVi9Tg9Uo68tJfuvoKvqKNWKkC5wPdSSdeBnizKZ6jT",
    )
)
BASE_FEE_PER_SIGNATURE = 5000


@dataclass(frozen=True)
class WriteFees:
    priority_fee_lamports: int
    tip_lamports: int


@dataclass(frozen=True)
class Trailer:
    """The instructions after the program's, in this order: the partner's fee transfer (wallet,
    lamports; none when absent or 0); the tip transfer of `fees.tip_lamports` (`tip`: True to a
    random tip account, a Pubkey to that one, False none: a launch's own transaction); the
    request's unique memo (partner.chain.unique)."""

    partner_fee: tuple[Pubkey, int] | None = None
    tip: bool | Pubkey = True
    memo: Instruction | None = None


def assemble(
    payer: Pubkey,
    program_ixs: Sequence[Instruction],
    *,
    fees: WriteFees,
    blockhash: Hash,
    units: int = DEFAULT_UNITS,
    trailer: Trailer = Trailer(),
) -> Message:
    instructions = list(ix.compute_budget_instructions(fees.priority_fee_lamports, units))
    instructions += program_ixs
    partner_fee = trailer.partner_fee
    if partner_fee and partner_fee[1] > 0:
        instructions.append(ix.partner_fee_transfer(payer, partner_fee[0], partner_fee[1]))
    if trailer.tip is not False:
        tip_account = secrets.choice(TIP_ACCOUNTS) if trailer.tip is True else trailer.tip
        instructions.append(ix.tip_transfer(payer, tip_account, fees.tip_lamports))
    if trailer.memo is not None:
        instructions.append(trailer.memo)
    return check_size(Message.new_with_blockhash(instructions, payer, blockhash))


def check_size(message: Message) -> Message:
    """The message, if its signed transaction fits Solana's 1232-byte packet; else 422 tx_too_large."""
    size = len(bytes(Transaction.new_unsigned(message)))
    if size > PACKET_DATA_SIZE:
        raise ApiError("tx_too_large", f"The transaction is {size} bytes; the limit is {PACKET_DATA_SIZE}.")
    return message


def sign(message: Message, signers: Sequence[Signer]) -> Transaction:
    """Sign with each required signer (wallet signers may call KMS)."""
    data = bytes(message)
    by_key = {s.pubkey: s for s in signers}
    required = message.account_keys[: message.header.num_required_signatures]
    signatures: list[Signature] = []
    for key in required:
        signer = by_key.get(key)
        if signer is None:
            raise ApiError("internal", "A required signer is missing.")
        signatures.append(signer.sign(data))
    return Transaction.populate(message, signatures)


def program_ids(message: Message) -> list[Pubkey]:
    return [message.account_keys[i.program_id_index] for i in message.instructions]


def map_failure(err: object, message: Message, logs: list[str] | None = None) -> ApiError:
    code = spec_code_for_transaction_error(err, program_ids(message)) or "tx_failed"
    return ApiError(code, retryable=None)


def already_processed(exc: RpcError) -> bool:
    """The network answered that it already holds this very transaction (the same signature)."""
    if isinstance(exc.data, dict) and exc.data.get("err") == "AlreadyProcessed":
        return True
    return "already been processed" in (exc.message or "").lower()


_TIPS = frozenset(TIP_ACCOUNTS)
_SYSTEM_TRANSFER = 2


def tip_paid(message: Message) -> int:
    """Lamports `message` pays the tip accounts by top-level System transfers (the service's own
    tip transfer, `ix.tip_transfer`)."""
    keys = message.account_keys
    paid = 0
    for inst in message.instructions:
        data, accounts = bytes(inst.data), bytes(inst.accounts)
        if keys[inst.program_id_index] != SYSTEM_PROGRAM_ID or len(data) < 12 or len(accounts) < 2:
            continue
        if struct.unpack_from("<I", data)[0] == _SYSTEM_TRANSFER and keys[accounts[1]] in _TIPS:
            paid += struct.unpack_from("<Q", data, 4)[0]
    return paid


def _fell_back(reason: str, signature: Signature, detail: str = "") -> bool:
    observability.count("TippedSendFallback", reason=reason)
    observability.logger.warning(
        "tipped send goes through the RPC",
        extra={"reason": reason, "signature": str(signature), "detail": detail[:200]},
    )
    return False


def via_engine(engine: TxEngine, rpc: Rpc, tx: Transaction) -> bool:
    """Send a tipped `tx` through the block engine's sendTransaction; True when the engine took it.

    The engine skips the preflight (Jito always does), so the preflight the RPC send would run runs
    first, as simulateTransaction at the same commitment (`processed`, signatures verified): if the
    program would refuse the transaction, False, and the RPC send's own preflight answers (the same
    answer as without an engine; nothing was sent). False too when the engine does not take it (a
    rate limit past the client's retries, 5xx, a transport error, a refusal such as the tip's, a
    timeout after sending): counted as `TippedSendFallback{reason}` and logged; the caller then
    sends the very same signed transaction through the RPC, so one signature lands at most once."""
    signature = tx.signatures[0]
    encoded = base64.b64encode(bytes(tx)).decode()
    try:
        value = rpc.call(
            "simulateTransaction", [encoded, {"encoding": "base64", "sigVerify": True, "commitment": "processed"}]
        )["value"]
        err = value.get("err")
    except (ApiError, RpcError, KeyError, TypeError, AttributeError) as exc:
        return _fell_back("preflight_unavailable", signature, type(exc).__name__)
    if err is not None:
        return False  # the RPC's preflight refuses it, with today's answer
    try:
        answered = engine.send_transaction(tx)
    except EndpointRateLimited:
        return _fell_back("rate_limited", signature)
    except ApiError as exc:
        return _fell_back("unavailable", signature, exc.message or "")
    except RpcError as exc:
        return _fell_back("refused", signature, f"{exc.code}: {exc.message}")
    except Ambiguous:
        return _fell_back("no_answer", signature)
    if answered != signature:
        return _fell_back("other_signature", signature, str(answered))
    observability.count("TippedSends", via="block_engine")
    return True


def submit(rpc: Rpc, tx: Transaction, engine: TxEngine | None = None) -> Signature:
    """sendTransaction with preflight. The network accepted it when this returns.

    `engine`: a transaction that pays a tip goes to the block engine first (`via_engine`); through
    the RPC, as below, when the engine did not take it.

    `AlreadyProcessed` is not a failure: the network already has this exact transaction (same
    bytes, same signature), so it was accepted, by an earlier send of it. Every write the service
    builds is unique per request (partner.chain.unique), so this is the same request's own send.
    """
    signature = tx.signatures[0]
    if engine is not None and tip_paid(tx.message) > 0 and via_engine(engine, rpc, tx):
        return signature
    try:
        return rpc.send_transaction(tx)
    except RpcError as exc:
        if already_processed(exc):
            return signature
        if exc.code == PREFLIGHT_FAILURE and isinstance(exc.data, dict):
            raise map_failure(exc.data.get("err"), tx.message, exc.data.get("logs")) from exc
        raise ApiError("tx_failed", f"The network rejected the transaction: {exc.message[:200]}") from exc
    except Ambiguous as exc:
        raise unavailable(
            "The network did not answer after the transaction was sent; it may still land. "
            "Reconcile on-chain with the signature before resending.",
            signature=str(signature),
            action="Check the signature's status before resending.",
        ) from exc


def network_fee(message: Message, fees: WriteFees) -> int:
    """Lamports the payer spends besides the program's own movements."""
    return (
        BASE_FEE_PER_SIGNATURE * message.header.num_required_signatures + fees.priority_fee_lamports + fees.tip_lamports
    )


def land_processed(
    rpc: Rpc, tx: Transaction, last_valid_block_height: int, timeout: float = 20.0, engine: TxEngine | None = None
) -> Signature:
    """Submit, then wait (bounded) until the transaction is `processed` (governance writes).

    Blockhash expiry first -> 422 tx_expired; landed with an error -> its mapped code
    (else tx_failed); the wait ran out -> 502 rpc_unavailable carrying the signature.
    """
    signature = submit(rpc, tx, engine)
    status = wait_for(
        rpc, signature, commitment="processed", timeout=timeout, last_valid_block_height=last_valid_block_height
    )
    if status is None:
        if rpc.block_height() > last_valid_block_height:
            raise ApiError("tx_expired", signature=str(signature))
        raise unavailable(
            "The transaction was sent but not seen processed in time; it may still land.",
            signature=str(signature),
            action="Check the signature's status before resending.",
        )
    if status.get("err") is not None:
        failure = map_failure(status["err"], tx.message)
        failure.extra["signature"] = str(signature)
        raise failure
    return signature
