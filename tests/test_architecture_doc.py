"""docs/architecture.md is a map a newcomer trusts: every file, class and function it names in
backticks exists in the code. Names are found by parsing the sources with `ast`, never by importing.

Which backticked spans are checked (anything else is prose, a command or a key, and is skipped):
- a span starting with a path ending in `.py` (relative to the repository root or to `teamtui/`;
  a bare `x.py` must be one file's name under `teamtui/`), optionally followed by names that the
  file must define: `session/fleet.py Fleet.follow open_fleet`;
- a single `CamelCase` name (a class, or a name a module assigns), `Class.member` or
  `Class.member()` (a member of the class or of one of its bases in teamtui; a class with a base
  from outside teamtui, Textual's `Screen` say, may inherit what we cannot see), `function()`
  (a function or method defined somewhere), and `Name(args…)` (its head is checked);
- `teamtui.x.y` module paths.
- a folder (`session/ops/`) whose first part is a folder of the repository or of `teamtui/`;
- a bare snake_case word with an underscore, or a `_private` one (`open_fleet`, `answer_wait`): some function, class,
  module, variable, attribute or field of teamtui's has that name, or the code writes it as a
  string (a JSON key or type).
Another library's names are written with their module (`textual.app.App`), which is skipped.
ALL_CAPS words, lowercase dotted words (`config.json`, `store.drain`), single lowercase words
(`follow`) and anything in quotes (`"PermissionRequest"`, Claude Code's words) are only checked
after a path, where the file must define them. Fenced blocks are drawings: not checked."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "teamtui"
# The map and the docs it sends a newcomer to for detail; each is held to the same check.
DOCS = ("docs/architecture.md",)
# Bases whose members a class inherits without our seeing them are Textual's, pydantic's, the
# standard library's classes; these few add nothing a doc would name.
PLAIN_BASES = {"object", "Protocol", "NamedTuple", "Enum", "StrEnum", "IntEnum", "TypedDict", "Generic", "Exception"}

IDENT = r"[A-Za-z_]\w*"
CAMEL = re.compile(r"[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*")
DOTTED = re.compile(rf"{IDENT}(?:\.{IDENT})*")
SNAKE = re.compile(r"_\w+|[a-z][a-z0-9]*(?:_[a-z0-9]+)+")


@dataclass
class ClassInfo:
    bases: list[str]
    members: set[str] = field(default_factory=set)


@dataclass
class ModuleInfo:
    names: set[str] = field(default_factory=set)  # top-level defs, classes, assignments
    classes: dict[str, ClassInfo] = field(default_factory=dict)


def _targets(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Tuple | ast.List):
        return [n for elt in node.elts for n in _targets(elt)]
    return []


def _class_info(node: ast.ClassDef) -> ClassInfo:
    info = ClassInfo(bases=[ast.unparse(b).split("[")[0].rsplit(".", 1)[-1] for b in node.bases])
    for item in node.body:
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            info.members.add(item.name)
        elif isinstance(item, ast.Assign):
            info.members.update(n for t in item.targets for n in _targets(t))
        elif isinstance(item, ast.AnnAssign):
            info.members.update(_targets(item.target))
    for sub in ast.walk(node):  # what its methods keep on self
        target = sub.target if isinstance(sub, ast.AnnAssign) else None
        for t in sub.targets if isinstance(sub, ast.Assign) else [target] if target else []:
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                info.members.add(t.attr)
    return info


@cache
def modules() -> dict[Path, ModuleInfo]:
    return {path: module_at(path) for path in sorted(PACKAGE.resolve().rglob("*.py"))}


def _top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """A module's statements, those under `if TYPE_CHECKING:` or `try:` included."""
    out: list[ast.stmt] = []
    for node in body:
        if isinstance(node, ast.If | ast.Try):
            out += _top_level(node.body + node.orelse + getattr(node, "finalbody", []))
        else:
            out.append(node)
    return out


@cache
def module_at(path: Path) -> ModuleInfo:
    """What one file defines at its top and in its classes (a test file too)."""
    tree = ast.parse(path.read_text(), str(path))
    info = ModuleInfo()
    for node in _top_level(tree.body):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            info.names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            info.names.add(node.name)
            info.classes[node.name] = _class_info(node)
        elif isinstance(node, ast.Assign):
            info.names.update(n for t in node.targets for n in _targets(t))
        elif isinstance(node, ast.AnnAssign):
            info.names.update(_targets(node.target))
    return info


@cache
def classes() -> dict[str, list[ClassInfo]]:
    out: dict[str, list[ClassInfo]] = defaultdict(list)
    for info in modules().values():
        for name, cls in info.classes.items():
            out[name].append(cls)
    return out


@cache
def functions() -> set[str]:
    """Every function and method name defined anywhere in teamtui."""
    return {name for kind, name in _defined() if kind == "def"}


@cache
def defined() -> set[str]:
    """Every name teamtui defines anywhere: functions, classes, variables, attributes, fields."""
    return {name for _, name in _defined()}


@cache
def _defined() -> set[tuple[str, str]]:
    """What each name is: a def, a class, a module, a variable or attribute, or a word the code
    writes as a string (a JSON key or type: `task_assignment`)."""
    out: set[tuple[str, str]] = set()
    for path in PACKAGE.rglob("*.py"):
        out.add(("module", path.stem))
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                out.add(("def" if not isinstance(node, ast.ClassDef) else "class", node.name))
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                out.add(("var", node.id))
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                out.add(("var", node.attr))
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
                out.add(("word", node.value))
    return out


def has_member(cls: ClassInfo, member: str, seen: frozenset[int] = frozenset()) -> bool:
    if member in cls.members:
        return True
    for base in cls.bases:
        if base not in classes():
            if base not in PLAIN_BASES:
                return True  # inherited from Textual, pydantic…: out of our sight
            continue
        if any(id(b) not in seen and has_member(b, member, seen | {id(cls)}) for b in classes()[base]):
            return True
    return False


def resolve_path(text: str) -> Path | None:
    if "/" not in text:
        found = [p for p in modules() if p.name == text]
        return found[0] if len(found) == 1 else None
    for base in (ROOT, PACKAGE):
        if (base / text).is_file():
            return (base / text).resolve()
    return None


def name_in(module: ModuleInfo, name: str) -> bool:
    head, _, member = name.partition(".")
    if not member:  # at its top, or a method of one of its classes (`runtime/lead.py _step`)
        return head in module.names or any(head in c.members for c in module.classes.values())
    return head in module.classes and has_member(module.classes[head], member.split(".")[0])


def name_anywhere(name: str) -> bool:
    head, _, member = name.partition(".")
    if not member:
        return head in classes() or head in functions() or any(head in m.names for m in modules().values())
    return any(has_member(c, member.split(".")[0]) for c in classes().get(head, []))


def module_path(dotted: str) -> bool:
    """`teamtui.session.fleet` or `teamtui.session.fleet.open_fleet`."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:cut])
        for path in (base.with_suffix(".py"), base / "__init__.py"):
            if path.is_file():
                rest = ".".join(parts[cut:])
                return not rest or name_in(module_at(path.resolve()), rest)
    return False


def spans(text: str) -> list[str]:
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)  # fenced blocks are drawings
    return [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", text) if "\n\n" not in span]


def problems_of(span: str) -> list[str]:
    """What in one backticked span names nothing in the code."""
    words = span.replace(",", " ").split()
    if not words:
        return []
    if len(words) == 1 and re.fullmatch(r"[\w./-]+/", span):  # a folder: checked when under a package of ours
        first = span.split("/")[0]
        ours = any((base / first).is_dir() for base in (ROOT, PACKAGE)) and first not in ("", ".")
        found = any((base / span).is_dir() for base in (ROOT, PACKAGE))
        return [f"{span} (no such folder)"] if ours and not found else []
    if words[0].endswith(".py"):
        path = resolve_path(words[0])
        out = [] if path else [f"{words[0]} (no such file from the repository root or teamtui/)"]
        for word in words[1:]:
            name = word.removesuffix("()")
            if not DOTTED.fullmatch(name):
                continue
            if path and not name_in(module_at(path), name):
                out.append(f"{word} (not in {words[0]})")
            elif not path and not name_anywhere(name):
                out.append(f"{word} (nowhere)")
        return out
    if len(words) > 1 and not re.fullmatch(rf"{IDENT}(\.{IDENT})*\(.*\)", span):
        return []  # prose or a command
    called = re.fullmatch(rf"({IDENT}(?:\.{IDENT})*)\(.*\)", span)
    name = called.group(1) if called else span
    if not DOTTED.fullmatch(name):
        return []
    head = name.split(".")[0]
    if head == "teamtui" and "." in name:
        return [] if module_path(name) else [f"{span} (no such module)"]
    if CAMEL.fullmatch(head) or (called and "." not in name):
        return [] if name_anywhere(name) else [f"{span} (nowhere)"]
    if SNAKE.fullmatch(name):  # `open_fleet`, `answer_wait`: some name of teamtui's, whatever it is
        return [] if name in defined() else [f"{span} (nowhere)"]
    return []


def doc_problems(text: str) -> list[str]:
    return [p for span in spans(text) for p in problems_of(span)]


def test_every_name_the_architecture_docs_give_exists() -> None:
    found = {doc: doc_problems((ROOT / doc).read_text()) for doc in DOCS}
    assert not any(found.values()), "\n".join(f"{doc}: `{p}`" for doc, ps in found.items() for p in ps)


def test_the_docs_the_map_links_to_are_checked_too() -> None:
    text = (ROOT / DOCS[0]).read_text()
    linked = {f"docs/{m}" for m in re.findall(r"\]\(([\w.-]+\.md)\)", text)}
    unchecked = linked - set(DOCS) - {"docs/formats.md", "docs/reliability.md", "docs/benchmarks.md"}
    assert not unchecked, f"linked from the map but not name-checked: {sorted(unchecked)}"


def test_the_check_catches_stale_names() -> None:
    stale = (
        "`tui/controllers/host.py`, `Messaging.message`, `session/stream_server.py Streamer._requests`, "
        "`TeamActions.history`, `controllers/messaging.py Messaging.send_one`, `no_such_function()`,\n"
        "`_on_restart_request`, `runtime/teammates.py restart_all`, `tui/controllers/host/`,\n"
        "```text\nNotChecked.in_a_drawing\n```\n"
        'and what it leaves alone: `teamtui run`, `config.json`, `ROW_FRESH`, `store.drain`, `"PermissionRequest"`, '
        "`follow`, `answer_wait` (a config key teamtui reads), `requests/` (a spool's folder)."
    )
    assert doc_problems(stale) == [
        "tui/controllers/host.py (no such file from the repository root or teamtui/)",
        "Messaging.message (nowhere)",
        "Streamer._requests (not in session/stream_server.py)",
        "TeamActions.history (nowhere)",
        "controllers/messaging.py (no such file from the repository root or teamtui/)",
        "Messaging.send_one (nowhere)",
        "no_such_function() (nowhere)",
        "_on_restart_request (nowhere)",
        "restart_all (not in runtime/teammates.py)",
        "tui/controllers/host/ (no such folder)",
    ]
    assert doc_problems("`tui/app.py TeamTUI`, `session/fleet.py Fleet.follow open_fleet`, `TeamModel`") == []
