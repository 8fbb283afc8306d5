"""Build the on-chain programs: `programs/<name>/src/lib.rs` -> `programs/out/<name>.so`.

    python -m tools.sbf.build                # every program (skips the up-to-date ones)
    python -m tools.sbf.build pool --force   # one program, rebuilt

Debian packages only; the pipeline (rustc, llvm-link, opt, llc, tools.sbf.link) is programs/README.md's,
"Toolchain". A program includes the SDK as a module, so it is one crate and one bitcode file.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tools.sbf.link import LinkError, link

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "programs"
OUT = PROGRAMS / "out"
SDK = PROGRAMS / "sdk"
RUSTC = os.environ.get("SBF_RUSTC", "/usr/bin/rustc")
LLVM = os.environ.get("SBF_LLVM_SUFFIX", "-22")
TARGET = "bpfel-unknown-none"
SYSROOT_LIB = Path("/usr/lib/rustlib") / TARGET / "lib"

RUSTC_FLAGS = [
    "--edition",
    "2021",
    "--target",
    TARGET,
    "--crate-type=lib",
    "--emit=obj",
    "-C",
    "opt-level=3",
    "-C",
    "panic=abort",
    "-C",
    "target-cpu=v2",
    "-C",
    "codegen-units=1",
    "-C",
    "debuginfo=0",
    "-C",
    "overflow-checks=on",
    "-C",
    "embed-bitcode=yes",
]
OPT_PASSES = "internalize,globaldce,default<O3>"
LLC_FLAGS = [
    "-march=bpfel",
    "-mcpu=v2",
    "-O3",
    "-bpf-stack-size=4096",
    "-bpf-disable-trap-unreachable",
    "-filetype=obj",
]


class BuildError(Exception):
    pass


def tool(name: str) -> str:
    path = shutil.which(name + LLVM)
    if not path:
        raise BuildError(f"{name}{LLVM} not found: run `make programs` (installs llvm{LLVM})")
    return path


def _run(cmd: list[str], cwd: Path | None = None) -> bytes:
    p = subprocess.run(cmd, cwd=cwd, capture_output=True)
    if p.returncode:
        raise BuildError(f"{Path(cmd[0]).name} failed ({p.returncode}):\n" + p.stderr.decode(errors="replace")[-6000:])
    return p.stdout


def core_rlib() -> Path:
    found = sorted(SYSROOT_LIB.glob("libcore-*.rlib"))
    if not found:
        raise BuildError(f"no libcore in {SYSROOT_LIB}: install libstd-rust-web-dev-bpf (`make programs`)")
    return found[0]


def core_bitcode(workdir: Path) -> Path:
    """core's bitcode member of the Debian rlib (an `ar` archive)."""
    rlib = core_rlib()
    ar = tool("llvm-ar")
    members = [m for m in _run([ar, "t", str(rlib)]).decode().split() if m.endswith(".o")]
    if len(members) != 1:
        raise BuildError(f"expected one object in {rlib.name}, found {members}")
    out = workdir / "core.bc"
    out.write_bytes(_run([ar, "p", str(rlib), members[0]]))
    if out.read_bytes()[:4] != b"BC\xc0\xde":
        raise BuildError(f"{rlib.name}: {members[0]} is not LLVM bitcode")
    return out


def program_names() -> list[str]:
    return sorted(p.parent.parent.name for p in PROGRAMS.glob("*/src/lib.rs") if p.parent.parent.name != "sdk")


def sources(name: str, src_dir: Path | None = None) -> list[Path]:
    src_dir = src_dir or PROGRAMS / name / "src"
    return sorted([*src_dir.rglob("*.rs"), *(SDK / "src").rglob("*.rs")])


def fingerprint(name: str, src_dir: Path | None = None) -> str:
    """Hash of everything the output depends on: sources, flags, tool versions, this driver
    and the linker."""
    h = hashlib.sha256()
    for f in sources(name, src_dir):
        h.update(str(f.relative_to(ROOT) if f.is_relative_to(ROOT) else f).encode() + b"\0" + f.read_bytes() + b"\0")
    for f in (Path(__file__), Path(__file__).with_name("link.py")):
        h.update(f.read_bytes())
    h.update(" ".join(RUSTC_FLAGS + [OPT_PASSES] + LLC_FLAGS).encode())
    h.update(_run([RUSTC, "--version"]))
    h.update(_run([tool("llc"), "--version"]))
    h.update(core_rlib().name.encode())
    return h.hexdigest()


MEM_SYSCALLS = {"memcpy": "sol_memcpy_", "memmove": "sol_memmove_", "memset": "sol_memset_"}
_MEM_CALL = re.compile(r"call void @llvm\.(memcpy|memmove|memset)\.p0(?:\.p0)?\.i64\((.*)\)")
_FUNC = re.compile(r"^define [^@]*@([^(]+)\(")
INLINE_STORES = 8  # a fixed-size copy/fill of at most this many stores stays inline


def _split_args(s: str) -> list[str]:
    out: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in s:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur).strip())
    return out


def _strip_sret(line: str) -> str:
    """Remove every `sret(<type>)` attribute of a line (nested brackets in the type)."""
    while (i := line.find("sret(")) >= 0:
        depth, j = 0, i + 4
        for j in range(i + 4, len(line)):
            depth += line[j] in "([{<"
            depth -= line[j] in ")]}>"
            if depth == 0:
                break
        line = line[:i] + line[j + 1 :].lstrip(" ")
    return line


def lower_mem_intrinsics(ir: str) -> str:
    """Make optimised IR something LLVM's BPF backend compiles. It expands
    memcpy/memmove/memset intrinsics of small constant size
    and refuses the rest ("A call to built-in function 'memcpy' is not supported"): no
    libcalls on BPF. Turn every other one into a call of the runtime's syscall
    (sol_memcpy_, sol_memmove_, sol_memset_: about 10 CU each, cheaper than more than a few
    stores). Also refuse a u64 multiply with overflow check (it needs __multi3): the
    message names the function and the fix."""
    out, func = [], "?"
    used: set[str] = set()
    for line in ir.splitlines():
        if "sret(" in line:
            # LLVM's BPF backend refuses any function with an `sret` parameter ("aggregate
            # returns are not supported"), which is how Rust returns values wider than two
            # registers; without the attribute the pointer is an ordinary first argument, on
            # definitions and calls alike (BPF gives sret no register of its own)
            line = _strip_sret(line)
        m = _FUNC.match(line)
        if m:
            func = m.group(1)
        if "@llvm.umul.with.overflow.i64(" in line and line.lstrip().startswith("%"):
            raise BuildError(
                f"a u64 multiplication with overflow check in {func} (checked_mul, or `*` "
                "with overflow-checks on) needs __multi3, which BPF lacks: use "
                "sdk::wide::checked_mul / mul_div_floor"
            )
        m = _MEM_CALL.search(line)
        if m:
            kind, args = m.group(1), _split_args(m.group(2))
            if len(args) != 4:
                raise BuildError(f"unexpected {kind} intrinsic in {func}: {line.strip()}")
            length = args[2].split()[-1]
            align = re.search(r"\balign (\d+)", args[0])
            step = min(int(align.group(1)) if align else 1, 8)
            if not (length.isdigit() and int(length) // step <= INLINE_STORES):
                name = MEM_SYSCALLS[kind]
                used.add(name)
                line = line[: m.start()] + f"call void @{name}({', '.join(args[:3])})" + line[m.end() :]
        out.append(line)
    for name in sorted(used):
        if not re.search(rf"^declare [^@]*@{name}\(", ir, re.M):
            out.append(f"declare void @{name}(ptr, {'i8' if name == 'sol_memset_' else 'ptr'}, i64)")
    return "\n".join(out) + "\n"


# what to do about llc's BPF errors (programs/README.md "Pitfalls")
LLC_HINTS = {
    "aggregate returns are not supported": "hint: a function that returns two values (Option<u64>, "
    "Result<u64, _>, a slice, a tuple) was not inlined, and BPF returns one register: mark it "
    "#[inline(always)] or write the result through a &mut argument",
    "too many arguments": "hint: BPF passes at most 5 arguments (a slice counts 2, a returned struct "
    "adds a hidden one): pass a struct by reference or mark the callee #[inline(always)]",
    "stack arguments are not supported": "hint: more than 5 arguments (see 'too many arguments')",
    "__multi3": "hint: 128-bit or overflow-checked u64 multiply: use sdk::wide",
    "is not supported.": "hint: BPF has no library calls; see programs/README.md",
}


def compile_object(name: str, workdir: Path, src_dir: Path | None = None) -> Path:
    """Steps 1-4: the relocatable BPF object of program `name` (sources in `src_dir`,
    default programs/<name>/src)."""
    src = (src_dir or PROGRAMS / name / "src") / "lib.rs"
    if not src.is_file():
        raise BuildError(f"no program {name!r} ({src} missing)")
    bc = workdir / f"{name}.bc"
    _run([RUSTC, *RUSTC_FLAGS, "--crate-name", name, f"--remap-path-prefix={ROOT}=.", str(src), "-o", str(bc)])
    linked = workdir / f"{name}.linked.bc"
    _run([tool("llvm-link"), str(bc), str(core_bitcode(workdir)), "-o", str(linked)])
    opt = workdir / f"{name}.opt.ll"
    _run(
        [
            tool("opt"),
            f"-passes={OPT_PASSES}",
            "-internalize-public-api-list=entrypoint",
            "-strip-debug",
            "-S",
            str(linked),
            "-o",
            str(opt),
        ]
    )
    lowered = workdir / f"{name}.ll"
    lowered.write_text(lower_mem_intrinsics(opt.read_text()))
    obj = workdir / f"{name}.o"
    try:
        _run([tool("llc"), *LLC_FLAGS, str(lowered), "-o", str(obj)])
    except BuildError as e:
        hints = [h for k, h in LLC_HINTS.items() if k in str(e)]
        raise BuildError("\n".join([str(e), *hints])) from None
    return obj


SBPF_VERSION = 3  # what `make programs` writes (tools.sbf.link; v0 only on request)


def build(
    name: str, force: bool = False, out_dir: Path = OUT, src_dir: Path | None = None, sbpf_version: int = SBPF_VERSION
) -> Path:
    """programs/<name> (or `src_dir`) -> <out_dir>/<name>.so, unless up to date."""
    out_dir.mkdir(parents=True, exist_ok=True)
    so = out_dir / f"{name}.so"
    stamp = out_dir / f".{name}.fingerprint"
    fp = fingerprint(name, src_dir) + f"-v{sbpf_version}"
    if not force and so.is_file() and stamp.is_file() and stamp.read_text() == fp:
        return so
    with tempfile.TemporaryDirectory(prefix=f"sbf-{name}-") as tmp:
        obj = compile_object(name, Path(tmp), src_dir)
        try:
            result = link(obj.read_bytes(), sbpf_version=sbpf_version)
        except LinkError as e:
            raise BuildError(f"{name}: link: {e}") from None
    # concurrent builds (test workers) write the same bytes: each through a file of its own,
    # renamed into place
    for target, blob in ((so, result.image), (stamp, fp.encode())):
        partial = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        partial.write_bytes(blob)
        partial.replace(target)
    return so


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="build programs/<name> into programs/out/<name>.so")
    ap.add_argument("names", nargs="*", help="programs to build (default: all)")
    ap.add_argument("--force", action="store_true", help="rebuild even when up to date")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--sbpf-version", type=int, choices=(0, 3), default=SBPF_VERSION, help="3 (default) or 0")
    a = ap.parse_args(argv)
    try:
        for name in a.names or program_names():
            so = build(name, a.force, a.out, sbpf_version=a.sbpf_version)
            print(f"{so.relative_to(ROOT) if so.is_relative_to(ROOT) else so}: {so.stat().st_size} bytes")
    except BuildError as e:
        print(f"build: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
