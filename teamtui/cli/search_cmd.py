"""`teamtui search QUERY`: every team's history searched (messages, logs, transcripts, tasks, files).

Light at start-up: sqlite3 and the history's search module, nothing of the dashboard.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from teamtui.cli.common import EXIT_ERROR, EXIT_USAGE, CliError, Context, inert, out

# How the match is marked: reverse video on a terminal, «guillemets» in a pipe or a file.
_ON_TTY = ("\x1b[7m", "\x1b[27m")
_IN_PIPE = ("«", "»")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_since(text: str, now: float) -> float:
    """`30m`, `2h`, `3d`, `1w` ago, or a date (`2026-11-20`, `2026-11-20T14:00`) in local time."""
    t = text.strip()
    if len(t) >= 2 and t[-1] in _UNITS:
        try:
            amount = float(t[:-1])
        except ValueError:
            amount = -1.0
        if amount >= 0:
            return now - amount * _UNITS[t[-1]]
    try:
        from datetime import datetime

        return datetime.fromisoformat(t).timestamp()
    except ValueError:
        raise CliError(
            f"--since {text!r}: give an age (30m, 2h, 3d, 1w) or a date (2026-11-20, 2026-11-20T14:00)", EXIT_USAGE
        ) from None


def _when(ts: float) -> str:
    try:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts))
    except (OverflowError, OSError, ValueError):
        return "-"


def _one_line(text: str, limit: int) -> str:
    s = inert(" ".join(text.splitlines()))
    return s if len(s) <= limit else s[: limit - 1] + "…"


def cmd_search(ctx: Context) -> int:
    from teamtui.cli.history_cmds import _open_history
    from teamtui.protocol.history.search import QueryError, search

    args = ctx.args
    since = parse_since(args.since, time.time()) if args.since else None
    if args.limit < 1:
        raise CliError("--limit must be at least 1", EXIT_USAGE)
    team = getattr(args, "team", None)
    con = _open_history()
    if team is not None and con.execute("SELECT 1 FROM teams WHERE name = ? LIMIT 1", (team,)).fetchone() is None:
        from teamtui.protocol.history import db_path

        raise CliError(f"no team {team!r} in the history ({db_path()})", EXIT_ERROR)
    try:
        hits = search(con, args.query, team=team, since=since, limit=args.limit)
    except QueryError as exc:
        raise CliError(f"search: {exc}", EXIT_USAGE) from exc
    if args.json:
        out(json.dumps({"query": args.query, "results": [h.as_json() for h in hits]}, ensure_ascii=True, indent=2))
        return 0
    if not hits:
        out("no match")
        return 0
    on, off = _ON_TTY if sys.stdout.isatty() and not os.environ.get("NO_COLOR") else _IN_PIPE
    for h in hits:
        who = _one_line(h.who, 30) or "-"
        if h.kind == "message" and h.ref:
            who = f"{who} → {_one_line(h.ref, 30)}"
        text = "".join(
            f"{on}{inert(s).replace(chr(9), ' ')}{off}" if hit else inert(s).replace("\t", " ")
            for s, hit in h.one_line()
        )
        where = _one_line(h.team, 40) + (f"@{_one_line(h.host, 30)}" if h.host else "")
        out(f"{_when(h.at)}  {where}  {who}  {h.kind}: {text}")
    return 0


def register(sub: argparse._SubParsersAction, parents: list[argparse.ArgumentParser], only: str | None = None) -> None:
    p = sub.add_parser(
        "search",
        parents=parents,
        help="search every team's history: messages, logs, transcripts, tasks, changed files",
        description=(
            'Words must all match; "a phrase" matches as written; deploy* matches a prefix; '
            "OR between alternatives; NOT before what must not match. Newest first."
        ),
    )
    p.add_argument("query", metavar="QUERY", help="what to look for, e.g. 'build NOT staging' or '\"tests failed\"'")
    p.add_argument("--since", metavar="WHEN", help="only what was seen since: 30m, 2h, 3d, 1w, or a date")
    p.add_argument("--limit", type=int, default=50, help="at most this many results (default 50)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=cmd_search)


__all__ = ["cmd_search", "parse_since", "register", "EXIT_ERROR"]
