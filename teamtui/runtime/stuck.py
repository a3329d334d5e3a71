"""Why a team can never finish: a board whose unfinished tasks can never all complete, and the
tasks held after too many failures, which wait for a person (`teamtui task retry ID`)."""

from __future__ import annotations

from teamtui.protocol.board import Board, TaskState
from teamtui.protocol.native import NativeTeam
from teamtui.runtime.failures import given_up

NEEDS_A_PERSON = ": it needs a person"


def why_stuck(board: Board, structural_only: bool = False) -> str:
    """Why the unfinished tasks can never all complete ('' when they still can)."""
    cycles = board.cycles()
    if cycles:
        return "dependency cycle " + "; ".join(" → ".join(f"#{i}" for i in c) for c in cycles)
    missing = board.missing_dependencies()
    if missing:
        return "missing dependency: " + "; ".join(f"#{t} needs #{', #'.join(m)}" for t, m in missing.items())
    if structural_only or board.all_completed():
        return ""
    views = board.views()
    moving = {TaskState.READY, TaskState.IN_PROGRESS, TaskState.WITHHELD, TaskState.ASSIGNED}
    if not any(v.state in moving for v in views):
        return "no unfinished task can start"
    return ""


def cannot_finish(store: NativeTeam, board: Board) -> str:
    """Why the running team can never finish ('' when it can), naming the held tasks when some wait for a person."""
    why = why_stuck(board)
    return why and (needs_a_person(store, board) or why)


def needs_a_person(store: NativeTeam, board: Board) -> str:
    """The tasks held after failing too often, as one line ('' when none is)."""
    held = given_up(store, board.tasks.values())
    return "; ".join(held.values()) + NEEDS_A_PERSON if held else ""
