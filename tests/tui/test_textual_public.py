"""teamtui/tui uses Textual's and Rich's public API only (issue #28): no read or write of a private
attribute of theirs, so a Textual upgrade cannot break the dashboard in silence.

No file is exempt: teamtui/tui/driver.py, which keeps the app alive when its terminal hangs up,
does it through LinuxDriver's public methods and the signal module.

An AST scan of teamtui/tui (dunders aside):
- `self._name` in a class of ours: flagged when a Textual or Rich class it inherits from defines
  `_name` (reading or setting Textual's own, as `self._update_count += 1` in a DataTable did);
- `x._name` on anything else: flagged unless teamtui defines `_name` itself (a `def _name`, a
  `_name = ...` in a class or module, a `self._name = ...`): `app._driver` is Textual's;
- `def _name` in a class of ours: flagged when it overrides a Textual or Rich class's `_name`.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from types import ModuleType

import teamtui

PACKAGE = Path(teamtui.__file__).parent
TUI = PACKAGE / "tui"
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
    """Every private name teamtui defines."""
    return frozenset(n for path in PACKAGE.rglob("*.py") for n in defined(parsed(path)))


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
    return private_uses_in(parsed(path), module, str(path.relative_to(PACKAGE.parent)))


def private_uses_in(tree: ast.Module, module: ModuleType, where: str) -> list[str]:
    """`where:line: .name` for each private attribute of Textual or Rich that `tree` (the source of
    `module`) uses."""
    found: list[str] = []

    def visit(node: ast.AST, cls: type | None) -> None:
        if isinstance(node, ast.ClassDef):
            found_cls = getattr(module, node.name, None) if cls is None else getattr(cls, node.name, None)
            cls = found_cls if isinstance(found_cls, type) else None
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and private(node.name):
            if cls is not None and node.name in inherited(cls):  # overrides a private method of theirs
                found.append(f"{where}:{node.lineno}: def {node.name}")
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

    visit(tree, None)
    return found


def test_teamtui_tui_touches_no_private_attribute_of_textual_or_rich() -> None:
    found = [use for path in sorted(TUI.rglob("*.py")) for use in private_uses(path)]
    assert not found, "private attributes of Textual or Rich (use their public API):\n" + "\n".join(found)


# What teamtui/tui/driver.py once did: a LinuxDriver subclass setting the driver's output file and
# overriding its SIGCONT handler, and an app reading its driver.
ONCE = """
from textual.drivers.linux_driver import LinuxDriver


class Driver(LinuxDriver):
    def __init__(self, app):
        super().__init__(app)
        self._file = None

    def _sigcont_application(self, *args):
        pass


def driver_of(app):
    return app._driver
"""


def test_the_scan_flags_what_it_must() -> None:
    module = ModuleType("once")
    exec(compile(ONCE, "once.py", "exec"), module.__dict__)
    found = private_uses_in(ast.parse(ONCE), module, "once.py")
    assert sorted(use.split(": ")[1] for use in found) == ["._driver", "._file", "def _sigcont_application"], found
