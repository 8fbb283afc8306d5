"""Link a relocatable BPF object into the SBPF v0 shared object Solana's loader accepts.

    python -m tools.sbf.link prog.o -o prog.so

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

MM_PROGRAM_START = 0x1_0000_0000
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


# ---------------------------------------------------------------- v0 verifier rules


def _v0_opcodes() -> dict[int, str]:
    """opcode -> kind, exactly the SBPF v0 set of sbpf's RequisiteVerifier."""
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
            ops[cls | op] = f"alu{bits}_{name}_imm"
            ops[cls | op | 0x08] = f"alu{bits}_{name}_reg"
        ops[cls | 0x80] = f"alu{bits}_neg"
    ops[0xD4] = "le"
    ops[0xDC] = "be"
    ops[0x05] = "ja"
    for op in (0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0xA0, 0xB0, 0xC0, 0xD0):
        ops[0x05 | op] = "jmp"
        ops[0x0D | op] = "jmp"
    ops[0x85] = "call"
    ops[0x8D] = "callx"
    ops[0x95] = "exit"
    return ops


V0_OPCODES = _v0_opcodes()


def _insn(text: bytes | bytearray, i: int) -> tuple[int, int, int, int, int]:
    opc, regs, off, imm = struct.unpack_from("<BBhi", text, i * INSN)
    return opc, regs & 0x0F, regs >> 4, off, imm


def verify_v0(text: bytes | bytearray) -> None:
    """Refuse what sbpf's v0 verifier refuses (and ALU forms whose `off` changes their
    meaning in newer eBPF, e.g. sdiv/movsx, which v0 would silently run as div/mov)."""
    if len(text) % INSN:
        raise LinkError(".text length is not a multiple of 8")
    n = len(text) // INSN
    i = 0
    while i < n:
        opc, dst, src, off, imm = _insn(text, i)
        kind = V0_OPCODES.get(opc)
        where = f"at instruction #{i} (opcode {opc:#04x})"
        if kind is None:
            raise LinkError(f"opcode not in SBPF v0 {where}")
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
                raise LinkError(f"ALU instruction with a non-zero offset (not v0) {where}")
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
        if kind == "callx" and not 0 <= imm < 10:
            raise LinkError(f"callx register r{imm} {where}")
        i += 1


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
    entry: int


def link(obj: bytes, entry: str = "entrypoint") -> LinkResult:
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

    # addresses: headers, then .text, then .rodata
    n_phdr = 3
    text = outs["text"]
    rodata = outs["rodata"]
    text.vaddr = _align(64 + 56 * n_phdr, max(text.align, 8))
    rodata.vaddr = _align(text.vaddr + len(text.data), rodata.align)

    def sec_vaddr(idx: int) -> int:
        p = placed[idx]
        return outs[p.out].vaddr + p.offset

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
                struct.pack_into("<i", buf, off + 4, rel_imm)
            elif rtype == R_BPF_64_64:
                if p.out != "text" or off % INSN or buf[off] != 0x18:
                    raise LinkError(f"R_BPF_64_64 on a non-lddw instruction at {where}")
                if addr is None:
                    raise LinkError(f"lddw of undefined symbol {name!r} at {where}")
                addend = struct.unpack_from("<i", buf, off + 4)[0]
                value = MM_PROGRAM_START + addr + addend
                struct.pack_into("<I", buf, off + 4, value & 0xFFFF_FFFF)
                struct.pack_into("<I", buf, off + INSN + 4, value >> 32)
            elif rtype == R_BPF_64_ABS64:
                if p.out == "text":
                    raise LinkError(f"R_BPF_64_ABS64 inside code at {where}")
                if addr is None:
                    raise LinkError(f"pointer to undefined symbol {name!r} at {where}")
                addend = struct.unpack_from("<q", buf, off)[0]
                struct.pack_into("<Q", buf, off, MM_PROGRAM_START + addr + addend)
            else:
                raise LinkError(f"unsupported relocation type {rtype} at {where} (symbol {name!r})")

    # callx: register from dst to imm (SBPF v0 reads imm). The scan also visits the second
    # slots of lddw; their opcode byte is 0, so none is taken for a callx.
    for i in range(len(text.data) // INSN):
        if text.data[i * INSN] == 0x8D:
            dst = text.data[i * INSN + 1] & 0x0F
            imm = struct.unpack_from("<i", text.data, i * INSN + 4)[0]
            reg = dst if dst else imm
            text.data[i * INSN + 1] = 0
            struct.pack_into("<i", text.data, i * INSN + 4, reg)
    verify_v0(text.data)

    entry_syms = [
        s for s in symbols if s.name == entry and s["st_info"]["type"] == "STT_FUNC" and s["st_shndx"] != "SHN_UNDEF"
    ]
    if len(entry_syms) != 1:
        raise LinkError(f"expected exactly one defined function {entry!r}, found {len(entry_syms)}")
    e_entry = sym_address(entry_syms[0])
    if e_entry is None or placed[entry_syms[0]["st_shndx"]].out != "text":
        raise LinkError(f"{entry!r} is not in the code")

    image = _write(text, rodata, dynsyms, dynrels, e_entry)
    return LinkResult(image, len(text.data), len(rodata.data), dynsyms, e_entry)


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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("object")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--entry", default="entrypoint")
    a = ap.parse_args(argv)
    try:
        r = link(Path(a.object).read_bytes(), a.entry)
    except LinkError as e:
        print(f"link: {a.object}: {e}", file=sys.stderr)
        return 1
    Path(a.output).write_bytes(r.image)
    return 0


if __name__ == "__main__":
    sys.exit(main())
