"""`teamtui status` and `teamtui tasks`: a team's members, progress and board, as the control
room sees them (the transcripts read the one way: protocol/fleet/overview.py)."""

from __future__ import annotations

import argparse

from teamtui.cli.common import EXIT_USAGE, CliError, Context, inert, out
from teamtui.cli.protocol_cmds import _errors_json, _print_errors, _print_json, command_parser
from teamtui.protocol.models import MemberStatus, TaskStatus

TYPE_CHECKING = False  # not typing's: importing it costs every command ~2 ms
if TYPE_CHECKING:
    from collections.abc import Callable

    from teamtui.protocol.board import Board, TaskView

    Handler = Callable[[Context], int]

STATUS_JSON_HELP = """\
--json prints one object:
  {"team": str, "layout": "native"|"claude", "root": str, "lead": str, "description": str,
   "members": [{"name": str, "status": "working"|"idle"|"shutdown"|"unknown", "agent_type": str,
                "color": str, "current_task": {"id": str, "subject": str} | null, "unread": int,
                Claude Code teams only, from the member's transcript (a figure it does not give is left out):
                "tokens": {"input": int, "output": int, "cache_creation": int, "cache_read": int, "total": int} | null,
                "cost": null | {"usd": str, "unknown_models": [str], "unpriced_tokens": int, "days": {"YYYY-MM-DD": str}},
                "context": {"tokens": int, "window": int, "share": float} | null,
                "activity": {"kind": "tool"|"thinking"|"idle", "text": str, "ts": float} | null}],
   "tasks": {"done": int, "total": int},
   Claude Code teams only: "lead_usage": {"tokens": ..., "cost": ..., "context": ..., "activity": ...}, "tokens_total": int | null,
   "errors": [{"path": str, "line": int|null, "reason": str}]}
  A member's cost is the team panel's Cost, as status --all --json gives a team's: usd is genai-prices' sum,
  unrounded; a model it has no price for is in unknown_models, its tokens in unpriced_tokens."""

STATUS_ALL_HELP = """\
--all lists every team of this machine instead of one: Claude Code's (~/.claude or $CLAUDE_CONFIG_DIR),
the native team(s) under the current directory, under config.toml's `roots = [...]` and under each
ROOT given, those a `teamtui run`/`teamtui demo` leads, and teams ended within `fleet_keep_hours`
(config.toml, default 24) as teamtui's journal has them. Order: teams that need you, then live teams by
last activity, then ended ones (gone, or their lead's process ended). A folder that does not read is
listed with its problem; a bad setting or ROOT is said on stderr. In the table, ! marks a team that needs
you and x an ended one; ? counts members whose status is not known yet.
--all --json prints one JSON list, an object per team in that order:
  [{"team": str, "folder": str, "root": str, "layout": "native"|"claude", "source": "claude"|"native"|"run",
    "label": "Claude Code"|"native"|"run by teamtui", "lead": "alive"|"ended"|"unknown", "ended": bool,
    "ended_at": float|null, "members": {"working": int, "idle": int, "gone": int, "unknown": int},
    "tasks": {"done": int, "total": int}, "needs_you": int, "tokens": int|null,
    "cost": null | {"usd": str, "unknown_models": [str], "unpriced_tokens": int, "days": {"YYYY-MM-DD": str}},
    "budget": str|null, "last_activity": float|null, "cwd": str, "pid": int|null, "errors": int, "problem": str|null}]
  tokens and cost are null for a team without transcripts (an ended team's cost is the one its journal
  kept); times are seconds since the epoch. Every figure is the control room's: a Claude Code team's
  transcripts are read as the room reads them. cost.usd is genai-prices' sum for the messages it has a
  price for, unrounded; the tokens of a model it does not know are in unpriced_tokens, never guessed at.
  budget: the furthest of config.toml's [budgets] the team reached ("team 80%"), else null."""

TASKS_JSON_HELP = """\
--json prints one object:
  {"team": str, "layout": str, "done": int, "total": int,
   "tasks": [{"id": str, "subject": str, "description": str, "status": "pending"|"in_progress"|"completed",
              "state": "completed"|"in_progress"|"ready"|"blocked"|"withheld"|"assigned",
              "owner": str, "blocked_by": [str], "open_blockers": [str], "missing": [str],
              "conflicts_with": [str], "files": [str],
              "plan_task": str, "held": str, "failures": int, "waits_on": [{"file": str, "touched_by": str}]}],
   "errors": [{"path": str, "line": int|null, "reason": str}]}"""

_MEMBER_ICON = {
    MemberStatus.WORKING: "●",
    MemberStatus.IDLE: "○",
    MemberStatus.SHUTDOWN: "×",
    MemberStatus.UNKNOWN: "?",
}
_TASK_ICON = {TaskStatus.COMPLETED: "✓", TaskStatus.IN_PROGRESS: "●", TaskStatus.PENDING: "○"}


# ----------------------------------------------------------------------------- status / tasks


def _usage_json(state, member: str) -> dict[str, object]:
    """tokens, context and activity of `member` as its transcript gives them (None: no transcript)."""
    stats = state.transcripts.stats(member)
    if stats is None:
        return {"tokens": None, "cost": None, "context": None, "activity": None}
    t = stats.tokens
    tokens = {
        k: v
        for k, v in (
            ("input", t.input),
            ("output", t.output),
            ("cache_creation", t.cache_creation),
            ("cache_read", t.cache_read),
            ("total", t.total),
        )
        if v is not None
    }
    context = None
    if stats.context_tokens is not None:
        context = {"tokens": stats.context_tokens}
        if stats.context_window is not None:
            context["window"] = stats.context_window
        if stats.context_share is not None:
            context["share"] = round(stats.context_share, 4)
    a = stats.activity
    activity = {"kind": a.kind, "text": a.label(), "ts": a.ts} if a is not None else None
    from teamtui.protocol.cost import cost_json

    return {"tokens": tokens or None, "cost": cost_json(stats.cost), "context": context, "activity": activity}


def cmd_status(ctx: Context) -> int:
    if ctx.args.all:
        from teamtui.cli.fleet_status import cmd_status_all  # the fleet (settings, journal, layouts): only here

        return cmd_status_all(ctx)
    if ctx.args.roots:
        raise CliError("ROOT goes with --all", EXIT_USAGE)
    from teamtui.protocol.state import TeamState  # status only: the other commands read no more than they show

    store = ctx.store()
    state = TeamState(store)
    state.load_all(one_shot=True)
    if state.transcripts is not None:  # only where the layout has them: a native status reads no more
        from teamtui.protocol.fleet.overview import read_transcripts

        # As the room does: the same tasks, needs and tokens; priced where a cost is shown (--json's members).
        read_transcripts(state, priced=ctx.args.json)
    done, total = state.board.progress()
    views = state.member_views()
    cfg = state.config
    description = cfg.description if cfg else ""
    if ctx.args.json:
        _print_json(
            {
                "team": state.name,
                "layout": store.layout,
                "root": str(store.root),
                "lead": state.lead,
                "description": description,
                "members": [
                    {
                        "name": v.name,
                        "status": v.status.value,
                        "agent_type": v.agent_type,
                        "color": v.color,
                        "current_task": (
                            {"id": v.current_task.id, "subject": v.current_task.subject} if v.current_task else None
                        ),
                        "unread": v.unread,
                        **(_usage_json(state, v.name) if state.transcripts is not None else {}),
                    }
                    for v in views
                ],
                "tasks": {"done": done, "total": total},
                **(
                    {"lead_usage": _usage_json(state, state.lead), "tokens_total": state.transcripts.total_tokens()}
                    if state.transcripts is not None
                    else {}
                ),
                "errors": _errors_json(state.all_errors()),
            }
        )
        return 0
    out(f"Team: {inert(state.name)}")
    if description:
        out(f"Description: {inert(description)}")
    out(f"Lead: {inert(state.lead)}")
    out(f"Members: {len(views)}")
    out(f"Tasks: {done}/{total} done" + (f" ({state.task_source})" if state.task_source == "assignments" else ""))
    if state.transcripts is not None:
        import time

        needs = state.transcripts.needs_you(time.time())
        tokens = state.transcripts.total_tokens()
        out(f"Needs you: {len(needs) or 'nothing'}")
        for n in needs:
            out(f"  ? {inert(n.text)}")
        if tokens is not None:
            out(f"Tokens: {tokens:,}")
    if views:
        out()
    for v in views:
        kind = f" ({inert(v.agent_type)})" if v.agent_type else ""
        line = f"  {_MEMBER_ICON[v.status]} {inert(v.name)}{kind} - {v.status.value}"
        if v.current_task is not None:
            line += f"  #{inert(v.current_task.id)} {inert(v.current_task.subject)}"
        if v.unread:
            line += f"  [{v.unread} unread]"
        out(line)
    _print_task_lines(state.board, header="Tasks:")
    _print_errors(state.all_errors())
    return 0


def _task_line(view: TaskView) -> str:
    t = view.task
    key = t.metadata.get("plan_task") if isinstance(t.metadata, dict) else None
    plan_key = f"{inert(key)} " if isinstance(key, str) and key else ""
    line = f"  {_TASK_ICON[t.status]} #{inert(t.id)} {plan_key}{inert(t.subject)}"
    if t.owner:
        line += f" → {inert(t.owner)}"
    if view.state == "ready":  # TaskState.READY, a str: this module leaves the board to the commands that list tasks
        line += " (ready)"
    reason = view.blocked_reason
    if reason:
        line += f" ({inert(reason)})"
    return line


def _print_task_lines(board: Board, header: str) -> None:
    views = board.views()
    if not views:
        return
    out()
    out(header)
    for v in views:
        out(_task_line(v))


def cmd_tasks(ctx: Context) -> int:
    from teamtui.protocol.board import Board
    from teamtui.protocol.taskmeta import failure_count
    from teamtui.protocol.touching import load_touches

    store = ctx.store()
    if store.has_transcripts:  # a Claude Code lead's work may be its assignments: read as the room reads them
        from teamtui.protocol.fleet.overview import read_transcripts
        from teamtui.protocol.state import TeamState

        state = TeamState(store)
        state.load_all(one_shot=True)
        read_transcripts(state, priced=False)
        board, errors = state.board, state.all_errors()
    else:
        tasks, errors = store.list_tasks()
        touches, touch_error = load_touches(store)
        if touch_error is not None:
            errors.append(touch_error)
        board = Board(tasks, touches)
    done, total = board.progress()
    if ctx.args.json:
        _print_json(
            {
                "team": store.name,
                "layout": store.layout,
                "done": done,
                "total": total,
                "tasks": [
                    {
                        "id": v.task.id,
                        "subject": v.task.subject,
                        "description": v.task.description,
                        "status": v.task.status.value,
                        "state": v.state.value,
                        "owner": v.task.owner,
                        "blocked_by": list(v.task.blocked_by),
                        "open_blockers": v.open_blockers,
                        "missing": v.missing,
                        "conflicts_with": v.conflicts_with,
                        "files": list(v.task.files),
                        "plan_task": v.task.metadata.get("plan_task", "") if isinstance(v.task.metadata, dict) else "",
                        "held": v.held,
                        "failures": failure_count(v.task),
                        "waits_on": [{"file": f, "touched_by": who} for f, who in v.waits_on],
                    }
                    for v in board.views()
                ],
                "errors": _errors_json(errors),
            }
        )
        return 0
    out(f"Tasks [{done}/{total} done]")
    views = board.views()
    if views:
        out()
    for v in views:
        out(_task_line(v))
    _print_errors(errors)
    return 0


def register(sub: argparse._SubParsersAction, parents: list[argparse.ArgumentParser], only: str | None = None) -> None:
    """The parsers of status and tasks; of `only` alone when given."""

    def add(
        subs: argparse._SubParsersAction, name: str, handler: Handler, help: str, epilog: str = ""
    ) -> argparse.ArgumentParser:
        return command_parser(subs, parents, name, handler, help, epilog)

    if only in (None, "status"):
        p = add(
            sub,
            "status",
            cmd_status,
            "team name, members with status and current task, task progress",
            STATUS_JSON_HELP + "\n\n" + STATUS_ALL_HELP,
        )
        p.add_argument("--json", action="store_true", help="machine-readable output (shape below)")
        p.add_argument("--all", action="store_true", help="every team of this machine, one line each (below)")
        p.add_argument("roots", nargs="*", metavar="ROOT", help="with --all: more native roots to look in")
        p.add_argument(
            "--transcripts",
            action="store_true",
            help="kept for scripts: the transcripts are always read, as the control room reads them",
        )

    if only in (None, "tasks"):
        p = add(sub, "tasks", cmd_tasks, "every task with status, owner and what blocks it", TASKS_JSON_HELP)
        p.add_argument("--json", action="store_true", help="machine-readable output (shape below)")
