"""teamtui against the real Claude Code 2.1.328: a lead and two teammates (tmux panes, then
in-process) driven by a scripted fake model, and teamtui's dashboard driven by keys in the same
tmux server. Run with `make interop` (it installs the binary first)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.interop.harness import REPO, Session, claude_bin, start_idle_team, wait_until

pytestmark = pytest.mark.interop


@pytest.fixture(scope="module")
def claude_installed() -> None:
    """Checked when an interop test runs, not at collection: `make test` deselects these."""
    if claude_bin() is None:
        # The harness is the point of `make interop`: in CI a missing binary is a failure, not a skip.
        if os.environ.get("CI") == "true":
            pytest.fail("Claude Code is not installed (make interop installs it with npm)")
        pytest.skip("Claude Code is not installed: run `make interop`")


@pytest.fixture(scope="module", params=["tmux", "in-process"])
def session(
    claude_installed: None, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Session]:
    s = Session(tmp_path_factory.mktemp(f"claude-{request.param}"), request.param)
    try:
        yield start_idle_team(s)
    finally:
        s.stop()


def teamtui_env(s: Session) -> dict[str, str]:
    env = s.env()
    env.update({"PYTHONPATH": str(REPO), "XDG_CONFIG_HOME": str(s.home / ".config")})
    env.pop("ANTHROPIC_API_KEY", None)
    return env


def cli(s: Session, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "teamtui", *args],
        cwd=s.cwd,
        env=teamtui_env(s),
        capture_output=True,
        text=True,
        timeout=60,
    )


def seen_by(s: Session, agent: str, text: str) -> list[str]:
    """The <teammate-message> blocks carrying `text` in `agent`'s requests to the model."""
    blocks = []
    for req in s.requests(agent):
        for part in req.all_text.split("<teammate-message")[1:]:
            if text in part:
                blocks.append("<teammate-message" + part.split("</teammate-message>")[0])
    return blocks


def teamtui_in_tmux(s: Session, env: dict[str, str]) -> list[str]:
    """The end of a tmux new-window/new-session: `teamtui` with no arguments in the project, under `env`."""
    return ["-c", str(s.cwd), "env", *(f"{k}={v}" for k, v in env.items()), sys.executable, "-m", "teamtui"]


def start_teamtui(s: Session) -> str:
    """`teamtui` with no arguments in a new window of the lead's tmux server; returns its pane."""
    pane = s.tmux(
        "new-window", "-d", "-P", "-F", "#{pane_id}", "-n", "dash", *teamtui_in_tmux(s, teamtui_env(s))
    ).strip()
    # A window made with no client attached gets tmux's default 80×24: give it a real terminal's size.
    s.tmux("resize-window", "-t", pane, "-x", "160", "-y", "48", check=False)
    size = s.tmux("display-message", "-p", "-t", pane, "#{window_width}x#{window_height}", check=False).strip()
    if size != "160x48":  # the tests read a smaller screen too; said, for a failure's report
        print(
            f"the dashboard's window is {size or 'of unknown size'}, not 160x48 ({subprocess.run(['tmux', '-V'], capture_output=True, text=True).stdout.strip()})"
        )
    return pane


def open_from_overview(s: Session, pane: str, team: str) -> None:
    """With more than one team `teamtui` opens the control room: move to `team`'s row and open it."""
    screen = s.capture(pane)
    rows = [line for line in screen.splitlines() if line.startswith("│ ") and "Claude Code" in line]
    at = next((i for i, line in enumerate(rows) if f" {team} " in line), None)
    assert at is not None, f"no row for {team} in the overview:\n{screen}"
    for _ in range(at):
        s.keys(pane, "Down")
        time.sleep(0.2)
    s.keys(pane, "Enter")


def dashboard(s: Session, expect: str = "alice") -> str:
    """Start `teamtui` with no arguments beside the lead; returns its pane once it shows the session
    team's dashboard (and `expect`, a member's name): opened from the control room when earlier
    tests left other teams (ended ones, from the journal) beside it."""
    pane = start_teamtui(s)
    screen = wait_until(
        lambda: (lambda c: c if s.team in c else "")(s.capture(pane)), "teamtui to show the session team", 30
    )
    if " teams · " in screen.splitlines()[0]:
        open_from_overview(s, pane, s.team)
    wait_until(
        lambda: (lambda c: "Teammate" in c and s.team in c and expect in c)(s.capture(pane)),
        "the dashboard to show the session team",
        30,
    )
    return pane


def test_teamtui_finds_the_session_team_and_reads_it(session: Session) -> None:
    status = cli(session, "status", "--json")
    assert status.returncode == 0, status.stderr
    data = json.loads(status.stdout)
    assert (data["team"], data["layout"], data["lead"]) == (session.team, "claude", "team-lead")
    assert sorted(m["name"] for m in data["members"]) == ["alice", "bob"]

    # Both settle idle, waiting for the lead: a pane teammate says so in isActive, an in-process
    # one (which has no isActive) in its transcript's last turn.
    def statuses() -> dict[str, str]:
        out = cli(session, "status", "--json")
        return {m["name"]: m["status"] for m in json.loads(out.stdout)["members"]} if out.returncode == 0 else {}

    def flags() -> list:
        # config.json caught mid-write reads as {}: not settled this round, looked at again.
        return [
            m.get("isActive", "absent") for m in session.config().get("members", []) if m["name"] in ("alice", "bob")
        ]

    seen: list[tuple[list, dict[str, str], list]] = []

    def settled() -> bool:
        # One moment: config.json unchanged around the `status` call (a teammate may wake up between reads).
        before, said, after = flags(), statuses(), flags()
        seen[:] = [(before, said, after)]
        return before == after == ([False, False] if session.mode == "tmux" else ["absent", "absent"]) and said == {
            "alice": "idle",
            "bob": "idle",
        }

    try:
        wait_until(settled, "both teammates idle in `status`, as config.json says at that moment", 60)
    except TimeoutError as exc:  # what was seen last: isActive before, `status`, isActive after
        raise TimeoutError(f"{exc}; last seen {seen}; config {session.config()}") from None
    config = session.config()
    assert config["leadProcess"]["pid"] > 0
    from teamtui.protocol.claude import ClaudeTeam, member_backend
    from teamtui.protocol.claude.leadproc import lead_state

    store = ClaudeTeam(session.claude_dir, session.team)
    cfg = store.read_config()
    assert lead_state(store.lead_process) == "alive"
    backend = "tmux" if session.mode == "tmux" else "in-process"
    assert [member_backend(m) for m in cfg.members] == [backend, backend]
    tasks = cli(session, "tasks", "--json")
    assert [t["subject"] for t in json.loads(tasks.stdout)["tasks"]] == ["probe task one"]


def test_the_leads_agent_calls_are_read_as_the_teammates_assignments(session: Session) -> None:
    """Current models give the lead no task tools: what it asked each teammate (its Agent calls)
    is the work. Here the lead also made a task list, which wins on the board."""
    from teamtui.protocol.claude import ClaudeTeam
    from teamtui.protocol.state import TeamState

    def read() -> TeamState:
        state = TeamState(ClaudeTeam(session.claude_dir, session.team))
        state.load_all()
        state.load_transcripts()
        return state

    wait_until(lambda: len(read().assigned) >= 2, "both Agent calls read from the lead's transcript", 60)
    state = read()
    assert {(t.subject, t.owner) for t in state.assigned.values()} >= {("alice helper", "alice"), ("bob helper", "bob")}
    assert state.task_source == "task list"  # a real task list wins
    assert [t.subject for t in state.shown_tasks.values()] == ["probe task one"]


def squeezed(text: str) -> str:
    """Screen text without whitespace and box lines: what a dialog wrapped still reads whole."""
    return re.sub(r"[\s│╭╮╰╯─▔▁▊▎]+", "", text)


def test_the_control_room_tells_the_live_team_from_an_ended_one_and_opens_it_by_keys(session: Session) -> None:
    team = session.team
    # A second team beside the live one: Claude Code's own files from an earlier session, whose
    # lead (a pid of this machine's pid namespace, started at another time) has ended.
    other = "session-8dd2dc96"
    example = REPO / "tests" / "fixtures" / "examples" / "claude-2.1.328" / "inprocess-running" / "teams" / other
    target = session.claude_dir / "teams" / other
    shutil.copytree(example, target)
    cfg = json.loads((target / "config.json").read_text())
    cfg["leadProcess"].update(pidSpace=os.readlink("/proc/self/ns/pid"), procStart="1")
    cfg["createdAt"] = int((time.time() - 2 * 3600) * 1000)
    (target / "config.json").write_text(json.dumps(cfg))
    pane = ""
    try:
        pane = start_teamtui(session)

        # More than one team: the control room, a row each, the live team's lead alive, the other's ended.
        def both_rows() -> tuple[str, str, str] | None:
            # Each row drawn whole (out to the table's border): a capture can land mid-frame.
            c = session.capture(pane)
            rows = [next((ln for ln in c.splitlines() if f" {t} " in ln), "") for t in (team, other)]
            return (c, *rows) if " teams · " in c and all(r.rstrip().endswith("│") for r in rows) else None

        screen, live, ended = wait_until(both_rows, "the control room with both teams, drawn whole", 30)
        assert "Claude Code" in live and " alive " in live and session.cwd.name in live, screen
        assert "Claude Code" in ended and " ended " in ended, screen
        # Move to the live team by keys and open it.
        open_from_overview(session, pane, team)
        # With the transcripts read, each teammate's row marks where it runs; the panel's title says what the mark means.
        mark, legend = ("▣", "▣ tmux pane") if session.mode == "tmux" else ("↳", "↳ in-process")
        rows = [rf"│ \S  {name} +{mark}  " for name in ("alice", "bob")]
        try:
            shown = wait_until(
                lambda: (
                    lambda c: (
                        c if "● active" in c and f"Team · {legend}" in c and all(re.search(r, c) for r in rows) else ""
                    )
                )(session.capture(pane)),
                "the live team's dashboard with its members' backend",
                30,
            )
        except TimeoutError as exc:
            raise AssertionError(f"{exc}; the screen:\n{session.capture(pane)}") from None
        assert team in shown and other not in shown
        # The members' task column: "Task" beside the transcripts' columns, "Current task" before they are read.
        assert re.search(r"\bTask\b", shown) or "Current task" in shown
    finally:
        if pane:
            session.tmux("kill-pane", "-t", pane, check=False)
        shutil.rmtree(target, ignore_errors=True)


def test_m_on_a_teammate_arrives_unforged_and_is_journaled(session: Session) -> None:
    pane = dashboard(session)
    session.keys(pane, "m")
    screen = wait_until(
        lambda: (lambda c: c if "Type a message" in c and ("Message alice" in c or "Message bob" in c) else "")(
            session.capture(pane)
        ),
        "the message dialog for a teammate",
        15,
    )
    target = "alice" if "Message alice" in screen else "bob"
    text = f"KEYMSG-{session.mode}-{int(time.time())}"
    session.keys(pane, text, literal=True)
    time.sleep(0.3)
    session.keys(pane, "Enter")
    blocks = wait_until(lambda: seen_by(session, target, text), f"{target}'s next request to hold the message", 40)
    assert 'teammate_id="teamtui"' in blocks[0] and 'verified="false"' not in blocks[0]

    # The dashboard recorded the message and, once Claude Code took it out of the inbox, its delivery.
    def journal() -> list[dict]:
        files = list((session.state_dir / "teamtui" / "journal").glob("*.jsonl"))
        return [json.loads(line) for f in files for line in f.read_text().splitlines()]

    def delivered() -> bool:
        recs = journal()
        keys = {r["key"] for r in recs if r.get("kind") == "message" and r.get("text") == text}
        return bool(keys & {r.get("key") for r in recs if r.get("kind") == "delivered"})

    wait_until(delivered, "the journal to hold the message and its delivery", 20)
    session.tmux("send-keys", "-t", pane, "q")


def test_b_broadcast_reaches_both_teammates_and_the_lead(session: Session) -> None:
    pane = dashboard(session)
    session.keys(pane, "b")
    wait_until(lambda: "Broadcast to" in session.capture(pane), "the broadcast dialog", 15)
    text = f"BCAST-{session.mode}-{int(time.time())}"
    session.keys(pane, text, literal=True)
    time.sleep(0.3)
    session.keys(pane, "Enter")
    for agent in ("alice", "bob"):
        blocks = wait_until(lambda a=agent: seen_by(session, a, text), f"{agent} to see the broadcast", 40)
        assert 'teammate_id="teamtui"' in blocks[0] and 'verified="false"' not in blocks[0]
    wait_until(
        lambda: any(text in r.all_text for r in session.requests("team-lead")), "the lead to see the broadcast", 40
    )
    session.tmux("send-keys", "-t", pane, "q")


def test_cli_sends_honestly_and_only_to_members(session: Session) -> None:
    text = f"CLIMSG-{session.mode}-{int(time.time())}"
    sent = cli(session, "send", "team-lead", text)
    assert sent.returncode == 0, sent.stderr
    lead_reqs = wait_until(
        lambda: [r for r in session.requests("team-lead") if text in r.all_text], "the lead to see the message", 40
    )
    seen = lead_reqs[0].all_text
    around = seen[max(0, seen.index(text) - 300) : seen.index(text)]
    assert "teamtui" in around and 'verified="false"' not in around
    inboxes = session.team_dir() / "inboxes"
    refused = cli(session, "send", "nobody", "hi")
    assert refused.returncode == 1 and "'nobody' is not a member" in refused.stderr
    assert not (inboxes / "nobody.json").exists()
    forged = cli(session, "send", "alice", "hi", "--from", "team-lead")
    assert forged.returncode == 1 and "refusing to send as 'team-lead'" in forged.stderr


async def test_each_teammates_scripted_bash_call_shows_in_its_log_panel(session: Session) -> None:
    # The fake model had alice and bob each call Bash (team_script); Claude Code wrote it into the
    # teammate's own transcript (tmux) or its subagent transcript (in-process), nowhere in the team
    # folder. The real dashboard (headless, 160x50) on the files the real binary wrote:
    from teamtui.tui.app import TeamTUI
    from teamtui.tui.widgets.team import TeamPanel
    from tests.tui.conftest import log_lines, until

    app = TeamTUI.watching(
        session.claude_dir, session.team, "claude", config_path=session.home / "pilot.toml", cursor_blink=False
    )
    async with app.run_test(size=(160, 50)) as pilot:
        panel = app.dashboard.query_one(TeamPanel)
        await until(
            pilot,
            lambda: app.state is not None and app.state.transcripts.ready and panel.row_count == 3,
            "the team and its transcripts",
        )
        for name in ("alice", "bob"):
            panel.move_cursor(row=panel.get_row_index(name))
            await until(
                pilot,
                lambda n=name: any(
                    f"Bash: echo BASH-{n}" in line for line in log_lines(app.dashboard.query_one("#log-main"))
                ),
                f"{name}'s Bash call in the large log panel",
            )
    data = json.loads(cli(session, "status", "--json").stdout)
    for member in data["members"]:
        tokens = member["tokens"]
        # Every reply of the fake model reports 10 input and 5 output tokens: the sums are k of each.
        k = tokens["input"] // 10
        assert k >= 2 and tokens["input"] == 10 * k and tokens["output"] == 5 * k, tokens
    assert data["lead_usage"]["tokens"]["total"] > 0


def test_S_asks_the_lead_and_the_view_follows_the_teammates_leaving(session: Session) -> None:
    pane = dashboard(session)
    pane_of = {m["name"]: m.get("tmuxPaneId", "") for m in session.config()["members"]}
    session.keys(pane, "S")
    wait_until(lambda: "to send a shutdown_request to" in session.capture(pane), "the shutdown dialog", 15)
    session.keys(pane, "Enter")
    # The lead gets one plain message from teamtui (not forged), and asks each teammate itself.
    lead_reqs = wait_until(
        lambda: [
            r
            for r in session.requests("team-lead")
            if 'teammate_id="teamtui"' in r.last_user_text and "shutdown_request" in r.last_user_text
        ],
        "the lead to see teamtui's request",
        40,
    )
    asked = lead_reqs[0].last_user_text
    assert "Teammates: alice, bob" in asked and 'verified="false"' not in asked
    wait_until(lambda: "Graceful shutdown" in session.capture(pane), "the shutdown view", 15)
    # Both approve the lead's signed requests and leave the team; the view follows them out.
    wait_until(lambda: not {"alice", "bob"} & set(session.members()), "alice and bob to leave members", 60)
    # The summary tells each teammate's steps as seen in the files (toasts may cover it for a moment).
    # A pane teammate's end is also told by Claude Code's teammate_terminated, before or after it leaves.
    steps = " · asked team-lead → shutdown_request sent → approved → (terminated → )?left the team( → terminated)?"

    def told(screen: str) -> str:
        return screen if all(re.search(rf"\b{who}: clean{steps} ", screen) for who in ("alice", "bob")) else ""

    try:
        screen = wait_until(
            lambda: told(session.capture(pane)), "the view to show both teammates approving and leaving", 30
        )
    except TimeoutError as exc:
        raise AssertionError(f"{exc}; the screen:\n{session.capture(pane)}") from None
    assert "all teammates accounted for: 2 clean" in screen
    if session.mode == "tmux":
        # Claude Code closes a teammate's pane after it leaves, though not always: the view says
        # which, as tmux says, and offers to close a pane its teammate left behind.
        def open_ids() -> set[str]:
            return {p["pane_id"] for p in session.panes()}

        offered: set[str] = set()

        def verdicts(screen: str) -> dict[str, str] | None:
            if "their panes did not: close them?" in screen:  # a kept pane is offered: close it
                offered.update(who for who in ("alice", "bob") if f"{who} ({pane_of[who]})" in screen)
                session.keys(pane, "y")
                return None
            found = {
                who: m.group(3)
                for who in ("alice", "bob")
                if (m := re.search(rf"\b{who}: clean{steps} → pane (closed|%\d+ closed by teamtui)", screen))
            }
            return found if len(found) == 2 else None

        try:
            said = wait_until(lambda: verdicts(session.capture(pane)), "the view to say each pane closed", 60)
        except TimeoutError as exc:
            raise AssertionError(f"{exc}; panes {session.panes()}; the screen:\n{session.capture(pane)}") from None
        for who, verdict in said.items():
            assert pane_of[who] not in open_ids(), (who, session.panes())
            assert verdict == "closed" or who in offered, (who, verdict, offered)  # teamtui closes only what it offered
    session.tmux("kill-pane", "-t", pane, check=False)


def test_the_lead_exiting_ends_the_team_and_the_journal_keeps_it(session: Session) -> None:
    pane = dashboard(session, expect="")  # the teammates may have been shut down already
    team = session.team
    session.type_line("lead:0.0", "/exit")
    time.sleep(1.5)
    if "Exit and stop tasks" in session.capture("lead:0.0"):  # teammates in panes: Claude Code asks first
        session.keys("lead:0.0", "Enter")
    wait_until(lambda: session.team_dir() is None, "Claude Code to delete the team folder", 40)
    # The dashboard keeps the team on screen, marked ended, with its tasks.
    screen = wait_until(
        lambda: (lambda c: c if "● ended " in c else "")(session.capture(pane)), "the header to say ended", 20
    )
    assert "probe task one" in screen
    # The task list outlives the team.
    assert (session.claude_dir / "tasks" / team / "1.json").exists()

    def ended() -> dict | None:
        listed = cli(session, "history", "--json")
        rows = [t for t in json.loads(listed.stdout)["teams"] if t["team"] == team]
        return rows[0] if rows and rows[0]["ended_at"] else None

    row = wait_until(ended, "the journal to record the team's end", 20)
    assert row["messages"] >= 2
    timeline = cli(session, "history", team)
    assert timeline.returncode == 0
    assert "KEYMSG-" in timeline.stdout and "delivered to" in timeline.stdout and "team ended" in timeline.stdout
    assert "task #1" in timeline.stdout
    from teamtui.protocol.claude.ended import load_state

    state = load_state(Path(row["file"]))
    assert state.name == team and [t.subject for t in state.tasks.values()] == ["probe task one"]
    assert any(m.delivered and m.sender == "teamtui" for m in state.messages)
    session.tmux("kill-pane", "-t", pane, check=False)
