"""What the lead says and hooks as the board moves: every completed task was assigned first, even
when it was claimed and completed between two reads of the board (a fast teammate, a busy machine)."""

from __future__ import annotations

from teamtui.protocol.board import Board
from teamtui.protocol.models import Task, TaskStatus
from teamtui.runtime.board_events import BoardEvents


class Fired:
    """Hooks' stand-in that records: the events a real Hooks would run commands for."""

    def __init__(self) -> None:
        self.events: list[tuple[str, object, object]] = []

    def fire(self, event: str, **context: object) -> None:
        self.events.append((event, context.get("task_id"), context.get("task_owner")))


def task(tid: str, status: TaskStatus, owner: str = "") -> Task:
    return Task(id=tid, subject=f"task {tid}", status=status, owner=owner)


def events_for(*boards: list[Task]) -> list[tuple[str, object, object]]:
    hooks = Fired()
    said: list[str] = []
    events = BoardEvents("t", {}, lambda name: None, hooks, lambda level, text, **kw: said.append(text))  # type: ignore[arg-type]
    events.start(boards[0])
    for tasks in boards[1:]:
        events.diff(Board(tasks))
    return hooks.events


def test_a_task_claimed_and_completed_between_two_reads_is_assigned_then_completed() -> None:
    fired = events_for([task("1", TaskStatus.PENDING)], [task("1", TaskStatus.COMPLETED, "ana")])
    assert fired == [("task-assigned", "1", "ana"), ("task-completed", "1", "ana")]


def test_a_task_seen_in_progress_is_assigned_once() -> None:
    fired = events_for(
        [task("1", TaskStatus.PENDING)],
        [task("1", TaskStatus.IN_PROGRESS, "ana")],
        [task("1", TaskStatus.COMPLETED, "ana")],
    )
    assert fired == [("task-assigned", "1", "ana"), ("task-completed", "1", "ana")]


class Mate:
    """The parts of a lead's Slot the board's events set (runtime/slot.py)."""

    def __init__(self) -> None:
        self.waiting, self.alive, self.health = False, True, "idle"


def test_a_teammate_that_said_idle_after_a_task_done_between_two_reads_still_waits() -> None:
    """`teamtui run` with assign = "lead" stalled about one run in ten: a per-task teammate claimed and
    completed a task between two reads of the board and said idle; the lead read the idle first
    (waiting), then the board's diff called the completed task an assignment and took the waiting
    back, so nobody was ever given the next task."""
    ana, bo = Mate(), Mate()
    events = BoardEvents("t", {"ana": ana, "bo": bo}, lambda name: None, Fired(), lambda *a, **kw: None)  # type: ignore[arg-type]
    events.start([task("1", TaskStatus.PENDING), task("2", TaskStatus.PENDING)])
    ana.waiting = bo.waiting = True  # both said idle (read from the lead's inbox in this step)
    events.diff(Board([task("1", TaskStatus.COMPLETED, "ana"), task("2", TaskStatus.IN_PROGRESS, "bo")]))
    assert ana.waiting, "done with its task and idle: it waits for the next"
    assert not bo.waiting and bo.health == "working", "on its task: not waiting"
