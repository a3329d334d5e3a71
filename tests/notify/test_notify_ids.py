"""The id a notification's JSON gives is one `teamtui answer` takes: the real control room on a
pseudo-terminal with a [notify] command that records each event's JSON, events caused from outside
(a task held after failures; two teammates on one file), then `teamtui requests` and `teamtui
answer` run as separate processes with the ids the JSON gave."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from teamtui.protocol import processes
from teamtui.protocol.native import NativeTeam
from teamtui.protocol.outcomes import record_failure
from tests.corpus.ptyrun import REPO, PtyProcess
from tests.notify.test_notify_app import LIMIT, events_of, machine, wait_for

__all__ = ["machine"]  # the fixture, shared with the room's other notify test


def teamtui(*args: str, env: dict[str, str], cwd: Path) -> tuple[int, str, str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("TEAMTUI_", "TMUX"))}
    full.update(env, PYTHONPATH=str(REPO))
    done = subprocess.run(
        [sys.executable, "-m", "teamtui", *args], env=full, cwd=cwd, capture_output=True, text=True, timeout=60
    )
    return done.returncode, done.stdout, done.stderr


EDITS = REPO / "tests" / "fixtures" / "examples" / "claude-2.1.332-edits" / ".claude"
BOB = "projects/-src-app/48868de5-8ae7-4125-8599-c28685a97f25/subagents/agent-abob-464809b8192e779c.jsonl"
HELD_AT = 18  # bob's transcript up to here has not touched app.py yet; the rest edits it, as alice did


def test_each_id_the_json_gives_is_answered_or_says_how(machine) -> None:
    api, env, cwd = machine["api"], machine["env"], machine["cwd"]
    claude = cwd / "cc" / ".claude"  # a Claude Code team whose bob is about to change alice's file
    shutil.copytree(EDITS, claude)
    bob = (claude / BOB).read_text(encoding="utf-8").splitlines(keepends=True)
    (claude / BOB).write_text("".join(bob[:HELD_AT]), encoding="utf-8")
    # Its lead runs (this test's process stands in): a live team's transcripts are followed.
    team_config = next(claude.glob("teams/*/config.json"))
    cfg = json.loads(team_config.read_text(encoding="utf-8"))
    pid = os.getpid()
    cfg["leadProcess"].update(pid=pid, procStart=processes.start_of(pid), pidSpace=processes.pid_space())
    team_config.write_text(json.dumps(cfg), encoding="utf-8")
    config = Path(env["XDG_CONFIG_HOME"]) / "teamtui" / "config.toml"
    config.write_text(f"roots = {json.dumps([str(api), str(claude)])}\n" + config.read_text(encoding="utf-8"))
    store = NativeTeam(api, "api-team")
    app = PtyProcess([], env=env, cwd=cwd)
    try:
        app.read_until(lambda out: b"api-team" in out and b"session-48868de5" in out, "both teams' rows", limit=LIMIT)
        for i in range(3):  # from outside, as a runner's failures are
            record_failure(store, "1", f"boom {i}")
        kinds = lambda: {e.get("id", "").split(":")[0] for e in events_of(machine["events"])}  # noqa: E731
        # Bob's edits once the room has read both teams: what a team holds at its first read is
        # listed, never called (a restarted room must not call old news again). The failures made
        # api's `.tasks/.teamtui/`: the watch may be starting over as he writes (the gap is read too).
        wait_for(lambda: "held" in kinds(), "the held task reaches the command", app)
        with (claude / BOB).open("a", encoding="utf-8") as f:
            f.write("".join(bob[HELD_AT:]))
        try:
            wait_for(lambda: {"held", "collision"} <= kinds(), "both items reach the command", app)
        except AssertionError:
            raise AssertionError(events_of(machine["events"])) from None
        app.write(b"q")
        assert app.finish(LIMIT) == 0
    finally:
        app.close()
    got = {e["id"].split(":")[0]: e for e in events_of(machine["events"]) if "id" in e}
    held, collision = got["held"], got["collision"]

    code, out, err = teamtui("requests", "--json", env=env, cwd=cwd)
    assert code == 0, err
    listed = {i["id"]: i for i in json.loads(out)["requests"]}
    # The answerable one: the JSON's answers are those `teamtui requests` lists, and one is taken.
    assert held["id"] == "held:api-team:1" and held["answers"] == listed[held["id"]]["answers"] == ["retry", "block"]
    assert "how" not in held
    code, out, err = teamtui("answer", held["id"], "retry", env=env, cwd=cwd)
    assert code == 0 and "#1 back on the board" in out, err

    # The one answered elsewhere: no answers, a line saying how, and `teamtui answer` says that line.
    assert collision["answers"] == [] and "teamtui send" in collision["how"]
    assert collision["id"] in listed and listed[collision["id"]]["answers"] == []
    code, out, err = teamtui("answer", collision["id"], "message", "-m", "hi", env=env, cwd=cwd)
    assert code == 2 and err.strip() == f"teamtui: {collision['id']} takes no answer from here: {collision['how']}"
    assert len(err.strip().splitlines()) == 1
    code, _, err = teamtui("answer", "lead:api-team", "message", env=env, cwd=cwd)
    assert code == 2 and "takes no answer from here: nothing to answer: the lead ended" in err and "()" not in err
