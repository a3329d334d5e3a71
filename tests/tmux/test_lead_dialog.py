"""A pane teammate's permission request answered in the lead's own dialog, on a real tmux server:
the dialog is checked to be this very request, the right key is pressed (read off the screen),
and the lead's signed response in the teammate's inbox confirms it. The lead here is a stand-in
that draws 2.1.332's dialog (fake_lead_dialog.py); the real one is tests/interop/test_hooks.py's."""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

import pytest
from tmux_support import TmuxServer

from teamtui.protocol import processes
from teamtui.protocol.claude import ClaudeTeam
from teamtui.tmux.lead_dialog import PaneAsk, answer_in_dialog, mismatch, parse_dialog

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "fixtures" / "examples"
COMMAND = "echo ALICEPROBE > /src/app/out/aliceprobe.txt"


def test_the_recorded_dialog_reads_as_alices_bash_request() -> None:
    screen = (EXAMPLES / "claude-2.1.332-hooks" / "tmux" / "lead-dialog.txt").read_text()
    dialog = parse_dialog(screen)
    assert dialog is not None
    assert (dialog.teammate, dialog.title, dialog.body, dialog.yes, dialog.no) == (
        "alice",
        "Bash command",
        COMMAND,
        "1",
        "3",
    )
    assert mismatch(dialog, PaneAsk("t", "alice", "Bash", COMMAND)) == ""
    assert "bob's" in mismatch(dialog, PaneAsk("t", "bob", "Bash", COMMAND))
    assert "another Bash request" in mismatch(dialog, PaneAsk("t", "alice", "Bash", "rm -rf /"))
    assert "not Edit" in mismatch(dialog, PaneAsk("t", "alice", "Edit", COMMAND))


def test_no_dialog_on_an_ordinary_screen() -> None:
    assert parse_dialog("❯ LEADGO\n● hello from the mock\n") is None
    # The lead's own request has no "from the … agent": it is the hook's, not this path's.
    own = (
        "─" * 10
        + "\n Bash command\n"
        + "╌" * 20
        + "\n ls\n"
        + "╌" * 20
        + "\n Do you want to proceed?\n ❯ 1. Yes\n   2. No\n"
    )
    assert parse_dialog(own) is None


class Lead:
    """A Claude Code team whose lead is the stand-in, in a pane of the test's tmux server."""

    def __init__(self, server: TmuxServer, base: Path, options: str, command: str = COMMAND):
        self.claude = base / "claude"
        team_dir = self.claude / "teams" / "session-dialog01"
        (team_dir / "inboxes").mkdir(parents=True)
        self.inbox = team_dir / "inboxes" / "alice.json"
        self.inbox.write_text("[]")
        self.keys = base / "keys.txt"
        self.pane, pid = server.run(
            "new-window",
            "-d",
            "-P",
            "-F",
            "#{pane_id}\t#{pane_pid}",
            shlex_join(
                [
                    sys.executable,
                    str(HERE / "fake_lead_dialog.py"),
                    str(self.inbox),
                    "alice",
                    command,
                    "perm-1-abc",
                    options,
                    str(self.keys),
                ]
            ),
        )[0].split("\t")
        self.pid = int(pid)
        config = {
            "name": "session-dialog01",
            "leadAgentId": "team-lead@session-dialog01",
            "leadProcess": {
                "pid": self.pid,
                "pidSpace": "vm#" + processes.pid_space(),
                "claimedAt": int(time.time() * 1000),
                "procStart": processes.start_of(self.pid),
            },
            "members": [
                {
                    "agentId": "team-lead@session-dialog01",
                    "name": "team-lead",
                    "tmuxPaneId": "leader",
                    "backendType": "in-process",
                },
                {"agentId": "alice@session-dialog01", "name": "alice", "tmuxPaneId": "%99", "backendType": "tmux"},
            ],
        }
        (team_dir / "config.json").write_text(json.dumps(config))
        self.store = ClaudeTeam(self.claude, "session-dialog01")
        deadline = time.monotonic() + 20
        while "Do you want to proceed?" not in server.screen(self.pane):
            assert time.monotonic() < deadline, server.screen(self.pane)
            time.sleep(0.05)

    def pressed(self) -> str:
        return self.keys.read_text() if self.keys.exists() else ""


def shlex_join(words: list[str]) -> str:
    import shlex

    return shlex.join(words)


@pytest.fixture
def in_tmux(tmux_server: TmuxServer, monkeypatch: pytest.MonkeyPatch) -> TmuxServer:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    # teamtui itself runs inside that server: the lead's $TMUX (from its environment) names it too.
    monkeypatch.setenv("TMUX", tmux_server.env()["TMUX"])
    return tmux_server


def test_allowed_through_the_leads_dialog_and_confirmed_by_its_signed_response(
    in_tmux: TmuxServer, tmp_path: Path
) -> None:
    lead = Lead(in_tmux, tmp_path, "Yes,Yes and switch to auto mode,No")
    done = answer_in_dialog(lead.store, PaneAsk("session-dialog01", "alice", "Bash", COMMAND, "perm-1-abc"), True)
    assert (done.taken, done.confirmed) == (True, True), done.text
    assert lead.pressed() == "1"
    assert "allowed in the lead's dialog" in done.text


def test_denied_the_key_of_no_is_read_off_the_screen(in_tmux: TmuxServer, tmp_path: Path) -> None:
    # The folder form of the dialog: four options, No is the 4th.
    lead = Lead(
        in_tmux, tmp_path, "Yes,Yes and always allow access to out/ from this project,Yes and switch to auto mode,No"
    )
    done = answer_in_dialog(lead.store, PaneAsk("session-dialog01", "alice", "Bash", COMMAND, "perm-1-abc"), False)
    assert (done.taken, done.confirmed) == (True, True), done.text
    assert lead.pressed() == "4"


def test_a_dialog_showing_another_request_gets_no_key(in_tmux: TmuxServer, tmp_path: Path) -> None:
    lead = Lead(in_tmux, tmp_path, "Yes,No", command="make deploy")
    done = answer_in_dialog(lead.store, PaneAsk("session-dialog01", "alice", "Bash", COMMAND), True)
    assert not done.taken and "another Bash request" in done.text
    done = answer_in_dialog(lead.store, PaneAsk("session-dialog01", "bob", "Bash", "make deploy"), True)
    assert not done.taken and "alice's request, not bob's" in done.text
    time.sleep(0.3)
    assert lead.pressed() == ""


def test_a_long_command_wrapped_over_lines_is_still_this_request(in_tmux: TmuxServer, tmp_path: Path) -> None:
    long = "python -m pytest -q tests/protocol tests/runtime --maxfail=1 -k 'not slow and not interop' --durations=10"
    lead = Lead(in_tmux, tmp_path, "Yes,No", command=long)
    done = answer_in_dialog(lead.store, PaneAsk("session-dialog01", "alice", "Bash", long), True)
    assert done.taken and done.confirmed, done.text


def test_a_lead_in_no_reachable_pane_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TMUX", raising=False)
    claude = tmp_path / "claude"
    team_dir = claude / "teams" / "session-nopane1"
    team_dir.mkdir(parents=True)
    config = {
        "name": "session-nopane1",
        "leadProcess": {
            "pid": os.getpid(),
            "pidSpace": "vm#" + processes.pid_space(),
            "procStart": processes.start_of(os.getpid()),
        },
        "members": [{"name": "team-lead", "tmuxPaneId": "leader"}],
    }
    (team_dir / "config.json").write_text(json.dumps(config))
    done = answer_in_dialog(
        ClaudeTeam(claude, "session-nopane1"), PaneAsk("session-nopane1", "alice", "Bash", COMMAND), True
    )
    assert not done.taken and "does not run in tmux" in done.text


def test_listed_by_teamtui_requests_and_answered_with_teamtui_answer(
    in_tmux: TmuxServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli
) -> None:
    lead = Lead(in_tmux, tmp_path, "Yes,Yes and switch to auto mode,No")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(lead.claude))
    monkeypatch.chdir(tmp_path)
    code, out, err = cli("requests", "--json")
    assert code == 0, err
    (item,) = json.loads(out)["requests"]
    assert (item["kind"], item["team"], item["who"], item["answers"]) == (
        "pane",
        "session-dialog01",
        "alice",
        ["allow", "deny"],
    )
    assert item["id"] == PaneAsk("session-dialog01", "alice", "Bash", COMMAND).id
    assert item["detail"]["command"] == COMMAND
    code, out, err = cli("answer", item["id"], "deny", "--message", "use the staging database")
    assert code == 0, err
    assert "denied in the lead's dialog" in out and "the reason was sent to alice" in out
    assert lead.pressed() == "3"
    said = [e for e in json.loads(lead.inbox.read_text()) if e.get("from") == "teamtui"]
    assert [e["text"] for e in said] == ["Your Bash request was denied: use the staging database"]
    code, _, err = cli("answer", item["id"], "allow")  # the dialog is gone: nothing pressed
    assert code == 1
