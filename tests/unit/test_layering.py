"""The layer's floors (docs/architecture.md "Where things live"): no import cycle anywhere in
`shared/partner`, and no floor importing one above it.

The graph is built from the source (AST), not by importing: every `import` and `from ... import`
of a `partner` module, at module level and inside functions (an import moved into a function
still ties the two modules together). For cycles, imports under `if TYPE_CHECKING:` count too;
for floors they do not (they name a type for the checker and never run).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYER = ROOT / "shared" / "partner"
# Lowest first; a module may import its own floor and the ones below. chain and store share one, and
# so do send (the pipeline every write shares) and jobs (tracker, migration, webhook delivery).
FLOORS = {"core": 0, "chain": 1, "store": 1, "edge": 2, "send": 3, "jobs": 3, "features": 4}


def import_graph(package: Path) -> dict[str, dict[str, bool]]:
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
                    visit(child, False)
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
                for target in targets:
                    if target in modules and target != name:
                        edges[target] = edges.get(target, False) or runs
                visit(child, runs)

        visit(ast.parse(path.read_text()), True)
    return graph


def cycles(graph: dict[str, dict[str, bool]]) -> list[list[str]]:
    """One cycle (as a path that returns to its start) per strongly connected set of modules."""
    found, done = [], set()
    for start in sorted(graph):
        stack, on_path = [(start, iter(sorted(graph[start])))], [start]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop(), on_path.pop(), done.add(node)
            elif child in on_path:
                cycle = on_path[on_path.index(child) :] + [child]
                if not any(set(cycle) <= set(c) for c in found):
                    found.append(cycle)
            elif child not in done:
                stack.append((child, iter(sorted(graph[child])))), on_path.append(child)
    return found


def test_no_import_cycle_in_the_layer() -> None:
    assert cycles(import_graph(LAYER)) == [], "import cycles (break them: move the shared piece down a floor)"


def test_no_floor_imports_a_higher_one() -> None:
    def floor(module: str) -> int:
        return FLOORS[module.split(".")[1]] if module.count(".") else 0

    upward = [
        f"{a} -> {b}"
        for a, edges in import_graph(LAYER).items()
        for b, runs in edges.items()
        if runs and floor(b) > floor(a) and a != "partner"
    ]
    assert upward == []


def test_every_module_sits_on_a_floor() -> None:
    assert {p.name for p in LAYER.iterdir() if p.suffix == ".py" or (p / "__init__.py").exists()} == {
        "__init__.py",
        *FLOORS,
    }


def test_the_checker_finds_a_planted_cycle(tmp_path: Path) -> None:
    pkg = tmp_path / "partner"
    (pkg / "core").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "core" / "__init__.py").write_text("")
    (pkg / "core" / "a.py").write_text("from partner.core import b\n")
    (pkg / "core" / "b.py").write_text("def f():\n    from . import c\n")  # hidden in a function
    (pkg / "core" / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import partner.core.a\n"
    )
    (pkg / "core" / "d.py").write_text("import partner.core.a\n")  # on no cycle
    assert cycles(import_graph(pkg)) == [["partner.core.a", "partner.core.b", "partner.core.c", "partner.core.a"]]


def test_signer_lives_in_chain_and_codecs_outside_features() -> None:
    """What chain/tx needs to sign is a chain type (not a store one); the CID codec is core."""
    graph = import_graph(LAYER)
    assert "partner.chain.signer" in graph and "partner.core.cid" in graph
    assert "partner.features.cid" not in graph
    assert not any(target.startswith("partner.store") for target in graph["partner.chain.tx"])


def test_one_base58() -> None:
    """Base58 comes from the `base58` library (or solders' own types); nobody writes the alphabet."""
    alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
    written = [
        str(p.relative_to(ROOT))
        for folder in ("shared", "devstack", "tools", "partnerctl", "bench")
        for p in (ROOT / folder).rglob("*.py")
        if alphabet in p.read_text()
    ]
    assert written == []


def test_the_idl_codec_knows_no_domain() -> None:
    """partner.chain.idl is a generic Anchor-IDL codec: the governance classes are bound to the
    programs' types by partner.chain.idls, never imported by the codec."""
    graph = import_graph(LAYER)
    assert set(graph["partner.chain.idl"]) <= {"partner.chain.idl_data"}


def test_dynamodb_expressions_live_in_store() -> None:
    """Only partner.store writes DynamoDB expressions: the other floors call its functions."""
    import re

    expression = re.compile(r"""(Expression=|attribute_(not_)?exists\(|["'](SET|REMOVE|ADD|DELETE) [#:\w])""")
    found = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in sorted(LAYER.rglob("*.py"))
        if "store" not in p.parts
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if expression.search(line)
    ]
    assert found == []
