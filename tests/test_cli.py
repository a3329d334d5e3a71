"""The protocol commands of the `teamtui` CLI: options anywhere, env defaults, exit codes, --json shapes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from teamtui.protocol import NativeTeam
from tests.conftest import Run

REPO = Path(__file__).resolve().parents[1]
TEAM = "refactor-auth"


def _snapshot(root: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None) for p in sorted(root.rglob("*"))}


# ---------------------------------------------------------------- global options and env


def test_global_options_before_or_after_the_subcommand(cli: Run, native_root: Path) -> None:
    before = cli("--root", str(native_root), "--team", TEAM, "--layout", "native", "tasks", "--json")
    after = cli("tasks", "--json", "--root", str(native_root), "--team", TEAM, "--layout", "native")
    mixed = cli("--root", str(native_root), "tasks", "--team", TEAM, "--json")
    assert before[0] == 0 and before == after == mixed
    # Nested commands take them after the action too.
    assert cli("task", "claim", "--as", "scout", "--root", str(native_root))[:2] == (0, "3\n")
    assert cli("--root", str(native_root), "task", "release", "3")[:2] == (0, "3\n")


def test_env_defaults_need_no_flags(cli: Run, native_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEAMTUI_ROOT", str(native_root))
    monkeypatch.setenv("TEAMTUI_TEAM", TEAM)
    monkeypatch.setenv("TEAMTUI_NAME", "scout")
    assert cli("task", "claim")[:2] == (0, "3\n")
    assert cli("send", "hunter", "from env")[0] == 0
    assert cli("log", "a log line")[0] == 0
    store = NativeTeam(native_root, TEAM)
    assert store.get_task("3").owner == "scout"
    assert store.peek("hunter").messages[-1].sender == "scout"
    assert json.loads(store.log_paths("scout")[0].read_text().splitlines()[-1])["text"] == "a log line"
    code, out, _ = cli("inbox", "--json")  # NAME defaults to TEAMTUI_NAME
    assert code == 0 and json.loads(out)["member"] == "scout"
    # A flag beats the environment.
    code, out, _ = cli("tasks", "--json", "--root", str(native_root))
    assert code == 0 and json.loads(out)["team"] == TEAM


def test_team_is_optional_with_one_team_and_required_with_two(cli: Run, native_root: Path) -> None:
    assert cli("status", "--root", str(native_root))[0] == 0
    NativeTeam(native_root, "other").create()
    code, out, err = cli("status", "--root", str(native_root))
    assert code == 1 and out == "" and "several teams" in err and err.count("\n") == 1
    assert cli("status", "--root", str(native_root), "--team", "other")[0] == 0


def test_sender_defaults_to_the_lead(cli: Run, native_root: Path) -> None:
    assert cli("send", "hunter", "hi", "--root", str(native_root))[0] == 0
    assert NativeTeam(native_root, TEAM).peek("hunter").messages[-1].sender == "lead"


def test_sender_is_never_a_lead_running_in_another_process(native_root: Path) -> None:
    """While `teamtui run` leads the team, a person's `teamtui send` is not the lead: it goes under
    teamtui's own name. A process the lead started (a hook) still speaks for the lead."""
    from teamtui.protocol.native.leadpid import mark_lead, unmark_lead

    store = NativeTeam(native_root, TEAM)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("TEAMTUI_NAME", None)

    def send(text: str) -> str:
        run = subprocess.run(
            [sys.executable, "-m", "teamtui", "send", "hunter", text, "--root", str(native_root)],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
        assert run.returncode == 0, run.stderr
        [m] = [m for m in store.peek("hunter").messages if m.content == text]
        return m.sender

    lead = subprocess.Popen(["sleep", "60"])
    try:
        mark_lead(store, lead.pid)
        assert send("from a person") == "teamtui"
    finally:
        lead.kill()
        lead.wait()
    mark_lead(store)  # this test process leads; the CLI below is its child, as a hook is
    try:
        assert send("from a hook") == "lead"
    finally:
        unmark_lead(store)


# ---------------------------------------------------------------- exit codes


def test_exit_codes(cli: Run, native_root: Path, tmp_path: Path) -> None:
    r = str(native_root)
    assert cli("tasks", "--root", r)[0] == 0
    # 1: one line on stderr, nothing on stdout.
    for argv in (
        ("status", "--root", str(tmp_path / "nowhere")),
        ("status", "--root", r, "--team", "nope"),
        ("task", "complete", "99", "--root", r),
        ("task", "claim", "4", "--as", "scout", "--root", r),
        ("task", "create", "x", "--blocked-by", "abc", "--root", r),
        ("team", "create", TEAM, "--root", r),
        ("team", "add", "hunter", "--root", r),
    ):
        code, out, err = cli(*argv)
        assert (code, out) == (1, ""), argv
        assert err.startswith("teamtui: ") and err.count("\n") == 1, (argv, err)
    # 2: usage errors.
    for argv in (
        ("nonsense",),
        ("send", "hunter"),
        ("task",),
        ("task", "claim", "--root", r),  # no --as and no TEAMTUI_NAME
        ("log", "--level", "loud", "hunter", "x", "--root", r),
        ("tasks", "--layout", "weird"),
    ):
        code, _out, err = cli(*argv)
        assert code == 2, argv
        assert err
    # 3: nothing ready.
    assert cli("task", "claim", "--as", "scout", "--root", r)[:2] == (0, "3\n")
    code, out, err = cli("task", "claim", "--as", "scout", "--root", r)
    assert (code, out) == (3, "") and err.count("\n") == 1


# ---------------------------------------------------------------- commands


def test_team_create_and_add_from_nothing(cli: Run, tmp_path: Path) -> None:
    root = str(tmp_path / "proj")
    assert cli("team", "create", "alpha", "--description", "first team", "--root", root)[:2] == (0, "alpha\n")
    assert cli("team", "add", "hunter", "--agent-type", "code-reviewer", "--color", "blue", "--root", root)[0] == 0
    assert cli("team", "add", "scout", "--root", root)[0] == 0
    cfg = NativeTeam(Path(root), "alpha").read_config()
    assert cfg.description == "first team"
    assert [(m.name, m.agent_type, m.color) for m in cfg.members] == [
        ("hunter", "code-reviewer", "blue"),
        ("scout", "", ""),
    ]
    assert cli("task", "create", "first", "--root", root)[:2] == (0, "1\n")
    assert cli("task", "create", "second", "--blocked-by", "1", "--files", "a.py", "b.py", "--root", root)[:2] == (
        0,
        "2\n",
    )
    assert cli("task", "claim", "--as", "hunter", "--root", root)[:2] == (0, "1\n")
    assert cli("task", "claim", "--as", "scout", "--root", root)[0] == 3
    assert cli("task", "complete", "1", "--root", root)[:2] == (0, "1\n")
    assert cli("task", "claim", "2", "--as", "scout", "--root", root)[:2] == (0, "2\n")
    assert NativeTeam(Path(root), "alpha").get_task("2").files == ["a.py", "b.py"]


def test_status_human_output(cli: Run, native_root: Path) -> None:
    NativeTeam(native_root, TEAM).update_member("hunter", agent_type="code-reviewer")
    code, out, err = cli("status", "--root", str(native_root))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "Team: refactor-auth"
    assert "Tasks: 1/5 done" in lines
    assert "  ● hunter (code-reviewer) - working  #2 Write integration tests  [2 unread]" in lines
    assert "  ○ scout - idle  [1 unread]" in lines
    assert "  × tracer - shutdown" in lines
    assert "  ○ #5 Final review (blocked by #4, missing dependency #9)" in lines


def test_tasks_human_output(cli: Run, native_root: Path) -> None:
    code, out, _ = cli("tasks", "--root", str(native_root))
    assert code == 0
    assert out.splitlines() == [
        "Tasks [1/5 done]",
        "",
        "  ✓ #1 Extract auth middleware → hunter",
        "  ● #2 Write integration tests → hunter",
        "  ○ #3 Update API documentation (ready)",
        "  ○ #4 Add error handling (blocked by #2)",
        "  ○ #5 Final review (blocked by #4, missing dependency #9)",
    ]


def test_json_shapes(cli: Run, native_root: Path) -> None:
    r = str(native_root)
    status = json.loads(cli("status", "--json", "--root", r)[1])
    assert set(status) == {"team", "layout", "root", "lead", "description", "members", "tasks", "errors"}
    assert status["tasks"] == {"done": 1, "total": 5}
    hunter = status["members"][0]
    assert set(hunter) == {"name", "status", "agent_type", "color", "current_task", "unread"}
    assert hunter["current_task"] == {"id": "2", "subject": "Write integration tests"}
    tasks = json.loads(cli("tasks", "--json", "--root", r)[1])
    assert set(tasks) == {"team", "layout", "done", "total", "tasks", "errors"}
    t5 = tasks["tasks"][4]
    assert set(t5) == {
        "id",
        "subject",
        "description",
        "status",
        "state",
        "owner",
        "blocked_by",
        "open_blockers",
        "missing",
        "conflicts_with",
        "files",
        "plan_task",
        "held",
        "failures",
        "waits_on",
    }
    assert (t5["state"], t5["open_blockers"], t5["missing"]) == ("blocked", ["4"], ["9"])
    inbox = json.loads(cli("inbox", "scout", "--json", "--root", r)[1])
    assert set(inbox) == {"member", "drained", "messages", "errors"}
    [msg] = inbox["messages"]
    assert set(msg) == {"type", "sender", "content", "timestamp", "read", "summary", "payload"}
    assert msg["payload"] == {
        "type": "shutdown_request",
        "request_id": "a1b2c3d4",
        "from": "",
        "reason": "phase_complete",
        "deadline_seconds": 30.0,
    }


def test_json_shape_is_documented_in_help(cli: Run) -> None:
    for cmd in ("status", "tasks", "inbox"):
        code, out, _ = cli(cmd, "--help")
        assert code == 0 and '"errors": [{"path": str' in out


def test_send_broadcast_inbox_drain(cli: Run, native_root: Path) -> None:
    r = str(native_root)
    assert cli("send", "scout", "hello", "--from", "hunter", "--root", r)[0] == 0
    code, out, _ = cli("broadcast", "all hands", "--from", "hunter", "--root", r)
    assert (code, out) == (0, "scout lead\n")  # tracer is shut down, and no one hears their own broadcast
    code, out, _ = cli("inbox", "scout", "--root", r)
    assert out.splitlines()[-2:] == ["hunter: hello", "hunter: [broadcast] all hands"]
    drained = json.loads(cli("inbox", "scout", "--drain", "--json", "--root", r)[1])
    assert drained["drained"] and len(drained["messages"]) == 3
    assert json.loads(cli("inbox", "scout", "--json", "--root", r)[1])["messages"] == []


def test_file_text_is_made_inert(cli: Run, native_root: Path) -> None:
    store = NativeTeam(native_root, TEAM)
    store.update_task("3", subject="evil \x1b]0;pwned\x07 \x1b[2J\u202e subject")
    store.send("scout", "\x1b[31mred\x1b[0m", "lead")
    for argv in (("tasks",), ("status",), ("inbox", "scout"), ("tasks", "--json"), ("inbox", "scout", "--json")):
        code, out, _ = cli(*argv, "--root", str(native_root))
        assert code == 0
        assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out, argv
    assert "evil \\x1b]0;pwned\\x07" in cli("tasks", "--root", str(native_root))[1]


@pytest.mark.parametrize("name", ["../x", "a/b", "", "a\x00b", "x" * 65])
def test_refused_names_through_the_cli_create_nothing(cli: Run, native_root: Path, tmp_path: Path, name: str) -> None:
    r = str(native_root)
    before = _snapshot(native_root)
    empty = tmp_path / "empty"
    empty.mkdir()
    for argv in (
        ("team", "create", name, "--root", str(empty)),
        ("team", "add", name, "--root", r),
        ("send", name, "hi", "--root", r),
        ("send", "hunter", "hi", "--from", name, "--root", r),
        ("broadcast", "hi", "--from", name, "--root", r),
        ("inbox", name, "--drain", "--root", r),
        ("task", "claim", "--as", name, "--root", r),
        ("log", name, "hi", "--root", r),
        ("status", "--team", name, "--root", r),
    ):
        code, out, err = cli(*argv)
        assert code in (1, 2), argv
        assert err.count("\n") >= 1 and "\x00" not in err
    assert _snapshot(native_root) == before
    assert list(empty.iterdir()) == []


def test_malformed_files_are_reported_not_fatal(cli: Run, native_root: Path) -> None:
    store = NativeTeam(native_root, TEAM)
    store.task_path("3").write_bytes(b'{"id": "3", "subj')
    store.config_path.write_bytes(b"\xff\xfe")
    with open(store.inbox_path("scout"), "ab") as fh:
        fh.write(b"not json\n")
    r = str(native_root)
    code, out, _ = cli("status", "--root", r, "--team", TEAM)
    assert code == 0 and "Unreadable" in out and "task_3.json" in out and "config.json" in out
    tasks = json.loads(cli("tasks", "--json", "--root", r, "--team", TEAM)[1])
    assert [e["path"] for e in tasks["errors"]] == [str(store.task_path("3"))]
    assert [t["id"] for t in tasks["tasks"]] == ["1", "2", "4", "5"]
    inbox = json.loads(cli("inbox", "scout", "--json", "--root", r, "--team", TEAM)[1])
    assert inbox["errors"] == [
        {"path": str(store.inbox_path("scout")), "line": 2, "reason": inbox["errors"][0]["reason"]}
    ]
    code, _out, err = cli("team", "add", "newbie", "--root", r, "--team", TEAM)
    assert code == 1 and "invalid UTF-8" in err
    assert store.config_path.read_bytes() == b"\xff\xfe"


# ---------------------------------------------------------------- claude layout


def test_claude_layout_reads_and_messages(cli: Run, claude_root: Path) -> None:
    r = str(claude_root)
    status = json.loads(cli("status", "--json", "--root", r)[1])
    assert (status["team"], status["layout"], status["lead"]) == ("work-team", "claude", "team-lead")
    assert [(m["name"], m["status"]) for m in status["members"]] == [("researcher", "working"), ("writer", "idle")]
    tasks = json.loads(cli("tasks", "--json", "--root", r)[1])
    assert [t["id"] for t in tasks["tasks"]] == ["1", "2", "3", "4"]  # #5 is internal
    assert cli("send", "writer", "hi", "--root", r)[0] == 0
    assert cli("broadcast", "all", "--from", "researcher", "--root", r)[:2] == (0, "writer team-lead\n")
    inbox = json.loads(cli("inbox", "writer", "--json", "--root", r)[1])
    assert [(m["sender"], m["content"]) for m in inbox["messages"][-2:]] == [("teamtui", "hi"), ("researcher", "all")]
    assert inbox["messages"][0]["payload"]["type"] == "shutdown_request"


@pytest.mark.parametrize(
    "argv",
    [
        ("task", "create", "x"),
        ("task", "claim", "--as", "writer"),
        ("task", "complete", "2"),
        ("task", "release", "2"),
        ("inbox", "writer", "--drain"),
        ("log", "writer", "x"),
        ("team", "add", "newbie"),
        ("team", "create", "newteam"),
    ],
)
def test_claude_writes_are_refused_clearly(cli: Run, claude_root: Path, argv: tuple[str, ...]) -> None:
    before = _snapshot(claude_root)
    code, out, err = cli(*argv, "--root", str(claude_root))
    assert (code, out) == (1, "")
    assert "not supported for claude teams" in err and err.count("\n") == 1
    assert _snapshot(claude_root) == before


def test_layout_override(cli: Run, native_root: Path, claude_root: Path) -> None:
    import shutil

    shutil.copytree(claude_root, native_root, dirs_exist_ok=True)
    assert json.loads(cli("status", "--json", "--root", str(native_root))[1])["layout"] == "native"
    status = json.loads(cli("status", "--json", "--layout", "claude", "--root", str(native_root))[1])
    assert (status["layout"], status["team"]) == ("claude", "work-team")


# ---------------------------------------------------------------- a real process


def test_real_process_teammate_needs_no_flags(native_root: Path) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "TEAMTUI_ROOT": str(native_root),
        "TEAMTUI_TEAM": TEAM,
        "TEAMTUI_NAME": "scout",
    }

    def teamtui(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "teamtui", *argv],
            env=env,
            cwd=native_root.parent,
            capture_output=True,
            text=True,
            timeout=60,
        )

    claim = teamtui("task", "claim")
    assert (claim.returncode, claim.stdout) == (0, "3\n")
    none = teamtui("task", "claim")
    assert (none.returncode, none.stdout) == (3, "")
    drained = teamtui("inbox", "--drain", "--json")
    assert drained.returncode == 0
    assert [m["type"] for m in json.loads(drained.stdout)["messages"]] == ["shutdown_request"]
    bad = teamtui("send", "../x", "hi")
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1


def test_claiming_as_someone_not_in_the_team_is_refused_as_sending_to_them_is(native_root: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "TEAMTUI_ROOT": str(native_root), "TEAMTUI_TEAM": TEAM}
    env.pop("TEAMTUI_NAME", None)

    def teamtui(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "teamtui", *argv], env=env, capture_output=True, text=True, timeout=60
        )

    before = _snapshot(native_root)
    members = "(members: lead, hunter, scout, tracer)"
    sent = teamtui("send", "nobody", "hi")
    assert (sent.returncode, sent.stdout) == (1, "")
    assert sent.stderr == f"teamtui: 'nobody' is not a member of team '{TEAM}' {members}; nothing was sent\n"
    for argv in (("task", "claim", "--as", "nobody"), ("task", "claim", "3", "--as", "nobody")):
        claimed = teamtui(*argv)
        assert (claimed.returncode, claimed.stdout) == (1, ""), argv
        assert claimed.stderr == f"teamtui: 'nobody' is not a member of team '{TEAM}' {members}; nothing was claimed\n"
    assert _snapshot(native_root) == before
    # A member, and the lead, still claim.
    assert teamtui("task", "claim", "--as", "scout").stdout == "3\n"
    lead = teamtui("task", "claim", "--as", "lead")
    assert lead.returncode in (0, 3), lead.stderr
