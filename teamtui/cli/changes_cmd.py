"""`teamtui changes`: per team, teammate and file, the lines added and removed (as the changes view
shows them), and the collisions: two teammates on one file.

The team --root/--team select, else every live team `teamtui watch` would find. Claude Code
teams' edits come from their transcripts, `teamtui run` teammates' from their git worktrees, and
what a task or TOUCHING_FILE declares is listed as declared.
"""

from __future__ import annotations

import json
import time

from teamtui.cli.common import Context, inert, out

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any

    from teamtui.protocol.store import TeamStore
    from teamtui.session.changes import Row, TeamChanges


def register(sub: argparse._SubParsersAction, parents: list[argparse.ArgumentParser], only: str | None = None) -> None:
    p = sub.add_parser(
        "changes",
        parents=parents,
        help="what each teammate changed: files, lines added and removed, and collisions",
        description="Per team, teammate and file, the lines added and removed: from a Claude Code team's "
        "transcripts (Write, Edit, MultiEdit, NotebookEdit), a `teamtui run` teammate's git worktree, and "
        "what tasks and TOUCHING_FILE broadcasts declare (listed as declared, not seen). Two teammates on "
        "one file are listed as a collision. The team --root/--team select, else every live team found "
        "as `teamtui watch` finds them.",
    )
    p.add_argument("--json", action="store_true", help="print JSON (one object per team)")
    p.set_defaults(handler=cmd_changes)


def _stores(ctx: Context) -> list[TeamStore]:
    if ctx.root is not None or ctx.team is not None:
        return [ctx.store()]
    from teamtui.protocol.fleet import discover_fleet
    from teamtui.protocol.layout import open_team
    from teamtui.protocol.settings import load_settings

    fleet = discover_fleet([], settings=load_settings())
    return [open_team(t.root, t.name, t.layout) for t in fleet.teams if not t.ended and t.problem is None]


def _read(store: TeamStore) -> TeamChanges:
    from teamtui.protocol.state import TeamState
    from teamtui.session.changes import changes_of
    from teamtui.session.local_team import session_of

    state = TeamState(store, log_limit=100)  # no journal: a look writes nothing
    state.load_all(one_shot=True)
    state.load_transcripts()
    changes = changes_of(session_of(state))  # a session made, nothing followed: a look starts no loop
    changes.take_git(changes.read_git())
    return changes


def _row_json(row: Row) -> dict[str, object]:
    fc = row.change
    return {
        "path": row.shown,
        "where": row.where,
        "source": fc.source,
        "added": None if fc.unknown and not fc.added else fc.added,
        "removed": None if fc.unknown and not fc.removed else fc.removed,
        "counted": not fc.unknown,
        "edits": fc.edits,
        "created": fc.created,
        "first_at": fc.first_at,
        "last_at": fc.last_at,
        "outside": row.outside,
        "why": fc.why,
    }


def team_json(changes: TeamChanges) -> dict[str, object]:
    rows = changes.rows()
    members: dict[str, list[dict[str, object]]] = {}
    for row in sorted(rows, key=lambda r: (r.member, r.shown)):
        members.setdefault(row.member, []).append(_row_json(row))
    session = changes.session
    return {
        "team": session.name,
        "layout": session.state.traits.layout,
        "root": session.state.traits.where,
        "folder": changes.folder,
        "members": members,
        "collisions": [
            {"path": c.path, "a": c.a.member, "b": c.b.member, "text": c.text, "key": c.key}
            for c in changes.collisions(rows)
        ],
    }


def _ago(ts: float | None, now: float) -> str:
    if ts is None:
        return ""
    s = max(0.0, now - ts)
    for size, unit in ((86400, "d"), (3600, "h"), (60, "m")):
        if s >= size:
            return f"{int(s // size)}{unit} ago"
    return f"{int(s)}s ago"


def _print_team(data: dict[str, Any], now: float) -> None:
    folder = f", {data['folder']}" if data["folder"] else ""
    out(f"{inert(data['team'])} ({data['layout']}{inert(folder)})")
    if not data["members"]:
        out("  no file changed")
    for member, rows in data["members"].items():
        out(f"  {inert(member)}")
        for r in rows:
            if r["source"] == "declared":
                counts = "declared"
            else:
                counts = f"+{r['added'] if r['added'] is not None else '?'} -{r['removed'] if r['removed'] is not None else '?'}"
            notes = [
                f"{r['edits']} edit{'s' if r['edits'] != 1 else ''}" if r["source"] == "seen" else r["source"],
                *(["new"] if r["created"] else []),
                *(["outside the team's folder"] if r["outside"] else []),
                *([inert(r["why"])] if r["why"] and r["source"] == "declared" else []),
                *([_ago(r["last_at"], now)] if r["last_at"] else []),
            ]
            out(f"    {counts:>14}  {inert(r['path'])}  ({', '.join(notes)})")
    for c in data["collisions"]:
        out(f"  ! {inert(c['text'])}")


def cmd_changes(ctx: Context) -> int:
    now = time.time()
    teams = [team_json(_read(store)) for store in _stores(ctx)]
    if ctx.args.json:
        # ensure_ascii keeps every control character escaped, so the output is terminal-safe.
        out(json.dumps(teams, ensure_ascii=True, indent=2))
        return 0
    if not teams:
        out("No teams found (looked in Claude Code's folder, the current directory and config.toml's roots).")
    for data in teams:
        _print_team(data, now)
    return 0


__all__ = ["cmd_changes", "register", "team_json"]
