"""Fixtures for the dashboard: frozen copies of the example teams, UTC, a panes recorder."""

from __future__ import annotations

import fcntl
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from teamtui.tmux.api import PaneSpec
from teamtui.tui.screenshots import FLEET_BASE, freeze_team
from tests.conftest import apoll

SIZE = (140, 42)


@pytest.fixture(autouse=True)
def _utc(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    time.tzset()


@pytest.fixture
def frozen_native(tmp_path: Path) -> Path:
    return freeze_team(tmp_path, "native")


@pytest.fixture
def frozen_claude(tmp_path: Path) -> Path:
    return freeze_team(tmp_path, "claude")


@pytest.fixture
def fleet_shot() -> Iterator[None]:
    """make_fleet_app's fixed folder (its path is in the picture) for one test at a time: two xdist
    workers rebuilding it under each other's room made a teammate's files change mid-snapshot."""
    with open(FLEET_BASE.parent / f"{FLEET_BASE.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    return tmp_path / "config" / "config.toml"


class RecordingPanes:
    """A real TeammatePanes that records what the dashboard asked of it."""

    def __init__(self) -> None:
        self.active = True
        self.team = ""
        self.calls: list[tuple[str, object]] = []
        self.shown = True

    def sync(self, specs: list[PaneSpec]) -> None:
        self.calls.append(("sync", [s.name for s in specs]))

    def close(self, name: str) -> None:
        self.calls.append(("close", name))

    def toggle(self) -> bool:
        self.shown = not self.shown
        self.calls.append(("toggle", self.shown))
        return self.shown

    def select(self, name: str) -> bool:
        self.calls.append(("select", name))
        return True

    def close_all(self) -> None:
        self.calls.append(("close_all", None))

    def listen(self, listener) -> None:
        self.calls.append(("listen", listener is not None))

    def waiting(self) -> tuple[str, ...]:
        return ()


async def until(pilot, cond: Callable[[], object], what: str, limit: float = 90.0) -> None:
    """Let the app run until `cond` holds; a generous cap (the longest any of the suite's copies had)
    only turns a hang into a failure: a wait ends as soon as the thing is there."""
    await apoll(cond, limit, lambda: pilot.pause(0.02), lambda: AssertionError(f"never happened: {what}"))


async def open_from_strip(pilot, app, kind: str, what: str):
    """On a team's dashboard: once its needs strip holds a `kind` item (`what`), `a` opens it in
    full (the answer screen). The strip, for what a test reads of it afterwards."""
    from teamtui.tui.screens.answer import AnswerScreen
    from teamtui.tui.widgets.needs_you import NeedsYouStrip

    strip = app.screen.query_one(NeedsYouStrip)
    await until(pilot, lambda: any(i.kind == kind for i in strip.items), what)
    await pilot.press("a")
    await until(pilot, lambda: isinstance(app.screen, AnswerScreen), f"{what}, in full")
    return strip


def make(root: Path, config: Path, team: str | None = None, **kw):
    """The dashboard as `teamtui watch` opens it on `root` (on `team`, else what it finds there), with
    `config` as its config file and no cursor blink (a blink is a frame a snapshot may catch)."""
    from teamtui.tui.app import TeamTUI

    return TeamTUI.watching(root, team, None, config_path=config, cursor_blink=False, **kw)


def make_in(root: Path, tmp_path: Path, team: str | None = None):
    """As `make`, its config file under `tmp_path` (cfg/config.toml, not there: the defaults)."""
    return make(root, tmp_path / "cfg" / "config.toml", team)


def room_on(tmp_path: Path, *roots: Path):
    """The control room on `roots` alone: no config, no Claude folder, no tmux panes."""
    from teamtui.protocol.settings import load_settings
    from teamtui.session.fleet import Fleet
    from teamtui.session.local import LocalSource
    from teamtui.tui.app import TeamTUI

    settings = load_settings(tmp_path / "none.toml")
    source = LocalSource(settings, roots=list(roots), cwd=tmp_path, claude_root=tmp_path / "no-claude")
    source.discover()
    return TeamTUI(Fleet([source]), config_path=tmp_path / "none.toml", cursor_blink=False, sync_panes=False)


async def transcripts_loaded(pilot, app) -> None:
    """The example Claude team's dashboard once its transcripts are read and its three rows (the lead's too) shown."""
    from teamtui.tui.widgets.team import TeamPanel

    await until(
        pilot,
        lambda: (
            app.state is not None and app.state.transcripts.ready and app.dashboard.query_one(TeamPanel).row_count == 3
        ),
        "the transcripts read and the lead's row shown",
    )


def toasts(app) -> list[str]:
    """The messages of the toasts the app has shown (and not yet dismissed)."""
    return [str(n.message) for n in app._notifications]


def record_toasts(app) -> list[str]:
    """Every toast `app` raises from now on, kept: a toast leaves the screen after 5 s, and a slow
    machine's wait for what comes with it can outlast that."""
    said: list[str] = []
    notify = app.notify

    def recording(message, *args, **kwargs):
        said.append(str(message))
        return notify(message, *args, **kwargs)

    app.notify = recording
    return said


def cells(table) -> list[str]:
    """Every cell of a DataTable as plain text, for assertions on what is on screen."""
    out = []
    for row in table.ordered_rows:
        out.append(" | ".join(str(getattr(c, "plain", c)) for c in table.get_row(row.key)))
    return out


def named_cells(table) -> list[dict[str, str]]:
    """Every row of a DataTable as {column label: cell text}: what a test reads by column, whichever are shown."""
    labels = [str(c.label) for c in table.ordered_columns]
    return [dict(zip(labels, line.split(" | "), strict=True)) for line in cells(table)]


def log_lines(log) -> list[str]:
    """A log panel's rows as plain text, wrapped as on screen."""
    return log.text_lines()


def help_rows(screen) -> dict[str, list[str]]:
    """The help screen's table as on screen, by keymap id (a row with none: by its key): [key, action, id];
    the header row under "In [keymap]"."""
    texts = [str(w.content) for w in screen.query("#help-keys Static")]
    rows = [texts[i : i + 3] for i in range(0, len(texts), 3)]
    return {row[2] or row[0]: row for row in rows}


def on_screen(app, widget) -> bool:
    """Whether `widget` can be seen now: its top-left cell is the widget there (not scrolled away, not covered)."""
    region = widget.region
    if not region or not app.screen.region.contains_point(region.offset):
        return False
    return app.screen.get_widget_at(*region.offset)[0] is widget


__all__ = ["SIZE", "RecordingPanes", "until", "cells", "named_cells", "log_lines"]
