"""The feature set every LiteSVM of the project runs with: mainnet's, plus SIMD-0500.

SIMD-0500 (`disable_sbpf_v0_v1_v2_deployment`) is merged in Agave and Firedancer and waits for
mainnet; once active, BPF Loader Upgradeable deploys, upgrades and finalizes only SBPF v3. With
it active here, what deploys on the devstack chain and in the program tests deploys on mainnet
before and after its activation. Not `FeatureSet.all_enabled()`: it also carries SIMD-0460
(`virtual_address_space_adjustments`), under which LiteSVM fails every program invoke
("Invalid memory region at index 4"), and features mainnet does not run.
"""

from __future__ import annotations

from solders.litesvm import FeatureSet, LiteSVM
from solders.pubkey import Pubkey

DISABLE_SBPF_V0_V1_V2_DEPLOYMENT = Pubkey.from_string("B8JJXCy5amZyWG9r7EnUYLwzXSXTxG7GZ1qZ1qggo83g")  # SIMD-0500
ACTIVATED = (DISABLE_SBPF_V0_V1_V2_DEPLOYMENT,)  # activated beyond mainnet's set, at slot 0


def feature_set() -> FeatureSet:
    """Mainnet's feature set with `ACTIVATED` active from slot 0."""
    fs = LiteSVM.mainnet_feature_set()
    for feature in ACTIVATED:
        fs.activate(feature, 0)
    return fs


def new_litesvm() -> LiteSVM:
    """A LiteSVM (its default programs and sysvars) under `feature_set()`."""
    return LiteSVM().with_feature_set(feature_set())
