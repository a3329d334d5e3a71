"""`teamtui history`: the teams in the journal, and one team's timeline (also after it ended)."""

from __future__ import annotations

import argparse
import json
import time

from teamtui.cli.common import EXIT_ERROR, CliError, Context, inert, out

TYPE_CHECKING = False  # not typing's: `teamtui --help` imports this module, and typing costs ~2 ms
if TYPE_CHECKING:
    from typing import Any


def _when(ts: Any) -> str:
    if not isinstance(ts, (int, float)) or isinstance(ts, bool) or ts <= 0:
        return "-"
    try:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts))
    except (OverflowError, OSError, ValueError):
        return "-"


def _one_line(text: Any, limit: int = 200) -> str:
    s = inert(str(text)).replace("\n", " ⏎ ")
    return s if len(s) <= limit else s[: limit - 1] + "…"


def _record_time(record: dict[str, Any]) -> float:
    ts = record.get("ts")
    return ts if isinstance(ts, (int, float)) else 0.0


def cmd_history(ctx: Context) -> int:
    from teamtui.protocol.claude.journal import find_journal, journal_dir, list_teams, read_records

    if ctx.args.name is None:
        teams = list_teams()
        if ctx.args.json:
            out(
                json.dumps(
                    {
                        "journal": str(journal_dir()),
                        "teams": [
                            {
                                "team": t.name,
                                "layout": t.layout,
                                "root": t.root,
                                "first_seen": t.first_seen,
                                "last_seen": t.last_seen,
                                "ended_at": t.ended_at,
                                "messages": t.messages,
                                "cost": t.cost and {k: v for k, v in t.cost.items() if k not in ("ts", "kind")},
                                "file": str(t.path),
                            }
                            for t in teams
                        ],
                    },
                    ensure_ascii=True,
                    indent=2,
                )
            )
            return 0
        if not teams:
            out(f"no team in the journal ({inert(str(journal_dir()))})")
            return 0
        from teamtui.protocol.cost import cost_text, read_cost

        for t in teams:
            state = f"ended {_when(t.ended_at)}" if t.ended_at else f"last seen {_when(t.last_seen)}"
            spent = cost_text(read_cost(t.cost))
            spent = f"  {_one_line(spent, 200)}" if spent else ""
            out(f"{_one_line(t.name, 80)}  {t.layout}  {state}  {t.messages} messages{spent}  {_one_line(t.root, 120)}")
        return 0
    found = find_journal(ctx.args.name)
    if not found:
        raise CliError(f"no team {ctx.args.name!r} in the journal ({journal_dir()})", EXIT_ERROR)
    records = [r for t in found for r in read_records(t.path)]
    records.sort(key=_record_time)
    if ctx.args.json:
        out(json.dumps({"team": ctx.args.name, "records": records}, ensure_ascii=True, indent=2))
        return 0
    for r in records:
        out(f"{_when(r.get('ts'))}  {timeline_line(r)}")
    return 0


def timeline_line(r: dict[str, Any]) -> str:
    """One record as a person reads it."""
    kind = r.get("kind")
    if kind == "team":
        members = ", ".join(_one_line(m.get("name", "?"), 40) for m in r.get("members") or [] if isinstance(m, dict))
        return f"team {_one_line(r.get('team'), 80)} ({r.get('layout')}) lead {_one_line(r.get('lead'), 40)}; members: {members or '-'}"
    if kind == "message":
        what = "" if r.get("type") in ("message", "broadcast") else f"[{_one_line(r.get('type'), 40)}] "
        return f"{_one_line(r.get('from'), 40)} → {_one_line(r.get('to'), 40)}: {what}{_one_line(r.get('text'))}"
    if kind == "delivered":
        return f"delivered to {_one_line(r.get('to'), 40)}"
    if kind in ("task", "assigned"):
        owner = f" ({_one_line(r.get('owner'), 40)})" if r.get("owner") else ""
        what = "task" if kind == "task" else "assignment"  # the lead's, handed out without a task list
        return f"{what} #{_one_line(r.get('id'), 20)} {_one_line(r.get('status'), 20)}{owner}: {_one_line(r.get('subject'))}"
    if kind in ("task_removed", "assigned_removed"):
        return f"{'task' if kind == 'task_removed' else 'assignment'} #{_one_line(r.get('id'), 20)} removed"
    if kind in ("member_joined", "member_left"):
        return f"{_one_line(r.get('name'), 40)} {'joined' if kind == 'member_joined' else 'left'}"
    if kind == "member_status":
        return f"{_one_line(r.get('name'), 40)} is {_one_line(r.get('status'), 20)}"
    if kind == "lead_ended":
        return "the lead ended"
    if kind == "team_gone":
        return "the team's folder is gone (team ended)"
    if kind == "cost":
        from teamtui.protocol.cost import cost_text, read_cost

        return f"cost so far: {_one_line(cost_text(read_cost(r)) or '-')}"
    return _one_line(json.dumps(r, ensure_ascii=True))


def register(sub: argparse._SubParsersAction, parents: list[argparse.ArgumentParser], only: str | None = None) -> None:
    p = sub.add_parser(
        "history",
        parents=parents,
        help="teams in the journal, or one team's timeline (kept after Claude Code deletes the team)",
        description="Without TEAM: the teams teamtui has watched. With TEAM: everything it observed about it.",
    )
    p.add_argument("name", metavar="TEAM", nargs="?", help="whose timeline to print")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=cmd_history)
