"""The teammate's side of the protocol from any language: idle, shutdown-reply; and the lead's
`shutdown` (two-phase, optionally waiting for every teammate to be accounted for).

Kept light: nothing here imports Textual, rich, libtmux or the watcher, except `shutdown --wait`,
which waits on file events.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable

from teamtui.cli.common import EXIT_USAGE, CliError, Context, guarded, inert, out

TYPE_CHECKING = False  # not typing's: `teamtui --help` imports this module, and typing costs ~2 ms
if TYPE_CHECKING:
    from typing import Any

    from teamtui.protocol.models import Message
    from teamtui.protocol.shutdown import ShutdownRun
    from teamtui.protocol.store import TeamStore

Handler = Callable[[Context], int]
IDLE_REASONS = ("available", "interrupted", "failed")
REPLY_STATUSES = ("clean", "in_progress", "error")
# The sender of a request handed to a running lead when no teammate name is set: the person at the terminal.
PERSON = "user"


def _me(ctx: Context) -> str:
    name = ctx.args.name if ctx.args.name is not None else ctx.me
    if name is None:
        raise CliError("--as NAME is required (or set TEAMTUI_NAME)", EXIT_USAGE)
    return name


def _set_status(store: TeamStore, name: str, status: str) -> None:
    from teamtui.protocol.errors import NotFoundError

    if not store.writes_members:
        return  # the layout's own tool keeps its members' status (Claude Code)
    try:
        store.update_member(name, status=status, last_seen=time.time())
    except NotFoundError:
        pass  # not in the config (started by hand): the status is informational


# ----------------------------------------------------------------------------- idle


def cmd_idle(ctx: Context) -> int:
    store = ctx.store()
    name = _me(ctx)
    a = ctx.args
    key = store.protocol_key  # the layout's spelling of protocol fields: snake_case or camelCase
    extra: dict[str, object] = {"from": name, key("idle_reason", "idleReason"): a.reason}
    if a.summary:
        extra["summary"] = a.summary
    if a.completed:
        extra[key("completed_task_id", "completedTaskId")] = a.completed
        extra[key("completed_status", "completedStatus")] = "failed" if a.reason == "failed" else "resolved"
    if a.reason == "failed" and a.summary:
        extra[key("failure_reason", "failureReason")] = a.summary
    store.send(store.lead_name, a.summary or f"{name} is idle", name, type="idle_notification", extra=extra)
    _set_status(store, name, "idle")
    return 0


# ----------------------------------------------------------------------------- shutdown-reply


def _open_request_id(store: TeamStore, name: str) -> str:
    """The newest shutdown request still in my inbox (not yet drained), or ''."""
    read = store.peek(name)
    for m in reversed(read.messages):
        if m.type == "shutdown_request":
            return getattr(m.payload, "request_id", "") or ""
    return ""


def cmd_shutdown_reply(ctx: Context) -> int:
    store = ctx.store()
    name = _me(ctx)
    a = ctx.args
    request_id = a.request_id if a.request_id is not None else _open_request_id(store, name)
    approve = a.reject is None
    store.send_shutdown_response(
        name,
        request_id,
        approve=approve,
        status=a.status,
        pending_work=list(a.pending or []),
        artifacts_committed=bool(a.committed),
        reason=a.reject or "",
    )
    if approve:
        _set_status(store, name, "shutdown")
    return 0


# ----------------------------------------------------------------------------- shutdown


def cmd_shutdown(ctx: Context) -> int:
    from teamtui.protocol.store import RunsLead

    store = ctx.store()
    a = ctx.args
    if a.deadline < 0:
        raise CliError("--deadline must be 0 or more", EXIT_USAGE)
    cfg = store.read_config()
    members = {m.name for m in cfg.members}
    unknown = [n for n in a.names if n not in members or n == cfg.lead]
    if unknown:
        raise CliError(f"not a teammate of {store.name!r}: {', '.join(unknown)}")
    reason = a.reason or "phase_complete"
    if isinstance(store, RunsLead) and store.running_lead() is not None:
        return _ask_the_lead(ctx, store, reason)
    return _shut_down_directly(ctx, store, cfg, reason)


def _ask_the_lead(ctx: Context, store: TeamStore, reason: str) -> int:
    """A teamtui lead runs this team: it sends the requests and climbs its ladder; it writes the
    summary to shutdown/<request id>.json, which --wait waits for."""
    from teamtui.protocol.store import RunsLead

    assert isinstance(store, RunsLead)  # asked only of a team a teamtui lead runs
    a = ctx.args
    request_id = store.ask_running_lead(a.sender or ctx.me or PERSON, reason, a.deadline, list(a.names))
    who = ", ".join(inert(n) for n in a.names) or "the whole team"
    out(f"asked the lead to shut down {who} (request {request_id})")
    if not a.wait:
        return 0
    summary = _run_async(_wait_for_lead(store, request_id))
    return _print_summary(ctx, summary)


async def _wait_for_lead(store: TeamStore, request_id: str) -> dict[str, object]:
    import asyncio

    from teamtui.protocol.fsio import ensure_dir
    from teamtui.protocol.store import RunsLead
    from teamtui.protocol.watch import watch_dirs

    result = store.team_dir / "shutdown" / f"{request_id}.json"
    ensure_dir(result.parent, store.root, store.team_dir)
    stop = asyncio.Event()
    async for _batch in watch_dirs([store.team_dir], stop):
        summary = _load_summary(result)
        if summary is not None:
            stop.set()
            return summary
        if not isinstance(store, RunsLead) or store.running_lead() is None:
            stop.set()
            summary = _load_summary(result)  # written just before the lead went
            if summary is not None:
                return summary
            raise CliError("the lead stopped without writing the shutdown summary")
    raise CliError("stopped waiting")


def _load_summary(path) -> dict[str, object] | None:
    from teamtui.protocol.fsio import load_json_file

    data = load_json_file(path)
    if not isinstance(data, dict):
        return None
    run = data.get("run", data)
    return run if isinstance(run, dict) and isinstance(run.get("teammates"), list) else None


def _shut_down_directly(ctx: Context, store: TeamStore, cfg: Any, reason: str) -> int:
    """No teamtui lead runs this team: send the requests in the lead's name (or --from), and with
    --wait read the replies from the lead's inbox without consuming them."""
    from teamtui.protocol.models import MemberStatus
    from teamtui.protocol.shutdown import ShutdownRun

    a = ctx.args
    names = list(a.names) or [m.name for m in cfg.members if m.status != MemberStatus.SHUTDOWN and m.name != cfg.lead]
    if not names:
        out("no live teammate to shut down")
        return 0
    sender = a.sender or ctx.me
    if not sender:  # the lead, where this process may write as it; else teamtui's own name (Claude Code teams)
        if store.may_write_as_lead():
            sender = cfg.lead
        else:
            from teamtui.cli.common import own_sender

            sender = own_sender()
    feed = _ReplyFeed(store, cfg.lead)  # from here on: replies sent before the requests are not ours
    run = ShutdownRun(store, names, sender=sender, reason=reason, deadline_seconds=a.deadline)
    run.start()
    for t in run.teammates.values():
        if t.request_id:
            out(f"asked {inert(t.name)} to shut down (request {inert(t.request_id)})")
        else:
            out(f"could not ask {inert(t.name)}: {inert(t.detail)}")
    if not a.wait:
        return 0
    _run_async(_collect(run, feed))
    tasks, _ = store.list_tasks()
    run.write_results(tasks)
    return _print_summary(ctx, run.summary(tasks))


class _ReplyFeed:
    """New messages in the lead's inbox since it was made, read from the last offset (native) or
    past the entries already there (Claude Code's JSON array)."""

    def __init__(self, store: TeamStore, lead: str):
        self.store, self.lead = store, lead
        self._reader = None
        self._seen = 0
        if store.appends_to_inboxes:
            from teamtui.protocol.tail import TailReader

            self._reader = TailReader(store.inbox_path(lead))
            while self._reader.read().more:
                pass
        else:
            self._seen = len(store.peek(lead).messages)

    def new(self) -> list[Message]:
        if self._reader is None:
            messages = self.store.peek(self.lead).messages
            if len(messages) < self._seen:
                self._seen = 0  # rewritten shorter: everything in it is new
            fresh, self._seen = messages[self._seen :], len(messages)
            return fresh
        got: list[Message] = []
        while True:
            batch = self._reader.read()
            got += self.store.decode_inbox_batch(self.lead, batch).messages  # a line that does not decode is skipped
            if not batch.more:
                return got


async def _collect(run: ShutdownRun, feed: _ReplyFeed) -> None:
    import asyncio

    from teamtui.protocol.watch import watch_dirs

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    timer = loop.call_later(run.remaining(), stop.set)
    try:
        run.observe(feed.new())
        if run.done:
            return
        async for _batch in watch_dirs([feed.store.team_dir], stop):
            run.observe(feed.new())
            if run.done:
                return
        run.observe(feed.new())
        run.expire(run.deadline_at)  # the loop's timer may fire a hair before the wall clock's deadline
    finally:
        timer.cancel()
        stop.set()


def _run_async(coro: Any) -> Any:
    import asyncio

    return asyncio.run(coro)


def _print_summary(ctx: Context, summary: dict[str, Any]) -> int:
    from teamtui.protocol.shutdown import said

    if ctx.args.json:
        out(json.dumps(summary, ensure_ascii=True, indent=2))
        return 0
    accounted = (
        "every teammate accounted for" if summary.get("all_accounted_for") else "not every teammate accounted for"
    )
    out(f"shutdown of {inert(summary.get('team', ''))} ({inert(summary.get('reason', ''))}): {accounted}")
    for t in summary.get("teammates", []):
        if not isinstance(t, dict):
            continue
        line = f"  {inert(t.get('teammate', '?'))}: {inert(said(str(t.get('outcome', '?'))))}"
        pending = t.get("pending_work") or []
        if pending:
            line += " · pending: " + "; ".join(inert(p) for p in pending)
        if t.get("artifacts_committed"):
            line += " · artifacts committed"
        if t.get("detail"):
            line += f" · {inert(t['detail'])}"
        out(line)
    for task in summary.get("tasks_in_progress", []):
        if isinstance(task, dict):
            out(
                f"  still in progress: #{inert(task.get('id', '?'))} {inert(task.get('subject', ''))} → {inert(task.get('owner', ''))}"
            )
    return 0


# ----------------------------------------------------------------------------- parser


def register(sub: argparse._SubParsersAction, parents: list[argparse.ArgumentParser], only: str | None = None) -> None:
    def add(name: str, handler: Handler, help: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, parents=parents, help=help, description=help)
        p.set_defaults(handler=guarded(handler))
        return p

    p = add(
        "idle",
        cmd_idle,
        'tell the lead I am idle: an idle_notification (the lead assigns work on it under assign = "lead")',
    )
    p.add_argument("--reason", choices=IDLE_REASONS, default="available")
    p.add_argument("--summary", default="", help="what I did, in a line")
    p.add_argument("--completed", default="", metavar="ID", help="the task I just finished")
    p.add_argument("--as", dest="name", default=None, metavar="NAME", help="who is idle; default $TEAMTUI_NAME")

    p = add(
        "shutdown",
        cmd_shutdown,
        "ask teammates to shut down (two-phase: a shutdown_request with a deadline, then their replies)",
    )
    p.add_argument("names", nargs="*", metavar="NAME", help="teammates to ask; default every live teammate")
    p.add_argument("--reason", default="", help="phase_complete (default), timeout, error, or your words")
    p.add_argument(
        "--deadline", type=float, default=30.0, metavar="SECONDS", help="how long teammates have to reply (default 30)"
    )
    p.add_argument(
        "--wait", action="store_true", help="wait until every teammate replied or timed out, then print the summary"
    )
    p.add_argument("--json", action="store_true", help="with --wait: the summary as JSON")
    p.add_argument(
        "--from", dest="sender", default=None, metavar="NAME", help="who asks; default $TEAMTUI_NAME, else the lead"
    )

    p = add("shutdown-reply", cmd_shutdown_reply, "answer the lead's shutdown request (approve unless --reject)")
    p.add_argument("--status", choices=REPLY_STATUSES, required=True)
    p.add_argument(
        "--pending", nargs="+", default=[], metavar="ITEM", help="work left unfinished, one item per argument"
    )
    p.add_argument("--committed", action="store_true", help="my artifacts are committed")
    p.add_argument("--reject", default=None, metavar="REASON", help="refuse to shut down, and why")
    p.add_argument(
        "--request-id",
        default=None,
        metavar="ID",
        help="default: the request in my inbox, else the lead matches it to me",
    )
    p.add_argument("--as", dest="name", default=None, metavar="NAME", help="who answers; default $TEAMTUI_NAME")
