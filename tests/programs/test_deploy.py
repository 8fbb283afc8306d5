"""devstack.chain.deploy: a .so deployed into LiteSVM through BPF Loader Upgradeable, at
a given program id, with a given upgrade authority."""

from __future__ import annotations

import struct

import pytest
from solders.keypair import Keypair
from solders.pubkey import Pubkey

from devstack.chain.deploy import LOADER_ID, DeployError, deploy, programdata_address
from tests.programs.svm import Svm, ix, program_so


def _programdata(s: Svm, pid: Pubkey) -> tuple[int, bytes | None, bytes]:
    """(slot, upgrade authority or None, program bytes) of ProgramData: u32 tag 3, u64 slot,
    Option<Pubkey>, then the program (45 bytes of metadata)."""
    d = s.data(programdata_address(pid))
    tag, slot = struct.unpack_from("<IQ", d, 0)
    assert tag == 3
    return slot, (d[13:45] if d[12] == 1 else None), d[45:]


@pytest.mark.parametrize("as_keypair", [False, True])
def test_deploy_at_an_id_with_an_upgrade_authority(as_keypair):
    s = Svm()
    so = program_so("sdk_smoke")
    authority = Keypair()
    program = Keypair() if as_keypair else Pubkey.new_unique()
    pid = program.pubkey() if as_keypair else program
    r = deploy(s.svm, so, program, s.payer, upgrade_authority=authority, max_data_len=len(so) + 1000)
    assert r.program_id == pid and r.size == len(so) and r.transactions == 2 + (len(so) + 899) // 900
    acc = s.account(pid)
    assert acc.executable and acc.owner == LOADER_ID
    assert bytes(acc.data) == struct.pack("<I", 2) + bytes(programdata_address(pid))
    _, auth, code = _programdata(s, pid)
    assert auth == bytes(authority.pubkey())
    assert code[: len(so)] == so and len(code) == len(so) + 1000
    assert s.send(ix(pid, b"\0", [])).ok


def test_deploy_refuses_an_existing_program():
    s = Svm()
    pid = Pubkey.new_unique()
    deploy(s.svm, program_so("sdk_smoke"), pid, s.payer)
    with pytest.raises(DeployError, match="already exists"):
        deploy(s.svm, program_so("sdk_smoke"), pid, s.payer)


def test_failed_deploy_leaves_no_program_account():
    s = Svm()
    pid = Pubkey.new_unique()
    with pytest.raises(DeployError, match="deploy"):
        deploy(s.svm, b"\x7fELF" + bytes(200), pid, s.payer)
    assert s.account(pid) is None or s.account(pid).lamports == 0


def test_upgrade_by_the_authority_only():
    from devstack.chain.deploy import upgrade

    s = Svm()
    authority = Keypair()
    s.svm.airdrop(authority.pubkey(), 10**10)
    pid = Pubkey.new_unique()
    pool = program_so("pool")
    deploy(s.svm, program_so("curve_signer"), pid, s.payer, upgrade_authority=authority, max_data_len=len(pool))
    s.svm.warp_to_slot(s.svm.get_clock().slot + 1)  # no upgrade in the deploy's own slot
    with pytest.raises(DeployError, match="Incorrect upgrade authority"):
        upgrade(s.svm, pool, pid, authority=Keypair(), payer=s.payer)
    assert upgrade(s.svm, pool, pid, authority=authority) > 1
    s.svm.warp_to_slot(s.svm.get_clock().slot + 1)
    _, auth, code = _programdata(s, pid)
    assert auth == bytes(authority.pubkey()) and code[: len(pool)] == pool
    o = s.send(ix(pid, b"\0" * 8, []))
    assert not o.ok and o.custom == 6000  # the pool's InvalidInput: the new code runs
