"""Import cycles among the `shared/partner` modules, read from the source (AST), not by importing.

An edge is every `import` / `from ... import` of a `partner` module, at module level and inside
functions (an import moved into a function still ties the two modules together), and every deferred
import `lazy.module("partner....")` (partner.core.lazy: the module is imported on first use, the tie
is the same). For cycles, imports under `if TYPE_CHECKING:` count too; for floors
(tests/unit/test_layering.py) they do not (they name a type for the checker and never run).

The programs' Rust crates (programs/launchpad, pool, sdk) get the same count: a module's edges are
the modules its `crate::` and `super::` paths name (a `use` or a path inline; `mod x;` is not one).

`python -m tools.import_cycles` prints each cycle, Python and Rust, and exits 1 when one is not in
ALLOWED (`make lint`).
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYER = ROOT / "shared" / "partner"
# cycles that are known and accepted, each as `cycles` prints it; none
ALLOWED: list[list[str]] = []
CRATES = [ROOT / "programs" / name / "src" for name in ("launchpad", "pool", "sdk")]
_RUST_PATH = re.compile(r"\b(crate|super)::(\{[^}]*\}|[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*)")


def _lazy_target(node: ast.AST) -> str | None:
    """`name` of a `lazy.module("name")` call (partner.core.lazy), else None."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "module"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "lazy"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return node.args[0].value
    return None


def import_graph(package: Path = LAYER) -> dict[str, dict[str, bool]]:
    """module -> {imported module: whether the import runs (False: only under TYPE_CHECKING)}."""
    modules = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package.parent).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, dict[str, bool]] = {}
    for name, path in modules.items():
        edges = graph.setdefault(name, {})

        def visit(node: ast.AST, runs: bool, name=name, path=path, edges=edges) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                    visit(ast.Module(body=child.body, type_ignores=[]), False)  # only for the checker
                    visit(ast.Module(body=child.orelse, type_ignores=[]), runs)  # `else:` runs
                    continue
                targets = []
                if isinstance(child, ast.Import):
                    targets = [a.name for a in child.names]
                elif isinstance(child, ast.ImportFrom):
                    base = child.module or ""
                    if child.level:  # relative: from the module's package, up level - 1
                        here = name.split(".")[: len(name.split(".")) - (path.name != "__init__.py")]
                        base = ".".join(here[: len(here) - child.level + 1] + ([base] if base else []))
                    targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in child.names]
                elif (lazy := _lazy_target(child)) is not None:
                    targets = [lazy]
                for target in targets:
                    if target in modules and target != name:
                        edges[target] = edges.get(target, False) or runs
                visit(child, runs)

        visit(ast.parse(path.read_text()), True)
    return graph


def lazy_edges(package: Path = LAYER) -> list[tuple[str, str]]:
    """(module, deferred module) for every `lazy.module(...)` binding in the package."""
    found = []
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found += [(name, t) for node in ast.walk(ast.parse(path.read_text())) if (t := _lazy_target(node))]
    return found


def cycles(graph: dict[str, dict[str, bool]]) -> list[list[str]]:
    """One cycle (as a path that returns to its start) per strongly connected set of modules."""
    found: list[list[str]] = []
    done: set[str] = set()
    for start in sorted(graph):
        stack, on_path = [(start, iter(sorted(graph[start])))], [start]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                on_path.pop()
                done.add(node)
            elif child in on_path:
                cycle = on_path[on_path.index(child) :] + [child]
                if not any(set(cycle) <= set(c) for c in found):
                    found.append(cycle)
            elif child not in done:
                stack.append((child, iter(sorted(graph[child]))))
                on_path.append(child)
    return found


def _rust_module(src: Path, path: Path) -> str:
    parts = path.relative_to(src).with_suffix("").parts
    if parts in (("lib",), ("main",)):
        return "crate"
    return "::".join(("crate", *(parts[:-1] if parts[-1] == "mod" else parts)))


def rust_graph(src: Path) -> dict[str, dict[str, bool]]:
    """A Rust crate's modules (one a file) -> {module its `crate::` / `super::` paths name: True}."""
    modules = {_rust_module(src, path): path for path in src.rglob("*.rs")}
    graph: dict[str, dict[str, bool]] = {}
    for name, path in modules.items():
        edges = graph.setdefault(name, {})
        parent = name.rsplit("::", 1)[0]  # what `super` names, from a file or a mod.rs alike
        for root, rest in _RUST_PATH.findall(re.sub(r"//[^\n]*", "", path.read_text())):
            base = "crate" if root == "crate" else parent
            items = [i.strip() for i in rest.strip("{}").split(",")] if rest.startswith("{") else [rest]
            for item in filter(None, items):
                parts = [base, *item.split("::")]
                target = next("::".join(parts[:k]) for k in range(len(parts), 0, -1) if "::".join(parts[:k]) in modules)
                if target not in (name, "crate"):
                    edges[target] = True
    return graph


def main() -> int:
    graphs = {"shared/partner": import_graph(LAYER)} | {
        str(src.relative_to(ROOT)): rust_graph(src) for src in CRATES if src.exists()
    }
    failed = False
    for where, graph in graphs.items():
        found = cycles(graph)
        for cycle in found:
            print(("allowed: " if cycle in ALLOWED else "cycle: ") + " -> ".join(cycle))
        new = [c for c in found if c not in ALLOWED]
        print(f"{len(found)} import cycle(s) in {where} ({len(graph)} modules), {len(new)} not allowed")
        failed = failed or bool(new)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
