"""`teamtui follow NAME`: a live plain-text view of one teammate, ending when it shuts down."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from tmux_support import TmuxServer, pane_of, wait_for

from teamtui.protocol.layout import find_team
from teamtui.tmux.api import PaneSpec
from teamtui.tmux.commands import follow_command
from teamtui.tmux.panes import TmuxPanes

REPO = Path(__file__).resolve().parents[2]
TEAM_DIR = Path(".teams") / "refactor-auth"


def _set_status(root: Path, name: str, status: str) -> None:
    path = root / TEAM_DIR / "config.json"
    config = json.loads(path.read_text())
    for member in config["members"]:
        if member["name"] == name:
            member["status"] = status
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(config, indent=2))
    os.replace(tmp, path)


class Lines:
    """The lines a process prints, collected by a thread so a test can wait for one."""

    def __init__(self, proc: subprocess.Popen[str]):
        self.seen: list[str] = []
        self._q: queue.Queue[str | None] = queue.Queue()
        assert proc.stdout is not None
        threading.Thread(target=self._pump, args=(proc.stdout,), daemon=True).start()

    def _pump(self, stream) -> None:  # type: ignore[no-untyped-def]
        for line in stream:
            self._q.put(line.rstrip("\n"))
        self._q.put(None)

    def wait_for(self, needle: str, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while not any(needle in s for s in self.seen):
            left = deadline - time.monotonic()
            if left <= 0:
                pytest.fail(f"{needle!r} never printed; got: {self.seen}")
            try:
                line = self._q.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                pytest.fail(f"exited before printing {needle!r}; got: {self.seen}")
            self.seen.append(line)


def start_follow(name: str, root: Path) -> subprocess.Popen[str]:
    """`teamtui follow NAME` as a process of its own, its output (stderr too) on a pipe."""
    return subprocess.Popen(
        [sys.executable, "-m", "teamtui", "follow", name, "--root", str(root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


def test_follow_prints_log_inbox_and_task_live_and_exits_on_shutdown(native_root: Path) -> None:
    proc = start_follow("hunter", native_root)
    try:
        lines = Lines(proc)
        lines.wait_for("task   #2 Write integration tests [in_progress]")
        lines.wait_for("ERROR pytest exited 1")
        lines.wait_for("inbox  lead -> hunter: also check src/legacy/")
        store = find_team(native_root)
        # Written by another process while follow runs; the escape must come out inert.
        store.log("hunter", "rerun \x1b[31mgreen", "warning")
        lines.wait_for("WARN  rerun \\x1b[31mgreen")
        store.send("hunter", "please hurry", sender="lead")
        lines.wait_for("inbox  lead -> hunter: please hurry")
        store.complete_task("2")
        lines.wait_for("task   (none in progress)")
        assert proc.poll() is None  # still following
        _set_status(native_root, "hunter", "shutdown")
        lines.wait_for("hunter shut down; following ends.")
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_follow_of_an_unknown_teammate_is_a_clear_error(native_root: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, "-m", "teamtui", "follow", "nobody", "--root", str(native_root)],
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
    )
    assert proc.returncode == 1
    assert proc.stderr.strip() == "teamtui: no teammate 'nobody' in team 'refactor-auth'"


@pytest.mark.tmux
def test_a_follow_pane_closes_when_its_teammate_shuts_down_and_is_not_reopened(
    tmux_server: TmuxServer, native_root: Path
) -> None:
    panes = TmuxPanes(tmux_server.tmux, tmux_server.dashboard, "refactor-auth")
    spec = PaneSpec("hunter", "blue", follow_command("hunter", native_root, "refactor-auth"))
    panes.sync([spec])
    assert panes.wait_idle()
    pane = pane_of(panes, "hunter")
    assert pane is not None
    wait_for(
        lambda: "following hunter" in "\n".join(tmux_server.run("capture-pane", "-p", "-t", pane)),
        "the follow view to show in the pane",
    )
    _set_status(native_root, "hunter", "shutdown")
    wait_for(lambda: not tmux_server.tmux.pane_exists(pane), "the pane to close when hunter shuts down")
    panes.sync([spec])  # the dashboard has not caught up yet: still no new pane
    assert panes.wait_idle()
    assert tmux_server.marked() == {}
    panes.close_all()


def test_follow_of_a_claude_code_teammate_prints_its_transcript_live(tmp_path: Path) -> None:
    """An in-process Claude Code teammate writes no log and has no pane: its follow pane shows what
    its transcript says (read from the end, then live), and ends when it leaves the team."""
    import shutil

    root = tmp_path / "claude"
    shutil.copytree(REPO / "tests" / "fixtures" / "examples" / "claude-2.1.328" / "inprocess-running", root)
    proc = start_follow("alice", root)
    try:
        lines = Lines(proc)
        lines.wait_for("following alice in team session-8dd2dc96 (idle)")  # idle as the transcript says
        lines.wait_for("← team-lead: task #1 assigned: probe task one")
        [transcript] = root.glob("projects/*/*/subagents/agent-aalice-*.jsonl")
        record = {
            "type": "assistant",
            "timestamp": "2026-11-23T07:09:00.000Z",
            "message": {
                "id": "msg_follow_1",
                "role": "assistant",
                "model": "claude-opus-5-5",
                "content": [{"type": "tool_use", "id": "toolu_f1", "name": "Bash", "input": {"command": "pytest -q"}}],
                "usage": {"input_tokens": 5, "output_tokens": 2},
            },
        }
        with transcript.open("a") as fh:
            fh.write(json.dumps(record) + "\n")
        lines.wait_for("Bash: pytest -q")
        assert proc.poll() is None
        config = root / "teams" / "session-8dd2dc96" / "config.json"
        cfg = json.loads(config.read_text())
        cfg["members"] = [m for m in cfg["members"] if m["name"] != "alice"]
        tmp = config.with_name("config.json.tmp")
        tmp.write_text(json.dumps(cfg))
        os.replace(tmp, config)
        lines.wait_for("alice left the team; following ends.")
        assert proc.wait(timeout=10) == 0
        assert not any(s.startswith("inbox ") for s in lines.seen)  # the transcript says what arrived
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
