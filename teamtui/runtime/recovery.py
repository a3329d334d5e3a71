"""Taking work back from a teammate that crashed or disappeared (the patterns' recovery: free
its files, make its task available, reassign), counting each such loss as a failure of the task.

The lead says what happened from the lines `take_back` returns; per-task teammates and
`teamtui task fail` count failures through the same `record_failure`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from teamtui.protocol.errors import ConflictError, NotFoundError, ParseError
from teamtui.protocol.models import TaskStatus
from teamtui.protocol.native import NativeTeam
from teamtui.protocol.outcomes import Failure, record_failure


@dataclass(slots=True)
class TakenBack:
    failures: list[Failure] = field(default_factory=list)  # in-progress tasks, counted
    released: list[str] = field(default_factory=list)  # assigned but not started: released, not counted
    problems: list[str] = field(default_factory=list)

    @property
    def task_ids(self) -> list[str]:
        return [f.task.id for f in self.failures] + self.released

    def lines(self, name: str, why: str) -> list[tuple[str, str, bool]]:
        """(level, text, notify) lines for the lead's log and the dashboard."""
        out = []
        for f in self.failures:
            # A task this failure holds is announced by whoever watches the board (the lead's diff).
            where = "held as blocked" if f.held else "back on the board"
            out.append(
                (
                    "warning",
                    f"#{f.task.id} {f.task.subject} taken back from {name} ({why}): failure {f.count}, {where}",
                    False,
                )
            )
        if self.released:
            out.append(("info", f"#{', #'.join(self.released)} released from {name}: back on the board", False))
        out += [("warning", p, False) for p in self.problems]
        return out


def take_back(store: NativeTeam, name: str, why: str, *, max_failures: int, count: bool = True) -> TakenBack:
    """Return every unfinished task `name` holds to the board; with `count`, an in-progress one
    also counts a failure (`why` is its reason) and may be held after `max_failures`."""
    out = TakenBack()
    tasks, _ = store.list_tasks(include_internal=True)
    for task in tasks:
        if task.owner != name or task.status == TaskStatus.COMPLETED:
            continue
        try:
            if count and task.status == TaskStatus.IN_PROGRESS:
                out.failures.append(record_failure(store, task.id, why, max_failures=max_failures, owner=name))
            else:
                store.release_task(task.id)
                out.released.append(task.id)
        except (ConflictError, NotFoundError):
            continue  # completed or moved on meanwhile: nothing to take back
        except ParseError as exc:
            out.problems.append(f"#{task.id} could not be taken back from {name}: {exc}")
    return out
