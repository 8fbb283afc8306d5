"""Genesis of the devstack chain: the SBF programs deployed, the launchpad initialized (``install``, called
by ``start_chain``). The admin and fee-recipient keypairs derive from public seeds: devstack only.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from solders.keypair import Keypair
from solders.message import Message
from solders.system_program import TransferParams, transfer
from solders.transaction import VersionedTransaction

from partner.chain import governance_math as GM
from partner.chain import instructions as ix
from partner.chain import programs as P

from . import constants as C

ADMIN_KEYPAIR = Keypair.from_seed(hashlib.sha256(b"devstack-launchpad-admin").digest())
FEE_RECIPIENT_KEYPAIR = Keypair.from_seed(hashlib.sha256(b"devstack-launchpad-fee").digest())
ADMIN = ADMIN_KEYPAIR.pubkey()  # CKWmLcksqX4mbtjDiMnjbHmsbQQf2kf7Ani8BdmJsGXe
FEE_RECIPIENT = FEE_RECIPIENT_KEYPAIR.pubkey()  # 6DJ4jzgKgxtBsdw4qA4fETECKPNm6RBJRZ1sUnmPks1j

DEFAULT_PROTOCOL_FEE_BPS = 100
DEFAULT_WALLET_CAP_BPS = 10_000  # off
DEFAULT_POOL_OPEN_DELAY_SECONDS = 2

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS_OUT = Path(os.environ.get("DEVSTACK_PROGRAMS_OUT") or ROOT / "programs" / "out")
ADMIN_FUNDING = 100 * 10**9  # lamports: deploy rent of both programs and the admin's fees


class GenesisError(RuntimeError):
    """A genesis step failed (programs not built, a deploy or an instruction refused)."""


def program_files(out_dir: Path | None = None) -> dict[str, Path]:
    out = out_dir or PROGRAMS_OUT
    return {"launchpad": out / "launchpad.so", "pool": out / "pool.so"}


def _send(bank: Any, payer: Keypair, ixs: list, signers: list[Keypair], what: str) -> None:
    blockhash, _ = bank.latest_blockhash()
    msg = Message.new_with_blockhash(ixs, payer.pubkey(), blockhash)
    uniq = {payer.pubkey(): payer}
    for s in signers:
        uniq.setdefault(s.pubkey(), s)
    r = bank.process_transaction(VersionedTransaction(msg, list(uniq.values())))
    if r.err is not None:
        raise GenesisError(f"{what}: {r.err}\n" + "\n".join(r.logs))


def install(
    bank: Any,
    *,
    out_dir: Path | None = None,
    governance_params: GM.GovernanceParams | None = None,
    **global_overrides: Any,
) -> None:
    """Deploy the programs and write the launchpad's genesis state by real instructions.

    ``global_overrides``: initialize_global's arguments (fee_recipient, protocol_fee_bps, ...);
    ``governance_params``: sent by ``set_governance_params`` when given (otherwise the
    program's built-in defaults apply).

    1. deploys ``programs/out/launchpad.so`` and ``programs/out/pool.so`` (built by
       ``make programs``) through BPF Loader Upgradeable at the IDLs' program ids, with the
       devstack admin as upgrade authority (``devstack/chain/deploy.py``);
    2. advances the ledger one slot (a program deployed in slot N runs from slot N+1);
    3. sends ``initialize_global`` signed by the devstack admin with the devstack defaults,
       and funds the fee recipient (the protocol's treasury) with a real
       transfer. Tip accounts exist from the ledger's own genesis;
    4. marks all of it final: every commitment level (``finalized`` too) sees genesis at once.
    """
    files = program_files(out_dir)
    missing = [str(p) for p in files.values() if not p.is_file()]
    if missing:
        raise GenesisError(f"SBF programs not built ({', '.join(missing)}): run `make programs`")
    from .deploy import DeployError, deploy

    admin = ADMIN_KEYPAIR
    bank.set_account(admin.pubkey(), ADMIN_FUNDING, b"", C.SYSTEM_PROGRAM_ID)
    bank.sync_clock()
    try:
        deploy(bank.svm, files["launchpad"], P.LAUNCHPAD_PROGRAM_ID, payer=admin, upgrade_authority=admin)
        deploy(bank.svm, files["pool"], P.POOL_PROGRAM_ID, payer=admin, upgrade_authority=admin)
    except DeployError as e:
        raise GenesisError(f"deploy: {e}") from None
    bank.warp(C.SLOT_SECONDS)  # the programs run from the slot after their deployment
    args: dict[str, Any] = {
        "fee_recipient": FEE_RECIPIENT,
        "protocol_fee_bps": DEFAULT_PROTOCOL_FEE_BPS,
        "wallet_cap_bps": DEFAULT_WALLET_CAP_BPS,
        "pool_open_delay_seconds": DEFAULT_POOL_OPEN_DELAY_SECONDS,
    }
    args.update(global_overrides)
    fee_recipient = args["fee_recipient"]
    _send(
        bank,
        admin,
        [
            ix.initialize_global(admin.pubkey(), ix.GlobalParams(**args)),
            transfer(
                TransferParams(from_pubkey=admin.pubkey(), to_pubkey=fee_recipient, lamports=C.minimum_balance(0))
            ),
        ],
        [],
        "initialize_global",
    )
    if governance_params is not None:
        _send(bank, admin, [ix.set_governance_params(admin.pubkey(), governance_params)], [], "set_governance_params")
    bank.forget_changes()  # genesis is final: every commitment level sees it from the start
