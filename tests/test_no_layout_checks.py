"""Callers ask a store's flags and methods, never which layout it is (protocol/store/).

Outside the layout packages (protocol/native/, protocol/claude/, protocol/workflow/) and the code that picks a layout
by its folder (protocol/layout.py, protocol/fleet/), nothing in teamtui/ may:
  - compare a `.layout` (or a variable named `layout`) to a string: `store.layout == "native"`;
  - ask a store's class: `isinstance(store, NativeTeam)` (or ClaudeTeam, or their layout bases);
  - probe a store for a method: `getattr(store, "update_member", None)`, `hasattr(self.store, ...)`.
A layout that can do something says so with a class flag or a method on TeamStore instead.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "teamtui"
EXEMPT = ("protocol/native/", "protocol/claude/", "protocol/workflow/", "protocol/layout.py", "protocol/fleet/")
LAYOUT_CLASSES = {"NativeTeam", "ClaudeTeam", "WorkflowRun", "NativeLayout", "ClaudeLayout", "WorkflowLayout"}


def _name(node: ast.AST) -> str:
    """The last name of a Name or an Attribute (`self.store` -> 'store'), else ''."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _is_text(node: ast.AST) -> bool:
    """A string literal, or a tuple/list/set of them (`layout in ("native", "claude")`)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts) and all(_is_text(e) for e in node.elts)
    return False


def _is_layout(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "layout") or (
        isinstance(node, ast.Name) and node.id == "layout"
    )


def _checks(tree: ast.AST) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_is_layout(s) for s in sides) and any(_is_text(s) for s in sides):
                found.append((node.lineno, f"compares a layout to a name: {ast.unparse(node)}"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
            fn = node.func.id
            if fn == "isinstance" and len(node.args) == 2:
                kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
                if any(_name(k) in LAYOUT_CLASSES for k in kinds):
                    found.append((node.lineno, f"asks a store's class: {ast.unparse(node)}"))
            elif fn in ("getattr", "hasattr") and "store" in _name(node.args[0]).lower():
                found.append((node.lineno, f"probes a store: {ast.unparse(node)}"))
    return sorted(found)


def _scanned() -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py")) if not p.relative_to(PACKAGE).as_posix().startswith(EXEMPT)]


def test_nothing_outside_the_layouts_checks_a_layout() -> None:
    problems = []
    for path in _scanned():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        rel = path.relative_to(PACKAGE.parent).as_posix()
        problems += [f"{rel}:{line}: {what}" for line, what in _checks(tree)]
    assert not problems, "ask a flag or a method of TeamStore instead:\n" + "\n".join(problems)


def test_the_scan_finds_each_kind_of_check() -> None:
    source = """
if store.layout == "native": pass
if layout in ("claude",): pass
if "claude" != self.store.layout: pass
isinstance(store, NativeTeam)
isinstance(s, (int, native.ClaudeTeam))
getattr(store, "update_member", None)
hasattr(self.store, "lead_process")
"""
    assert [line for line, _ in _checks(ast.parse(source))] == [2, 3, 4, 5, 6, 7, 8]
    fine = """
if store.writes_tasks: pass
out(store.layout)
getattr(m.payload, "request_id", "")
isinstance(cfg, ReadError)
"""
    assert _checks(ast.parse(fine)) == []


def test_the_scan_covers_the_package() -> None:
    scanned = {p.relative_to(PACKAGE).as_posix() for p in _scanned()}
    assert {
        "cli/protocol_cmds.py",
        "cli/teammate_cmds.py",
        "protocol/outcomes.py",
        "protocol/store/writing.py",
    } <= scanned
    assert not any(s.startswith(EXEMPT) for s in scanned)


# How a layout keeps its inboxes, tasks, logs and transcripts is for the readers it hands over
# (protocol/store/files.py TeamFiles.inbox_reader, task_reader, teammate_logs; transcript_feed).
STORAGE_FLAGS = {"appends_to_inboxes", "has_teammate_logs", "has_transcripts", "writes_tasks"}


def _names(rel: str) -> set[str]:
    tree = ast.parse((PACKAGE / rel).read_text(encoding="utf-8"))
    return {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)} | {
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
    }


def test_team_state_asks_no_layout_how_it_stores_things() -> None:
    assert not _names("protocol/state.py") & STORAGE_FLAGS


def test_the_transcript_feed_never_holds_the_team_state() -> None:
    # It is handed values and callbacks (protocol/changes.py TeamLookups), never the state or its store.
    for rel in ("protocol/claude/transcripts/feed.py", "protocol/workflow/transcripts.py"):
        assert not _names(rel) & {"state", "store"}, rel
