"""`teamtui status --all`: one line (or JSON object) per team of the fleet.

Imported only by `status --all`: a plain `teamtui status` loads none of the fleet, the journal,
the settings' TOML reader or Claude Code's layout.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from teamtui.cli.common import Context, inert, out
from teamtui.protocol.cost import money, unknown_text
from teamtui.protocol.fleet import FleetRow, discover_fleet, fleet_rows, row_json
from teamtui.protocol.settings import BudgetSettings, load_settings

TYPE_CHECKING = False
if TYPE_CHECKING:
    from teamtui.protocol.fleet import FleetTeam
    from teamtui.protocol.fleet.overview import CountNeeds
    from teamtui.protocol.state import TeamState

# Columns of the table: header, width, right-aligned. "?": members whose status is not known yet.
COLUMNS = (
    ("TEAM", 24, False),
    ("KIND", 14, False),
    ("LEAD", 7, False),
    ("WORK", 4, True),
    ("IDLE", 4, True),
    ("GONE", 4, True),
    ("?", 2, True),
    ("TASKS", 7, True),
    ("NEEDS", 5, True),
    ("TOKENS", 7, True),
    ("COST", 9, True),
    ("LAST", 9, True),
)


def ago(ts: float | None, now: float) -> str:
    if not ts:
        return "-"
    s = max(0.0, now - ts)
    for size, unit in ((86400, "d"), (3600, "h"), (60, "m")):
        if s >= size:
            return f"{int(s // size)}{unit} ago"
    return "now" if s < 5 else f"{int(s)}s ago"


def tokens(n: int | None) -> str:
    if n is None:
        return "-"
    for size, unit in ((1_000_000_000, "G"), (1_000_000, "M"), (1_000, "k")):
        if n >= size:
            return f"{n / size:.1f}{unit}"
    return str(n)


def _cost(row: FleetRow) -> str:
    """$12.34; "+?" when a model has no price (--json names it); "-" while not known."""
    if row.cost is None:
        return "-"
    if not row.cost.unknown:
        return money(row.cost.usd)
    return f"{money(row.cost.usd)}+?" if row.cost.usd else "?"


def _cell(text: str, width: int, right: bool) -> str:
    text = text if len(text) <= width else text[: width - 1] + "…"
    return text.rjust(width) if right else text.ljust(width)


def _line(cells: list[str]) -> str:
    return "  ".join(_cell(c, w, right) for c, (_, w, right) in zip(cells, COLUMNS, strict=True))


def row_line(row: FleetRow, now: float) -> str:
    mark = "!" if row.needs_you and not row.ended else "x" if row.ended else " "
    cells = [
        inert(row.name),
        row.label,
        row.lead,
        str(row.working),
        str(row.idle),
        str(row.gone),
        str(row.unknown or "-"),
        f"{row.tasks_done}/{row.tasks_total}",
        str(row.needs_you or "-"),
        tokens(row.tokens),
        _cost(row),
        ago(row.last_activity, now),
    ]
    return f"{mark} {_line(cells)}  {inert(row.cwd or str(row.team.root))}"


def cmd_status_all(ctx: Context) -> int:
    settings = load_settings()
    roots = [*([ctx.root] if ctx.root is not None else []), *(Path(r) for r in ctx.args.roots)]
    fleet = discover_fleet(roots, settings=settings)
    for problem in fleet.problems:
        sys.stderr.write(f"teamtui: {inert(problem)}\n")
    now = time.time()
    rows = fleet_rows(fleet, now=now, health_timeout=settings.health_timeout, needs=room_needs(settings.sender))
    _mark_budgets(rows, settings.budgets)
    if ctx.args.json:
        # ensure_ascii keeps every control character escaped, so the output is terminal-safe.
        out(json.dumps([row_json(r) for r in rows], ensure_ascii=True, indent=2))
        return 0
    if not rows:
        out("No teams found (looked in Claude Code's folder, the current directory and config.toml's roots).")
        return 0
    out(f"  {_line([h for h, _, _ in COLUMNS])}  WHERE")
    for row in rows:
        out(row_line(row, now))
        if row.problem:
            out(f"    ! {inert(row.problem)}")
        if row.cost is not None and row.cost.unknown:
            out(f"    ? {inert(unknown_text(row.cost))}")
        if row.budget:
            out(f"    $ budget: {inert(row.budget)}")
    return 0


def room_needs(sender: str) -> CountNeeds:
    """What needs the person in a team, counted as the control room counts it (session/alerts.py
    needs_of: a request, a stuck, silent or gone teammate, a held task, a collision, a lead ended),
    this machine's hooks' requests among them when it has a spool; not the transcripts' alone."""
    from teamtui.protocol.hooks.place import spool_dir
    from teamtui.session.alerts import needs_of
    from teamtui.session.local_team import session_of

    hooks = None
    spool = spool_dir()
    if spool.is_dir():  # none made here: `status` writes nothing
        from teamtui.session.hook_feed import HookFeed

        try:
            hooks = HookFeed(spool)
            hooks.load()
        except OSError:
            hooks = None  # a spool that does not read: the requests the teams' files show still count

    def count(team: FleetTeam, state: TeamState, now: float) -> int:
        return len(needs_of(team.key, session_of(state, sender=sender, clock=lambda: now, hooks=hooks), now))

    return count


def _mark_budgets(rows: list[FleetRow], budgets: BudgetSettings) -> None:
    """The budget each row reached, as the control room shows it (its teammates' are the room's: they need the transcripts' members)."""
    from teamtui.protocol.budgets import TeamBill, row_mark, team_crossings

    for row in rows:
        row.budget = row_mark(team_crossings(budgets, TeamBill("", row.name, row.cost, {})))
