"""tools/sbf/link.py's SBPF v3 writer, the default of `make programs` (SIMD-0178 static syscalls,
SIMD-0189 strict ELF headers, SIMD-0377 callx in dst): the file's layout as sbpf's strict
parser reads it, the rewritten instructions, the linker's own refusals (which a v3 deploy no
longer makes), and the real BPF Loader Upgradeable under the project's feature set (mainnet +
SIMD-0500): v3 deploys, upgrades and finalizes, v0 is refused.

Small objects are compiled here from C with Debian's clang-22 (installed by `make programs`).
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from solders.pubkey import Pubkey

from tests.unit.test_sbf_link import PROGRAM, _patch_text, cc, elf, insn, symbols
from tools.sbf.link import MM_PROGRAM_START, SYSCALLS, LinkError, link, murmur3_32

CODE = MM_PROGRAM_START


@pytest.fixture
def linked(tmp_path):
    obj = cc(tmp_path, PROGRAM)
    return obj, link(obj)


def _segments(image: bytes) -> tuple[bytes, bytes]:
    """(rodata, code) as the loader maps them, from the program headers alone."""
    e = elf(image)
    ro, code = list(e.iter_segments())
    return tuple(image[s["p_offset"] : s["p_offset"] + s["p_filesz"]] for s in (ro, code))  # type: ignore[return-value]


def _calls(text: bytes) -> list[tuple[int, int, int]]:
    """(index, src, imm) of every `call`."""
    return [(i, insn(text, i)[2], insn(text, i)[4]) for i in range(len(text) // 8) if insn(text, i)[0] == 0x85]


# ------------------------------------------------------------------ the file


def test_murmur3_is_the_syscall_key():
    assert murmur3_32(b"sol_log_") == 0x207559BD  # sbf.md, from sbpf's own table
    assert murmur3_32(b"abort") == 0xB6FC1A11
    assert murmur3_32(b"sol_invoke_signed_c") == 0xA22B9C85


def test_header_as_the_strict_parser_reads_it(linked):
    _, r = linked
    img = r.image
    assert img[:8] == b"\x7fELF\x02\x01\x01\x00" and img[8:16] == bytes(8)  # 64-bit LSB, EV 1, OSABI 0, ABI 0
    e_type, machine, version, entry, phoff, shoff, flags, ehsize, phentsize, phnum = struct.unpack_from(
        "<HHIQQQIHHH", img, 16
    )
    assert (machine, version, flags, phoff, ehsize, phentsize, phnum) == (247, 1, 3, 64, 64, 56, 2)
    assert r.sbpf_version == 3 and entry == r.entry


def test_two_load_segments_rodata_at_zero_code_at_4gib(linked):
    _, r = linked
    e = elf(r.image)
    ro, code = list(e.iter_segments())
    assert [s["p_type"] for s in (ro, code)] == ["PT_LOAD", "PT_LOAD"]
    assert (ro["p_flags"], ro["p_vaddr"], ro["p_paddr"]) == (4, 0, 0)  # PF_R at MM_RODATA_START
    assert (code["p_flags"], code["p_vaddr"], code["p_paddr"]) == (1, CODE, CODE)  # PF_X at MM_BYTECODE_START
    assert ro["p_offset"] == 64 + 2 * 56 and code["p_offset"] == ro["p_offset"] + ro["p_filesz"]  # contiguous
    for s in (ro, code):
        assert s["p_filesz"] == s["p_memsz"] and s["p_offset"] % 8 == 0 and s["p_filesz"] % 8 == 0
    assert code["p_filesz"] == r.text_size


def test_no_dynamic_table_no_relocation_and_a_minimal_section_table(linked):
    _, r = linked
    e = elf(r.image)
    assert [s.name for s in e.iter_sections()] == ["", ".rodata", ".text", ".shstrtab"]
    assert all(s["p_type"] != "PT_DYNAMIC" for s in e.iter_segments())
    assert e.get_section_by_name(".text")["sh_addr"] == CODE and e.get_section_by_name(".rodata")["sh_addr"] == 0


def test_rodata_starts_with_padding_so_no_object_is_at_address_zero(linked):
    _, r = linked
    rodata, _ = _segments(r.image)
    assert rodata[:8] == bytes(8) and len(rodata) > 8


def test_entry_is_the_entrypoint_in_the_code_segment(linked):
    obj, r = linked
    e = elf(r.image)
    assert e["e_entry"] == CODE + symbols(obj)["entrypoint"] and e["e_entry"] % 8 == 0


# ------------------------------------------------------------------ instructions


def test_syscalls_are_static_calls_by_hash(linked):
    _, r = linked
    _, text = _segments(r.image)
    assert set(r.syscalls) == {"sol_log_", "sol_memcpy_", "sol_set_return_data", "abort"}
    by_hash = {murmur3_32(n.encode()): n for n in r.syscalls}
    static = [imm & 0xFFFF_FFFF for _, src, imm in _calls(text) if src == 0]
    assert len(static) == 5 and set(static) == set(by_hash)  # log, 2 memcpy, return data, trap
    assert all(imm != -1 for _, _, imm in _calls(text))


def test_internal_calls_have_source_1_and_are_pc_relative(linked):
    obj, r = linked
    _, text = _segments(r.image)
    internal = [(i, imm) for i, src, imm in _calls(text) if src == 1]
    assert internal and all(i + 1 + imm == symbols(obj)["triple"] // 8 for i, imm in internal)


def test_one_instruction_for_one_against_v0(linked):
    """From -mcpu=v2 objects v3 changes only call fields, address immediates and callx: same
    length, same opcodes, so no jump offset moves (sbf.md)."""
    obj, r = linked
    v0 = link(obj, sbpf_version=0)
    v0_text = elf(v0.image).get_section_by_name(".text").data()
    _, text = _segments(r.image)
    assert len(text) == len(v0_text)
    assert [text[i] for i in range(0, len(text), 8)] == [v0_text[i] for i in range(0, len(v0_text), 8)]
    jumps = [i for i in range(0, len(text), 8) if text[i] & 0x07 == 0x05 and text[i] not in (0x85, 0x8D, 0x95)]
    assert jumps and all(text[i : i + 8] == v0_text[i : i + 8] for i in jumps)


def test_addresses_resolve_to_the_v3_layout(linked):
    _, r = linked
    rodata, text = _segments(r.image)
    lddw = [i for i in range(len(text) // 8) if insn(text, i)[0] == 0x18]
    assert lddw
    for i in lddw:
        value = (insn(text, i)[4] & 0xFFFF_FFFF) | (insn(text, i + 1)[4] << 32)
        assert 8 <= value < len(rodata)  # rodata is mapped at 0, past the padding
    words = [struct.unpack_from("<Q", rodata, o)[0] for o in range(8, len(rodata) - 7, 8)]
    in_code = [w for w in words if CODE <= w < CODE + len(text)]
    in_ro = [w for w in words if 8 <= w < len(rodata)]
    assert len(in_code) == 2 and len(in_ro) == 2  # the function table and the string table
    assert {rodata[w : w + 5] for w in in_ro} == {b"alpha", b"beta!"}


def test_callx_keeps_its_register_in_dst(tmp_path, linked):
    obj, r = linked
    before = elf(obj).get_section_by_name(".text").data()
    regs = [insn(before, i)[1] for i in range(len(before) // 8) if insn(before, i)[0] == 0x8D]
    _, text = _segments(r.image)
    after = [insn(text, i) for i in range(len(text) // 8) if insn(text, i)[0] == 0x8D]
    assert regs and [(dst, imm) for _, dst, _, _, imm in after] == [(reg, 0) for reg in regs]


# ------------------------------------------------------------------ refusals


def test_unknown_syscall_refused_by_the_linker(tmp_path):
    """A v3 deploy no longer checks syscalls (an unknown hash deploys and fails when called:
    test_syscall_list_is_what_the_runtime_registers): the linker refuses the name."""
    src = r"""
    extern void sol_no_such_syscall(unsigned long);
    unsigned long entrypoint(const unsigned char *in) { sol_no_such_syscall(1); return 0; }
    """
    with pytest.raises(LinkError, match="sol_no_such_syscall.*not a syscall"):
        link(cc(tmp_path, src))
    assert "sol_log_" in SYSCALLS and "sol_alloc_free_" not in SYSCALLS


@pytest.mark.parametrize(
    "raw,match",
    [
        (struct.pack("<BBhi", 0x04, 0x01, 0, 1), "opcode not in SBPF v3"),  # add32 imm: SBPF sign-extends
        (struct.pack("<BBhi", 0x0C, 0x21, 0, 0), "opcode not in SBPF v3"),  # add32 reg
        (struct.pack("<BBhi", 0x14, 0x01, 0, 1), "opcode not in SBPF v3"),  # sub32 imm
        (struct.pack("<BBhi", 0x2C, 0x21, 0, 0), "opcode not in SBPF v3"),  # mul32 reg
        (struct.pack("<BBhi", 0xF7, 0x01, 0, 0), "opcode not in SBPF v3"),  # v2-only hor64
        (struct.pack("<BBhi", 0x86, 0x01, 0, 2), "opcode not in SBPF v3"),  # v2-only PQR (lmul32)
        (struct.pack("<BBhi", 0xDB, 0x21, 0, 0), "opcode not in SBPF v3"),  # atomic
        (struct.pack("<BBhi", 0xD7, 0x01, 0, 64), "opcode not in SBPF v3"),  # bswap64
        (struct.pack("<BBhi", 0x06, 0x00, 0, 0), "opcode not in SBPF v3"),  # gotol (jmp32 class ja)
        (struct.pack("<BBhi", 0x85, 0x00, 0, 0x1234), "unknown syscall hash"),
        (struct.pack("<BBhi", 0x85, 0x10, 0, -1), "itself"),
        (struct.pack("<BBhi", 0x8D, 0x0B, 0, 0), "destination register|callx register"),
        (struct.pack("<BBhi", 0x67, 0x01, 0, 64), "shift by 64"),
    ],
)
def test_instructions_v3_refuses(tmp_path, raw, match):
    obj = cc(tmp_path, "unsigned long entrypoint(void *in) { return 0; }")
    with pytest.raises(LinkError, match=match):
        link(_patch_text(obj, 0, raw))


def test_jmp32_is_taken_in_v3(tmp_path):
    """SIMD-0377's jmp32 class is v3 (v0 refuses it: test_sbf_link.py)."""
    obj = cc(tmp_path, "unsigned long entrypoint(void *in) { return 0; }")
    r = link(_patch_text(obj, 0, struct.pack("<BBhi", 0x16, 0x01, 0, 0)))  # jeq32 r1, 0, +0
    assert r.sbpf_version == 3


# ------------------------------------------------------------------ the loader's verdict


def test_loader_runs_the_linked_program(linked):
    from devstack.chain.deploy import deploy
    from tests.programs.svm import Svm, ix

    _, r = linked
    s = Svm()
    pid = Pubkey.new_unique()
    deploy(s.svm, r.image, pid, s.payer)
    o = s.send(ix(pid, bytes([1, 4, 7, 0]), []))
    assert o.ok, o.logs
    assert "Program log: beta!" in o.logs and struct.unpack("<Q", o.return_data)[0] == (7 ^ 77) + 4
    o = s.send(ix(pid, bytes([0, 4, 5, 0]), []))
    assert "Program log: alpha" in o.logs and struct.unpack("<Q", o.return_data)[0] == 16 + 1
    assert not s.send(ix(pid, bytes([0, 0, 0, 9]), [])).ok  # __bpf_trap -> abort


def _built(name: str, version: int, tmp: Path) -> bytes:
    from tools.sbf.build import build

    return build(name, out_dir=tmp / f"v{version}", sbpf_version=version).read_bytes()


@pytest.mark.parametrize("name", ["pool", "launchpad"])
def test_programs_deploy_upgrade_and_finalize_under_simd_0500(name, tmp_path):
    """Under the project's feature set (mainnet + SIMD-0500) the v3 build deploys, upgrades and
    finalizes through the real BPF Loader Upgradeable, and runs; the v0 build of the same
    sources is refused at deploy and at upgrade."""
    from devstack.chain.deploy import DeployError, deploy, finalize, programdata_address, upgrade
    from devstack.chain.features import DISABLE_SBPF_V0_V1_V2_DEPLOYMENT, feature_set
    from tests.programs.svm import Svm, ix

    assert feature_set().is_active(DISABLE_SBPF_V0_V1_V2_DEPLOYMENT)
    v3, v0 = _built(name, 3, tmp_path), _built(name, 0, tmp_path)
    assert v3[48:52] == struct.pack("<I", 3) and v0[48:52] == struct.pack("<I", 0)  # e_flags
    s = Svm()
    authority = s.funded()

    with pytest.raises(DeployError, match="InvalidAccountData"):
        deploy(s.svm, v0, Pubkey.new_unique(), s.payer)

    pid = Pubkey.new_unique()
    deploy(s.svm, v3, pid, s.payer, upgrade_authority=authority, max_data_len=len(v0) + 4096)
    s.svm.warp_to_slot(s.svm.get_clock().slot + 1)
    first = s.send(ix(pid, b"\xff" * 8, []))  # no such instruction: the program's own error
    assert not first.ok and first.custom is not None and f"Program {pid} consumed" in "\n".join(first.logs)

    with pytest.raises(DeployError, match="InvalidAccountData"):
        upgrade(s.svm, v0, pid, authority)
    upgrade(s.svm, v3, pid, authority)
    s.svm.warp_to_slot(s.svm.get_clock().slot + 1)
    assert s.send(ix(pid, b"\xfe" * 8, [])).custom == first.custom

    finalize(s.svm, pid, authority)
    programdata = bytes(s.account(programdata_address(pid)).data)
    assert programdata[12] == 0  # upgrade authority: None
    with pytest.raises(DeployError, match="Immutable|IncorrectAuthority|immutable"):
        upgrade(s.svm, v3, pid, authority)
    s.svm.warp_to_slot(s.svm.get_clock().slot + 1)
    assert s.send(ix(pid, b"\xfd" * 8, [])).custom == first.custom


def test_v0_deploys_before_simd_0500(tmp_path):
    """The refusal above is SIMD-0500's: without it the same loader takes a v0 file."""
    from solders.litesvm import LiteSVM

    from devstack.chain.deploy import deploy
    from tests.programs.svm import Svm

    v0 = _built("pool", 0, tmp_path)
    s = Svm(LiteSVM().with_feature_set(LiteSVM.mainnet_feature_set()))
    pid = Pubkey.new_unique()
    deploy(s.svm, v0, pid, s.payer)
    assert s.account(pid).executable


# names the runtime does not dispatch under the project's feature set: features mainnet has
# not activated (big_mod_exp, remaining_compute_units, blake3), the fees sysvar it turned off
NOT_REGISTERED = ["sol_big_mod_exp", "sol_remaining_compute_units", "sol_blake3", "sol_get_fees_sysvar"]


def test_syscall_list_is_what_the_runtime_registers(tmp_path):
    """tools.sbf.link.SYSCALLS against the runtime itself (a v3 deploy checks nothing): a
    program calling each name, with zero arguments, is dispatched to the syscall (it returns,
    panics, or refuses its arguments), while a name the runtime lacks fails as an unsupported
    instruction. `sol_alloc_free_` runs but is left out: Agave keeps it from new deployments."""
    from devstack.chain.deploy import deploy
    from tests.programs.svm import Svm, ix

    src = """
    extern void sol_log_(const char *, unsigned long);
    unsigned long entrypoint(void *in) { sol_log_(0, 0); return 0; }
    """
    image = link(cc(tmp_path, src)).image
    code = list(elf(image).iter_segments())[1]
    text = image[code["p_offset"] : code["p_offset"] + code["p_filesz"]]
    (call,) = [i for i in range(len(text) // 8) if insn(text, i)[0] == 0x85]  # sol_log_'s
    s = Svm()

    def failure(name: str) -> str:
        patched = bytearray(image)
        struct.pack_into("<I", patched, code["p_offset"] + 8 * call + 4, murmur3_32(name.encode()))
        pid = Pubkey.new_unique()
        deploy(s.svm, bytes(patched), pid, s.payer)
        s.svm.warp_to_slot(s.svm.get_clock().slot + 1)
        o = s.send(ix(pid, b"", []))
        return "" if o.ok else o.logs[-1]

    unsupported = "failed: unsupported BPF instruction"
    assert {n for n in SYSCALLS if unsupported in failure(n)} == set()
    assert [n for n in NOT_REGISTERED + ["sol_no_such_syscall"] if unsupported not in failure(n)] == []
    assert not set(NOT_REGISTERED) & SYSCALLS and "sol_alloc_free_" not in SYSCALLS


def test_alloc_free_is_kept_from_new_deployments(tmp_path):
    """Why SYSCALLS leaves out `sol_alloc_free_` although a v3 call to it runs: the loader's
    deploy environment lacks it, as a v0 deploy shows (v3 deploys check no names)."""
    from devstack.chain.deploy import DeployError, deploy
    from tests.programs.svm import Svm
    from tests.unit.test_sbf_link import pre_simd0500

    src = """
    extern unsigned long sol_alloc_free_(unsigned long, unsigned long);
    unsigned long entrypoint(void *in) { return sol_alloc_free_(8, 0) ? 0 : 1; }
    """
    with pytest.raises(LinkError, match="sol_alloc_free_.*not a syscall"):
        link(cc(tmp_path, src))
    s = Svm(pre_simd0500())
    with pytest.raises(DeployError, match=r"Unresolved symbol \(sol_alloc_free_\)"):
        deploy(s.svm, link(cc(tmp_path, src), sbpf_version=0).image, Pubkey.new_unique(), s.payer)
