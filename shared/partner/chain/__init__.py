"""On-chain interface of the launchpad and pool programs (see docs/onchain.md).

Submodules: programs (ids, PDAs), layouts (accounts), instructions (builders),
curve / pool_math (quote math), errors (program error -> spec code).
"""

from .programs import LAUNCHPAD_PROGRAM_ID, POOL_PROGRAM_ID  # noqa: F401 - re-exported
