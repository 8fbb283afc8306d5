"""What a restored copy of a function could still import: run in a fresh interpreter,

    python tests/restored_imports.py FUNCTION

imports the function's app as Lambda does, runs the before-snapshot hooks (partner.core.snapshot), and
then reads every module of the layer now loaded for the imports made inside its functions (an
`import` in a function body runs when the function does, so after a restore if nothing ran it
before). Prints, as one JSON list, each such import whose module has not executed: "module.function
-> imported module". docs/architecture.md, "Imports, one rule"; tests/unit/test_snapshot_safety.py.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError, AttributeError):
        return False


def _imported(node: ast.AST) -> list[str]:
    """The modules an import statement executes (`from p import m`: p.m when m is a module)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
        return [f"{node.module}.{a.name}" if _is_module(f"{node.module}.{a.name}") else node.module for a in node.names]
    return []


def function_level_imports(path: Path) -> list[tuple[str, str]]:
    """(function name, imported module) for each import inside a function of the module at `path`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(node):
                found += [(node.name, name) for name in _imported(inner)]
    return found


def main(function: str) -> list[str]:
    app = ROOT / "functions" / function / "app.py"
    sys.path.insert(0, str(app.parent))
    spec = importlib.util.spec_from_file_location("app", app)
    assert spec is not None and spec.loader is not None
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
    from partner.core import lazy, snapshot

    snapshot.run_before_snapshot()
    executed = {name for name in list(sys.modules) if lazy.loaded(name)}
    layer = sorted(
        (name, Path(module.__file__))
        for name, module in list(sys.modules.items())
        if (name == "partner" or name.startswith("partner.")) and name in executed and getattr(module, "__file__", None)
    )
    return sorted(
        {
            f"{name}.{fn} -> {target}"
            for name, path in layer
            for fn, target in function_level_imports(path)
            if target not in executed
        }
    )


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1])))
