"""Reference on-chain programs of the devstack chain: `launchpad` and `pool`.

``install(bank)`` registers both programs and writes the genesis accounts:
the launchpad global config (devstack defaults, design section 8) and the
fee recipient. The admin and fee recipient are fixed devstack keypairs
derived from public seeds (devstack only; never use them elsewhere).
"""
from __future__ import annotations

import hashlib

from solders.keypair import Keypair

from partner.chain import curve as C
from devstack.chain.legacy import layouts as L
from devstack.chain.legacy import programs as P

ADMIN_SEED = hashlib.sha256(b"devstack-launchpad-admin").digest()
FEE_RECIPIENT_SEED = hashlib.sha256(b"devstack-launchpad-fee").digest()
ADMIN_KEYPAIR = Keypair.from_seed(ADMIN_SEED)
FEE_RECIPIENT_KEYPAIR = Keypair.from_seed(FEE_RECIPIENT_SEED)
ADMIN = ADMIN_KEYPAIR.pubkey()                  # CKWmLcksqX4mbtjDiMnjbHmsbQQf2kf7Ani8BdmJsGXe
FEE_RECIPIENT = FEE_RECIPIENT_KEYPAIR.pubkey()  # 6DJ4jzgKgxtBsdw4qA4fETECKPNm6RBJRZ1sUnmPks1j

DEFAULT_PROTOCOL_FEE_BPS = 100
DEFAULT_WALLET_CAP_BPS = 10_000   # off
DEFAULT_POOL_OPEN_DELAY_SECONDS = 2


def genesis_global(**overrides) -> L.Global:
    g = L.Global(admin=ADMIN, fee_recipient=FEE_RECIPIENT, protocol_fee_bps=DEFAULT_PROTOCOL_FEE_BPS,
                 wallet_cap_bps=DEFAULT_WALLET_CAP_BPS, pool_open_delay_seconds=DEFAULT_POOL_OPEN_DELAY_SECONDS,
                 initial_virtual_token_reserves=C.INITIAL_VIRTUAL_TOKEN_RESERVES,
                 initial_virtual_sol_reserves=C.INITIAL_VIRTUAL_SOL_RESERVES,
                 initial_real_token_reserves=C.INITIAL_REAL_TOKEN_RESERVES, token_total_supply=C.TOKEN_TOTAL_SUPPLY,
                 bump=P.global_pda()[1])
    for k, v in overrides.items():
        setattr(g, k, v)
    return g


def install(bank, **global_overrides) -> None:
    from devstack.chain.runtime import register_program

    from . import launchpad, pool

    register_program(bank, P.LAUNCHPAD_PROGRAM_ID, launchpad.process)
    register_program(bank, P.POOL_PROGRAM_ID, pool.process)
    g = genesis_global(**global_overrides)
    bank.set_account(P.global_pda()[0], P.rent_exempt_minimum(L.Global.SIZE), g.encode(), P.LAUNCHPAD_PROGRAM_ID)
    bank.set_account(FEE_RECIPIENT, P.rent_exempt_minimum(0), b"", P.SYSTEM_PROGRAM_ID)
