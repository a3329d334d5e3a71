"""TmuxPanes: one tmux pane per teammate beside the dashboard (TeammatePanes for tmux mode).

Addressing: every command names its pane by id (`%N`) or window id (`@N`); nothing ever
depends on which pane or window has focus.

Layout: the teammates' panes share the dashboard's window in tmux's `main-vertical`
layout, the dashboard being the main pane (left, MAIN_PANE_WIDTH of the width) and the
teammates stacked on the right. At most MAX_BESIDE (6) teammates sit beside the
dashboard; from the 7th on, teammates go to a second window named `teamtui-<team>`
(the "side window", `tiled` layout) in the same session, so the dashboard keeps the
largest pane and every pane stays readable. When a teammate beside the dashboard
leaves, the first one in the side window moves over. `toggle()` hides the panes by
moving them all to the side window (join-pane/break-pane keep the processes running)
and shows them by moving them back.

Each pane's border shows the teammate's name (pane-border-status on for the window,
title by select-pane -T) in the teammate's color, and the pane is marked with pane user
options (see teamtui.tmux.cleanup) so a later teamtui can find leftovers.

Claude Code members whose `tmuxPaneId` names a live pane get that pane selected
instead of a duplicate; teamtui never moves or closes such panes.

Budget: at most `max_panes` `follow` panes run at once (PaneBudget); the other teammates
wait, and get their pane when selected. Panes the spawner opens (the teammates themselves)
and adopted panes are not counted.

Threads: what the dashboard calls (sync, select, toggle, close) returns at once; the tmux
work runs in order on one worker thread (PaneWorker), which reports through the listener
(`listen`), so the dashboard's loop never waits for tmux or for panes opening. `open`
(the spawner's) and `close_all` run on the caller's thread.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from teamtui.protocol.text import inert
from teamtui.tmux.api import PaneNews, PaneSpec
from teamtui.tmux.budget import DEFAULT_MAX_PANES, PaneBudget
from teamtui.tmux.cleanup import (
    OWNER,
    TEAM,
    TEAMMATE,
    Leftover,
    cleanup_leftovers,
    close_panes,
    owner_token,
    pane_env,
)
from teamtui.tmux.server import Tmux, TmuxError, TmuxUnavailable, socket_from_env
from teamtui.tmux.style import pane_title, tmux_color
from teamtui.tmux.worker import PaneWorker

MAX_BESIDE = 6
MAIN_PANE_WIDTH = "55%"
# The teammates' column beside it: the first pane takes this share of the dashboard's width.
_COLUMN = f"{100 - int(MAIN_PANE_WIDTH.rstrip('%'))}%"
COLOR_OPTION = "@teamtui-color"
# The border shows the title in the pane's own color (tmux expands the format per pane).
BORDER_FORMAT = "#[fg=#{?#{" + COLOR_OPTION + "},#{" + COLOR_OPTION + "},default},bold] #{pane_title} #[default]"
# Window options we change on the dashboard's window, restored by close_all.
_WINDOW_OPTIONS = {"pane-border-status": "top", "pane-border-format": BORDER_FORMAT, "main-pane-width": MAIN_PANE_WIDTH}
# Also restored: tmux 3.3 applies a pane's border style (set with -p by _mark) to its whole window.
_RESTORED_OPTIONS = (*_WINDOW_OPTIONS, "pane-border-style", "pane-active-border-style")
_PANE_ID = re.compile(r"%[0-9]+")
# Never forwarded into a pane: tmux sets these itself for the pane.
_TMUX_OWN_ENV = ("TMUX", "TMUX_PANE")


@dataclass(slots=True)
class _Pane:
    name: str
    pane_id: str
    pid: int
    command: str
    # Opened by TmuxSpawner: the pane runs the teammate itself; sync never closes it.
    pinned: bool = False


class TmuxPanes:
    active = True

    def __init__(
        self,
        tmux: Tmux,
        dashboard_pane: str,
        team: str,
        *,
        max_beside: int = MAX_BESIDE,
        max_panes: int = DEFAULT_MAX_PANES,
    ):
        self.tmux = tmux
        self.dashboard_pane = dashboard_pane
        self.team = team
        self.max_beside = max_beside
        self.budget = PaneBudget(max_panes)
        # Held while tmux is changed (the worker, the spawner's open, close_all).
        self._lock = threading.RLock()
        self._panes: dict[str, _Pane] = {}
        self._adopted: dict[str, str] = {}
        # Names whose pane ended by itself (e.g. `follow` exited): not reopened for the same command.
        self._ended: dict[str, str] = {}
        self._shown = True
        self._closed = False
        self._token = owner_token()
        window = tmux.pane_info(dashboard_pane, "#{window_id}")
        if not window:
            raise TmuxUnavailable(f"the dashboard's pane {dashboard_pane} is not on tmux server {tmux.socket_path}")
        self.window = window
        self._side_window: str | None = None
        self._saved: dict[str, str] = {}
        self._prepared: set[str] = set()
        # The newest specs from sync (the worker applies them); replaced whole, read whole.
        self._wanted: list[PaneSpec] = []
        self._waiting: tuple[str, ...] = ()
        self._listener: Callable[[PaneNews], object] | None = None
        self._worker = PaneWorker(f"teamtui-panes-{team}", self._report_error)

    @classmethod
    def from_env(
        cls, team: str, env: Mapping[str, str] | None = None, *, max_panes: int = DEFAULT_MAX_PANES
    ) -> tuple[TmuxPanes, list[Leftover]]:
        """Panes beside the pane this process runs in; first closes leftovers of dead teamtuis."""
        env = os.environ if env is None else env
        socket = socket_from_env(env)
        pane = env.get("TMUX_PANE", "")
        if not socket or not _PANE_ID.fullmatch(pane):
            raise TmuxUnavailable("not inside tmux ($TMUX or $TMUX_PANE is not set)")
        tmux = Tmux(socket)
        leftovers = cleanup_leftovers(tmux)
        return cls(tmux, pane, team, max_panes=max_panes), leftovers

    # ------------------------------------------------------------------ TeammatePanes (return at once)
    def sync(self, specs: list[PaneSpec]) -> None:
        self._wanted = list(specs)
        self._worker.submit(self._apply_wanted, key="sync")

    def close(self, name: str) -> None:
        self._worker.submit(lambda: self._close_now(name))

    def toggle(self) -> bool:
        self._shown = not self._shown
        self._worker.submit(self._rearrange, key="arrange")
        return self._shown

    def select(self, name: str) -> bool:
        """Focus `name`'s pane; a waiting teammate's pane is opened first (taking a pane slot)."""
        if self._closed or not (name in self._panes or name in self._adopted or self._spec(name) is not None):
            return False
        return self._worker.submit(lambda: self._select_now(name))

    def close_all(self) -> None:
        self._worker.stop()  # what is queued is moot; a pane being opened now is closed below
        with self._lock:
            panes = [(p.pane_id, p.pid) for p in self._panes.values()]
            self._panes.clear()
            self._adopted.clear()
            if not self._closed:
                self._closed = True
                close_panes(self.tmux, panes)
                self._restore_window()

    def listen(self, listener: Callable[[PaneNews], object] | None) -> None:
        self._listener = listener

    def waiting(self) -> tuple[str, ...]:
        return self._waiting

    def wait_idle(self, timeout: float | None = 30.0) -> bool:
        """Block until the worker has done everything asked of it so far; False on timeout."""
        return self._worker.wait_idle(timeout)

    # ------------------------------------------------------------------ the worker's jobs
    def _apply_wanted(self) -> None:
        specs = self._wanted
        with self._lock:
            if self._closed:
                return
            changed = self._forget_vanished()
            wanted = {s.name for s in specs}
            for name in [n for n in self._adopted if n not in wanted]:
                del self._adopted[name]
            for name in [n for n in self._ended if n not in wanted]:
                del self._ended[name]
            budgeted = [s for s in specs if not self._pinned(s.name) and not self._adopted_now(s)]
            ended = {s.name for s in budgeted if self._ended.get(s.name) == s.command}
            holders = set(self.budget.plan([s.name for s in budgeted], skip=ended))
            for name in [n for n, p in self._panes.items() if not p.pinned and n not in holders]:
                self._close_one(name)
                changed = True
            to_open = [s for s in budgeted if s.name in holders and s.name not in self._panes]
        self._publish([s.name for s in budgeted])
        for spec in to_open:
            with self._lock:  # released between panes: close_all and the spawner need not wait for all
                if self._closed or self._wanted is not specs:
                    break  # closing, or newer specs: their own pass opens what they want
                if spec.name in self._panes:
                    continue  # opened meanwhile: the spawner's pane runs the teammate itself
                self._open_one(spec)
                changed = True
        if changed:
            self._rearrange()

    def _select_now(self, name: str) -> None:
        with self._lock:
            if self._closed:
                return
            spec = self._spec(name)
            if name not in self._panes and name not in self._adopted:
                if spec is None:
                    return
                displaced = self.budget.choose(name)
                if displaced is not None and displaced in self._panes and not self._panes[displaced].pinned:
                    self._close_one(displaced)
                self._ended.pop(name, None)
                self._open_one(spec)
                self._arrange()
            elif self.budget.holds(name):
                self.budget.choose(name)  # used now: the last to be displaced
            pane_id = self._panes[name].pane_id if name in self._panes else self._adopted[name]
            session = self.tmux.pane_info(pane_id, "#{session_id}")
            if session is None:
                return
            if session != self.tmux.pane_info(self.dashboard_pane, "#{session_id}"):
                self.tmux.try_run("switch-client", "-t", pane_id)
            self.tmux.try_run("select-window", "-t", pane_id)
            self.tmux.try_run("select-pane", "-t", pane_id)
        if spec is not None:
            self._publish([s.name for s in self._wanted if not self._pinned(s.name) and s.name not in self._adopted])

    def _close_now(self, name: str) -> None:
        with self._lock:
            self._adopted.pop(name, None)
            pane = self._panes.get(name)
            if pane is None:
                return
            # A pane running the teammate itself closes once its process ended (the spawner's poll).
            if pane.pinned and self.tmux.pane_info(pane.pane_id, "#{pane_dead}") == "0":
                return
            self._close_one(name)
            self.budget.release(name)
            self._arrange()

    def _rearrange(self) -> None:
        with self._lock:
            if not self._closed:
                self._forget_vanished()
                self._arrange()

    def _spec(self, name: str) -> PaneSpec | None:
        return next((s for s in self._wanted if s.name == name), None)

    def _pinned(self, name: str) -> bool:
        pane = self._panes.get(name)
        return pane is not None and pane.pinned

    def _adopted_now(self, spec: PaneSpec) -> bool:
        return spec.name in self._adopted or self._adopt(spec)

    def _publish(self, budgeted: list[str], problem: str = "") -> None:
        self._waiting = tuple(self.budget.waiting(budgeted))
        listener = self._listener
        if listener is not None:
            listener(PaneNews(self._waiting, self.budget.limit, problem))

    def _report_error(self, exc: BaseException) -> None:
        listener = self._listener
        if listener is not None:
            listener(PaneNews(self._waiting, self.budget.limit, str(exc) or type(exc).__name__))

    # ------------------------------------------------------------------ opening
    def open(
        self,
        name: str,
        *,
        color: str = "",
        command: str = "",
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
        pinned: bool = False,
    ) -> _Pane:
        """Open `name`'s pane running `command` (replacing any pane it had) and lay the panes out.
        On the caller's thread: the spawner needs the pane to run the teammate in."""
        with self._lock:
            pane = self._open_one(PaneSpec(name, color, command), cwd=cwd, env=env, pinned=pinned)
            self._arrange()
            return pane

    def _open_one(
        self, spec: PaneSpec, *, cwd: Path | None = None, env: Mapping[str, str] | None = None, pinned: bool = False
    ) -> _Pane:
        name, color, command = spec.name, spec.color, spec.command
        with self._lock:
            if self._closed:
                raise TmuxError("the panes were closed (the dashboard is exiting)")
            if name in self._panes:
                self._close_one(name)
            self._prepare_window(self.window)
            args = ["-d", "-P", "-F", "#{pane_id}\t#{pane_pid}\t#{window_id}"]
            if cwd is not None:
                args += ["-c", str(cwd)]
            # Marked in its environment from birth: _mark below is a second call a kill can fall before.
            marks = pane_env(self._token, _option_text(self.team), _option_text(name))
            for key, value in {**(env or {}), **marks}.items():
                if key not in _TMUX_OWN_ENV:
                    args += ["-e", f"{key}={value}"]
            tail = [command] if command else []
            out = None
            beside = self._beside() if self._shown else []
            if self._shown and len(beside) < self.max_beside:
                out = self._into_column("split-window", args, beside, tail)
            if out is None:  # hidden, full, or too small to split: the side window
                out = self._open_in_side(args, tail)
            pane_id, pid, window = out[0].split("\t")
            pane = _Pane(name, pane_id, int(pid), command, pinned)
            self._panes[name] = pane
            self._ended.pop(name, None)
            self._mark(pane, color)
            if window != self.window:
                self._side_window = window
            return pane

    def release(self, name: str, pane_id: str) -> None:
        """Close `name`'s pane if it is still `pane_id` (its process ended)."""
        with self._lock:
            pane = self._panes.get(name)
            if pane is not None and pane.pane_id == pane_id:
                self._close_one(name)
                self._arrange()

    @property
    def shown(self) -> bool:
        return self._shown

    def _open_in_side(self, args: list[str], tail: list[str]) -> list[str]:
        side = self._live_side_window()
        if side is not None:
            out = self.tmux.try_run("split-window", *args, "-t", side, *tail)
            if out is not None:
                self.tmux.try_run("select-layout", "-t", side, "tiled")
                return out
        out = self.tmux.run("new-window", "-a", *args, "-n", f"teamtui-{self.team}", "-t", self.window, *tail)
        self._prepare_window(out[0].split("\t")[2])
        return out

    def _mark(self, pane: _Pane, color: str) -> None:
        c = tmux_color(color)
        options = (
            (TEAM, _option_text(self.team)),
            (TEAMMATE, _option_text(pane.name)),
            (COLOR_OPTION, c),
            ("pane-border-style", f"fg={c}"),
            ("pane-active-border-style", f"fg={c},bold"),
            (OWNER, self._token),  # last: a pane counts as teamtui's once fully marked
        )
        # One tmux call for all of them (";" separates tmux commands).
        args = ["select-pane", "-t", pane.pane_id, "-T", pane_title(pane.name)]
        for option, value in options:
            args += [";", "set-option", "-p", "-t", pane.pane_id, option, value]
        self.tmux.try_run(*args)

    def _adopt(self, spec: PaneSpec) -> bool:
        pane_id = spec.pane_id
        if not _PANE_ID.fullmatch(pane_id) or any(p.pane_id == pane_id for p in self._panes.values()):
            return False
        if not self.tmux.pane_exists(pane_id):
            return False
        self._adopted[spec.name] = pane_id
        return True

    # ------------------------------------------------------------------ closing
    def _close_one(self, name: str) -> None:
        pane = self._panes.pop(name)
        close_panes(self.tmux, [(pane.pane_id, pane.pid)])

    def _forget_vanished(self) -> bool:
        """Drop panes that closed by themselves (their command exited, or a person closed them)."""
        live = {r["pane_id"] for r in self.tmux.list_panes(["pane_id", OWNER]) if r.get(OWNER) == self._token}
        gone = [n for n, p in self._panes.items() if p.pane_id not in live]
        for name in gone:
            self._ended[name] = self._panes.pop(name).command
        return bool(gone)

    # ------------------------------------------------------------------ layout
    def _where(self) -> dict[str, str]:
        return {r["pane_id"]: r["window_id"] for r in self.tmux.list_panes(["pane_id", "window_id"])}

    def _beside(self) -> list[_Pane]:
        where = self._where()
        return [p for p in self._panes.values() if where.get(p.pane_id) == self.window]

    def _into_column(
        self, command: str, args: list[str], column: list[_Pane], tail: Sequence[str] = ()
    ) -> list[str] | None:
        """Split or join a pane into the column beside the dashboard (below its last pane, or as the
        column's first), the dashboard keeping its width: split in half and laid out again after,
        it was redrawn at half width for each teammate."""
        if column:
            out = self.tmux.try_run(command, "-v", *args, "-t", column[-1].pane_id, *tail)
            if out is not None:
                return out
        return self.tmux.try_run(command, "-h", "-l", _COLUMN, *args, "-t", self.dashboard_pane, *tail)

    def _live_side_window(self, where: dict[str, str] | None = None) -> str | None:
        where = self._where() if where is None else where
        return self._side_window if self._side_window in where.values() else None

    def _arrange(self) -> None:
        """Move panes so the first MAX_BESIDE sit beside the dashboard (when shown), the rest aside."""
        where = self._where()
        order = [p for p in self._panes.values() if p.pane_id in where]
        beside = order[: self.max_beside] if self._shown else []
        column = [p for p in beside if where[p.pane_id] == self.window]  # already beside the dashboard
        for pane in order:
            here = where[pane.pane_id] == self.window
            if pane in beside and not here:
                self._into_column("join-pane", ["-d", "-s", pane.pane_id], column)
                column.append(pane)
            elif pane not in beside and here:
                self._move_aside(pane, where)
        self._relayout()

    def _move_aside(self, pane: _Pane, where: dict[str, str]) -> None:
        side = self._live_side_window(where)
        if side is not None and self.tmux.try_run("join-pane", "-d", "-s", pane.pane_id, "-t", side) is not None:
            return
        out = self.tmux.try_run(
            "break-pane", "-d", "-P", "-F", "#{window_id}", "-n", f"teamtui-{self.team}", "-s", pane.pane_id
        )
        if out:
            self._side_window = out[0]
            self._prepare_window(out[0])
            where.update({pane.pane_id: out[0]})

    def _relayout(self) -> None:
        rows = self.tmux.try_run("list-panes", "-t", self.window, "-F", "#{pane_id}") or []
        if len(rows) > 1:
            if rows[0] != self.dashboard_pane:  # main-vertical makes the first pane the main one
                self.tmux.try_run("swap-pane", "-d", "-s", self.dashboard_pane, "-t", rows[0])
            self.tmux.try_run("select-layout", "-t", self.window, "main-vertical")
        side = self._live_side_window()
        if side is not None:
            self.tmux.try_run("select-layout", "-t", side, "tiled")

    # ------------------------------------------------------------------ window options
    def _prepare_window(self, window: str) -> None:
        if window in self._prepared:
            return
        self._prepared.add(window)
        if window == self.window:
            for option in _RESTORED_OPTIONS:
                out = self.tmux.try_run("show-options", "-w", "-q", "-v", "-t", window, option)
                self._saved[option] = out[0] if out else ""
        for option, value in _WINDOW_OPTIONS.items():
            self.tmux.try_run("set-option", "-w", "-t", window, option, value)

    def _restore_window(self) -> None:
        for option, value in self._saved.items():
            if value:
                self.tmux.try_run("set-option", "-w", "-t", self.window, option, value)
            else:
                self.tmux.try_run("set-option", "-w", "-u", "-t", self.window, option)
        self._saved.clear()
        self._prepared.clear()


def _option_text(value: str) -> str:
    """A name as a pane option: inert, one line, no tab (tmux listings are split on both)."""
    return inert(value).replace("\t", " ")
