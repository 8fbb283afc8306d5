"""The layer's floors (docs/architecture.md "Where things live"): no import cycle anywhere in
`shared/partner`, and no floor importing one above it.

The graph is built from the source (AST), not by importing (tools/import_cycles.py, which `make lint`
runs too): every `import` and `from ... import` of a `partner` module, at module level and inside
functions (an import moved into a function still ties the two modules together), and every deferred
one (`lazy.module("partner....")`). For cycles, imports under `if TYPE_CHECKING:` count too; for floors
they do not (they name a type for the checker and never run).
"""

from __future__ import annotations

from pathlib import Path

from tools.import_cycles import cycles, import_graph, lazy_edges

ROOT = Path(__file__).resolve().parents[2]
LAYER = ROOT / "shared" / "partner"
# Lowest first; a module may import its own floor and the ones below. chain and store share one; so do
# send (the pipeline every write shares) and jobs (tracker, migration, webhook delivery), below the
# features that use them. The edge (HTTP: admission, the resolver, Idempotency-Key, the error mapper)
# is the top: no feature calls it.
FLOORS = {"core": 0, "chain": 1, "store": 1, "send": 2, "jobs": 2, "features": 3, "edge": 4}


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


def test_no_feature_imports_the_edge() -> None:
    """A feature is called by the edge and never calls back up into it: not at run time, not deferred
    (`lazy.module`), not even for a type (what a write records before it sends reaches it as a callback,
    partner.core.request `sends`)."""
    graph = import_graph(LAYER)
    assert [
        f"{a} -> {b}"
        for a, edges in graph.items()
        for b in edges
        if a.startswith("partner.features") and b.startswith("partner.edge")
    ] == []


def test_the_graph_sees_a_deferred_import(tmp_path: Path) -> None:
    pkg = tmp_path / "partner"
    (pkg / "core").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "core" / "__init__.py").write_text("")
    (pkg / "core" / "a.py").write_text('from partner.core import lazy\nb = lazy.module("partner.core.b")\n')
    (pkg / "core" / "b.py").write_text("import partner.core.a\n")
    (pkg / "core" / "lazy.py").write_text("")
    assert import_graph(pkg)["partner.core.a"] == {"partner.core.lazy": True, "partner.core.b": True}
    assert cycles(import_graph(pkg)) == [["partner.core.a", "partner.core.b", "partner.core.a"]]
    assert lazy_edges(pkg) == [("partner.core.a", "partner.core.b")]


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


def test_no_import_cycle_in_the_programs() -> None:
    """The programs' crates (their `crate::` / `super::` paths): the launchpad's modules once imported
    each other (trade.rs and gov.rs); tools/import_cycles counts it in `make lint`."""
    from tools.import_cycles import CRATES, rust_graph

    assert {str(src): cycles(rust_graph(src)) for src in CRATES} == {str(src): [] for src in CRATES}


def test_a_rust_cycle_is_found(tmp_path: Path) -> None:
    (tmp_path / "lib.rs").write_text("pub mod trade;\npub mod gov;\n")
    (tmp_path / "trade.rs").write_text("use crate::gov::{settle, Vote};\n")
    (tmp_path / "gov").mkdir()
    (tmp_path / "gov" / "mod.rs").write_text("pub mod math;\nuse super::trade::buy; // crate::nothing\n")
    (tmp_path / "gov" / "math.rs").write_text("fn f() { super::settle(); }\n")
    from tools.import_cycles import rust_graph

    graph = rust_graph(tmp_path)
    assert graph["crate::gov::math"] == {"crate::gov": True}
    assert cycles(graph) == [["crate::gov", "crate::trade", "crate::gov"]]
