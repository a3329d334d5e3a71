"""teamtui/tui uses Textual's and Rich's public API only (issue #28): no read or write of a private
attribute of theirs, so a Textual upgrade cannot break the dashboard in silence.

The one exception is teamtui/tui/driver.py, the documented workaround that keeps the app alive
when its terminal hangs up (its LinuxDriver subclass has no public way to do it).

An AST scan of teamtui/tui (dunders aside):
- `self._name` in a class of ours: flagged when a Textual or Rich class it inherits from defines
  `_name` (reading or setting Textual's own, as `self._update_count += 1` in a DataTable did);
- `x._name` on anything else: flagged unless teamtui defines `_name` itself (a `def _name`, a
  `_name = ...` in a class or module, a `self._name = ...`): `app._driver` is Textual's.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import teamtui

PACKAGE = Path(teamtui.__file__).parent
TUI = PACKAGE / "tui"
EXEMPT = {TUI / "driver.py"}
THEIRS = ("textual", "rich")


def private(name: str) -> bool:
    return name.startswith("_") and name != "_" and not (name.startswith("__") and name.endswith("__"))


def _targets(target: ast.expr) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, ast.Attribute):
        yield target.attr
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _targets(element)
    elif isinstance(target, ast.Starred):
        yield from _targets(target.value)


def defined(tree: ast.AST) -> set[str]:
    """The private names `tree` defines: functions, classes, and what it assigns to (a name or an attribute)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(n for t in node.targets for n in _targets(t))
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            names.update(_targets(node.target))
    return {n for n in names if private(n)}


@cache
def parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


@cache
def ours() -> frozenset[str]:
    """Every private name teamtui defines (outside the driver, whose names are LinuxDriver's)."""
    return frozenset(n for path in PACKAGE.rglob("*.py") if path not in EXEMPT for n in defined(parsed(path)))


@cache
def class_defines(cls: type) -> frozenset[str]:
    """The private names a Textual or Rich class defines in its own body (its methods' `self._x = ...` too)."""
    try:
        path = Path(inspect.getfile(cls))
    except TypeError:
        return frozenset()
    for node in ast.walk(parsed(path)):
        if isinstance(node, ast.ClassDef) and node.name == cls.__name__:
            return frozenset(defined(node))
    return frozenset()


def inherited(cls: type) -> set[str]:
    """The private names `cls` gets from the Textual and Rich classes it inherits from."""
    return {n for k in cls.__mro__ if k.__module__.split(".")[0] in THEIRS for n in class_defines(k)}


def private_uses(path: Path) -> list[str]:
    """`file:line: .name` for each private attribute of Textual or Rich that `path` uses."""
    module = importlib.import_module(".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts))
    where = path.relative_to(PACKAGE.parent)
    found: list[str] = []

    def visit(node: ast.AST, cls: type | None) -> None:
        if isinstance(node, ast.ClassDef):
            found_cls = getattr(module, node.name, None) if cls is None else getattr(cls, node.name, None)
            cls = found_cls if isinstance(found_cls, type) else None
        elif isinstance(node, ast.Attribute) and private(node.attr):
            on_self = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
            if on_self and cls is not None:
                bad = node.attr in inherited(cls)
            else:
                bad = node.attr not in ours()
            if bad:
                found.append(f"{where}:{node.lineno}: .{node.attr}")
        for child in ast.iter_child_nodes(node):
            visit(child, cls)

    visit(parsed(path), None)
    return found


def test_teamtui_tui_touches_no_private_attribute_of_textual_or_rich() -> None:
    found = [use for path in sorted(TUI.rglob("*.py")) if path not in EXEMPT for use in private_uses(path)]
    assert not found, "private attributes of Textual or Rich (use their public API):\n" + "\n".join(found)


def test_the_scan_flags_what_it_must() -> None:
    """The driver, the one exemption, does use Textual's private attributes: the scan finds them there."""
    found = private_uses(TUI / "driver.py")
    assert any(use.endswith("._sigcont_application") for use in found), found
    assert any(use.endswith("._file") for use in found), found
