"""The runs on this machine: each `teamtui run` / `teamtui demo` registers the team it leads.

One small JSON file per run under $XDG_STATE_HOME/teamtui/running/ (default
~/.local/state/teamtui/running/), written atomically when the lead starts and removed when it
ends, whatever ends it. A run killed outright leaves its file behind: the file names the pid and
the process's start, so a reader tells a dead (or reused) pid from the lead, ignores the file
and removes it.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from teamtui.protocol import processes
from teamtui.protocol.fsio import load_json_file, write_json_atomic
from teamtui.protocol.names import claude_sanitize

TYPE_CHECKING = False
if TYPE_CHECKING:
    from teamtui.protocol.layout import LayoutName
    from teamtui.protocol.processes import State

SUFFIX = ".json"
# A registration is a few hundred bytes: anything larger is not one of ours.
MAX_ENTRY_BYTES = 64 * 1024


def state_dir() -> Path:
    """teamtui's own state: $XDG_STATE_HOME/teamtui, default ~/.local/state/teamtui."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "teamtui"


def registry_dir() -> Path:
    return state_dir() / "running"


@dataclass(frozen=True, slots=True)
class RunEntry:
    """One registered run: the lead's process and the team it leads."""

    path: Path
    pid: int
    start: str  # processes.start_of(pid) when it registered: a reused pid has another
    pid_space: str  # the pid namespace it registered in ("" where there is none)
    root: Path
    team: str
    layout: LayoutName
    started_at: float

    @property
    def process_state(self) -> State:
        """alive, ended or unknown (another pid namespace, another user's process)."""
        mine = processes.pid_space()
        if self.pid_space and mine and self.pid_space != mine:
            return "unknown"
        return processes.state(self.pid, start=self.start, started_by=self.started_at)


def _entry_path(directory: Path, pid: int, root: Path, team: str) -> Path:
    # The pid first (one process, one lead), then the team: a test process may register two.
    safe = claude_sanitize(team)[:48] or "team"
    digest = hashlib.sha256(f"{root}\0{team}".encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return directory / f"{pid}.{safe}.{digest}{SUFFIX}"


def register_run(
    root: Path, team: str, layout: LayoutName = "native", *, pid: int | None = None, directory: Path | None = None
) -> Path:
    """Write this run's registration (atomically); returns its file for `unregister_run`."""
    pid = os.getpid() if pid is None else pid
    directory = directory or registry_dir()
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    root = Path(root).resolve()
    path = _entry_path(directory, pid, root, team)
    write_json_atomic(
        path,
        {
            "pid": pid,
            "start": processes.start_of(pid),
            "pid_space": processes.pid_space(),
            "root": str(root),
            "team": team,
            "layout": layout,
            "started_at": round(time.time(), 3),
        },
    )
    return path


def unregister_run(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass


@contextmanager
def registered_run(
    root: Path, team: str, layout: LayoutName = "native", *, directory: Path | None = None
) -> Iterator[Path | None]:
    """Registered for the block's length; removed on the way out, an exception's included. A
    registry that cannot be written (a read-only home) never stops the run: it is then unlisted."""
    try:
        path: Path | None = register_run(root, team, layout, directory=directory)
    except OSError:
        path = None
    try:
        yield path
    finally:
        if path is not None:
            unregister_run(path)


def _entry(path: Path) -> RunEntry | None:
    """The registration in `path`; None for a file that is not one (half of one, someone else's)."""
    data = load_json_file(path, MAX_ENTRY_BYTES)
    if not isinstance(data, dict):
        return None
    pid, root, team = data.get("pid"), data.get("root"), data.get("team")
    if isinstance(pid, bool) or not isinstance(pid, int) or not 0 < pid < 2**31:
        return None
    if not isinstance(root, str) or not root or "\0" in root or not isinstance(team, str) or not team:
        return None
    started, layout, start, space = data.get("started_at"), data.get("layout"), data.get("start"), data.get("pid_space")
    return RunEntry(
        path=path,
        pid=pid,
        start=start if isinstance(start, str) else "",
        pid_space=space if isinstance(space, str) else "",
        root=Path(root),
        team=team,
        layout=layout if layout in ("native", "claude") else "native",
        started_at=float(started) if isinstance(started, (int, float)) and not isinstance(started, bool) else 0.0,
    )


def registration_files(directory: Path | None = None) -> list[Path]:
    d = directory or registry_dir()
    try:
        # A name starting with "." is write_atomic's temp file: not a registration yet.
        return sorted(p for p in d.iterdir() if p.name.endswith(SUFFIX) and not p.name.startswith("."))
    except OSError:
        return []


def live_runs(directory: Path | None = None) -> list[RunEntry]:
    """Every run still going (or that cannot be told ended); a dead run's file is removed."""
    live = []
    for path in registration_files(directory):
        entry = _entry(path)
        if entry is None:
            continue
        if entry.process_state == "ended":
            unregister_run(path)  # a run killed outright (SIGKILL, a power cut): its file is stale
            continue
        live.append(entry)
    return live
