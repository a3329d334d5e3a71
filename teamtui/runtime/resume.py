"""Which team a run leads: a new one from the team file, the one already on disk (resumed: its
board, held tasks and inboxes as they are), or with `--fresh` the one on disk removed and made
anew. Never one that another live `teamtui run` leads (leadpid.py's lead.json says which)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass

from teamtui.protocol.board import Board
from teamtui.protocol.errors import ConflictError, ParseError, ProtocolError
from teamtui.protocol.models import SHUTDOWN_REPLY_TYPES, Message
from teamtui.protocol.native import NativeTeam
from teamtui.protocol.native.leadpid import claim_lead, lead_file, running_lead
from teamtui.runtime.failures import given_up
from teamtui.runtime.recovery import take_back
from teamtui.runtime.teamfile import TeamFile

# What --fresh removes, said the same in its help and in the line it prints.
FRESH_REMOVES = "its task board (.tasks/), and its inboxes, logs, shutdown summaries and member list (.teams/<team>/)"


def tasks(n: int) -> str:
    return f"{n} task{'s' if n != 1 else ''}"


@dataclass(slots=True)
class Opened:
    resumed: bool
    leftovers: list[Message]  # what the lead's inbox held from an earlier run, for the lead to read


def open_team(store: NativeTeam, spec: TeamFile, *, fresh: bool, say: Callable[..., None]) -> Opened:
    """Lead `store`'s team from now on: made from `spec`, resumed, or (`fresh`) made again.
    ConflictError when another live lead leads it (or, for `fresh`, another team sharing its board)."""
    other = claim_lead(store)
    if other is not None:
        raise ConflictError(led_elsewhere(store, other))
    if fresh:
        _remove(store, say)
    if not store.config_path.exists():
        _create(store, spec, say)
        return Opened(False, [])
    try:
        return Opened(True, _resume(store, spec, say))
    except ParseError as exc:
        raise ProtocolError(f"{exc}: the team cannot be resumed (--fresh starts it over)") from None


def led_elsewhere(store: NativeTeam, pid: int) -> str:
    return (
        f"team {store.name!r} at {store.root} is already led by another `teamtui run` (pid {pid}): "
        f"stop that run first, or watch it with `teamtui watch {store.root} --team {store.name}`"
    )


def _remove(store: NativeTeam, say: Callable[..., None]) -> None:
    """Everything of the team but this run's own lead mark; the board too, which every team of the root shares."""
    for team_dir in sorted((store.root / ".teams").glob("*/")):
        try:
            pid = running_lead(NativeTeam(store.root, team_dir.name)) if team_dir.name != store.name else None
        except ProtocolError:
            continue  # no team's folder (a name no team may have)
        if pid is not None:
            raise ConflictError(
                f"--fresh would remove the task board {store.tasks_dir}, which team {team_dir.name!r} "
                f"uses while another `teamtui run` (pid {pid}) leads it: stop that run first"
            )
    if not store.config_path.exists() and not store.tasks_dir.exists():
        return
    on_board, _ = store.list_tasks(include_internal=True)
    keep = {lead_file(store), lead_file(store).with_suffix(".lock")}
    for path in store.team_dir.iterdir():
        if path in keep:
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)
    shutil.rmtree(store.tasks_dir, ignore_errors=True)
    say(
        "info",
        f"--fresh: removed team {store.name!r} at {store.root}: {FRESH_REMOVES.replace('<team>', store.name)}"
        f" ({tasks(len(on_board))} {'was' if len(on_board) == 1 else 'were'} on the board)",
    )


def _create(store: NativeTeam, spec: TeamFile, say: Callable[..., None]) -> None:
    store.create(description=spec.team.description)
    _limit_failures(store, spec)
    for t in spec.tasks:
        store.create_task(
            t.subject, description=t.description, blocked_by=[str(b) for b in t.blocked_by], files=t.files
        )
    say("info", f"team {store.name!r} created at {store.root} with {tasks(len(spec.tasks))}")


def _resume(store: NativeTeam, spec: TeamFile, say: Callable[..., None]) -> list[Message]:
    """The team as the last run left it. No teammate of it runs now: what they still held goes back
    to the board uncounted, and the last run's shutdown requests and their answers are that run's,
    not ours (a request left unread, or an answer in the lead's inbox, would stop this run's teammate)."""
    _limit_failures(store, spec)
    for mate in spec.teammates:
        taken = take_back(store, mate.name, "its run ended", max_failures=spec.team.max_failures, count=False)
        for level, text, notify in taken.lines(mate.name, "its run ended"):
            say(level, text, notify)
        # Read now, the last lead's request would stop the teammate this run starts.
        unread = store.take_out(mate.name, lambda m: m.type == "shutdown_request" and m.sender == store.lead_name)
        if unread:
            say("info", f"{mate.name}: the last run's shutdown request, never read, taken out of its inbox")
    left = [m for m in store.drain(store.lead_name).messages if m.type not in SHUTDOWN_REPLY_TYPES]
    all_tasks, _ = store.list_tasks(include_internal=True)
    board = Board(all_tasks)
    done, total = board.progress()
    held = given_up(store, board.tasks.values())
    still = f"; still held for a person: #{', #'.join(held)} (`teamtui task retry ID`)" if held else ""
    say(
        "info",
        f"team {store.name!r} resumed at {store.root}: its board as it was [{done}/{tasks(total)} completed]"
        f"{still}; the team file's tasks are not added again (--fresh starts over)",
    )
    return left


def _limit_failures(store: NativeTeam, spec: TeamFile) -> None:
    # The CLI's `task fail` counts against the team file's limit.
    store.update_config(lambda data: data.update(max_failures=spec.team.max_failures))


__all__ = ["FRESH_REMOVES", "Opened", "led_elsewhere", "open_team", "tasks"]
