"""Finding teams under a root and telling the two layouts apart."""

from __future__ import annotations

import os
from pathlib import Path

from teamtui.protocol.errors import NotFoundError, ProtocolError
from teamtui.protocol.fsio import folder_problem
from teamtui.protocol.names import is_safe_name

# Each layout is imported when a team of it is opened: a CLI call on a native team never loads
# Claude Code's (nor typing, ~2 ms).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal, TypeGuard

    from teamtui.protocol.store import TeamStore

    LayoutName = Literal["native", "claude", "workflow"]  # the one type of a layout's name (is_layout checks one read)

LAYOUTS = ("native", "claude", "workflow")


def is_layout(value: object) -> TypeGuard[LayoutName]:
    """`value` (read from a file, a database, the command line) names a layout teamtui opens."""
    return value in LAYOUTS


def layout_of(value: object) -> LayoutName | None:
    """The layout `value` names (another machine's word for it, say); None for anything else."""
    return value if is_layout(value) else None


def detect_layout(root: Path) -> LayoutName | None:
    """A root holding `.teams/` is native; one holding `teams/` is Claude Code. Never raises: a root
    that cannot be read has no layout (fleet/scan.py `folder_unreadable` says why)."""
    # os.path.isdir, not Path.is_dir: on Python 3.11 the latter raises PermissionError.
    if os.path.isdir(os.path.join(root, ".teams")):
        return "native"
    if os.path.isdir(os.path.join(root, "teams")):
        return "claude"
    return None


def team_names(root: Path, layout: LayoutName | None = None) -> list[str]:
    root = Path(root)
    layout = layout or detect_layout(root)
    if layout is None:
        return []
    base = root / (".teams" if layout == "native" else "teams")
    try:
        entries = sorted(base.iterdir())
    except OSError:
        return []
    # A folder Claude Code is deleting is renamed `<team>.deleted-<uuid>` first: not a team.
    return [
        p.name
        for p in entries
        if is_safe_name(p.name) and ".deleted-" not in p.name and os.path.isdir(p) and os.path.exists(p / "config.json")
    ]


def store_class(layout: LayoutName) -> type[TeamStore]:
    """The store class of a layout: what it can do (its flags) before any team of it exists."""
    if not is_layout(layout):
        raise ProtocolError(f"unknown layout {layout!r}: use native or claude")
    if layout == "native":
        from teamtui.protocol.native import NativeTeam

        return NativeTeam
    if layout == "workflow":
        from teamtui.protocol.workflow.team import WorkflowRun

        return WorkflowRun
    from teamtui.protocol.claude import ClaudeTeam

    return ClaudeTeam


def open_team(root: Path, name: str, layout: LayoutName | None = None) -> TeamStore:
    root = Path(root)
    if layout in (None, "claude") and _names_a_run(root, name):
        layout = "workflow"  # a workflow run lives in Claude Code's config dir, beside its session teams
    return store_class(layout or detect_layout(root) or "native")(root, name)


def _names_a_run(root: Path, name: str) -> bool:
    """`name` is a workflow run's (`<meta.name>-wf_<id>`), and no team folder under `root` has it."""
    if "-wf_" not in name:
        return False  # the common case, without importing the workflow layout
    from teamtui.protocol.workflow.names import run_id_of

    if run_id_of(name) is None:
        return False
    try:
        return not ((root / "teams" / name).is_dir() or (root / ".teams" / name).is_dir())
    except (OSError, ValueError):
        return True


def find_team(root: Path, name: str | None = None, layout: LayoutName | None = None) -> TeamStore:
    """The named team under root, or the only one; a clear error when that is ambiguous or absent."""
    root = Path(root)
    if problem := folder_problem(root):
        raise NotFoundError(problem)
    layout = layout or detect_layout(root)
    if name is not None:
        store = open_team(root, name, layout)
        if not store.config_path.exists():
            raise NotFoundError(f"no team {name!r} under {root} ({store.config_path} does not exist)")
        return store
    names = team_names(root, layout)
    if not names:
        raise NotFoundError(
            f"no team found under {root} (looked for .teams/<team>/config.json and teams/<team>/config.json)"
        )
    if len(names) > 1:
        raise NotFoundError(f"several teams under {root}: {', '.join(names)}; choose one with --team")
    return open_team(root, names[0], layout)


def candidate_roots(root: Path | None) -> list[Path]:
    """Where to look when no root is given: the current directory, then Claude Code's folder."""
    if root is not None:
        return [Path(root)]
    from teamtui.protocol.claude import default_claude_root

    return [Path.cwd(), default_claude_root()]
