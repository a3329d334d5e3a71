"""What a Claude Code team cost, where people look: the room's Cost column, the team's header, each
teammate's row of the team panel and `teamtui status --all --json`; every figure is genai-prices'
own result for the same messages (tests/costgen.py `library_cost`). A budget crossed runs the
person's notify command once per threshold, also across a restart of the room. An ended team
keeps its cost (the journal)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import time
from decimal import Decimal
from pathlib import Path

from teamtui.protocol.claude.transcripts import TranscriptFinder
from teamtui.protocol.cost import Cost, cost_text, money, short_money
from teamtui.protocol.settings import load_settings
from teamtui.session.fleet import Fleet
from teamtui.session.local import LocalSource
from teamtui.tui.app import TeamTUI
from teamtui.tui.screens.dashboard import DashboardScreen
from teamtui.tui.screens.fleet import FleetScreen
from teamtui.tui.widgets.fleet import FleetTable
from teamtui.tui.widgets.team import TeamPanel
from tests.costgen import UNKNOWN_MODEL, library_cost, priced_turns

from .conftest import named_cells, until

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "examples" / "claude-2.1.328" / "tmux-running"
TEAM = "session-421dba11"
SIZE = (200, 40)
START = time.time() - 3 * 3600  # today (the day budget counts today's spend), the next day's message in the future


def claude_team(tmp_path: Path) -> tuple[Path, dict[str, Path]]:
    """The 2.1.328 team, its teammates' transcripts grown by priced messages: (its folder, member -> transcript)."""
    root = tmp_path / "claude"
    shutil.copytree(FIXTURE, root)
    for p in [root, *root.rglob("*")]:
        p.chmod(p.stat().st_mode | stat.S_IWUSR)
    config = json.loads((root / "teams" / TEAM / "config.json").read_text())
    paths = {m: s.path for m, s in TranscriptFinder(root, config).resolve().items()}
    for n, member in enumerate(("alice", "bob"), 1):
        with paths[member].open("ab") as fh:
            fh.write(priced_turns(member, START, scale=n))
    return root, paths


def room(root: Path, tmp_path: Path, config: Path) -> TeamTUI:
    settings = load_settings(config)
    fleet = LocalSource(settings, roots=[], cwd=tmp_path, claude_root=root)
    fleet.discover()
    return TeamTUI(Fleet([fleet]), config_path=config, cursor_blink=False, sync_panes=False)


def library(paths: dict[str, Path], *members: str) -> Cost:
    """The library's figure as a Cost, for the members named (all: the team)."""
    want = library_cost(*(paths[m] for m in members or paths))
    return Cost(want.usd, tuple(sorted(want.unknown)), sum(want.unknown.values()), want.days)


def cost_cell(app: TeamTUI) -> str:
    table = app.screen.query_one(FleetTable)
    return next(r["Cost"] for r in named_cells(table) if r["Team"].startswith(TEAM))


async def test_every_figure_on_screen_is_genai_prices_own(tmp_path: Path) -> None:
    root, paths = claude_team(tmp_path)
    team = library(paths)
    assert team.unknown == (UNKNOWN_MODEL,) and team.usd > Decimal(1)
    app = room(root, tmp_path, tmp_path / "none.toml")
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, FleetScreen) or isinstance(app.screen, DashboardScreen)
        if isinstance(app.screen, DashboardScreen):  # one team: its dashboard first; the room is one key away
            await pilot.press("escape")
        await until(pilot, lambda: cost_cell(app) == f"{money(team.usd)} + ?", "the room's Cost column", limit=20)
        await until(
            pilot,
            lambda: (
                f"today {money(team.on(time.strftime('%Y-%m-%d')))}"
                in app.screen.query_one("#fleet-header").render().plain
            ),
            "today's spend on the room's top line",
        )
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen), "the team's dashboard")
        header = app.screen.query_one("#header")
        await until(pilot, lambda: cost_text(team) in header.render().plain, "the team's cost in its header")
        assert cost_text(team) == f"{money(team.usd)} + price unknown (model {UNKNOWN_MODEL})"
        panel = app.screen.query_one(TeamPanel)
        columns = [c.label.plain for c in panel.columns.values()]
        for member in ("team-lead", "alice", "bob"):
            mine = library(paths, member)
            said = short_money(mine.usd) + ("?" if mine.unknown else "")
            cell = str(panel.get_row(member)[columns.index("Cost")].plain)
            assert cell == said, (member, cell, said)


def test_status_all_json_is_genai_prices_own_to_the_last_digit(tmp_path: Path, cli, monkeypatch) -> None:
    root, paths = claude_team(tmp_path)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(root))
    monkeypatch.chdir(tmp_path)
    code, out, err = cli("status", "--all", "--json", "--transcripts")
    assert code == 0, err
    [row] = [r for r in json.loads(out) if r["folder"] == TEAM]
    want = library_cost(*paths.values())
    assert Decimal(row["cost"]["usd"]) == want.usd, "unrounded: the library's sum"
    assert row["cost"]["unknown_models"] == [UNKNOWN_MODEL]
    assert row["cost"]["unpriced_tokens"] == want.unknown[UNKNOWN_MODEL]
    assert {d: Decimal(v) for d, v in row["cost"]["days"].items()} == want.days
    code, out, _ = cli("status", "--all", "--transcripts")
    assert money(want.usd) + "+?" in out and f"? price unknown (model {UNKNOWN_MODEL})" in out


def test_status_json_gives_each_members_cost_as_the_team_panel_has_it(tmp_path: Path, cli) -> None:
    """`status --json` of one team: each member's cost, the figure the team panel's Cost column
    shows (genai-prices' own, above), unrounded as status --all --json gives a team's."""
    root, paths = claude_team(tmp_path)
    code, out, err = cli("status", "--json", "--root", str(root), "--team", TEAM)
    assert code == 0, err
    said = json.loads(out)
    costs = {m["name"]: m["cost"] for m in said["members"]} | {said["lead"]: said["lead_usage"]["cost"]}
    assert set(costs) == set(paths) == {"team-lead", "alice", "bob"}
    for member in paths:
        mine = library(paths, member)
        assert Decimal(costs[member]["usd"]) == mine.usd, member
        assert costs[member]["unknown_models"] == list(mine.unknown), member
        assert costs[member]["unpriced_tokens"] == mine.unpriced_tokens, member


# ------------------------------------------------------------------ budgets call the person


def notify_config(tmp_path: Path, budget: Decimal) -> tuple[Path, Path]:
    """config.toml with a team budget and a notify command that appends each event it gets to a file."""
    calls = tmp_path / "calls.jsonl"
    script = tmp_path / "notify.sh"
    script.write_text(f"#!/bin/sh\ncat >> {calls}\n")
    script.chmod(0o755)
    config = tmp_path / "config" / "config.toml"
    config.parent.mkdir(exist_ok=True)
    config.write_text(f'[notify]\nbell = false\ndesktop = false\ncommand = ["{script}"]\n[budgets]\nteam = {budget}\n')
    return config, calls


def said(calls: Path) -> list[dict]:
    return [json.loads(line) for line in calls.read_text().splitlines()] if calls.exists() else []


async def test_a_budget_crossed_runs_the_notify_command_once_per_threshold(tmp_path: Path) -> None:
    root, paths = claude_team(tmp_path)
    spent = library(paths).usd
    budget = (spent / Decimal("0.85")).quantize(Decimal("0.01"))  # 85 % of it is spent already
    config, calls = notify_config(tmp_path, budget)
    app = room(root, tmp_path, config)
    async with app.run_test(size=SIZE) as pilot:
        if isinstance(app.screen, DashboardScreen):
            await pilot.press("escape")
        await until(pilot, lambda: len(said(calls)) == 1, "the command ran for 80 %", limit=20)
        [event] = said(calls)
        assert event["kind"] == "budget" and event["team"] == TEAM
        assert event["text"] == f"{money(spent)}, 80% of the team budget of {money(budget)}"
        await until(pilot, lambda: cost_cell(app).endswith("· team 80%"), "the row says it")
        # More spent, still under 100 %: no second call for the same threshold.
        with paths["alice"].open("ab") as fh:
            fh.write(priced_turns("more", START + 7200, scale=0))
        await until(
            pilot,
            lambda: library(paths).usd > spent and cost_cell(app).startswith(money(library(paths).usd)),
            "the new spend on the row",
        )
        assert library(paths).usd < budget
        await pilot.pause(0.3)
        assert len(said(calls)) == 1
        # Past 100 %: called again, once.
        with paths["bob"].open("ab") as fh:
            fh.write(priced_turns("over", START + 7300, scale=3))
        await until(pilot, lambda: len(said(calls)) == 2, "the command ran for 100 %", limit=20)
        assert "reached the team budget" in said(calls)[1]["text"]
        await until(pilot, lambda: cost_cell(app).endswith("· team 100%"), "the row says it")
    # A room started again says nothing it already said.
    app = room(root, tmp_path, config)
    async with app.run_test(size=SIZE) as pilot:
        if isinstance(app.screen, DashboardScreen):
            await pilot.press("escape")
        await until(pilot, lambda: cost_cell(app).endswith("· team 100%"), "the row, after the restart", limit=20)
        await pilot.pause(0.5)
    assert len(said(calls)) == 2


# ------------------------------------------------------------------ an ended team keeps its cost


async def test_an_ended_team_keeps_its_cost(tmp_path: Path) -> None:
    root, paths = claude_team(tmp_path)
    team = library(paths)
    app = room(root, tmp_path, tmp_path / "none.toml")
    async with app.run_test(size=SIZE) as pilot:
        if isinstance(app.screen, DashboardScreen):
            await pilot.press("escape")
        await until(pilot, lambda: cost_cell(app) == f"{money(team.usd)} + ?", "the cost", limit=20)
        shutil.rmtree(root / "teams" / TEAM)  # Claude Code deletes the team's folder when its lead exits
        [session] = app.fleet.fleet.sessions.values()  # type: ignore[union-attr]
        await until(pilot, lambda: not session.live, "the team seen ending")
    from teamtui.protocol.claude import journal

    journal.flush()
    # Another control room, later: the team is read back from the journal, its cost with it.
    app = room(root, tmp_path, tmp_path / "none.toml")
    async with app.run_test(size=SIZE) as pilot:
        if isinstance(app.screen, DashboardScreen):
            await pilot.press("escape")
        await until(pilot, lambda: cost_cell(app) == f"{money(team.usd)} + ?", "the ended team's cost", limit=20)
    assert os.environ.get("XDG_STATE_HOME") is None  # the journal was the isolated HOME's
    [kept] = [t.cost for t in journal.list_teams() if t.name == TEAM]
    assert kept is not None and Decimal(kept["usd"]) == team.usd


def test_doctor_says_which_prices_and_which_models_it_could_not_price(tmp_path: Path, cli) -> None:
    from importlib.metadata import version

    root, paths = claude_team(tmp_path)
    code, out, err = cli("doctor", "--root", str(root), "--team", TEAM)
    assert code == 0, out + err
    assert f"prices: genai-prices {version('genai-prices')}, its bundled data, never updated at run time" in out
    want = library_cost(*paths.values())
    assert (
        f"  cost: {money(want.usd)}; no price for model {UNKNOWN_MODEL} "
        f"({want.unknown[UNKNOWN_MODEL]} tokens left out)" in out
    )
    code, out, _ = cli("doctor", "--root", str(root), "--team", TEAM, "--json")
    said = json.loads(out)
    assert said["prices"]["bundled"] is True and said["prices"]["version"] == version("genai-prices")
    assert Decimal(said["teams"][0]["cost"]["usd"]) == want.usd
    assert said["teams"][0]["cost"]["unknown_models"] == [UNKNOWN_MODEL]


async def test_a_hostile_model_name_is_shown_inert(tmp_path: Path) -> None:
    from tests.costgen import _usage, assistant_lines

    root, paths = claude_team(tmp_path)
    line = json.loads(assistant_lines("msg_evil", "claude\x1b]0;pwned\x07[red]x", _usage(5, 50), START + 400, blocks=1))
    with paths["bob"].open("ab") as fh:
        fh.write(json.dumps(line).encode() + b"\n")  # spaced as no Claude Code writes it: read whole, the name decoded
    app = room(root, tmp_path, tmp_path / "none.toml")
    async with app.run_test(size=SIZE) as pilot:
        if isinstance(app.screen, FleetScreen):
            await until(pilot, lambda: cost_cell(app).endswith("+ ?"), "the cost", limit=20)
            await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen), "the team's dashboard")
        header = app.screen.query_one("#header")
        await until(pilot, lambda: "price unknown" in header.render().plain, "the cost in the header", limit=20)
        shown = header.render().plain
        assert "\x1b" not in shown and "\x07" not in shown and "[red]x" in shown  # as written, never acted on
