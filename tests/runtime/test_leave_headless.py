"""`teamtui run` with its dashboard, on a terminal: q asks, and "keep it running headless" closes
the dashboard while the same process leads the team on (its teammates keep working, its progress is
printed, it says how to stop it) until the team is done; "stop" shuts the team down as before."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from teamtui.protocol.processes import running
from tests.corpus.ptyrun import PtyProcess
from tests.runtime.helpers import WORKER, processes_of, team_toml


def _team(tmp_path: Path) -> tuple[Path, Path]:
    """A team of one whose teammate waits for the test's go (a file) before it starts its work."""
    go = tmp_path / "go"
    gated = f'while [ ! -e {json.dumps(str(go))} ]; do sleep 0.05; done; exec "$TEAMTUI_PYTHON" {WORKER}'
    tf = tmp_path / "team.toml"
    tf.write_text(
        team_toml("kept", teammates=["a"], tasks=[("first", []), ("second", [1])], commands={"a": gated}),
        encoding="utf-8",
    )
    return tf, go


def _parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0  # gone meanwhile: one of the sleeps


def _teammate(root: Path) -> int:
    """The teammate's own process: its shell, waiting for the go (not the sleeps it forks meanwhile)."""
    pids = processes_of(root)
    found = [pid for pid in pids if _parent(pid) not in pids and _parent(pid) != 0]
    assert len(found) == 1, found
    return found[0]


def _start(tmp_path: Path, tf: Path) -> PtyProcess:
    home = tmp_path / "home"
    home.mkdir()
    proc = PtyProcess(["run", str(tf), "--teammate-mode", "in-process"], env={"HOME": str(home)}, cwd=tmp_path)
    proc.read_until(lambda out: b"Tasks" in out, "the dashboard")
    proc.read_until(lambda _out: bool(processes_of(tmp_path)), "the teammate started")
    _teammate(tmp_path)
    proc.write(b"q")
    proc.read_until(lambda out: b"keep it running headless" in out, "the question")
    return proc


def test_keep_running_headless_leaves_the_lead_running_until_the_team_is_done(tmp_path: Path) -> None:
    tf, go = _team(tmp_path)
    proc = _start(tmp_path, tf)
    try:
        proc.write(b"k")
        proc.read_until(lambda out: b"to stop the team" in out, "where its output goes and how to stop it")
        assert proc.proc.poll() is None, "the lead goes on"
        assert running(_teammate(tmp_path)), "its teammate still works"
        go.touch()  # the teammate starts: the headless lead assigns, sees the work done, ends the team
        proc.read_until(lambda out: b"second completed by a [2/2]" in out, "progress printed, headless")
        code = proc.finish()
    finally:
        proc.close()
    out = bytes(proc.out).decode("utf-8", "replace")
    assert code == 0, out[-2000:]
    said = out[out.index("the dashboard is closed") :]
    assert f"(pid {proc.proc.pid}) leads team 'kept' on, headless" in said
    assert str(tmp_path / ".teams" / "kept" / "logs" / "lead.jsonl") in said.replace("\r\n", "")
    assert f"Ctrl-C here, or kill {proc.proc.pid}" in said
    assert "dashboard closed" not in out and "Traceback" not in out
    assert processes_of(tmp_path) == []


def test_stop_in_the_question_shuts_the_team_down(tmp_path: Path) -> None:
    tf, _go = _team(tmp_path)
    proc = _start(tmp_path, tf)
    try:
        proc.write(b"s")
        code = proc.finish()
    finally:
        proc.close()
    out = bytes(proc.out).decode("utf-8", "replace")
    assert "shutting down (dashboard closed)" in out, out[-2000:]
    assert "the dashboard is closed" not in out
    assert code == 0 and processes_of(tmp_path) == []


@pytest.mark.parametrize("how", ["ctrl-c", "kill"])
def test_the_team_kept_headless_stops_as_it_says(tmp_path: Path, how: str) -> None:
    tf, _go = _team(tmp_path)
    proc = _start(tmp_path, tf)
    try:
        proc.write(b"k")
        proc.read_until(lambda out: b"to stop the team" in out, "how to stop it")
        if how == "ctrl-c":
            proc.write(b"\x03")
        else:
            os.kill(proc.proc.pid, signal.SIGTERM)
        code = proc.finish()
    finally:
        proc.close()
    out = bytes(proc.out).decode("utf-8", "replace")
    assert code == (130 if how == "ctrl-c" else 128 + signal.SIGTERM), out[-2000:]
    why = "interrupted (Ctrl-C)" if how == "ctrl-c" else f"terminated (signal {signal.SIGTERM.value})"
    assert f"shutting down ({why})" in out, out[-2000:]
    assert "Traceback" not in out and processes_of(tmp_path) == []
