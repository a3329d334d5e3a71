"""No import cycle anywhere in teamtui: every import counts, the lazy ones inside functions and
the ones under TYPE_CHECKING too (a cycle broken at run time is still a dependency pointing
the wrong way)."""

from __future__ import annotations

import ast
from pathlib import Path

import teamtui

PACKAGE = Path(teamtui.__file__).parent


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The teamtui modules `name` imports, wherever the import statement is."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in modules else base)
    return {m for m in found if m in modules and m != name}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _is_package_init(name: str, graph: dict[str, set[str]]) -> bool:
    return (PACKAGE.parent / name.replace(".", "/") / "__init__.py").exists()


def test_no_import_cycle_in_teamtui():
    graph = _graph()
    # A package's __init__ re-exporting its own modules is how a package is opened, not a
    # dependency: an edge from a submodule to its own package's __init__ is left out.
    for name, targets in graph.items():
        graph[name] = {t for t in targets if not (_is_package_init(t, graph) and name.startswith(t + "."))}
    cycles = _cycles(graph)
    assert not cycles, "import cycles (each a set of modules importing one another):\n" + "\n".join(
        " <-> ".join(c) for c in cycles
    )


def test_the_checker_sees_a_cycle():
    """The test above can fail: a lazy import one way and a plain one back is a cycle."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _imports("teamtui.protocol.store.writing", PACKAGE / "protocol" / "store" / "writing.py", _modules()) >= {
        "teamtui.protocol.errors"
    }
