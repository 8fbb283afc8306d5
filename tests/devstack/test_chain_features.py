"""The devstack chain runs mainnet's feature set plus SIMD-0500 (devstack.chain.features), so
what deploys on it deploys on mainnet before and after SIMD-0500's activation: its loader
refuses an SBPF v0 file, its genesis deploys the v3 programs through BPF Loader Upgradeable,
and every LiteSVM of the project is built in that one place."""

from __future__ import annotations

import ast
import struct

import pytest
from solders.instruction import Instruction
from solders.keypair import Keypair
from solders.pubkey import Pubkey

from devstack.chain.deploy import DeployError, deploy, programdata_address
from devstack.chain.svm import SvmBank
from tools.sbf.build import ROOT, build


def _run(bank: SvmBank, pid: Pubkey, payer: Keypair) -> str:
    """The error of an instruction no program knows (8 bytes of 0xff): the program's own."""
    from solders.message import Message
    from solders.transaction import Transaction
    from solders.transaction_metadata import FailedTransactionMetadata

    bank.svm.warp_to_slot(bank.svm.get_clock().slot + 1)
    msg = Message.new_with_blockhash([Instruction(pid, b"\xff" * 8, [])], payer.pubkey(), bank.svm.latest_blockhash())
    res = bank.svm.send_transaction(Transaction([payer], msg, bank.svm.latest_blockhash()))
    return str(res.err()) if isinstance(res, FailedTransactionMetadata) else "landed"


def test_devstack_bank_refuses_sbpf_v0_and_takes_v3(tmp_path):
    """SIMD-0500 active on the devstack chain: the v0 build of the pool is refused by the loader
    (`InvalidAccountData`), the v3 build deploys and runs (the pool's InvalidInput, 6000)."""
    bank = SvmBank()
    payer = Keypair()
    bank.svm.airdrop(payer.pubkey(), 100 * 10**9)
    v0 = build("pool", out_dir=tmp_path / "v0", sbpf_version=0).read_bytes()
    v3 = build("pool", out_dir=tmp_path / "v3", sbpf_version=3).read_bytes()
    with pytest.raises(DeployError, match="InvalidAccountData"):
        deploy(bank.svm, v0, Pubkey.new_unique(), payer)
    pid = Pubkey.new_unique()
    deploy(bank.svm, v3, pid, payer)
    assert "Custom(6000)" in _run(bank, pid, payer)


def test_genesis_programs_are_sbpf_v3_in_the_upgradeable_loader():
    """The devstack's genesis deploys `make programs`' files, SBPF v3 (e_flags 3), through the
    real loader: ProgramData holds exactly those bytes, under the devstack admin."""
    from devstack.chain import genesis as G
    from partner.chain import programs as P

    bank = SvmBank()
    G.install(bank)
    for name, pid in (("launchpad", P.LAUNCHPAD_PROGRAM_ID), ("pool", P.POOL_PROGRAM_ID)):
        so = G.program_files()[name].read_bytes()
        pd = bank.get_account(programdata_address(pid))
        assert pd is not None
        data = bytes(pd.data)
        assert data[12] == 1 and data[13:45] == bytes(G.ADMIN)  # upgrade authority
        assert data[45 : 45 + len(so)] == so and struct.unpack_from("<I", so, 48)[0] == 3  # e_flags: v3


def _calls_litesvm(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    return (isinstance(f, ast.Name) and f.id == "LiteSVM") or (isinstance(f, ast.Attribute) and f.attr == "LiteSVM")


def test_every_litesvm_is_built_by_devstack_chain_features():
    """One place builds the feature set: no module of the service, the devstack, the bench or
    the program tests constructs a LiteSVM itself (the SBF linker's tests do, on purpose, to
    show v0 deploying without SIMD-0500)."""
    allowed = {"devstack/chain/features.py", "tests/unit/test_sbf_link.py", "tests/unit/test_sbf_link_v3.py"}
    callers = set()
    for top in ("shared", "functions", "layers", "devstack", "bench", "tests", "tools"):
        for path in sorted((ROOT / top).rglob("*.py")):
            if any(_calls_litesvm(n) for n in ast.walk(ast.parse(path.read_bytes()))):
                callers.add(str(path.relative_to(ROOT)))
    assert "devstack/chain/features.py" in callers
    assert callers - allowed == set(), "build it with devstack.chain.features.new_litesvm()"
