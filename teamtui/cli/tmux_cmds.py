"""`teamtui follow NAME` (a plain-terminal live view of one teammate) and `teamtui cleanup`."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from teamtui.cli.common import CliError, Context, inert, out
from teamtui.protocol.changes import Change, ChangeKind, MemberView
from teamtui.protocol.models import LogEntry, LogLevel, MemberStatus, Message
from teamtui.protocol.state import TeamState

# How many log lines `follow` shows from before it started.
BACKLOG_LINES = 20
# With no change seen for this long, re-read from the last offsets once (cheap, and safe).
_LEVEL_TAG = {LogLevel.DEBUG: "debug", LogLevel.INFO: "info ", LogLevel.WARNING: "WARN ", LogLevel.ERROR: "ERROR"}


def register(sub: argparse._SubParsersAction, parents: list[argparse.ArgumentParser], only: str | None = None) -> None:
    p = sub.add_parser(
        "follow",
        parents=parents,
        help="live view of one teammate: its log, inbox and current task",
        description="Print one teammate's log, inbox and current task as they change; "
        "ends when the teammate shuts down (or on Ctrl-C). Works in any terminal.",
    )
    p.add_argument("name", help="the teammate to follow")
    p.add_argument(
        "--backlog", type=int, default=BACKLOG_LINES, help=f"log lines shown from before now (default {BACKLOG_LINES})"
    )
    p.set_defaults(handler=cmd_follow)

    c = sub.add_parser(
        "cleanup",
        parents=parents,
        help="close tmux panes left by a teamtui that was killed",
        description="Find panes marked by a teamtui whose process is gone, end what runs in them and close them. "
        "Looks at the tmux server of $TMUX, else --socket, else your default tmux server.",
    )
    c.add_argument("--socket", type=Path, help="the tmux server's socket path")
    c.set_defaults(handler=cmd_cleanup)


# ---------------------------------------------------------------------- follow
def _view(state: TeamState, name: str) -> MemberView | None:
    return next((v for v in state.member_views() if v.name == name), None)


def _ended(view: MemberView | None) -> bool:
    return view is None or view.departed or view.status == MemberStatus.SHUTDOWN


def _task_line(view: MemberView | None) -> str:
    task = view.current_task if view else None
    if task is None:
        return "task   (none in progress)"
    return f"task   #{inert(task.id)} {inert(task.subject)} [{task.status.value}]"


def _log_line(entry: LogEntry) -> str:
    try:
        stamp = time.strftime("%H:%M:%S", time.localtime(entry.ts)) if entry.ts else "        "
    except (OverflowError, OSError, ValueError):  # a peer's "ts": 1e400 (inf) or 1e300: beyond time_t
        stamp = "        "
    return f"log    {stamp} {_LEVEL_TAG.get(entry.level, 'info ')} {inert(entry.text)}"


def _message_line(name: str, msg: Message) -> str:
    kind = "" if msg.type == "message" else f"[{inert(msg.type)}] "
    return f"inbox  {inert(msg.sender or '?')} -> {inert(name)}: {kind}{inert(msg.content)}"


class Follower:
    """Prints what changes about one teammate; `done` once it has shut down or left."""

    def __init__(self, state: TeamState, name: str):
        self.state = state
        self.name = name
        self.done = False
        self._task = ""

    def start(self, backlog: int) -> None:
        view = _view(self.state, self.name)
        if view is None:
            raise CliError(f"no teammate {self.name!r} in team {self.state.name!r}")
        out(f"following {inert(self.name)} in team {inert(self.state.name)} ({view.status.value}); Ctrl-C to stop")
        self._show_task(view)
        for entry in list(self.state.logs.get(self.name, []))[-backlog:] if backlog > 0 else []:
            out(_log_line(entry))
        for msg in self.state.inbox_messages(self.name) if self._inbox_lines else []:
            out(_message_line(self.name, msg))
        self._check_end(view)

    @property
    def _inbox_lines(self) -> bool:
        # A transcript already says "← sender: text" for each message taken: inbox lines would repeat it.
        return self.state.transcripts is None

    def apply(self, changes: list[Change]) -> None:
        for change in changes:
            if change.kind == ChangeKind.LOG and change.key == self.name:
                for entry in change.entries:
                    out(_log_line(entry))
            elif change.kind == ChangeKind.INBOX and change.key == self.name and self._inbox_lines:
                for msg in change.messages:
                    out(_message_line(self.name, msg))
            elif change.kind == ChangeKind.INBOX_READ and change.key == self.name and self._inbox_lines:
                out("inbox  (read by the teammate)")
            elif change.kind == ChangeKind.TEAM_GONE:
                out(f"team {inert(self.state.name)} is gone; following ends.")
                self.done = True
                return
        view = _view(self.state, self.name)
        self._show_task(view)
        self._check_end(view)

    def _show_task(self, view: MemberView | None) -> None:
        line = _task_line(view)
        if line != self._task:
            self._task = line
            out(line)

    def _check_end(self, view: MemberView | None) -> None:
        if _ended(view):
            why = "left the team" if view is None or view.departed else "shut down"
            out(f"{inert(self.name)} {why}; following ends.")
            self.done = True


def follow(ctx: Context, name: str, backlog: int) -> int:
    state = TeamState(ctx.store())
    state.load_all(one_shot=True)  # the first screen of `follow`: nothing shown before it
    if state.transcript_files is not None:
        # A Claude Code teammate writes no log: what it does is in its transcript, read from the end.
        state.take_transcripts(state.transcript_files.read(from_end=True))
    follower = Follower(state, name)
    follower.start(backlog)
    if follower.done:
        return 0
    # After the first screen: the event loop and the watcher are not needed for it, and
    # resync() covers what changed meanwhile. A follow pane shows its teammate sooner.
    import asyncio

    return asyncio.run(_follow_live(state, follower))


async def _follow_live(state: TeamState, follower: Follower) -> int:
    import asyncio
    import contextlib

    from teamtui.protocol.watch import WatchBatch, watch_dirs

    stop = asyncio.Event()
    batches: asyncio.Queue[WatchBatch] = asyncio.Queue()

    async def pump() -> None:
        async with contextlib.aclosing(watch_dirs(state.watch_dirs(), stop, flat=state.flat_watch_dirs())) as stream:
            async for batch in stream:
                await batches.put(batch)

    watcher = asyncio.create_task(pump())
    try:
        while not follower.done:
            batch = await batches.get()
            if batch.rescan:
                changes = state.load_all() + state.apply_batch([], rescan=True)
            elif batch.ready:
                # What changed before the watches were in place; transcripts read on from their offsets.
                changes = state.resync() + state.apply_batch([], rescan=True)
            else:
                changes = state.apply_batch(sorted(batch.paths))  # team files, and transcripts from their offsets
            follower.apply(changes)
    finally:
        stop.set()
        watcher.cancel()
        await asyncio.gather(watcher, return_exceptions=True)
    return 0


def cmd_follow(ctx: Context) -> int:
    # A pane or a pipe must see each line as it happens.
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(line_buffering=True)
    return follow(ctx, ctx.args.name, ctx.args.backlog)


# ---------------------------------------------------------------------- cleanup
def _default_socket() -> str:
    base = os.environ.get("TMUX_TMPDIR") or "/tmp"
    return str(Path(base) / f"tmux-{os.getuid()}" / "default")


def cmd_cleanup(ctx: Context) -> int:
    from teamtui.tmux.cleanup import cleanup_leftovers
    from teamtui.tmux.server import Tmux, socket_from_env

    socket = str(ctx.args.socket) if ctx.args.socket else socket_from_env() or _default_socket()
    if not os.path.exists(socket):
        out(f"no tmux server at {socket}: nothing to clean up")
        return 0
    closed = cleanup_leftovers(Tmux(socket), ctx.team)
    for x in closed:
        pid = x.owner.partition(":")[0]
        out(f"closed pane {x.pane_id} (team {inert(x.team)}, teammate {inert(x.teammate)}; teamtui {pid} is gone)")
    out(f"{len(closed)} leftover pane(s) closed" if closed else "no leftover panes")
    return 0
