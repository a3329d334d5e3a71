"""What teammates changed, on the real Claude Code (in-process teammates, a scripted model): alice
writes app.py and edits it; teamtui's changes show the file, its counts and the changed lines (in
`teamtui changes --json` and on screen in the changes view); then bob edits the same file: the
collision is called once. Run with `make interop`."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from teamtui.notify.events import NotifyKind
from tests.interop.fakeapi import Reply, Request
from tests.interop.harness import Session, wait_until, who
from tests.interop.test_real_claude import cli, claude_installed, start_teamtui  # noqa: F401 - fixture

pytestmark = pytest.mark.interop

GO = "BOB_MAY_EDIT"  # the test lets bob edit once it has looked at alice's work alone
CONTENT = "def greet(name):\n    return 'hello ' + name\n\n\ndef main():\n    print(greet('world'))\n"


def script(cwd: Path):
    app = str(cwd / "app.py")

    def reply(req: Request) -> Reply:
        agent, done = who(req), req.tool_calls()
        if agent == "team-lead":
            if "Agent" not in done:
                return Reply(tools=[("Agent", {"description": "alice", "name": "alice", "prompt": "TMALICE: write."})])
            if done.count("Agent") == 1:
                return Reply(tools=[("Agent", {"description": "bob", "name": "bob", "prompt": "TMBOB: edit."})])
            return Reply(text="LEADIDLE")
        if agent == "alice":
            if "Write" not in done:
                return Reply(tools=[("Write", {"file_path": app, "content": CONTENT})])
            if "Edit" not in done:
                old, new = "    return 'hello ' + name\n", "    return f'hello {name}!'\n"
                return Reply(tools=[("Edit", {"file_path": app, "old_string": old, "new_string": new})])
            return Reply(text="ALICEIDLE")
        if agent == "bob":
            if "Bash" not in done:
                wait = f"for i in $(seq 1200); do [ -f {cwd / GO} ] && break; sleep 0.1; done; echo waited"
                return Reply(tools=[("Bash", {"command": wait, "description": "Wait for my turn"})])
            if "Read" not in done:
                return Reply(tools=[("Read", {"file_path": app})])
            if "Edit" not in done:
                old, new = "    print(greet('world'))\n", "    print(greet('team'))\n"
                return Reply(tools=[("Edit", {"file_path": app, "old_string": old, "new_string": new})])
            return Reply(text="BOBIDLE")
        return Reply(text="ok")

    return reply


@pytest.fixture
def editing(claude_installed: None, tmp_path: Path) -> Iterator[Session]:
    base = tmp_path / "claude-edits"
    s = Session(base, "in-process", script=script(base / "app"))
    try:
        s.start()
        s.prompt_lead()
        yield s
    finally:
        s.stop()


def changes(s: Session) -> dict:
    out = cli(s, "changes", "--json")
    if out.returncode != 0:
        return {}
    teams = [t for t in json.loads(out.stdout) if t["team"] == s.team]
    return teams[0] if teams else {}


def test_a_teammates_write_then_edit_shows_and_a_second_teammate_on_the_file_calls_once(editing: Session) -> None:
    s = editing
    app = "app.py"
    # alice's Write then Edit: the file, its counts, in the changes data
    team = wait_until(
        lambda: (lambda t: t if [r["edits"] for r in t.get("members", {}).get("alice", [])] == [2] else None)(
            changes(s)
        ),
        "alice's two edits in `teamtui changes`",
        120,
    )
    (row,) = team["members"]["alice"]
    assert (row["path"], row["added"], row["removed"], row["created"], row["source"]) == (app, 7, 1, True, "seen")
    assert team["folder"] == str(s.cwd) and team["collisions"] == []

    # The same through the session teamtui's dashboard holds: the changed lines, and no collision yet
    from teamtui.protocol.claude import ClaudeTeam
    from teamtui.protocol.state import TeamState
    from teamtui.session.alerts import Alerts
    from teamtui.session.changes import changes_of
    from teamtui.session.actions import TeamActions
    from teamtui.session.team import TeamSession

    state = TeamState(ClaudeTeam(s.claude_dir, s.team))
    state.load_all()
    state.load_transcripts()
    session = TeamSession(state, TeamActions(folder=s.claude_dir))
    write, edit = changes_of(session).edits("alice", str(s.cwd / app))
    assert (write.tool, edit.tool) == ("Write", "Edit")
    assert "+def greet(name):" in write.hunks[0].lines
    assert ("-    return 'hello ' + name", "+    return f'hello {name}!'") == edit.hunks[0].lines[1:3]
    key = ("claude", str(s.claude_dir), s.team)
    alerts = Alerts()
    alerts.look(key, session, time.time())
    assert alerts.look(key, session, time.time())[1] == []

    # On screen: the dashboard, then `c`: alice's app.py with its counts, its diff beside it
    pane = start_teamtui(s)
    try:
        wait_until(lambda: "alice" in s.capture(pane) and s.team in s.capture(pane), "the dashboard", 40)
        s.keys(pane, "c")
        wait_until(lambda: "Changes · " in s.capture(pane), "the changes view", 20)
        s.keys(pane, "Down")
        s.keys(pane, "Down")  # the first file row (alice's heading is the first row)
        screen = wait_until(
            lambda: (lambda c: c if "Write · +6 -0 · new file" in c else "")(s.capture(pane)),
            "alice's diff on screen",
            20,
        )
        assert re.search(r"│ +app\.py  new +\+7 -1  2 ", screen), screen
        assert "+ def greet(name):" in screen and "+     return f'hello {name}!'" in screen, screen

        # bob edits the same file: the collision, in the open view and as one need
        (s.cwd / GO).touch()
        wait_until(lambda: (lambda t: t if t.get("members", {}).get("bob") else None)(changes(s)), "bob's edit", 120)
        on_screen = wait_until(
            lambda: (lambda c: c if "⇄ app.py: alice, bob" in c else "")(s.capture(pane)),
            "the collision in the open changes view",
            30,
        )
        assert "1 collision" in on_screen and re.search(r"│ +app\.py  ⇄ +\+1 -1  1 ", on_screen), on_screen
        state.apply_batch([p for p in state.transcript_files.watch_dirs() for p in p.rglob("*.jsonl")])
        needs, events = alerts.look(key, session, time.time())
        assert [(n.kind, n.text) for n in needs if n.kind == "collision"] == [
            ("collision", "alice and bob both changed app.py")
        ]
        # (the team may also have finished meanwhile: every teammate idle with its result)
        assert [e.text for e in events if e.kind == NotifyKind.NEEDS_YOU] == [
            "alice and bob both changed app.py"  # the member named once (session/alerts.py spoken)
        ]
        assert not [e for e in alerts.look(key, session, time.time())[1] if e.kind == NotifyKind.NEEDS_YOU]  # once
        team = changes(s)
        assert [c["text"] for c in team["collisions"]] == ["alice and bob both changed app.py"]
        (bob,) = team["members"]["bob"]
        assert (bob["added"], bob["removed"], bob["edits"]) == (1, 1, 1)
        # back on the dashboard: the strip holds it, once
        s.keys(pane, "Escape")
        strip = wait_until(
            lambda: (lambda c: c if "alice and bob both changed app.py" in c and "Changes · " not in c else "")(
                s.capture(pane)
            ),
            "the collision in the needs strip",
            20,
        )
        assert strip.count("both changed app.py") == 1, strip
    finally:
        s.tmux("kill-pane", "-t", pane, check=False)
