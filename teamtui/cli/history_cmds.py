"""`teamtui history`: the teams in the history database, and one team's timeline (also after it ended)."""

from __future__ import annotations

import argparse
import json
import time

from teamtui.cli.common import EXIT_ERROR, EXIT_USAGE, CliError, Context, inert, out

TYPE_CHECKING = False  # not typing's: `teamtui --help` imports this module, and typing costs ~2 ms
if TYPE_CHECKING:
    import sqlite3
    from decimal import Decimal
    from typing import Any

    from teamtui.protocol.history.query import TeamRow

    Spent = tuple[Decimal, bool] | None  # a team's kept cost (USD, some of it unpriced), or none


def _when(ts: object) -> str:
    if not isinstance(ts, (int, float)) or isinstance(ts, bool) or ts <= 0:
        return "-"
    try:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts))
    except (OverflowError, OSError, ValueError):
        return "-"


def _one_line(text: object, limit: int = 200) -> str:
    s = inert(str(text)).replace("\n", " ⏎ ")
    return s if len(s) <= limit else s[: limit - 1] + "…"


def _record_time(record: dict[str, object]) -> float:
    ts = record.get("ts")
    return ts if isinstance(ts, (int, float)) else 0.0


def _open_history() -> sqlite3.Connection:
    """The history database, the journals' new records read in; a damaged file is rebuilt and said."""
    import sys

    from teamtui.protocol.history.db import Trouble
    from teamtui.protocol.history.query import open_history

    try:
        return open_history(tell=lambda line: print(f"teamtui: {inert(line)}", file=sys.stderr))
    except Trouble as exc:
        raise CliError(f"the history cannot be read: {exc}", EXIT_ERROR) from exc


def cmd_history(ctx: Context) -> int:
    from teamtui.protocol.history import db_path
    from teamtui.protocol.history.query import records, spend_by_team, teams

    if ctx.args.name is None and (ctx.args.html or ctx.args.activity):
        raise CliError("--html and --activity need a TEAM: teamtui history TEAM --html FILE", EXIT_USAGE)
    con = _open_history()
    if ctx.args.name is None:
        found = teams(con)
        spent = spend_by_team(con)
        if ctx.args.json:
            out(
                json.dumps(
                    {
                        "database": str(db_path()),
                        "teams": [
                            {
                                "team": t.name,
                                "host": t.host,
                                "layout": t.layout,
                                "root": t.root,
                                "first_seen": t.first_seen,
                                "last_seen": t.last_seen,
                                "ended_at": t.ended_at,
                                "messages": t.messages,
                                "cost": _cost_json(spent.get(t.id)),
                                "file": t.journal,
                            }
                            for t in found
                        ],
                    },
                    ensure_ascii=True,
                    indent=2,
                )
            )
            return 0
        if not found:
            out(f"no team in the history ({inert(str(db_path()))})")
            return 0
        for t in found:
            state = f"ended {_when(t.ended_at)}" if t.ended_at else f"last seen {_when(t.last_seen)}"
            where = f"{t.host}:{t.root}" if t.host else t.root
            cost = _cost_text(spent.get(t.id))
            out(f"{_one_line(t.name, 80)}  {t.layout}  {state}  {t.messages} messages  {cost}  {_one_line(where, 120)}")
        return 0
    found = teams(con, ctx.args.name)
    if not found:
        raise CliError(f"no team {ctx.args.name!r} in the history ({db_path()})", EXIT_ERROR)
    if ctx.args.html:
        return _write_report(con, found, ctx.args.html)
    recs = [r for t in found for r in records(con, t.id, activity=ctx.args.activity)]
    recs.sort(key=_record_time)
    if ctx.args.json:
        out(json.dumps({"team": ctx.args.name, "records": recs}, ensure_ascii=True, indent=2))
        return 0
    for r in recs:
        out(f"{_when(r.get('ts'))}  {timeline_line(r)}")
    return 0


def _cost_text(spent: Spent) -> str:
    """What a team cost as the history kept it: $12.34, "$12.34 + price unknown", or "no cost"."""
    if spent is None:
        return "no cost"
    from teamtui.protocol.cost import kept_text

    return kept_text(*spent)


def _cost_json(spent: Spent) -> dict[str, object] | None:
    return None if spent is None else {"usd": str(spent[0]), "price_unknown": spent[1]}


def _write_report(con: sqlite3.Connection, found: list[TeamRow], target: str) -> int:
    """`--html FILE`: the most recently seen team of that name, as one HTML page."""
    import os
    import sys

    from teamtui.protocol.history.query import team_history
    from teamtui.protocol.history.report import render

    team = found[0]
    if len(found) > 1:
        where = ", ".join(_one_line(f"{t.host + ':' if t.host else ''}{t.root}", 80) for t in found[1:])
        print(
            f"teamtui: {len(found)} teams are called {_one_line(team.name, 80)}; the report is of the one last seen "
            f"({_one_line(team.root, 80)}), not of {where}",
            file=sys.stderr,
        )
    page = render(team_history(con, team.id))
    path = os.path.abspath(os.path.expanduser(target))
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(page)
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise CliError(f"cannot write {target}: {exc.strerror or exc}", EXIT_ERROR) from exc
    out(f"wrote {inert(path)} ({len(page.encode()):,} bytes)")
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
    if kind == "need":
        return (
            f"{_one_line(r.get('member'), 40)} needs you ({_one_line(r.get('need'), 20)}): {_one_line(r.get('text'))}"
        )
    if kind == "need_answered":
        return f"{_one_line(r.get('member'), 40)}'s {_one_line(r.get('need'), 20)}: {_one_line(r.get('answer'), 40)}"
    if kind == "change":
        return f"{_one_line(r.get('member'), 40)} {_one_line(r.get('change'), 20)} {_one_line(r.get('path'))}"
    if kind == "cost":
        usd = r.get("usd")
        money = f"${usd:.4f}" if isinstance(usd, (int, float)) else "price unknown"
        day = f" on {_one_line(r.get('day'), 10)}" if r.get("day") else ""
        return f"{_one_line(r.get('member'), 40)} cost {money}{day} ({r.get('tokens') or 0:,} tokens, {_one_line(r.get('model'), 40)})"
    if kind in ("log", "transcript"):
        return f"{_one_line(r.get('who'), 40)} | {_one_line(r.get('text'))}"
    return _one_line(json.dumps(r, ensure_ascii=True))


def register(sub: argparse._SubParsersAction, parents: list[argparse.ArgumentParser], only: str | None = None) -> None:
    p = sub.add_parser(
        "history",
        parents=parents,
        help="teams in the history, or one team's timeline (kept after Claude Code deletes the team)",
        description="Without TEAM: the teams teamtui has watched or run. With TEAM: everything it recorded about it.",
    )
    p.add_argument("name", metavar="TEAM", nargs="?", help="whose timeline to print")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--activity", action="store_true", help="with TEAM: every log and transcript line too")
    p.add_argument(
        "--html",
        metavar="FILE",
        help="with TEAM: write one self-contained HTML report (timeline, members, tasks, messages)",
    )
    p.set_defaults(handler=cmd_history)
