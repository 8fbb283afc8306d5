"""tools/sbf/link.py's SBPF v0 writer (`sbpf_version=0`, kept to show what SIMD-0500 refuses
and for the size comparison): the relocatable BPF object -> SBPF v0 shared object rules
(layout, relocations, callx, aliases, refusals), the loader's own verdict through a real BPF
Loader Upgradeable deploy in a LiteSVM without SIMD-0500, and the reproducibility of
`make programs`. The v3 writer, the default, is tests/unit/test_sbf_link_v3.py's.

Small objects are compiled here from C with Debian's clang-22 (installed by `make programs`).
"""

from __future__ import annotations

import io
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile

from tools.sbf.link import MM_PROGRAM_START, LinkError, LinkResult, verify_v0
from tools.sbf.link import link as link_any


def link(obj: bytes, entry: str = "entrypoint") -> LinkResult:
    return link_any(obj, entry, sbpf_version=0)


def pre_simd0500():
    """A LiteSVM under mainnet's feature set as it is today: v0 still deploys there."""
    from solders.litesvm import LiteSVM

    return LiteSVM().with_feature_set(LiteSVM.mainnet_feature_set())


CLANG = [
    "clang-22",
    "-target",
    "bpf",
    "-O2",
    "-fno-builtin",
    "-ffreestanding",
    "-fno-stack-protector",
    "-mllvm",
    "-bpf-stack-size=4096",
    "-mllvm",
    "-bpf-disable-trap-unreachable",
    "-c",
]

PROGRAM = r"""
extern void sol_log_(const char *, unsigned long);
extern void sol_set_return_data(const unsigned char *, unsigned long);
void *memcpy(void *, const void *, unsigned long);
typedef unsigned long (*fn)(unsigned long);

__attribute__((noinline)) unsigned long triple(unsigned long x) { return 3 * x + 1; }
__attribute__((noinline)) static unsigned long flip(unsigned long x) { return x ^ 77; }
static const fn table[2] = { triple, flip };
static const char *const names[2] = { "alpha", "beta!" };

/* input with no accounts: u64 0, u64 data_len, data */
unsigned long entrypoint(const unsigned char *in) {
    const unsigned char *data = in + 16;
    unsigned long i = data[0] & 1;
    sol_log_(names[i], 5);
    unsigned char buf[64];
    memcpy(buf, data, data[1]);
    unsigned long r = table[i](data[2]) + triple(i);
    memcpy(buf, &r, 8);
    sol_set_return_data(buf, 8);
    if (data[3] == 9) __builtin_trap();
    return 0;
}
"""


def cc(tmp_path: Path, src: str, *flags: str, cpu: str = "v2") -> bytes:
    c = tmp_path / "prog.c"
    c.write_text(src)
    out = tmp_path / "prog.o"
    subprocess.run([*CLANG, f"-mcpu={cpu}", *flags, str(c), "-o", str(out)], check=True, capture_output=True)
    return out.read_bytes()


def elf(image: bytes) -> ELFFile:
    return ELFFile(io.BytesIO(image))


def insn(text: bytes, i: int) -> tuple[int, int, int, int, int]:
    opc, regs, off, imm = struct.unpack_from("<BBhi", text, 8 * i)
    return opc, regs & 15, regs >> 4, off, imm


def symbols(obj: bytes) -> dict[str, int]:
    return {s.name: s["st_value"] for s in elf(obj).get_section_by_name(".symtab").iter_symbols() if s.name}


@pytest.fixture(scope="module", autouse=True)
def _toolchain():
    if not shutil.which("clang-22"):
        pytest.fail("clang-22 missing: run `make programs` (installs Debian's LLVM 22)")


@pytest.fixture
def linked(tmp_path):
    obj = cc(tmp_path, PROGRAM)
    return obj, link(obj)


# ------------------------------------------------------------------ layout


def test_header_and_sections(linked):
    _, r = linked
    e = elf(r.image)
    assert e["e_type"] == "ET_DYN" and e["e_machine"] == "EM_BPF" and e["e_flags"] == 0
    assert e.elfclass == 64 and e.little_endian
    names = [s.name for s in e.iter_sections()]
    assert names == ["", ".text", ".rodata", ".dynamic", ".dynsym", ".dynstr", ".rel.dyn", ".shstrtab"]
    offsets = []
    for s in e.iter_sections():
        if s["sh_flags"] & 2:  # SHF_ALLOC: loaded at offset == vaddr
            assert s["sh_addr"] == s["sh_offset"], s.name
            assert s["sh_offset"] % max(s["sh_addralign"], 1) == 0
        if s.name:
            offsets.append(s["sh_offset"])
    assert offsets == sorted(offsets)  # the loader wants them in file order
    assert [p["p_type"] for p in e.iter_segments()] == ["PT_LOAD", "PT_LOAD", "PT_DYNAMIC"]
    text = e.get_section_by_name(".text")
    load = next(e.iter_segments())
    assert load["p_offset"] == load["p_vaddr"] == text["sh_addr"]
    dyn = e.get_section_by_name(".dynamic")
    tags = {t.entry.d_tag: t.entry.d_val for t in dyn.iter_tags()}
    assert tags["DT_SYMTAB"] == e.get_section_by_name(".dynsym")["sh_addr"]
    assert tags["DT_STRTAB"] == e.get_section_by_name(".dynstr")["sh_addr"]
    assert tags["DT_REL"] == e.get_section_by_name(".rel.dyn")["sh_addr"]
    assert tags["DT_RELSZ"] == e.get_section_by_name(".rel.dyn")["sh_size"] and tags["DT_RELENT"] == 16


def test_entry_is_the_entrypoint_symbol(linked):
    obj, r = linked
    e = elf(r.image)
    assert e["e_entry"] == e.get_section_by_name(".text")["sh_addr"] + symbols(obj)["entrypoint"]
    assert r.entry == e["e_entry"]


def test_no_entrypoint_refused(tmp_path):
    with pytest.raises(LinkError, match="entrypoint"):
        link(cc(tmp_path, "unsigned long main2(void) { return 0; }"))


# ------------------------------------------------------------------ relocations


def _text(image: bytes) -> tuple[int, bytes]:
    t = elf(image).get_section_by_name(".text")
    return t["sh_addr"], t.data()


def test_syscalls_are_dynamic_relocations_with_imm_minus_one(linked):
    _, r = linked
    e = elf(r.image)
    base, text = _text(r.image)
    dynsym = [s.name for s in e.get_section_by_name(".dynsym").iter_symbols()]
    assert dynsym[0] == ""
    assert set(dynsym[1:]) == {"sol_log_", "sol_memcpy_", "sol_set_return_data", "abort"}
    rels = list(e.get_section_by_name(".rel.dyn").iter_relocations())
    assert len(rels) == 5  # log, 2 memcpy, return data, trap
    for rel in rels:
        assert rel["r_info_type"] == 10  # R_BPF_64_32
        opc, _, _, _, imm = insn(text, (rel["r_offset"] - base) // 8)
        assert (opc, imm) == (0x85, -1)
    # every call with imm -1 has its relocation (else the loader would take it for a pc-relative call)
    calls = {base + 8 * i for i in range(len(text) // 8) if insn(text, i)[0] == 0x85 and insn(text, i)[4] == -1}
    assert calls == {rel["r_offset"] for rel in rels}


def test_c_library_names_become_syscalls(linked):
    obj, r = linked
    undefined = {
        s.name
        for s in elf(obj).get_section_by_name(".symtab").iter_symbols()
        if s["st_shndx"] == "SHN_UNDEF" and s.name
    }
    assert {"memcpy", "__bpf_trap"} <= undefined
    assert "memcpy" not in r.syscalls and "__bpf_trap" not in r.syscalls
    assert {"sol_memcpy_", "abort"} <= set(r.syscalls)


def test_internal_calls_are_pc_relative(linked):
    obj, r = linked
    base, text = _text(r.image)
    target = symbols(obj)["triple"]  # offset in .text (one text section)
    rel_calls = [
        (i, insn(text, i)[4]) for i in range(len(text) // 8) if insn(text, i)[0] == 0x85 and insn(text, i)[4] != -1
    ]
    assert rel_calls, "no internal call found"
    assert all(i + 1 + imm == target // 8 for i, imm in rel_calls)


def test_function_sections_calls_and_pointers(tmp_path):
    """With one section per function, calls go through relocations against other sections."""
    obj = cc(tmp_path, PROGRAM, "-ffunction-sections", "-fdata-sections")
    r = link(obj)
    e = elf(r.image)
    base, text = _text(r.image)
    # triple is placed at some offset; the pc-relative call must land on its first instruction
    # (r0 = r1 ... r0 *= 3): find it by its body
    body = bytes.fromhex("bf100000000000002700000003000000")
    at = text.find(body)
    assert at >= 0 and at % 8 == 0
    calls = [i for i in range(len(text) // 8) if insn(text, i)[0] == 0x85 and insn(text, i)[4] != -1]
    assert calls and all(i + 1 + insn(text, i)[4] == at // 8 for i in calls)
    # the function table: `triple` by its own symbol, the static `flip` by its section's
    # symbol; both must point at their code
    flip = text.find(bytes.fromhex("bf10000000000000a70000004d000000"))
    assert flip >= 0 and flip % 8 == 0
    ro = e.get_section_by_name(".rodata")
    words = {struct.unpack_from("<Q", ro.data(), o)[0] for o in range(0, ro["sh_size"] - 7, 8)}
    assert {MM_PROGRAM_START + base + at, MM_PROGRAM_START + base + flip} <= words


def test_lddw_and_rodata_pointers_resolve_to_program_addresses(linked):
    _, r = linked
    e = elf(r.image)
    base, text = _text(r.image)
    ro = e.get_section_by_name(".rodata")
    lo, hi = ro["sh_addr"], ro["sh_addr"] + ro["sh_size"]
    lddw = [i for i in range(len(text) // 8) if insn(text, i)[0] == 0x18]
    assert lddw
    for i in lddw:
        value = (insn(text, i)[4] & 0xFFFF_FFFF) | (insn(text, i + 1)[4] << 32)
        assert MM_PROGRAM_START + lo <= value < MM_PROGRAM_START + hi
    # the rodata tables: two function pointers into .text, two string pointers into .rodata
    words = [struct.unpack_from("<Q", ro.data(), o)[0] for o in range(0, ro["sh_size"] - 7, 8)]
    in_text = [w for w in words if MM_PROGRAM_START + base <= w < MM_PROGRAM_START + base + len(text)]
    in_ro = [w for w in words if MM_PROGRAM_START + lo <= w < MM_PROGRAM_START + hi]
    assert len(in_text) == 2 and len(in_ro) == 2
    strings = {ro.data()[w - MM_PROGRAM_START - lo : w - MM_PROGRAM_START - lo + 5] for w in in_ro}
    assert strings == {b"alpha", b"beta!"}  # the section-symbol addend is kept


def test_callx_register_moves_to_imm(tmp_path, linked):
    obj, r = linked
    e_obj = elf(obj).get_section_by_name(".text").data()
    before = [insn(e_obj, i) for i in range(len(e_obj) // 8) if insn(e_obj, i)[0] == 0x8D]
    assert before and all(dst != 0 and imm == 0 for _, dst, _, _, imm in before)  # LLVM: register in dst
    _, text = _text(r.image)
    after = [insn(text, i) for i in range(len(text) // 8) if insn(text, i)[0] == 0x8D]
    assert [(dst, imm) for _, dst, _, _, imm in after] == [(0, b[1]) for b in before]


def test_data_rel_ro_is_merged_into_rodata(tmp_path):
    src = r"""
    unsigned long one(void) { return 1; }
    unsigned long two(void) { return 2; }
    typedef unsigned long (*fn)(void);
    __attribute__((section(".data.rel.ro.table"))) const fn table[2] = { one, two };
    unsigned long entrypoint(const unsigned char *in) { return table[in[16] & 1](); }
    """
    obj = cc(tmp_path, src)
    assert ".data.rel.ro.table" in [s.name for s in elf(obj).iter_sections()]
    r = link(obj)
    e = elf(r.image)
    ro = e.get_section_by_name(".rodata")
    base, text = _text(r.image)
    words = [struct.unpack_from("<Q", ro.data(), o)[0] for o in range(0, ro["sh_size"] - 7, 8)]
    assert sorted(words) == sorted(MM_PROGRAM_START + base + symbols(obj)[n] for n in ("one", "two"))


# ------------------------------------------------------------------ refusals


@pytest.mark.parametrize(
    "src,section",
    [
        ("int counter = 5; unsigned long entrypoint(void *in) { return ++counter; }", ".data"),
        ("int counter; unsigned long entrypoint(void *in) { return ++counter; }", ".bss"),
    ],
)
def test_writable_globals_refused(tmp_path, src, section):
    with pytest.raises(LinkError, match=rf"writable section \{section}"):
        link(cc(tmp_path, src))


def test_v3_jmp32_refused(tmp_path):
    src = "unsigned long entrypoint(const unsigned char *in) { unsigned int a = in[0]; return a > 3 ? 1 : 2; }"
    obj = cc(tmp_path, src, cpu="v3")
    with pytest.raises(LinkError, match="opcode not in SBPF v0"):
        link(obj)
    link(cc(tmp_path, src, cpu="v2"))  # the same source at v2 links


def _patch_text(obj: bytes, index: int, new: bytes) -> bytes:
    t = elf(obj).get_section_by_name(".text")
    at = t["sh_offset"] + 8 * index
    return obj[:at] + new + obj[at + len(new) :]


@pytest.mark.parametrize(
    "raw,match",
    [
        (struct.pack("<BBhi", 0xD7, 0x01, 0, 0), "opcode not in SBPF v0"),  # v2-only hor64
        (struct.pack("<BBhi", 0x67, 0x01, 0, 64), "shift by 64"),
        (struct.pack("<BBhi", 0x37, 0x01, 0, 0), "division by an immediate zero"),
        (struct.pack("<BBhi", 0xB7, 0x0A, 0, 0), "destination register r10"),
        (struct.pack("<BBhi", 0x05, 0x00, 100, 0), "jump out of the code"),
        (struct.pack("<BBhi", 0xD4, 0x01, 0, 8), "endianness"),
        (struct.pack("<BBhi", 0x3F, 0x21, 1, 0), "non-zero offset"),  # v4 sdiv form
    ],
)
def test_instructions_the_v0_verifier_rejects(tmp_path, raw, match):
    obj = cc(tmp_path, "unsigned long entrypoint(void *in) { return 0; }")
    with pytest.raises(LinkError, match=match):
        link(_patch_text(obj, 0, raw))


def test_verify_v0_lddw_rules():
    lddw = struct.pack("<BBhi", 0x18, 0x01, 0, 1) + struct.pack("<BBhi", 0, 0, 0, 0)
    exit_ = struct.pack("<BBhi", 0x95, 0, 0, 0)
    verify_v0(lddw + exit_)
    with pytest.raises(LinkError, match="incomplete lddw"):
        verify_v0(lddw[:8] + exit_)
    with pytest.raises(LinkError, match="middle of an lddw"):
        verify_v0(struct.pack("<BBhi", 0x05, 0, 1, 0) + lddw + exit_)


def _patch_reloc_type(obj: bytes, section: str, new_type: int) -> bytes:
    e = elf(obj)
    rs = e.get_section_by_name(section)
    at = rs["sh_offset"]
    info = struct.unpack_from("<Q", obj, at + 8)[0]
    return obj[: at + 8] + struct.pack("<Q", (info & ~0xFFFFFFFF) | new_type) + obj[at + 16 :]


def test_unknown_relocation_refused(tmp_path):
    obj = cc(tmp_path, PROGRAM)
    with pytest.raises(LinkError, match="unsupported relocation type 3"):
        link(_patch_reloc_type(obj, ".rel.text", 3))
    with pytest.raises(LinkError, match="unsupported relocation type 77"):
        link(_patch_reloc_type(obj, ".rel.text", 77))


def test_memcmp_and_128_bit_libcalls_refused(tmp_path):
    src = r"""
    int memcmp(const void *, const void *, unsigned long);
    unsigned long entrypoint(const unsigned char *in) { return memcmp(in, in + 8, in[0]); }
    """
    with pytest.raises(LinkError, match="memcmp"):
        link(cc(tmp_path, src))


def test_not_an_object_refused():
    with pytest.raises(ELFError):
        link(b"\x7fELF" + bytes(60))


# ------------------------------------------------------------------ the loader's verdict


def test_loader_accepts_and_runs_the_linked_program(tmp_path, linked):
    from tests.programs.svm import Svm, ix

    _, r = linked
    s = Svm(pre_simd0500())
    from solders.pubkey import Pubkey

    from devstack.chain.deploy import deploy

    pid = Pubkey.new_unique()
    deploy(s.svm, r.image, pid, s.payer)
    assert s.account(pid).executable
    # i = 1: flip(7) through the table, + triple(1) = (7 ^ 77) + 4
    o = s.send(ix(pid, bytes([1, 4, 7, 0]), []))
    assert o.ok, o.logs
    assert "Program log: beta!" in o.logs
    assert struct.unpack("<Q", o.return_data)[0] == (7 ^ 77) + 4
    o = s.send(ix(pid, bytes([0, 4, 5, 0]), []))
    assert "Program log: alpha" in o.logs and struct.unpack("<Q", o.return_data)[0] == 16 + 1
    trap = s.send(ix(pid, bytes([0, 0, 0, 9]), []))
    assert not trap.ok  # __bpf_trap -> abort


def test_loader_accepts_a_program_without_syscalls(tmp_path):
    """No syscall: an empty .rel.dyn and no DT_REL (the loader takes DT_RELSZ 0 as an error)."""
    from solders.pubkey import Pubkey

    from devstack.chain.deploy import deploy
    from tests.programs.svm import Svm, ix

    r = link(cc(tmp_path, "unsigned long entrypoint(const unsigned char *in) { return in[16] == 5 ? 0 : 7; }"))
    e = elf(r.image)
    assert r.syscalls == [] and e.get_section_by_name(".rel.dyn")["sh_size"] == 0
    assert "DT_REL" not in {t.entry.d_tag for t in e.get_section_by_name(".dynamic").iter_tags()}
    s = Svm(pre_simd0500())
    pid = Pubkey.new_unique()
    deploy(s.svm, r.image, pid, s.payer)
    assert s.send(ix(pid, b"\x05", [])).ok
    assert s.send(ix(pid, b"\x06", [])).custom == 7


def test_loader_refuses_an_unknown_syscall_at_deploy(tmp_path):
    from solders.pubkey import Pubkey

    from devstack.chain.deploy import DeployError, deploy
    from tests.programs.svm import Svm

    src = r"""
    extern void sol_no_such_syscall(unsigned long);
    unsigned long entrypoint(const unsigned char *in) { sol_no_such_syscall(1); return 0; }
    """
    r = link(cc(tmp_path, src))
    assert r.syscalls == ["sol_no_such_syscall"]
    s = Svm(pre_simd0500())
    pid = Pubkey.new_unique()
    with pytest.raises(DeployError, match=r"Unresolved symbol \(sol_no_such_syscall\)"):
        deploy(s.svm, r.image, pid, s.payer)
    assert s.account(pid) is None
    # add_program, which skips the check, takes the same bytes: the deploy is the real test
    s.svm.add_program(pid, r.image)


# ------------------------------------------------------------------ reproducibility


def test_link_is_deterministic(tmp_path):
    obj = cc(tmp_path, PROGRAM)
    assert link(obj).image == link(obj).image


def test_build_is_reproducible(tmp_path):
    """The same sources give the same bytes: two clean builds of the pool program, and a
    build from a copy of the sources at another path (another clone), are identical."""
    import sys

    from tools.sbf.build import ROOT, build

    a = build("pool", force=True, out_dir=tmp_path / "a").read_bytes()
    b = build("pool", force=True, out_dir=tmp_path / "b").read_bytes()
    assert a == b and a[:4] == b"\x7fELF" and a[48:52] == struct.pack("<I", 3)  # e_flags: the default, SBPF v3
    clone = tmp_path / "elsewhere" / "clone"
    for part in ("tools", "programs/sdk", "programs/pool"):
        shutil.copytree(ROOT / part, clone / part, ignore=shutil.ignore_patterns("__pycache__", "out"))
    subprocess.run(
        [sys.executable, "-m", "tools.sbf.build", "pool", "--force", "--out", str(tmp_path / "c")],
        cwd=clone,
        check=True,
        capture_output=True,
    )
    assert (tmp_path / "c" / "pool.so").read_bytes() == a


# ------------------------------------------------------------------ the build's IR lowering

IR = """\
define internal fastcc void @wide(ptr dead_on_unwind noalias writable sret({ i64, [2 x i8] }) align 8 %0, i64 %1) unnamed_addr #1 {
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 1 %0, ptr noundef nonnull align 1 %2, i64 %1, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 8 dereferenceable(16) %0, ptr align 8 %2, i64 16, i1 false)
  call void @llvm.memset.p0.i64(ptr noundef nonnull align 1 dereferenceable(512) %0, i8 0, i64 512, i1 false)
  ret void
}
define i64 @entrypoint(ptr %0) {
  %r = alloca [16 x i8], align 8
  call fastcc void @wide(ptr noalias nonnull sret({ i64, [2 x i8] }) align 8 %r, i64 7)
  ret i64 0
}
"""


def test_build_lowers_ir_for_bpf():
    from tools.sbf.build import lower_mem_intrinsics

    out = lower_mem_intrinsics(IR)
    assert "sret" not in out
    assert "define internal fastcc void @wide(ptr dead_on_unwind noalias writable align 8 %0, i64 %1)" in out
    assert "call fastcc void @wide(ptr noalias nonnull align 8 %r, i64 7)" in out
    # a copy of runtime length and a 512-byte fill become syscalls; a 16-byte aligned copy stays inline
    assert "call void @sol_memcpy_(ptr noundef nonnull align 1 %0, ptr noundef nonnull align 1 %2, i64 %1)" in out
    assert "call void @sol_memset_(ptr noundef nonnull align 1 dereferenceable(512) %0, i8 0, i64 512)" in out
    assert (
        "@llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 8 dereferenceable(16) %0, ptr align 8 %2, i64 16, i1 false)"
        in out
    )
    assert "declare void @sol_memcpy_(ptr, ptr, i64)" in out and "declare void @sol_memset_(ptr, i8, i64)" in out


def test_build_refuses_overflow_checked_u64_multiply():
    from tools.sbf.build import BuildError, lower_mem_intrinsics

    ir = "define internal i64 @price(i64 %a, i64 %b) {\n  %m = call { i64, i1 } @llvm.umul.with.overflow.i64(i64 %a, i64 %b)\n  ret i64 0\n}\n"
    with pytest.raises(BuildError, match=r"price.*sdk::wide::checked_mul"):
        lower_mem_intrinsics(ir)
