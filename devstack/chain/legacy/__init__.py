"""The Python chain engine's own view of its programs (devstack/chain/programs/): the
launchpad and pool as they were before the switch-over to the SBF programs, on SPL Token
with a separate CoinMetadata account. The service and the LiteSVM engine use
``partner.chain`` (Token-2022, metadata = the mint); the Python engine stays as a test
oracle of the programs' math and checks, and keeps these frozen interfaces:

* ``idl/*.json``: the pre-switch IDLs;
* ``idl``: LAUNCHPAD and POOL parsed from them;
* ``programs``: ``partner.chain.programs`` with SPL Token ATAs and ``metadata_pda``;
* ``layouts``: ``partner.chain.layouts`` plus ``CoinMetadata`` and the text limits;
* ``instructions``: the pre-switch builders.
"""
