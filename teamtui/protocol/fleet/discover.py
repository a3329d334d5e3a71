"""Which teams the control room shows: every team of this machine, live or lately ended.

- Claude Code's teams under its config folder ($CLAUDE_CONFIG_DIR, else ~/.claude);
- the native team(s) under the current directory, and under each root of config.toml's `roots`
  or given on the command line (a root holding Claude Code's layout is read as one);
- every team a `teamtui run` / `teamtui demo` on this machine leads (registry.py);
- teams that ended within `fleet_keep_hours` (config.toml, default 24), from the journal;
- Claude Code's workflow runs (the `Workflow` tool) going, or ended within `fleet_keep_hours`.

A team found twice is one: a run's registration wins over the folder it leads (source "run").
A folder that is half-written, unreadable or hostile is listed with its problem; nothing here
raises for what is on disk.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from teamtui.protocol.fleet.registry import RunEntry, live_runs, registry_dir
from teamtui.protocol.fleet.scan import folder_problem, folder_unreadable, scan_teams, teams_folder
from teamtui.protocol.layout import detect_layout, is_layout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    from teamtui.protocol.layout import LayoutName
    from teamtui.protocol.settings import Settings

    Source = Literal["claude", "native", "run", "workflow"]

HOUR = 3600.0


@dataclass(frozen=True, slots=True)
class FleetTeam:
    """One team of the fleet: where it is, who found it, whether it ended, what is wrong with it."""

    root: Path
    name: str  # the team's folder name (a hostile one is kept as found: show it through `inert`)
    layout: LayoutName | None  # None: a team of another machine whose stream named no layout teamtui knows
    source: str  # "claude" | "native" | "run" (led by a teamtui run on this machine) | "workflow"
    ended: bool = False
    ended_at: float | None = None
    problem: str | None = None
    run: RunEntry | None = None  # the registration of a "run" team
    journal: Path | None = None  # the journal file an ended team is read back from
    where: str = ""  # an ended team's: where it worked and its session (the journal's), else its folder
    # Worked out once (a realpath): the control room asks it several times per row per change.
    key: tuple[str, str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", team_key(self.layout or "", self.root, self.name))


@dataclass(slots=True)
class Discovery:
    """What one look for teams found: the teams, and what could not be read (session/fleet.py
    Fleet is the live fleet of sources the room follows)."""

    teams: list[FleetTeam] = field(default_factory=list)
    # What the person should hear about (a bad setting, a configured root that is not a folder).
    problems: list[str] = field(default_factory=list)


def team_key(layout: str, root: Path | str, name: str) -> tuple[str, str, str]:
    """What makes two findings the same team: the layout, the real root and the folder name."""
    try:
        real = os.path.realpath(root)
    except (OSError, ValueError):  # a NUL in a path read from a file: compared as written
        real = str(root)
    return (layout, real, name)


def _journal():  # the module, imported only when ended teams are asked for
    from teamtui.protocol.claude import journal

    return journal


def _settings(settings: Settings | None) -> Settings:
    if settings is not None:
        return settings
    from teamtui.protocol.settings import load_settings

    return load_settings()


def _claude_root(claude_root: Path | None) -> Path:
    if claude_root is not None:
        return Path(claude_root)
    from teamtui.protocol.claude import default_claude_root

    return default_claude_root()


def explicit_roots(roots: Iterable[Path | str], settings: Settings) -> list[Path]:
    """config.toml's roots, then those given on the command line, each once (`~` expanded)."""
    out: dict[tuple[str, str, str], Path] = {}
    for root in [*settings.roots, *roots]:
        try:
            path = Path(root).expanduser()
        except RuntimeError:  # ~someone who is no user here: looked for as written, and said not a folder
            path = Path(root)
        out.setdefault(team_key("", path, ""), path)
    return list(out.values())


def _run_team(entry: RunEntry) -> FleetTeam:
    folder = teams_folder(entry.root, entry.layout) / entry.team
    return FleetTeam(entry.root, entry.team, entry.layout, "run", problem=folder_problem(folder), run=entry)


def _teams_under(root: Path, layout: LayoutName, source: str, problems: list[str]) -> list[FleetTeam]:
    return [
        FleetTeam(root, name, layout, source, problem=problem) for name, problem in scan_teams(root, layout, problems)
    ]


def _has_config(folder: Path) -> bool:
    try:
        return (folder / "config.json").exists()
    except (OSError, ValueError):  # a name from the journal with a NUL in it: no such folder
        return False


def _ended_teams(directory: Path | None, since: float, live: set[tuple[str, str, str]]) -> list[FleetTeam]:
    """Teams the journal saw end (or whose folder is gone) at or after `since`, newest first."""
    journal = _journal()
    out: list[FleetTeam] = []
    for path in journal.journal_files(directory):
        try:
            if path.stat().st_mtime < since:
                continue  # nothing written since the window opened: it cannot have ended in it
        except OSError:
            continue
        jt = journal.summarize(path)
        if jt is None or not jt.name or not jt.root:
            continue
        layout = jt.layout
        if not is_layout(layout) or layout == "workflow":  # a workflow run's are listed from its folder
            continue
        key = team_key(layout, jt.root, jt.name)
        if key in live:
            continue
        if _has_config(teams_folder(Path(jt.root), layout) / jt.name):
            continue  # live outside the roots looked at, or back under its name: not an ended row
        # A folder gone without a team_gone record (no dashboard saw it go): ended when last seen.
        ended_at = jt.ended_at if jt.ended_at is not None else jt.last_seen
        if ended_at >= since:
            out.append(
                FleetTeam(
                    Path(jt.root),
                    jt.name,
                    layout,
                    layout,
                    ended=True,
                    ended_at=ended_at,
                    journal=path,
                    where=jt.where,
                )
            )
    return sorted(out, key=lambda t: t.ended_at or 0.0, reverse=True)


def discover_fleet(
    roots: Sequence[Path | str] = (),
    *,
    cwd: Path | None = None,
    claude_root: Path | None = None,
    settings: Settings | None = None,
    now: float | None = None,
    registry: Path | None = None,
    journal: Path | None = None,
    ended: bool = True,
) -> Discovery:
    """Every team the control room shows. `roots`: native roots given on the command line;
    `cwd` (default the current directory) is looked at for a native `.teams/` only; `registry`,
    `journal`: other folders than $XDG_STATE_HOME's (tests); `ended=False` skips the journal."""
    settings = _settings(settings)
    now = time.time() if now is None else now
    fleet = Discovery(problems=list(settings.problems))
    found: dict[tuple[str, str, str], FleetTeam] = {}

    def add(teams: Iterable[FleetTeam]) -> None:
        for team in teams:
            found.setdefault(team.key, team)  # the first finding wins: runs are added first

    add(_run_team(e) for e in live_runs(registry))
    add(_teams_under(_claude_root(claude_root), "claude", "claude", fleet.problems))
    add(_teams_under(Path.cwd() if cwd is None else Path(cwd), "native", "native", fleet.problems))
    since = now - settings.fleet_keep_hours * HOUR
    claude_roots = [_claude_root(claude_root)]
    for root in explicit_roots(roots, settings):
        # Each bad root is said and skipped; the others are still read.
        why = folder_unreadable(root)
        if why is not None:
            fleet.problems.append(f"{root}: {why} (a root in config.toml or on the command line)")
            continue
        layout = detect_layout(root)
        if layout is not None:
            add(_teams_under(root, layout, layout, fleet.problems))
        if layout != "native" and os.path.isdir(root / "projects"):
            claude_roots.append(root)  # a Claude Code folder named as a root: its workflow runs too
    for claude in dict.fromkeys(claude_roots):
        add(_workflow_runs(claude, since, now))
    if ended:
        add(_ended_teams(journal, since, set(found)))
    fleet.teams = list(found.values())
    return fleet


def _workflow_runs(root: Path, since: float, now: float) -> list[FleetTeam]:
    """The Workflow tool's runs under Claude Code's config folder: those going, and those that
    ended at or after `since` (their record written then), newest first."""
    from teamtui.protocol.workflow.discover import recent_runs

    return [FleetTeam(run.root, run.name, "workflow", "workflow") for run in recent_runs(root, since=since, now=now)]


def fleet_watch_dirs(
    roots: Sequence[Path | str] = (),
    *,
    cwd: Path | None = None,
    claude_root: Path | None = None,
    settings: Settings | None = None,
    registry: Path | None = None,
) -> list[Path]:
    """The folders where teams appear and vanish, for a watcher (no polling; session/local.py
    LocalSource watches these, and each team's own folders).

    Claude Code's `teams/`, the current folder's `.teams/`, and each explicit root's `.teams/` and
    `teams/` (a root may hold Claude Code's layout, now or later): a team folder appears, vanishes
    or gets its config.json. The registry: a run starts or ends (a file appears or goes). Not the
    journal: this process writes to it on every message it sees. Some may not exist yet: watch.py's
    watch_dirs waits for them on their nearest parent. A team ages out of the ended list at
    ended_at + fleet_keep_hours: a timer's job, not a file's."""
    settings = _settings(settings)
    dirs = [
        teams_folder(_claude_root(claude_root), "claude"),
        teams_folder(Path.cwd() if cwd is None else Path(cwd), "native"),
    ]
    for root in explicit_roots(roots, settings):
        dirs += [teams_folder(root, "native"), teams_folder(root, "claude")]
    dirs.append(registry or registry_dir())
    out: dict[str, Path] = {}
    for d in dirs:
        out.setdefault(os.path.realpath(d), d)
    return list(out.values())
