"""Link a relocatable BPF object into the program file Solana's loader accepts: SBPF v3 by
default (static syscalls, no dynamic tables; what the loader deploys once SIMD-0500 is active),
SBPF v0 on request (`--sbpf-version 0`; the format that SIMD-0500 stops the loader deploying).

    python -m tools.sbf.link prog.o -o prog.so [--sbpf-version 0]

No linker on this machine writes that file, so the project owns this one; its rules are
programs/README.md's, "The linker". The output depends on the input bytes only: the build is reproducible.
"""

from __future__ import annotations

import argparse
import io
import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path

from elftools.elf.elffile import ELFFile
from elftools.elf.relocation import RelocationSection
from elftools.elf.sections import SymbolTableSection

MM_PROGRAM_START = 0x1_0000_0000  # v0: the whole file; v3: the code segment (MM_BYTECODE_START)
MM_RODATA_START = 0  # v3: the read-only segment
MM_REGION_SIZE = 0x1_0000_0000
SBPF_VERSIONS = (0, 3)
EM_BPF = 247
INSN = 8

R_BPF_NONE = 0
R_BPF_64_64 = 1
R_BPF_64_ABS64 = 2
R_BPF_64_ABS32 = 3
R_BPF_64_NODYLD32 = 4
R_BPF_64_32 = 10

SHF_WRITE, SHF_ALLOC, SHF_EXECINSTR, SHF_TLS = 0x1, 0x2, 0x4, 0x400

# names LLVM emits for what the runtime provides as syscalls
ALIASES = {
    "memcpy": "sol_memcpy_",
    "memmove": "sol_memmove_",
    "memset": "sol_memset_",
    "__bpf_trap": "abort",
}
# library calls with no syscall of the same shape: the program must define them
NOT_ALIASABLE = {
    "memcmp": "sol_memcmp_ takes (a, b, n, *result): define memcmp in the program (the SDK does)",
    "bcmp": "define bcmp in the program (the SDK does, over sol_memcmp_)",
    "__multi3": "no 128-bit multiply on BPF: use the SDK's hand-written wide math",
    "__udivti3": "no 128-bit divide on BPF: use the SDK's hand-written wide math",
    "__umodti3": "no 128-bit divide on BPF: use the SDK's hand-written wide math",
    "__divti3": "no 128-bit divide on BPF: use the SDK's hand-written wide math",
    "__modti3": "no 128-bit divide on BPF: use the SDK's hand-written wide math",
}


class LinkError(Exception):
    """The object cannot become a program the loader accepts; the message says why."""


# ---------------------------------------------------------------- syscalls

# The syscalls a program may call, by name: the functions Agave registers for SBPF programs
# (`syscalls/src/lib.rs`, `create_program_runtime_environment_v1`) under the project's feature
# set, mainnet's plus SIMD-0500 (devstack.chain.features): the feature-gated ones only where
# the feature is active there (so not `sol_big_mod_exp`, `sol_remaining_compute_units`,
# `sol_blake3`; `sol_get_fees_sysvar` is gated off), and not `sol_alloc_free_`, which Agave
# keeps from new deployments. A v3 `call` carries the murmur3 hash of the name, and since
# SIMD-0178 a deploy no longer checks it: an unknown hash deploys and then fails at run time
# ("unsupported BPF instruction"). The linker checks; tests/unit/test_sbf_link_v3.py checks
# this list against the runtime.
SYSCALLS = frozenset(
    {
        "abort",
        "sol_panic_",
        "sol_log_",
        "sol_log_64_",
        "sol_log_pubkey",
        "sol_log_compute_units_",
        "sol_log_data",
        "sol_create_program_address",
        "sol_try_find_program_address",
        "sol_sha256",
        "sol_keccak256",
        "sol_secp256k1_recover",
        "sol_curve_validate_point",
        "sol_curve_group_op",
        "sol_curve_multiscalar_mul",
        "sol_curve_decompress",
        "sol_curve_pairing_map",
        "sol_get_clock_sysvar",
        "sol_get_epoch_schedule_sysvar",
        "sol_get_rent_sysvar",
        "sol_get_last_restart_slot",
        "sol_get_epoch_rewards_sysvar",
        "sol_get_sysvar",
        "sol_get_epoch_stake",
        "sol_memcpy_",
        "sol_memmove_",
        "sol_memset_",
        "sol_memcmp_",
        "sol_get_processed_sibling_instruction",
        "sol_get_stack_height",
        "sol_set_return_data",
        "sol_get_return_data",
        "sol_invoke_signed_c",
        "sol_invoke_signed_rust",
        "sol_alt_bn128_group_op",
        "sol_alt_bn128_compression",
        "sol_poseidon",
    }
)


def murmur3_32(data: bytes, seed: int = 0) -> int:
    """MurmurHash3 x86 32-bit: the key of a syscall (`sol_log_` -> 0x207559bd)."""
    c1, c2, m = 0xCC9E2D51, 0x1B873593, 0xFFFFFFFF
    h = seed
    n = len(data) // 4 * 4
    for i in range(0, n, 4):
        k = int.from_bytes(data[i : i + 4], "little")
        k = (k * c1) & m
        k = ((k << 15) | (k >> 17)) & m
        h ^= (k * c2) & m
        h = ((h << 13) | (h >> 19)) & m
        h = (h * 5 + 0xE6546B64) & m
    tail = data[n:]
    if tail:
        k = int.from_bytes(tail, "little")
        k = (k * c1) & m
        k = ((k << 15) | (k >> 17)) & m
        h ^= (k * c2) & m
    h ^= len(data)
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & m
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & m
    h ^= h >> 16
    return h


# ---------------------------------------------------------------- verifier rules (sbpf's RequisiteVerifier)


def _opcodes(version: int) -> dict[int, str]:
    """opcode -> kind, exactly what sbpf's RequisiteVerifier takes for SBPF v0 or v3, less the
    32-bit add/sub/mul in v3 (SBPF sign-extends their result where eBPF zero-extends, so LLVM's
    code would compute something else; `-mcpu=v2` never emits them)."""
    ops: dict[int, str] = {0x18: "lddw"}
    for size in (0x00, 0x08, 0x10, 0x18):  # W, H, B, DW
        ops[0x61 | size] = "ldx"  # BPF_LDX | BPF_MEM
        ops[0x62 | size] = "st"  # BPF_ST  | BPF_MEM
        ops[0x63 | size] = "stx"  # BPF_STX | BPF_MEM
    alu = {
        0x00: "add",
        0x10: "sub",
        0x20: "mul",
        0x30: "div",
        0x40: "or",
        0x50: "and",
        0x60: "lsh",
        0x70: "rsh",
        0x90: "mod",
        0xA0: "xor",
        0xB0: "mov",
        0xC0: "arsh",
    }
    for cls, bits in ((0x04, 32), (0x07, 64)):
        for op, name in alu.items():
            if version >= 3 and bits == 32 and name in ("add", "sub", "mul"):
                continue
            ops[cls | op] = f"alu{bits}_{name}_imm"
            ops[cls | op | 0x08] = f"alu{bits}_{name}_reg"
        ops[cls | 0x80] = f"alu{bits}_neg"
    ops[0xD4] = "le"
    ops[0xDC] = "be"
    ops[0x05] = "ja"
    for op in (0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0xA0, 0xB0, 0xC0, 0xD0):
        ops[0x05 | op] = "jmp"
        ops[0x0D | op] = "jmp"
        if version >= 3:  # SIMD-0377: the jmp32 class
            ops[0x06 | op] = "jmp"
            ops[0x0E | op] = "jmp"
    ops[0x85] = "call"
    ops[0x8D] = "callx"
    ops[0x95] = "exit"
    return ops


OPCODES = {v: _opcodes(v) for v in SBPF_VERSIONS}
V0_OPCODES = OPCODES[0]


def _insn(text: bytes | bytearray, i: int) -> tuple[int, int, int, int, int]:
    opc, regs, off, imm = struct.unpack_from("<BBhi", text, i * INSN)
    return opc, regs & 0x0F, regs >> 4, off, imm


def verify(text: bytes | bytearray, version: int = 3) -> None:
    """Refuse what sbpf's verifier refuses for `version` (and ALU forms whose `off` changes
    their meaning in newer eBPF, e.g. sdiv/movsx, which SBPF would silently run as div/mov).
    For v3 also what its deploy-side LocalVerifier refuses: a syscall hash no syscall has, an
    internal call to itself."""
    opcodes = OPCODES[version]
    if len(text) % INSN:
        raise LinkError(".text length is not a multiple of 8")
    n = len(text) // INSN
    hashes = {murmur3_32(s.encode()) for s in SYSCALLS}
    i = 0
    while i < n:
        opc, dst, src, off, imm = _insn(text, i)
        kind = opcodes.get(opc)
        where = f"at instruction #{i} (opcode {opc:#04x})"
        if kind is None:
            raise LinkError(f"opcode not in SBPF v{version} {where}")
        if src > 10:
            raise LinkError(f"invalid source register {where}")
        store = kind in ("st", "stx")
        if dst > 10 or (dst == 10 and not store):
            raise LinkError(f"invalid destination register r{dst} {where}")
        if kind == "lddw":
            if i + 1 >= n or text[(i + 1) * INSN] != 0:
                raise LinkError(f"incomplete lddw {where}")
            i += 2
            continue
        if kind.startswith("alu"):
            if off != 0:
                raise LinkError(f"ALU instruction with a non-zero offset (not SBPF) {where}")
            bits = 32 if kind.startswith("alu32") else 64
            if kind.endswith(("lsh_imm", "rsh_imm", "arsh_imm")) and not 0 <= imm < bits:
                raise LinkError(f"shift by {imm} {where}")
            if kind.endswith(("div_imm", "mod_imm")) and imm == 0:
                raise LinkError(f"division by an immediate zero {where}")
        if kind in ("le", "be") and imm not in (16, 32, 64):
            raise LinkError(f"bad endianness width {imm} {where}")
        if kind in ("ja", "jmp"):
            target = i + 1 + off
            if not 0 <= target < n:
                raise LinkError(f"jump out of the code {where}")
            if text[target * INSN] == 0:
                raise LinkError(f"jump into the middle of an lddw {where}")
        if kind == "callx":
            reg = dst if version >= 3 else imm
            if not 0 <= reg < 10 or (version >= 3 and imm != 0):
                raise LinkError(f"callx register r{reg} {where}")
        if kind == "call" and version >= 3:
            if src == 0 and imm & 0xFFFF_FFFF not in hashes:
                raise LinkError(f"call of an unknown syscall hash {imm & 0xFFFF_FFFF:#010x} {where}")
            if src == 1 and (imm == -1 or not 0 <= i + 1 + imm < n):
                raise LinkError(f"internal call to itself or out of the code {where}")
            if src not in (0, 1):
                raise LinkError(f"call with source {src} {where}")
        i += 1


def verify_v0(text: bytes | bytearray) -> None:
    verify(text, 0)


# ---------------------------------------------------------------- reading the object


@dataclass
class _Placed:
    index: int  # section index in the object
    name: str
    out: str  # "text" or "rodata"
    offset: int = 0  # offset inside the output section


@dataclass
class _Out:
    data: bytearray = field(default_factory=bytearray)
    align: int = 8
    vaddr: int = 0


_RODATA_PAD = 8


def _align(n: int, a: int) -> int:
    return (n + a - 1) // a * a


def _classify(sec) -> str | None:
    """-> "text" / "rodata" / None (not loaded); LinkError for what v0 cannot load."""
    name, flags, size = sec.name, sec["sh_flags"], sec["sh_size"]
    if not flags & SHF_ALLOC:
        return None
    if name.startswith(".eh_frame"):
        return None  # unwinding tables: nothing reads them (panic=abort)
    if flags & SHF_TLS:
        if size:
            raise LinkError(f"thread-local section {name} is not supported")
        return None
    if sec["sh_type"] == "SHT_NOBITS" or name.startswith(".bss"):
        if size:
            raise LinkError(f"writable section {name} ({size} bytes): SBPF v0 has no writable globals; make them const")
        return None
    if flags & SHF_EXECINSTR:
        return "text"
    if name.startswith(".data.rel.ro"):
        return "rodata"
    if flags & SHF_WRITE:
        if size:
            raise LinkError(f"writable section {name} ({size} bytes): SBPF v0 has no writable globals; make them const")
        return None
    if sec["sh_type"] != "SHT_PROGBITS":
        return None
    return "rodata"


# ---------------------------------------------------------------- the link


@dataclass
class LinkResult:
    image: bytes
    text_size: int
    rodata_size: int
    syscalls: list[str]
    entry: int  # e_entry
    sbpf_version: int = 3


def link(obj: bytes, entry: str = "entrypoint", sbpf_version: int = 3) -> LinkResult:
    """`obj` (a relocatable BPF object) -> the program file, SBPF v3 (default) or v0."""
    if sbpf_version not in SBPF_VERSIONS:
        raise LinkError(f"SBPF v{sbpf_version} is not written (only {', '.join(map(str, SBPF_VERSIONS))})")
    v3 = sbpf_version >= 3
    elf = ELFFile(io.BytesIO(obj))
    if elf.elfclass != 64 or not elf.little_endian:
        raise LinkError("not a 64-bit little-endian ELF")
    if elf["e_machine"] not in ("EM_BPF", EM_BPF):
        raise LinkError(f"not a BPF object (e_machine {elf['e_machine']})")
    if elf["e_type"] != "ET_REL":
        raise LinkError(f"not a relocatable object ({elf['e_type']})")

    sections = list(elf.iter_sections())
    placed: dict[int, _Placed] = {}
    outs = {"text": _Out(), "rodata": _Out()}
    for idx, sec in enumerate(sections):
        kind = _classify(sec)
        if kind is None or sec["sh_size"] == 0:
            continue
        out = outs[kind]
        align = max(sec["sh_addralign"], 1)
        if kind == "text":
            if sec["sh_size"] % INSN:
                raise LinkError(f"{sec.name}: size is not a multiple of 8")
            align = max(align, INSN)
        out.align = max(out.align, align)
        start = _align(len(out.data), align)
        out.data.extend(b"\0" * (start - len(out.data)))
        out.data.extend(sec.data())
        placed[idx] = _Placed(idx, sec.name, kind, start)
    if not outs["text"].data:
        raise LinkError("no code")

    text = outs["text"]
    rodata = outs["rodata"]
    if v3:
        # rodata mapped at 0 (8 bytes of padding first, so that no object's address is 0: a Rust
        # Option<&T> would read it as None), code at 0x1_0000_0000; `vaddr` is the address a
        # program sees
        rodata.data[0:0] = bytes(_RODATA_PAD)
        for pl in placed.values():
            if pl.out == "rodata":
                pl.offset += _RODATA_PAD
        rodata.vaddr = MM_RODATA_START
        text.vaddr = MM_PROGRAM_START
    else:
        # v0: headers, then .text, then .rodata, file offset == vaddr, mapped at 0x1_0000_0000
        text.vaddr = _align(64 + 56 * 3, max(text.align, 8))
        rodata.vaddr = _align(text.vaddr + len(text.data), rodata.align)

    def sec_vaddr(idx: int) -> int:
        p = placed[idx]
        return outs[p.out].vaddr + p.offset

    def runtime(vaddr: int) -> int:
        """the address the program sees for a vaddr"""
        return vaddr if v3 else MM_PROGRAM_START + vaddr

    symtab = elf.get_section_by_name(".symtab")
    if not isinstance(symtab, SymbolTableSection):
        raise LinkError("object has no .symtab")
    symbols = list(symtab.iter_symbols())

    def sym_address(sym) -> int | None:
        """vaddr of a defined symbol, None when undefined; LinkError when it lives in a
        section that is not loaded."""
        shndx = sym["st_shndx"]
        if shndx == "SHN_UNDEF":
            return None
        if shndx == "SHN_ABS":
            raise LinkError(f"absolute symbol {sym.name!r} cannot be addressed")
        if not isinstance(shndx, int) or shndx not in placed:
            raise LinkError(
                f"symbol {sym.name or '(section)'!r} is in section "
                f"{sections[shndx].name if isinstance(shndx, int) else shndx} "
                "which is not loaded"
            )
        return sec_vaddr(shndx) + sym["st_value"]

    dynsyms: list[str] = []  # syscall names, in order of first use
    dynrels: list[tuple[int, str]] = []  # (vaddr of the call, syscall name)

    for rsec in sections:
        if not isinstance(rsec, RelocationSection):
            continue
        target_idx = rsec["sh_info"]
        if target_idx not in placed:
            continue  # relocations of debug info and other unloaded sections
        if rsec.is_RELA():
            raise LinkError(f"{rsec.name}: RELA relocations are not produced for BPF; refusing")
        p = placed[target_idx]
        buf = outs[p.out].data
        base = outs[p.out].vaddr + p.offset
        for rel in rsec.iter_relocations():
            rtype = rel["r_info_type"]
            off = p.offset + rel["r_offset"]  # inside the output section
            where = f"{p.name}+{rel['r_offset']:#x}"
            sym = symbols[rel["r_info_sym"]]
            name = sym.name
            addr = sym_address(sym)
            if rtype == R_BPF_NONE:
                continue
            if rtype == R_BPF_64_32:
                if p.out != "text":
                    raise LinkError(f"R_BPF_64_32 outside code at {where}")
                opc, _, _, _, imm = _insn(buf, off // INSN)
                if off % INSN or opc != 0x85:
                    raise LinkError(f"R_BPF_64_32 on a non-call instruction at {where}")
                if addr is None:
                    if name in NOT_ALIASABLE:
                        raise LinkError(f"call to {name} at {where}: {NOT_ALIASABLE[name]}")
                    name = ALIASES.get(name, name)
                    if not name:
                        raise LinkError(f"call to an unnamed undefined symbol at {where}")
                    if v3:  # a static syscall: src 0, imm = murmur3 of the name
                        if name not in SYSCALLS:
                            raise LinkError(
                                f"call to {name} at {where}: not a syscall of the runtime (tools.sbf.link.SYSCALLS)"
                            )
                        buf[off + 1] &= 0x0F
                        struct.pack_into("<I", buf, off + 4, murmur3_32(name.encode()))
                        if name not in dynsyms:
                            dynsyms.append(name)
                        continue
                    struct.pack_into("<i", buf, off + 4, -1)
                    if name not in dynsyms:
                        dynsyms.append(name)
                    dynrels.append((base + rel["r_offset"], name))
                    continue
                target = addr + (imm + 1) * INSN  # implicit addend: LLVM wrote (A - 8) / 8
                if not text.vaddr <= target < text.vaddr + len(text.data) or (target - text.vaddr) % INSN:
                    raise LinkError(f"call target {name!r} outside the code at {where}")
                rel_imm = (target - (base + rel["r_offset"] + INSN)) // INSN
                if rel_imm == -1:
                    raise LinkError(f"call at {where} targets itself (imm -1 means a syscall)")
                if v3:  # an internal call: src 1
                    buf[off + 1] = (buf[off + 1] & 0x0F) | 0x10
                struct.pack_into("<i", buf, off + 4, rel_imm)
            elif rtype == R_BPF_64_64:
                if p.out != "text" or off % INSN or buf[off] != 0x18:
                    raise LinkError(f"R_BPF_64_64 on a non-lddw instruction at {where}")
                if addr is None:
                    raise LinkError(f"lddw of undefined symbol {name!r} at {where}")
                addend = struct.unpack_from("<i", buf, off + 4)[0]
                value = runtime(addr + addend)
                struct.pack_into("<I", buf, off + 4, value & 0xFFFF_FFFF)
                struct.pack_into("<I", buf, off + INSN + 4, value >> 32)
            elif rtype == R_BPF_64_ABS64:
                if p.out == "text":
                    raise LinkError(f"R_BPF_64_ABS64 inside code at {where}")
                if addr is None:
                    raise LinkError(f"pointer to undefined symbol {name!r} at {where}")
                addend = struct.unpack_from("<q", buf, off)[0]
                struct.pack_into("<Q", buf, off, runtime(addr + addend))
            else:
                raise LinkError(f"unsupported relocation type {rtype} at {where} (symbol {name!r})")

    # callx: LLVM writes the register in dst, where SBPF v3 reads it; v0 reads imm. The scan
    # also visits the second slots of lddw; their opcode byte is 0, so none is taken for a callx.
    for i in range(len(text.data) // INSN):
        if text.data[i * INSN] == 0x8D:
            dst = text.data[i * INSN + 1] & 0x0F
            imm = struct.unpack_from("<i", text.data, i * INSN + 4)[0]
            reg = dst if dst else imm
            text.data[i * INSN + 1] = reg if v3 else 0
            struct.pack_into("<i", text.data, i * INSN + 4, 0 if v3 else reg)
    verify(text.data, sbpf_version)

    entry_syms = [
        s for s in symbols if s.name == entry and s["st_info"]["type"] == "STT_FUNC" and s["st_shndx"] != "SHN_UNDEF"
    ]
    if len(entry_syms) != 1:
        raise LinkError(f"expected exactly one defined function {entry!r}, found {len(entry_syms)}")
    e_entry = sym_address(entry_syms[0])
    if e_entry is None or placed[entry_syms[0]["st_shndx"]].out != "text":
        raise LinkError(f"{entry!r} is not in the code")

    if v3:
        image = _write_v3(text, rodata, e_entry)
    else:
        image = _write(text, rodata, dynsyms, dynrels, e_entry)
    return LinkResult(image, len(text.data), len(rodata.data), dynsyms, e_entry, sbpf_version)


# ---------------------------------------------------------------- writing the .so


def _strtab(names: list[str]) -> tuple[bytes, dict[str, int]]:
    out = bytearray(b"\0")
    pos: dict[str, int] = {}
    for n in names:
        if n not in pos:
            pos[n] = len(out)
            out += n.encode() + b"\0"
    return bytes(out), pos


def _write(text: _Out, rodata: _Out, dynsyms: list[str], dynrels: list[tuple[int, str]], e_entry: int) -> bytes:
    f = bytearray(text.vaddr)  # header + phdrs, filled below
    f += text.data
    f += b"\0" * (rodata.vaddr - len(f))
    f += rodata.data
    ro_end = len(f)

    dynstr, dynstr_pos = _strtab(dynsyms)
    dynsym = bytearray(24)  # index 0: the null symbol
    sym_index = {}
    for n in dynsyms:
        sym_index[n] = len(dynsym) // 24
        # st_name, st_info (STB_GLOBAL<<4 | STT_NOTYPE), st_other, st_shndx, st_value, st_size
        dynsym += struct.pack("<IBBHQQ", dynstr_pos[n], 0x10, 0, 0, 0, 0)
    reldyn = b"".join(struct.pack("<QQ", off, (sym_index[n] << 32) | R_BPF_64_32) for off, n in dynrels)

    def put(blob: bytes, align: int = 8) -> int:
        f.extend(b"\0" * (_align(len(f), align) - len(f)))
        at = len(f)
        f.extend(blob)
        return at

    n_dyn = 6 + (3 if reldyn else 0)
    dynamic_at = put(bytes(16 * n_dyn))
    dynsym_at = put(bytes(dynsym))
    dynstr_at = put(dynstr, 1)
    reldyn_at = put(reldyn)
    dyn_end = len(f)
    dyn = [(5, dynstr_at), (6, dynsym_at), (10, len(dynstr)), (11, 24)]  # STRTAB SYMTAB STRSZ SYMENT
    if reldyn:
        dyn += [(17, reldyn_at), (18, len(reldyn)), (19, 16)]  # REL RELSZ RELENT
    dyn += [(22, 0)] if reldyn else []  # TEXTREL: relocations patch .text
    dyn += [(0, 0)] * (n_dyn - len(dyn))  # DT_NULL
    f[dynamic_at : dynamic_at + 16 * n_dyn] = b"".join(struct.pack("<qQ", t, v) for t, v in dyn)

    shnames = ["", ".text", ".rodata", ".dynamic", ".dynsym", ".dynstr", ".rel.dyn", ".shstrtab"]
    shstr, shpos = _strtab(shnames[1:])
    shstr_at = put(shstr, 1)
    shoff = _align(len(f), 8)
    f.extend(b"\0" * (shoff - len(f)))

    SHT_PROGBITS, SHT_STRTAB, SHT_DYNAMIC, SHT_REL, SHT_DYNSYM = 1, 3, 6, 9, 11
    A, AX = SHF_ALLOC, SHF_ALLOC | SHF_EXECINSTR
    rodata_size = len(rodata.data)
    shdrs = [
        # name, type, flags, addr, offset, size, link, info, align, entsize
        ("", 0, 0, 0, 0, 0, 0, 0, 0, 0),
        (".text", SHT_PROGBITS, AX, text.vaddr, text.vaddr, len(text.data), 0, 0, text.align, 0),
        (".rodata", SHT_PROGBITS, A, rodata.vaddr, rodata.vaddr, rodata_size, 0, 0, rodata.align, 0),
        (".dynamic", SHT_DYNAMIC, A, dynamic_at, dynamic_at, 16 * n_dyn, 5, 0, 8, 16),
        (".dynsym", SHT_DYNSYM, A, dynsym_at, dynsym_at, len(dynsym), 5, 1, 8, 24),
        (".dynstr", SHT_STRTAB, A, dynstr_at, dynstr_at, len(dynstr), 0, 0, 1, 0),
        (".rel.dyn", SHT_REL, A, reldyn_at, reldyn_at, len(reldyn), 4, 0, 8, 16),
        (".shstrtab", SHT_STRTAB, 0, 0, shstr_at, len(shstr), 0, 0, 1, 0),
    ]
    for name, typ, flags, addr, off, size, lnk, info, align, entsize in shdrs:
        f += struct.pack("<IIQQQQIIQQ", shpos.get(name, 0), typ, flags, addr, off, size, lnk, info, align, entsize)

    PT_LOAD, PT_DYNAMIC = 1, 2
    PF_X, PF_W, PF_R = 1, 2, 4
    phdrs = [
        # type, flags, offset, vaddr, paddr, filesz, memsz, align
        (PT_LOAD, PF_R | PF_X, text.vaddr, text.vaddr, text.vaddr, ro_end - text.vaddr, ro_end - text.vaddr, 0x1000),
        (PT_LOAD, PF_R, dynamic_at, dynamic_at, dynamic_at, dyn_end - dynamic_at, dyn_end - dynamic_at, 0x1000),
        (PT_DYNAMIC, PF_R | PF_W, dynamic_at, dynamic_at, dynamic_at, 16 * n_dyn, 16 * n_dyn, 8),
    ]
    ph = b"".join(struct.pack("<IIQQQQQQ", *p) for p in phdrs)
    ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)  # ELFCLASS64, LSB, EV_CURRENT, SYSV
    ehdr = ident + struct.pack(
        "<HHIQQQIHHHHHH", 3, EM_BPF, 1, e_entry, 64, shoff, 0, 64, 56, len(phdrs), 64, len(shdrs), len(shdrs) - 1
    )
    f[0:64] = ehdr
    f[64 : 64 + len(ph)] = ph
    return bytes(f)


def _write_v3(text: _Out, rodata: _Out, e_entry: int) -> bytes:
    """The SBPF v3 file (SIMD-0189, sbpf's strict parser): the header, two program headers
    (PT_LOAD PF_R at vaddr 0: rodata; PT_LOAD PF_X at 0x1_0000_0000: code), both segments
    right after the header table and contiguous, then a section table that nothing loads but
    that sbpf 0.21 needs for its debug labels. No dynamic table, no relocation, no symbol."""
    phdr_end = 64 + 56 * 2
    ro = bytes(rodata.data) + bytes(_align(len(rodata.data), INSN) - len(rodata.data))
    code = bytes(text.data)
    ro_at = phdr_end
    code_at = ro_at + len(ro)
    if len(ro) >= MM_REGION_SIZE or len(code) >= MM_REGION_SIZE:
        raise LinkError("a segment is larger than a memory region (4 GiB)")
    f = bytearray(phdr_end) + ro + code
    shnames = [".rodata", ".text", ".shstrtab"]
    shstr, shpos = _strtab(shnames)
    shstr_at = len(f)
    f += shstr
    shoff = _align(len(f), 8)
    f += bytes(shoff - len(f))
    SHT_PROGBITS, SHT_STRTAB = 1, 3
    shdrs = [
        # name, type, flags, addr, offset, size, link, info, align, entsize
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
        (shpos[".rodata"], SHT_PROGBITS, SHF_ALLOC, MM_RODATA_START, ro_at, len(ro), 0, 0, 8, 0),
        (shpos[".text"], SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, MM_PROGRAM_START, code_at, len(code), 0, 0, 8, 0),
        (shpos[".shstrtab"], SHT_STRTAB, 0, 0, shstr_at, len(shstr), 0, 0, 1, 0),
    ]
    for sh in shdrs:
        f += struct.pack("<IIQQQQIIQQ", *sh)
    PT_LOAD, PF_X, PF_R = 1, 1, 4
    phdrs = [
        # type, flags, offset, vaddr, paddr, filesz, memsz, align
        (PT_LOAD, PF_R, ro_at, MM_RODATA_START, MM_RODATA_START, len(ro), len(ro), 8),
        (PT_LOAD, PF_X, code_at, MM_PROGRAM_START, MM_PROGRAM_START, len(code), len(code), 8),
    ]
    ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)  # ELFCLASS64, LSB, EV_CURRENT, OSABI 0
    f[0:64] = ident + struct.pack(
        "<HHIQQQIHHHHHH", 3, EM_BPF, 1, e_entry, 64, shoff, 3, 64, 56, len(phdrs), 64, len(shdrs), len(shdrs) - 1
    )
    f[64:phdr_end] = b"".join(struct.pack("<IIQQQQQQ", *ph) for ph in phdrs)
    return bytes(f)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("object")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--entry", default="entrypoint")
    ap.add_argument("--sbpf-version", type=int, choices=SBPF_VERSIONS, default=3)
    a = ap.parse_args(argv)
    try:
        r = link(Path(a.object).read_bytes(), a.entry, a.sbpf_version)
    except LinkError as e:
        print(f"link: {a.object}: {e}", file=sys.stderr)
        return 1
    Path(a.output).write_bytes(r.image)
    return 0


if __name__ == "__main__":
    sys.exit(main())
