"""One row per team of the fleet, for the overview: built from TeamState, the dashboard's model.

A row says what a person scanning many teams wants first: whose team it is (Claude Code, native,
run by teamtui), whether its lead still runs, how many members work, idle or are gone, tasks
done of total, what needs the person, tokens, what it cost, when anything last happened and
where it works. Transcripts are costly (a team's can be hundreds of MB): `needs_you`, `tokens`
and `cost` are read only when asked (`transcripts=True`); otherwise they are 0 and None (an
ended team's cost is the one its journal kept).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace

from teamtui.protocol.fleet.discover import Discovery, FleetTeam
from teamtui.protocol.fleet.scan import opens_despite
from teamtui.protocol.models import MemberStatus
from teamtui.protocol.store import RecordsLead, RunsLead, ScriptRun

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from teamtui.protocol.cost import Cost
    from teamtui.protocol.model import TeamModel
    from teamtui.protocol.state import TeamState

    # What needs the person in a live team, counted by the caller (the room's rule lives above this layer).
    CountNeeds = Callable[[FleetTeam, TeamState, float], int]

LAYOUT_LABELS = {"claude": "Claude Code", "native": "native", "run": "run by teamtui", "workflow": "workflow run"}


@dataclass(slots=True)
class FleetRow:
    team: FleetTeam
    name: str  # the team's own name (config.json's), else its folder's
    label: str  # LAYOUT_LABELS of its source
    lead: str = "unknown"  # "alive" | "ended" | "unknown"
    working: int = 0
    idle: int = 0
    gone: int = 0  # shut down, left, or disappeared (the health rule)
    unknown: int = 0  # no status to read (an in-process teammate before its transcript is read)
    tasks_done: int = 0
    tasks_total: int = 0
    needs_you: int = 0  # 0 unless transcripts were read
    tokens: int | None = None  # None unless transcripts were read (and counted)
    cost: Cost | None = None  # what its messages cost (protocol/cost.py); None until read, counted and priced
    files: int | None = None  # files its teammates changed (their transcripts' edits); None: no such record
    budget: str = ""  # a budget it crossed, as the room says it ("80% of team budget"); "" for none
    last_activity: float | None = None  # epoch seconds
    cwd: str = ""  # where the team works
    errors: int = 0  # files of the team that did not read
    problem: str | None = None
    run_status: str | None = None  # a workflow run's: running, completed, failed, killed or cut off
    no_team: bool = False  # a host's own row while it shows no team (connecting, unreachable): not a team

    @property
    def ended(self) -> bool:
        return self.team.ended or self.lead == "ended"


# ------------------------------------------------------------------ the lead


def _lead_state(team: FleetTeam, state: TeamState | None) -> str:
    if team.ended:
        return "ended"
    if team.run is not None:
        return team.run.process_state
    store = state.store if state is not None else None
    if store is None:
        return "unknown"
    said = (
        store.lead_state() if isinstance(store, RecordsLead) else None
    )  # Claude Code 2.1.178+: config.json's leadProcess
    if said is not None:
        return said
    # A teamtui lead that did not register (an older one); without one a person may lead: unknown.
    return "alive" if isinstance(store, RunsLead) and store.running_lead() is not None else "unknown"


# ------------------------------------------------------------------ reading a team


def _load(team: FleetTeam, health_timeout: float) -> TeamState | None:
    """The team's TeamState, read once; None for a team whose folder cannot be shown."""
    if team.ended:
        if team.journal is None:
            return None
        from teamtui.protocol.claude.ended import load_state

        try:
            return load_state(team.journal)
        except (OSError, ValueError):
            return None
    if not opens_despite(team.problem):
        return None
    from teamtui.protocol.layout import open_team
    from teamtui.protocol.state import TeamState

    state = TeamState(open_team(team.root, team.name, team.layout), health_timeout=health_timeout)
    state.load_all(one_shot=True)  # `status --all` reads once: no last good config to keep
    return state


def _cwd(team: FleetTeam, state: TeamState | None) -> str:
    if team.ended and team.where:  # its folder is gone: the journal's words for it
        return team.where
    raw = getattr(state.config, "raw", None) if state is not None and state.config is not None else None
    if isinstance(raw, dict):  # Claude Code: each member's cwd, the lead's first
        for m in raw.get("members") or []:
            if isinstance(m, dict) and isinstance(m.get("cwd"), str) and m["cwd"]:
                return m["cwd"]
    return "" if state is not None and state.store.has_transcripts else str(team.root)


def _folder_times(team: FleetTeam) -> list[float]:
    # The team folder's last change (created, a file added) and its config's (a member joined, left, went idle).
    from teamtui.protocol.fleet.scan import TEAMS_FOLDER, teams_folder

    if team.layout not in TEAMS_FOLDER:
        return []  # a workflow run has no team folder: its times are its agents'
    folder = teams_folder(team.root, team.layout) / team.name
    out = []
    for path in (folder, folder / "config.json"):
        try:
            out.append(os.stat(path).st_mtime)
        except (OSError, ValueError):
            pass
    return out


def _last_activity(team: FleetTeam, state: TeamState | None) -> float | None:
    if team.ended:
        return team.ended_at
    stamps = [t for t in (state.activity.values() if state is not None else ()) if t]
    if state is not None and state.config is not None and state.config.created_at:
        stamps.append(state.config.created_at)
    if team.run is not None and team.run.started_at:
        stamps.append(team.run.started_at)
    stamps += _folder_times(team)
    return max(stamps) if stamps else None


def count_members(row: FleetRow, state: TeamModel, now: float) -> None:
    """Who works, idles, is gone (or ended with the team) or says nothing, on `now`'s clock."""
    for v in state.member_views(now):
        if row.team.ended or v.departed or v.disappeared or v.status == MemberStatus.SHUTDOWN:
            row.gone += 1
        elif v.status == MemberStatus.WORKING:
            row.working += 1
        elif v.status == MemberStatus.IDLE:
            row.idle += 1
        else:
            row.unknown += 1


def read_transcripts(state: TeamState, *, priced: bool = True) -> None:
    """What the room reads of a team with transcripts, so that every place says the same figures
    (the room, `status`, `status --all`, `tasks`): each transcript from its end (what needs a person,
    the lead's assignments, who works), then its head's token sums and cost (genai-prices loaded
    first: each message is priced as it is read). `priced=False`: the same figures but the cost (a
    quick command's: genai-prices and the pydantic it brings stay unloaded)."""
    feed = state.transcript_files
    if feed is None or feed.started:
        return
    if state.store.asks_through_hooks:  # what this machine's hooks said of its teammates, as the room shows it
        from teamtui.protocol.hooks.place import spool_dir
        from teamtui.protocol.hooks.said import said_in_spool

        state.said = said_in_spool(spool_dir(), state.name)
    if not priced:  # read whole at once: the same sums, no price loaded to count the heads with
        state.load_transcripts()
        return
    from teamtui.protocol.cost import PRICES

    PRICES.load()
    state.take_transcripts(feed.read(from_end=True))
    if state.counting_heads:
        state.take_heads(state.count_heads())


def summarize_team(
    team: FleetTeam,
    *,
    now: float | None = None,
    transcripts: bool = True,
    health_timeout: float = 60.0,
    needs: CountNeeds | None = None,
) -> FleetRow:
    """The row of one team, read now; a team that does not read gives a row with its problem, never raises.
    `needs`: what needs the person in a live team, counted as the room counts it (else the transcripts' alone)."""
    now = time.time() if now is None else now
    try:
        state = _load(team, health_timeout)
    except Exception as exc:  # noqa: BLE001 - one team's files must never take the overview down
        return row_of(team, None, now=now, problem=f"cannot be read: {exc}")
    if state is not None and opens_despite(team.problem):
        # Opened all the same, as the room opens it: its state says what is wrong now.
        team = replace(team, problem=None)
    if transcripts and state is not None:  # first: an in-process teammate's working or idle is its transcript's
        try:
            read_transcripts(state)
        except Exception:  # noqa: BLE001 - a transcript that does not read leaves the figures blank
            pass
    row = row_of(team, state, now=now)
    if needs is not None and state is not None and not row.ended:
        try:
            row.needs_you = needs(team, state, now)
        except Exception:  # noqa: BLE001 - one team's needs that do not read leave the transcripts' count
            pass
    return row


def row_of(team: FleetTeam, state: TeamState | None, *, now: float, problem: str | None = None) -> FleetRow:
    """The row of one team from its TeamState as it stands (a live one's, kept current by file events)."""
    row = FleetRow(team, team.name, LAYOUT_LABELS.get(team.source, team.source), problem=team.problem or problem)
    if state is not None:
        row.name = state.name
        row.errors = len(state.all_errors())
        if state.config is None and row.problem is None and not team.ended:
            first = next(iter(state.all_errors()), None)
            row.problem = f"config.json: {first.reason}" if first is not None else "gone while it was read"
        feed = state.transcripts
        if feed is not None and feed.started and not team.ended:
            row.needs_you = len(feed.needs_you(now))
            row.tokens = feed.total_tokens()
        row.cost = feed.cost() if feed is not None else None  # an ended team's: as its journal kept it
        if feed is not None:  # its module loaded edits already: none loaded for a team without transcripts
            from teamtui.protocol.edits import files_changed

            row.files = files_changed(feed)
        count_members(row, state, now)
        row.tasks_done, row.tasks_total = state.board.progress()
        row.run_status = state.store.run_status() if isinstance(state.store, ScriptRun) else None
    row.lead = _lead_state(team, state)
    row.last_activity = _last_activity(team, state)
    row.cwd = _cwd(team, state)
    return row


def order_rows(rows: Iterable[FleetRow]) -> list[FleetRow]:
    """What needs the person first (most first), then live teams by last activity, then ended ones (newest first)."""

    def key(row: FleetRow) -> tuple[int, int, float]:
        group = 0 if row.needs_you and not row.ended else 2 if row.ended else 1
        return (group, -row.needs_you, -(row.last_activity or 0.0))

    return sorted(rows, key=key)


def fleet_rows(
    fleet: Discovery | Iterable[FleetTeam],
    *,
    now: float | None = None,
    transcripts: bool = True,
    health_timeout: float = 60.0,
    needs: CountNeeds | None = None,
) -> list[FleetRow]:
    """Every team's row, in the overview's order."""
    teams = fleet.teams if isinstance(fleet, Discovery) else list(fleet)
    now = time.time() if now is None else now
    return order_rows(
        summarize_team(t, now=now, transcripts=transcripts, health_timeout=health_timeout, needs=needs) for t in teams
    )


def row_json(row: FleetRow) -> dict[str, Any]:
    """A row for scripts (`teamtui status --all --json`): plain types, stable keys."""
    from teamtui.protocol.cost import cost_json

    team = row.team
    return {
        "team": row.name,
        "folder": team.name,
        "root": str(team.root),
        "layout": team.layout,
        "source": team.source,
        "label": row.label,
        "lead": row.lead,
        "ended": row.ended,
        "ended_at": team.ended_at,
        "members": {"working": row.working, "idle": row.idle, "gone": row.gone, "unknown": row.unknown},
        "tasks": {"done": row.tasks_done, "total": row.tasks_total},
        "needs_you": row.needs_you,
        "tokens": row.tokens,
        "cost": cost_json(row.cost),
        "files": row.files,
        "budget": row.budget or None,
        "last_activity": row.last_activity,
        "cwd": row.cwd,
        "pid": team.run.pid if team.run is not None else None,
        "errors": row.errors,
        "problem": row.problem,
        "run_status": row.run_status,
    }
