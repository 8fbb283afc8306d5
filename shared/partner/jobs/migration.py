"""The migration crank: moves completed bonding curves into their pools.

One `getProgramAccounts` on the launchpad finds every curve that is complete and not
migrated; each gets its own `migrate` transaction (compute budget + migrate, no tip),
paid and signed by the service's crank wallet. The program refuses a second migrate
(`AlreadyMigrated`), so two cranks racing, or a crank re-run, only report it.
"""

from __future__ import annotations

import base64
import time
from dataclasses import dataclass
from typing import Any

from solders.hash import Hash
from solders.message import Message
from solders.pubkey import Pubkey
from solders.signature import Signature

from partner.chain import instructions as ix
from partner.chain import ports, units
from partner.chain import programs as P
from partner.chain.confirm import wait_for
from partner.chain.errors import ProgramErrorCode
from partner.chain.layouts import BondingCurve, LayoutError
from partner.chain.rpc import PREFLIGHT_FAILURE, Ambiguous, Rpc, RpcError
from partner.chain.signer import Signer
from partner.chain.tx import map_failure
from partner.core.errors import ApiError
from partner.store.users import get_user
from partner.store.wallets import SealedWalletSigner

CRANK_USER_ID = "service-crank"
PRIORITY_FEE_LAMPORTS = 10_000
COMPLETE_OFFSET, MIGRATED_OFFSET = 112, 113


def migrate_units(mint: Pubkey) -> int:
    """The crank's compute limit for `mint`: its migrate's units (partner.chain.units: a mint's
    bumps fix them, so a limit too small for one mint would fail on every retry) with the
    compute-budget instructions, and the service's margin."""
    return units.limit_for([ix.migrate(Pubkey.default(), mint)])


def _memcmp(offset: int, value: bytes) -> dict[str, Any]:
    return {"memcmp": {"offset": offset, "bytes": base64.b64encode(value).decode(), "encoding": "base64"}}


PENDING_CURVE_FILTERS = [
    {"dataSize": BondingCurve.SIZE},
    _memcmp(COMPLETE_OFFSET, b"\x01"),
    _memcmp(MIGRATED_OFFSET, b"\x00"),
]


def pending_mints(rpc: Rpc) -> list[Pubkey]:
    """Mints whose curve is complete and not migrated (one getProgramAccounts)."""
    found = rpc.call(
        "getProgramAccounts",
        [
            str(P.LAUNCHPAD_PROGRAM_ID),
            {"encoding": "base64", "filters": PENDING_CURVE_FILTERS, "commitment": "processed"},
        ],
    )
    mints = []
    for entry in found:
        try:
            curve = BondingCurve.decode(base64.b64decode(entry["account"]["data"][0]))
        except (LayoutError, ValueError, KeyError, IndexError, TypeError):
            continue
        if curve.complete and not curve.migrated and str(P.bonding_curve_pda(curve.mint)[0]) == entry["pubkey"]:
            mints.append(curve.mint)
    return mints


def _already_migrated(err: Any) -> bool:
    inner = err.get("InstructionError") if isinstance(err, dict) else None
    return (
        isinstance(inner, list | tuple)
        and len(inner) == 2
        and isinstance(inner[1], dict)
        and inner[1].get("Custom") == ProgramErrorCode.AlreadyMigrated
    )


def _outcome(mint: Pubkey, message: Message, err: Any, signature: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"mint": str(mint)}
    if _already_migrated(err):
        out["status"] = "already_migrated"
    elif err == "AlreadyProcessed":  # this very transaction (same blockhash) was sent before
        out["status"] = "duplicate"
    else:
        out["status"], out["error"] = "failed", map_failure(err, message).code
    if signature:
        out["signature"] = signature
    return out


@dataclass(frozen=True)
class _Attempt:
    mint: Pubkey
    message: Message
    signature: Signature | None = None  # set when the network may have it
    report: dict[str, Any] | None = None  # set when the outcome is already known


def _send(rpc: Rpc, payer: Signer, mint: Pubkey, blockhash: Hash) -> _Attempt:
    message = Message.new_with_blockhash(
        [*ix.compute_budget_instructions(PRIORITY_FEE_LAMPORTS, migrate_units(mint)), ix.migrate(payer.pubkey, mint)],
        payer.pubkey,
        blockhash,
    )
    try:
        tx = ports.current().sign(message, [payer])
        return _Attempt(mint, message, rpc.send_transaction(tx))
    except RpcError as exc:
        if exc.code == PREFLIGHT_FAILURE and isinstance(exc.data, dict):
            return _Attempt(mint, message, report=_outcome(mint, message, exc.data.get("err")))
        return _Attempt(mint, message, report={"mint": str(mint), "status": "failed", "error": "tx_failed"})
    except Ambiguous:
        return _Attempt(mint, message, tx.signatures[0])
    except ApiError as exc:  # signing (KMS) or transport, for this mint only
        return _Attempt(mint, message, report={"mint": str(mint), "status": "failed", "error": exc.code})


def _settle(rpc: Rpc, attempt: _Attempt, last_valid: int, deadline: float) -> dict[str, Any]:
    if attempt.report is not None:
        return attempt.report
    assert attempt.signature is not None
    signature = str(attempt.signature)
    try:
        status = wait_for(
            rpc, attempt.signature, timeout=max(0.0, deadline - time.monotonic()), last_valid_block_height=last_valid
        )
    except ApiError:
        status = None
    if status is None:
        return {"mint": str(attempt.mint), "status": "unconfirmed", "signature": signature}
    if status.get("err") is not None:
        return _outcome(attempt.mint, attempt.message, status["err"], signature)
    return {"mint": str(attempt.mint), "status": "migrated", "signature": signature}


def crank(rpc: Rpc, payer_signer: Signer, *, wait_seconds: float = 20.0) -> list[dict[str, Any]]:
    """Migrate every complete, unmigrated curve; one report per mint.

    Each report has `mint` and `status`: `migrated` (with `signature`), `already_migrated`
    (another crank won the race), `duplicate` (this same transaction was already sent), `failed`
    (with the mapped spec `error`), or `unconfirmed`
    (sent, not seen within the wait; the next run settles it). A failure for one mint never
    stops the others; only the lookup itself may raise (`rpc_unavailable`).
    """
    mints = pending_mints(rpc)
    if not mints:
        return []
    blockhash, last_valid = rpc.latest_blockhash()
    attempts = [_send(rpc, payer_signer, mint, blockhash) for mint in mints]
    deadline = time.monotonic() + wait_seconds
    return [_settle(rpc, attempt, last_valid, deadline) for attempt in attempts]


def summarize(reports: list[dict[str, Any]]) -> dict[str, Any]:
    counts: dict[str, int] = {}
    for report in reports:
        counts[report["status"]] = counts.get(report["status"], 0) + 1
    return {"found": len(reports), **counts, "results": reports}


def crank_signer() -> Signer:
    """The crank wallet's signer (the service wallet stored as user `service-crank`)."""
    user = get_user(CRANK_USER_ID)
    if user is None:
        raise LookupError(
            f"no crank wallet (user {CRANK_USER_ID}); create it with admin.create_crank_wallet "
            "(partnerctl dev crank-wallet)"
        )
    return SealedWalletSigner(user)


def run() -> dict[str, Any]:
    """One scheduled run with the configured RPC and the crank wallet; the summary."""
    return summarize(crank(ports.current().rpc(), crank_signer()))
