"""The changes view on a Claude Code 2.1.332 team (alice writes and edits app.py, then bob edits it,
tests/fixtures/examples/claude-2.1.332-edits), driven by Pilot: opened with `c` and from the
command palette, by teammate and by file, a file's diff with its edits' times and tools, a new
edit appearing live, a large diff paged, hostile names and contents shown inert, the collision
dismissed, and a snapshot."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from teamtui.protocol.native import NativeTeam
from teamtui.protocol.teammate import Teammate
from teamtui.runtime import worktrees
from teamtui.tui.app import TeamTUI
from teamtui.tui.keys import action_keys
from teamtui.tui.screens.changes import SEP, ChangesScreen
from teamtui.tui.widgets.diff import DiffLines
from teamtui.tui.widgets.needs_you import NeedsYouStrip
from tests.conftest import EDITS, copy_fixture

from .conftest import SIZE, cells, until

TEAM = "session-48868de5"
APP = "/src/app/app.py"


@pytest.fixture
def team(tmp_path: Path) -> Path:
    return copy_fixture(EDITS, tmp_path / ".claude")


def make(root: Path, tmp_path: Path, **kw) -> TeamTUI:
    return TeamTUI.watching(root, config_path=tmp_path / "config.toml", cursor_blink=False, **kw)


def transcript(root: Path, member: str) -> Path:
    return next(root.rglob(f"agent-a{member}-*.jsonl"))


def result_line(tid: str, result: dict) -> bytes:
    rec = {
        "type": "user",
        "message": {"role": "user", "content": [{"tool_use_id": tid, "type": "tool_result", "content": "ok"}]},
        "uuid": f"u-{tid}",
        "timestamp": "2026-11-27T02:50:00.000Z",
        "toolUseResult": result,
    }
    return json.dumps(rec, separators=(",", ":")).encode() + b"\n"


def edit(path: str, old: list[str], new: list[str]) -> dict:
    lines = [f"-{x}" for x in old] + [f"+{x}" for x in new]
    patch = [{"oldStart": 1, "oldLines": len(old), "newStart": 1, "newLines": len(new), "lines": lines}]
    return {"filePath": path, "oldString": "", "newString": "", "structuredPatch": patch, "userModified": False}


async def opened(app: TeamTUI, pilot) -> ChangesScreen:
    await until(pilot, lambda: app.state is not None and app.state.transcripts.ready, "the transcripts read")
    await pilot.press("c")
    await until(pilot, lambda: isinstance(app.screen, ChangesScreen), "the changes view")
    return app.screen  # type: ignore[return-value]


def file_key(member: str, path: str = APP) -> str:
    return f"f{SEP}{member}{SEP}{path}{SEP}seen"


def diff_plain(screen: ChangesScreen) -> str:
    return screen.query_one("#diff", DiffLines).plain


def title_plain(screen: ChangesScreen) -> str:
    return screen.query_one("#diff-title").content.plain  # type: ignore[attr-defined]


async def test_c_shows_each_teammates_files_and_the_selected_files_edits_in_order(team: Path, tmp_path: Path) -> None:
    app = make(team, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(app, pilot)
        table = screen.query_one("#changes-table")
        rows = cells(table)
        assert rows[0] == "⇄ app.py: alice, bob |  |  | "  # the collision first
        assert rows[1].startswith("alice  1 file | +7 -1")
        assert rows[2].startswith("  app.py  new ⇄ | +7 -1 | 2 | ")
        assert rows[3].startswith("bob  1 file | +1 -1")
        assert rows[4].startswith("  app.py  ⇄ | +1 -1 | 1 | ")
        screen.select(file_key("alice"))
        await pilot.pause()
        assert title_plain(screen) == "alice · app.py · +7 -1"
        text = diff_plain(screen)
        assert text.splitlines()[:3] == [
            "── 02:49:38 · Write · +6 -0 · new file",
            "@@ -0,0 +1,6 @@",
            "+ def greet(name):",
        ]
        assert "── 02:49:38 · Edit · +1 -1" in text
        assert "-     return 'hello ' + name\n+     return f'hello {name}!'" in text
        assert text.index("Write") < text.index("Edit")  # in the order they were made
        # by file: the file, then each teammate that changed it
        await pilot.press("v")
        assert cells(table)[1:4] == ["app.py  ⇄ |  |  | ", *cells(table)[2:4]]
        assert [r.split(" | ")[0].strip() for r in cells(table)[2:4]] == ["alice  new ⇄", "bob  ⇄"]
        await pilot.press("escape")
        assert app.screen is app.dashboard and app.dashboard.views.changes_view is None


async def test_a_new_edit_shows_in_the_open_view_and_a_hostile_one_is_inert(team: Path, tmp_path: Path) -> None:
    app = make(team, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(app, pilot)
        hostile = "/src/app/\x1b[2J[bold]x[/bold]\u202e.py"
        with transcript(team, "bob").open("ab") as fh:
            fh.write(result_line("t-new", edit("/src/app/util.py", ["a"], ["b", "c"])))
            fh.write(result_line("t-bad", edit(hostile, ["\x1b]0;pwned\x07"], ["[red]not markup[/red]"])))
        key = file_key("bob", "/src/app/util.py")
        await until(pilot, lambda: key in screen.rows, "bob's new edit in the view")
        assert any(r.startswith("  util.py | +2 -1 | 1") for r in cells(screen.query_one("#changes-table")))
        bad = file_key("bob", hostile)
        await until(pilot, lambda: bad in screen.rows, "the hostile edit")
        (shown,) = [r for r in cells(screen.query_one("#changes-table")) if "[bold]" in r]
        assert shown.startswith("  \\x1b[2J[bold]x[/bold]\\u202e.py | +1 -1 | 1 | ")  # literally, never as markup
        assert "\x1b" not in "".join(cells(screen.query_one("#changes-table")))
        screen.select(bad)
        await pilot.pause()
        text = diff_plain(screen)
        assert "\x1b" not in text and "\x07" not in text and "\u202e" not in title_plain(screen)
        assert "- \\x1b]0;pwned\\x07" in text and "+ [red]not markup[/red]" in text


async def test_a_large_diff_is_paged(team: Path, tmp_path: Path) -> None:
    big = [f"line {i}" for i in range(1000)]
    with transcript(team, "alice").open("ab") as fh:
        fh.write(result_line("t-big", edit("/src/app/big.txt", [], big)))
    app = make(team, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(app, pilot)
        screen.select(file_key("alice", "/src/app/big.txt"))
        await pilot.pause()
        assert title_plain(screen).endswith("page 1/4 (n next, p previous)")
        assert len(diff_plain(screen).splitlines()) == 300
        await pilot.press("n", "n")
        assert "page 3/4" in title_plain(screen)
        assert diff_plain(screen).splitlines()[0] == "+ line 598"
        await pilot.press("p")
        assert "page 2/4" in title_plain(screen)


async def test_the_collision_calls_from_the_strip_opens_the_file_and_is_dismissed_with_d(
    team: Path, tmp_path: Path
) -> None:
    app = make(team, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.state is not None and app.state.transcripts.ready, "the transcripts read")
        strip = app.dashboard.query_one(NeedsYouStrip)
        await until(pilot, lambda: any(i.kind == "collision" for i in strip.items), "the collision in the strip")
        (item,) = [i for i in strip.items if i.kind == "collision"]
        assert item.text == "alice and bob both changed app.py"
        strip.post_message(NeedsYouStrip.Chosen(item))
        await until(pilot, lambda: isinstance(app.screen, ChangesScreen), "the changes view, at the file")
        screen = app.screen
        assert screen.query_one("#changes-table").selected == f"c{SEP}{item.key}"
        assert title_plain(screen) == "alice and bob both changed app.py"
        await pilot.press("d")
        assert not screen.collisions
        await pilot.press("escape")
        await until(pilot, lambda: not strip.items, "the dismissed collision gone from the strip")


async def test_the_command_palette_offers_the_changes_view(team: Path, tmp_path: Path) -> None:
    app = make(team, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.state is not None and app.state.transcripts.ready, "the transcripts read")
        assert ("c", "What each teammate changed: files, diffs, collisions", "changes") in action_keys(app)
        app.action_command_palette()
        await pilot.pause()
        await pilot.press(*"teammate changed")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ChangesScreen), "the changes view from the palette")


@pytest.fixture
def frozen(team: Path) -> Path:
    now = 1795747788.304 + 60
    for p in sorted(team.rglob("*"), reverse=True):
        os.utime(p, (now, now), follow_symlinks=False)
    return team


def test_changes_view_snapshot(snap_compare, frozen: Path, tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('theme = "teamtui-dark"\n', encoding="utf-8")
    app = TeamTUI.watching(frozen, config_path=config, clock=lambda: 1795747788.304 + 60, cursor_blink=False)

    async def run_before(pilot) -> None:
        await until(pilot, lambda: app.state is not None and app.state.transcripts.ready, "the transcripts read")
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, ChangesScreen), "the changes view")
        app.screen.select(file_key("alice"))  # type: ignore[attr-defined]
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_time_zone_is_utc_here() -> None:
    assert time.strftime("%H", time.gmtime(0)) == time.strftime("%H", time.localtime(0))


def git_team(tmp_path: Path, *members: str) -> NativeTeam:
    """A native team `t` in a real git repository holding app.py (a\\nb), with `members`."""
    repo = tmp_path / "proj"
    repo.mkdir()
    for args in (["init", "-q", "-b", "main"], ["config", "user.email", "t@e.x"], ["config", "user.name", "t"]):
        subprocess.run(["git", *args], cwd=repo, check=True)
    (repo / "app.py").write_text("a\nb\n")
    subprocess.run(["git", "add", "."], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "start"], cwd=repo, check=True)
    store = NativeTeam(repo, "t")
    store.create(description="")
    for m in members:
        store.add_member(m)
    return store


async def test_a_worktree_teammates_change_shows_from_git_and_moves_on_a_file_event(tmp_path: Path) -> None:
    repo = git_team(tmp_path, "ana").root
    wt = worktrees.add(repo, "t", "ana")
    (wt.path / "app.py").write_text("a\nB\n")
    app = TeamTUI.watching(repo, "t", config_path=tmp_path / "config.toml", cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.state is not None, "the team")
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, ChangesScreen), "the changes view")
        screen = app.screen
        key = f"f{SEP}ana{SEP}app.py{SEP}git"
        await until(pilot, lambda: key in screen.rows, "ana's worktree change, from git")
        assert cells(screen.query_one("#changes-table"))[1].startswith("  app.py  git | +1 -1 | 1 | ")
        screen.select(key)
        await until(pilot, lambda: "+ B" in diff_plain(screen), "git's diff of it")
        assert "- b" in diff_plain(screen)
        (wt.path / "app.py").write_text("a\nB\nC\nD\n")  # a file event in the worktree: git is asked again
        await until(pilot, lambda: screen.rows[key].change.added == 3, "the new counts")
        await until(pilot, lambda: "+ D" in diff_plain(screen), "the new diff")


async def test_what_changed_under_the_view_is_on_the_dashboard_once_it_shows_again(team: Path, tmp_path: Path) -> None:
    """The dashboard's panels are not painted under the (opaque) changes view; back on it, they show
    what came meanwhile."""
    from teamtui.protocol.claude import iso_now

    app = make(team, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(app, pilot)
        msg = {
            "id": "msg_under",
            "type": "message",
            "role": "assistant",
            "model": "claude-opus-5-5",
            "content": [{"type": "tool_use", "id": "t-under", "name": "Bash", "input": {"command": "echo UNDERNEATH"}}],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
        with transcript(team, "bob").open("ab") as fh:
            fh.write(json.dumps({"type": "assistant", "message": msg, "timestamp": iso_now()}).encode() + b"\n")
            fh.write(result_line("t-under2", edit("/src/app/under.py", [], ["x"])))
        await until(pilot, lambda: file_key("bob", "/src/app/under.py") in screen.rows, "the edit in the view")
        assert "UNDERNEATH" not in app.export_screenshot()
        await pilot.press("escape")
        await until(pilot, lambda: "UNDERNEATH" in app.export_screenshot(), "bob's new call on the dashboard")


async def test_a_50_mb_write_is_listed_not_counted_and_said_too_large(team: Path, tmp_path: Path) -> None:
    big = {
        "type": "create",
        "filePath": "/src/app/dump.bin",
        "content": "y" * (50 * 1024 * 1024),
        "structuredPatch": [],
    }
    with transcript(team, "alice").open("ab") as fh:
        fh.write(result_line("t-huge", big))
    app = make(team, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(app, pilot)
        key = file_key("alice", "/src/app/dump.bin")
        assert key in screen.rows
        (row,) = [r for r in cells(screen.query_one("#changes-table")) if "dump.bin" in r]
        assert row.startswith("  dump.bin  new | +? -? | 1 | ")
        screen.select(key)
        await pilot.pause()
        assert "Write · +? -? · too large to show (52.4 MB line, over the reader's limit)" in diff_plain(screen)


async def test_a_touched_file_is_its_path_and_says_it_is_declared_and_odd_names_are_listed_inert(
    tmp_path: Path,
) -> None:
    store = git_team(tmp_path, "ana", "bob")
    task = store.create_task("login")
    store.claim_task(task.id, "bob")
    Teammate(store.root, "t", "bob").broadcast(f"TOUCHING_FILE tests/test_login.py for #{task.id}")  # as the demo says
    wt = worktrees.add(store.root, "t", "ana")
    (wt.path / "a[b]red[").mkdir()
    (wt.path / "a[b]red[" / "b].py").write_text("x\n")
    (wt.path / "\x1b[31mred.py").write_text("x\n")
    with open(os.fsencode(wt.path) + b"/bad\xff.py", "w") as fh:  # a name that is not UTF-8
        fh.write("x\n")
    app = TeamTUI.watching(store.root, "t", config_path=tmp_path / "config.toml", cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.state is not None, "the team")
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, ChangesScreen), "the changes view")
        screen = app.screen
        await until(pilot, lambda: len(screen.rows) == 4, "ana's three new files and bob's declared one")
        names = [r.split(" | ")[0] for r in cells(screen.query_one("#changes-table"))]
        assert names == [
            "ana  3 files",
            "  \\x1b[31mred.py  new git",  # ESC shown as its code, never acted on
            "  a[b]red[/b].py  new git",  # markup shown literally
            "  bad\\udcff.py  new git",
            "bob  1 file",
            "  tests/test_login.py  declared",  # the path alone, not `… for #1`
        ]
        screen.select(f"f{SEP}bob{SEP}tests/test_login.py{SEP}declared")
        await pilot.pause()
        declared = "Declared by bob (TOUCHING_FILE), no change seen yet: no diff to show."
        assert diff_plain(screen) == declared
        await pilot.press("v")  # by file: the file's own row says who declared it
        screen.select(f"w{SEP}{store.root}/tests/test_login.py")
        await pilot.pause()
        assert title_plain(screen) == "tests/test_login.py"
        assert diff_plain(screen) == declared
        screen.select(f"w{SEP}{store.root}/a[b]red[/b].py")
        await pilot.pause()
        assert diff_plain(screen) == "Changed by ana: +1 -0.\nSelect a teammate's row below to see their diff."
