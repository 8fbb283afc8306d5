"""Functions a reader can hold: in `shared/` and `devstack/`, none longer than 60 lines and none
with more than 6 parameters (`self` and `cls` not counted; `*args` and `**kwargs` count one each).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TREES = ("shared", "devstack")
MAX_LINES = 60
MAX_PARAMS = 6


def _functions() -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    found = []
    for tree in TREES:
        for path in sorted((ROOT / tree).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    found.append((f"{path.relative_to(ROOT)}:{node.lineno} {node.name}", node))
    return found


def _params(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    args = node.args
    named = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    count = len(named) + (args.vararg is not None) + (args.kwarg is not None)
    return count - (1 if named and named[0].arg in ("self", "cls") and named[0] in args.args[:1] else 0)


def test_the_trees_are_read() -> None:
    assert len(_functions()) > 500


def test_no_function_is_longer_than_60_lines() -> None:
    long = [
        f"{where}: {node.end_lineno - node.lineno + 1} lines"
        for where, node in _functions()
        if (node.end_lineno or node.lineno) - node.lineno + 1 > MAX_LINES
    ]
    assert long == []


def test_no_function_takes_more_than_6_parameters() -> None:
    many = [f"{where}: {_params(node)} parameters" for where, node in _functions() if _params(node) > MAX_PARAMS]
    assert many == []


def test_the_counts_see_what_they_refuse() -> None:
    source = (
        "def f(a, b, c, d, e, f, g):\n"
        + "    x = 1\n" * 60
        + "class K:\n    def m(self, a, b, c, d, e, f):\n        pass\n"
    )
    tree = ast.parse(source)
    f, m = (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
    assert _params(f) == 7 and f.end_lineno - f.lineno + 1 == 61
    assert _params(m) == 6
