"""A Claude Code team on the dashboard, from the real 2.1.328 files (copied to a tmp dir): the
transcripts fill the log panels of the lead and every teammate (pane and in-process), a new
tool call shows in its teammate's panel and team row, the token column is the transcript's
usage, and a permission request waits in the "Needs you" strip until it is answered."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from teamtui.protocol.claude import ClaudeTeam, iso_now
from teamtui.protocol.claude.transcripts import TranscriptFinder
from teamtui.protocol.locks import DirLock
from teamtui.tui.app import TeamTUI
from teamtui.tui.format import compact_count
from teamtui.tui.messages import FleetChanged
from teamtui.tui.screens.request import RequestDetail
from teamtui.tui.widgets.needs_you import NeedsYouStrip
from teamtui.tui.widgets.team import TeamPanel
from tests.costgen import assistant_messages, bash_use

from .conftest import SIZE, cells, log_lines, make, transcripts_loaded, until

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "examples" / "claude-2.1.328"
CASES = {
    "tmux-running": ("session-421dba11", "pane"),
    "inprocess-running": ("session-8dd2dc96", "in-process"),
}


def copy_case(tmp_path: Path, case: str) -> Path:
    root = tmp_path / case
    shutil.copytree(FIXTURES / case, root)
    return root


def transcript_of(app: TeamTUI, member: str) -> Path:
    return app.state.transcripts.team.sources[member].path


def bash_line(command: str, tid: str) -> bytes:
    return bash_use(
        tid, command, {"input_tokens": 120, "output_tokens": 30, "cache_read_input_tokens": 4000}, iso_now()
    )


def usage_total(path: Path) -> int:
    """The token sum a person would compute from the file: each message id's usage once."""
    by_id: dict[str, int] = {}
    anonymous = 0
    for _rec, msg in assistant_messages(path):
        usage = msg.get("usage") if isinstance(msg, dict) else None
        if not isinstance(usage, dict):
            continue
        n = sum(
            usage.get(k) or 0
            for k in ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        )
        if isinstance(msg.get("id"), str):
            by_id[msg["id"]] = n  # a message written as several lines repeats its usage
        else:
            anonymous += n
    return sum(by_id.values()) + anonymous


def row_of(app: TeamTUI, name: str) -> list[str]:
    panel = app.dashboard.query_one(TeamPanel)
    return [str(getattr(c, "plain", c)) for c in panel.get_row(name)]


@pytest.mark.parametrize("case", sorted(CASES))
async def test_every_member_has_its_transcript_in_a_log_panel(case, tmp_path, config_file):
    app = make(copy_case(tmp_path, case), config_file)
    async with app.run_test(size=SIZE) as pilot:
        await transcripts_loaded(pilot, app)
        assert [v for v in app.state.transcripts.members()] == ["team-lead", "alice", "bob"]
        assert {app.state.transcripts.backend(m) for m in ("alice", "bob")} == {CASES[case][1]}
        # Readable lines, not JSON: the lead spawned both teammates with the Agent tool.
        lead = [e.text for e in app.state.logs["team-lead"].since(0)]
        assert "Agent: alice" in lead and "Agent: bob" in lead
        assert not any(t.startswith("{") for t in lead)
        panel = app.dashboard.query_one(TeamPanel)
        panel.move_cursor(row=panel.get_row_index("team-lead"))
        await until(
            pilot,
            lambda: any("Agent: bob" in line for line in log_lines(app.dashboard.query_one("#log-main"))),
            "the lead's log shown",
        )
        # The teammates' own transcripts: each got its first prompt from the lead.
        for mate in ("alice", "bob"):
            assert any(e.text.startswith("← team-lead:") for e in app.state.logs[mate].since(0))


@pytest.mark.parametrize("case", sorted(CASES))
async def test_a_bash_call_appended_to_a_transcript_shows_in_its_panel_and_row(case, tmp_path, config_file):
    seen = []
    app = make(copy_case(tmp_path, case), config_file)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await transcripts_loaded(pilot, app)
        panel = app.dashboard.query_one(TeamPanel)
        panel.move_cursor(row=panel.get_row_index("bob"))
        await until(pilot, lambda: app.selected == "bob", "bob selected")
        with transcript_of(app, "bob").open("ab") as fh:
            fh.write(bash_line("pytest -q tests/[bold]auth", "toolu_bob1"))
        # The feed's batch for bob's transcript, then the panel's rows.
        await until(
            pilot,
            lambda: any(
                isinstance(m, FleetChanged)
                and any(c.key == "bob" and c.entries for b in m.batch.changes.values() for c in b.changes)
                for m in seen
            ),
            "a FleetChanged with bob's new entry",
        )
        await until(
            pilot,
            lambda: any(
                "Bash: pytest -q tests/[bold]auth" in line for line in log_lines(app.dashboard.query_one("#log-main"))
            ),
            "the call in bob's log panel, markup shown as text",
        )
        await until(pilot, lambda: "Bash: pytest -q" in row_of(app, "bob")[3], "the call in bob's Doing column")
        assert row_of(app, "alice")[3].endswith(
            ("idle since 07:02", "idle since 07:08")
        )  # to the minute: the column's room


async def test_a_teammate_that_left_says_so_instead_of_its_last_tool_call(tmp_path, config_file):
    root = copy_case(tmp_path, "tmux-running")
    app = make(root, config_file)
    async with app.run_test(size=SIZE) as pilot:
        await transcripts_loaded(pilot, app)
        assert "left" not in row_of(app, "bob")[3]
        # Claude Code takes bob out of members when he shuts down; his transcript stays.
        config = next(root.glob("teams/*/config.json"))
        data = json.loads(config.read_text())
        data["members"] = [m for m in data["members"] if m["name"] != "bob"]
        tmp = config.with_name("config.json.tmp")
        tmp.write_text(json.dumps(data))
        tmp.replace(config)
        await until(pilot, lambda: row_of(app, "bob")[3] == "left the team", "bob's row saying he left")
        assert "left" not in row_of(app, "alice")[3]


@pytest.mark.parametrize("case", sorted(CASES))
async def test_the_token_column_is_the_transcripts_usage(case, tmp_path, config_file):
    app = make(copy_case(tmp_path, case), config_file)
    async with app.run_test(size=SIZE) as pilot:
        await transcripts_loaded(pilot, app)
        for member in ("team-lead", "alice", "bob"):
            assert row_of(app, member)[4] == compact_count(usage_total(transcript_of(app, member)))
        path = transcript_of(app, "alice")
        with path.open("ab") as fh:
            fh.write(bash_line("make lint", "toolu_alice1"))
        expected = usage_total(path)
        assert expected > 4000
        await until(pilot, lambda: row_of(app, "alice")[4] == compact_count(expected), "alice's tokens counted")
        totals = sum(usage_total(transcript_of(app, m)) for m in ("team-lead", "alice", "bob"))
        await until(
            pilot,
            lambda: f"{compact_count(totals)} tokens" in app.dashboard.query_one("#header")._shown.plain,
            "the team's total in the header",
        )
        # The model (claude-opus-5-5) has no known window: no context share is guessed.
        assert row_of(app, "alice")[6] == ""


async def test_the_first_screen_shows_the_logs_and_the_tokens_follow(tmp_path, config_file):
    """A transcript longer than its log window: its last lines show before its head was counted,
    the token column and the team's total blank meanwhile (never a part sum), then the sums of
    the whole file."""
    root = copy_case(tmp_path, "tmux-running")
    team_dir = root / "teams" / "session-421dba11"
    path = TranscriptFinder(root, json.loads((team_dir / "config.json").read_text())).resolve()["alice"].path
    with path.open("ab") as fh:
        for i in range(400):
            fh.write(bash_line(f"step {i}", f"toolu_big{i}"))
            result = {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": f"toolu_big{i}", "content": "ok"}],
                },
                "timestamp": iso_now(),
            }
            fh.write(json.dumps(result, separators=(",", ":")).encode() + b"\n")
        fh.write(bash_line("make lint", "toolu_last"))
    when_counted: dict[str, object] = {}

    def hook(message) -> None:
        counted = isinstance(message, FleetChanged) and any(b.heads for b in message.batch.changes.values())
        if counted and not when_counted:  # on the app's loop, before it is handled
            when_counted.update(
                row=row_of(app, "alice"),
                header=app.dashboard.query_one("#header")._shown.plain,
                log=[e.text for e in app.state.logs["alice"].since(0)][-2:],
            )

    app = make(root, config_file)
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await transcripts_loaded(pilot, app)
        expected = usage_total(path)
        await until(pilot, lambda: row_of(app, "alice")[4] == compact_count(expected), "alice's tokens counted")
        assert when_counted, "the heads were counted after the first screen"
        assert when_counted["log"] == ["Bash ok", "Bash: make lint"]  # the panels had the newest lines
        assert when_counted["row"][4] == "" and "tokens" not in when_counted["header"]
        assert "Bash: make lint" in when_counted["row"][3]  # what alice does was shown meanwhile
        totals = sum(usage_total(transcript_of(app, m)) for m in ("team-lead", "alice", "bob"))
        await until(
            pilot,
            lambda: f"{compact_count(totals)} tokens" in app.dashboard.query_one("#header")._shown.plain,
            "the team's total in the header",
        )


def write_inbox(team: ClaudeTeam, member: str, entry: dict) -> None:
    """As Claude Code does: under the inbox's lock directory, the array rewritten and renamed."""
    path = team.inbox_path(member)
    with DirLock(path.with_name(path.name + ".lock")):
        data = json.loads(path.read_text() or "[]")
        data.append(entry)
        tmp = path.with_name(path.name + ".tmp.0a1b2c3d")
        tmp.write_text(json.dumps(data, indent=2))
        tmp.replace(path)


async def needs_strip(pilot, app: TeamTUI) -> NeedsYouStrip:
    """The dashboard's needs strip, once the team and its transcripts are read."""
    await transcripts_loaded(pilot, app)
    return app.dashboard.query_one(NeedsYouStrip)


async def test_a_permission_request_waits_in_the_strip_until_answered(tmp_path, config_file):
    team = ClaudeTeam(copy_case(tmp_path, "tmux-running"), "session-421dba11")
    app = make(team.root, config_file)
    async with app.run_test(size=SIZE) as pilot:
        strip = await needs_strip(pilot, app)
        assert not strip.display and strip.items == []
        request = {
            "type": "permission_request",
            "request_id": "perm-1",
            "agent_id": "alice@session-421dba11",
            "tool_name": "Bash",
            "tool_use_id": "toolu_x",
            "description": "rm -rf build/[red]",
            "input": {"command": "rm -rf build/[red]"},
            "permission_suggestions": [],
        }
        write_inbox(
            team, "team-lead", {"from": "alice", "text": json.dumps(request), "timestamp": iso_now(), "read": False}
        )
        await until(
            pilot, lambda: strip.display and [i.kind for i in strip.items] == ["permission"], "the request in the strip"
        )
        assert (
            strip.items[0].member == "alice" and "asks permission for Bash: rm -rf build/[red]" in strip.items[0].text
        )
        # enter on it: alice selected, the full request in a dialog (as text, not markup)
        strip.focus()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, RequestDetail), "the request's dialog")
        assert '"command": "rm -rf build/[red]"' in app.screen.render_request().plain
        assert app.selected == "alice"
        await pilot.press("escape")
        # The lead answers alice: the item leaves.
        response = {"type": "permission_response", "request_id": "perm-1", "approved": True}
        write_inbox(
            team, "alice", {"from": "team-lead", "text": json.dumps(response), "timestamp": iso_now(), "read": False}
        )
        await until(pilot, lambda: not strip.display and strip.items == [], "the answered request gone from the strip")


async def test_an_interrupted_teammate_needs_you_until_it_writes_again(tmp_path, config_file):
    team = ClaudeTeam(copy_case(tmp_path, "tmux-running"), "session-421dba11")
    app = make(team.root, config_file)
    async with app.run_test(size=SIZE) as pilot:
        strip = await needs_strip(pilot, app)
        notice = {"type": "idle_notification", "from": "bob", "timestamp": iso_now(), "idleReason": "interrupted"}
        write_inbox(
            team, "team-lead", {"from": "bob", "text": json.dumps(notice), "timestamp": iso_now(), "read": False}
        )
        await until(
            pilot, lambda: [(i.kind, i.member) for i in strip.items] == [("interrupted", "bob")], "bob interrupted"
        )
        # bob works again (its transcript written after the notice): no longer stuck.
        rec = json.loads(bash_line("git status", "toolu_bob2"))
        rec["timestamp"] = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time() + 2))
        with transcript_of(app, "bob").open("ab") as fh:
            fh.write(json.dumps(rec, separators=(",", ":")).encode() + b"\n")
        await until(pilot, lambda: strip.items == [] and not strip.display, "bob working again")


async def test_a_native_team_has_no_transcripts_needs_and_its_usual_columns(frozen_native, config_file):
    app = make(frozen_native, config_file)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.dashboard.query_one(TeamPanel).row_count > 0, "the team shown")
        assert app.state.transcripts is None
        # Its strip lists only what the room found (its copied teammates are long silent: gone).
        assert {i.kind for i in app.dashboard.query_one(NeedsYouStrip).items} <= {"disappeared", "held"}
        assert [str(c.label) for c in app.dashboard.query_one(TeamPanel).columns.values()] == [
            "",
            "Teammate",
            "Status",
            "Current task",
            "Active",
            "✉",
        ]
        assert cells(app.dashboard.query_one(TeamPanel))


async def test_a_teammate_spawned_while_watching_gets_its_transcript(tmp_path, config_file):
    root = copy_case(tmp_path, "inprocess-running")
    config = root / "teams/session-8dd2dc96/config.json"
    full = json.loads(config.read_text())
    without_bob = {**full, "members": [m for m in full["members"] if m["name"] != "bob"]}
    config.write_text(json.dumps(without_bob, indent=2))
    sub = root / "projects/-src-app" / full["leadSessionId"] / "subagents"
    parked = tmp_path / "parked"
    parked.mkdir()
    for f in sub.glob("agent-abob-*"):
        shutil.move(f, parked / f.name)
    app = make(root, config_file)
    async with app.run_test(size=SIZE) as pilot:
        await until(
            pilot,
            lambda: (
                app.state is not None
                and app.state.transcripts.ready
                and app.dashboard.query_one(TeamPanel).row_count == 2
            ),
            "the lead and alice shown",
        )
        assert "bob" not in app.state.logs
        # The lead spawns bob: its transcript appears, then config.json names it.
        for f in parked.iterdir():
            shutil.move(f, sub / f.name)
        config.write_text(json.dumps(full, indent=2))
        await until(
            pilot,
            lambda: app.dashboard.query_one(TeamPanel).row_count == 3 and "bob" in app.state.logs,
            "bob's row and transcript",
        )
        assert any(e.text.startswith("← team-lead: TMBOB") for e in app.state.logs["bob"].since(0))
        await until(
            pilot,
            lambda: row_of(app, "bob")[4] == compact_count(usage_total(transcript_of(app, "bob"))),
            "bob's tokens",
        )
