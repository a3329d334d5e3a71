"""End to end, "it calls you": the real `teamtui ROOT1 ROOT2` (the control room over two teams) on a
real pseudo-terminal, with a private home and a config whose [notify] command appends what it
reads to a file. Events are caused from outside, as a person's team would cause them (the
`teamtui task` commands, another process): the terminal receives the bell and the OSC 9 / OSC 777
bytes with the team's name, the command receives each event's JSON exactly once, and what was
already there when the control room started is listed, never called."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

from teamtui.notify.events import local_host
from teamtui.notify.osc import BEL, osc9, osc777
from teamtui.protocol.native import NativeTeam
from tests.corpus.ptyrun import REPO, PtyProcess
from tests.notify.attached import AttachedTmux
from tests.tui.conftest import until as pilot_until

LIMIT = 15.0  # seconds any one thing may take to show up (a busy machine; the whole test stays < 20 s)
FINISHED = ("teamtui: api-team", "finished: all 1 tasks done")
GONE = ("teamtui: web-team", "teammate disappeared: cy: no activity while holding a task")


def _osc_bytes(title: str, body: str) -> tuple[bytes, bytes]:
    return osc9(f"{title}: {body}").encode(), osc777(title, body).encode()


@pytest.fixture
def machine(tmp_path: Path) -> dict:
    """Two native teams, a root each, a teammate and a task each; a private home whose config
    sends every event to `cat >> events.jsonl`. In web-team, dee has held task #2 since long
    before the control room opens, silent: disappeared from the start (listed, not called)."""
    api, web = tmp_path / "api", tmp_path / "web"
    home, config, state, claude = (tmp_path / d for d in ("home", "config", "state", "claude"))
    for d in (api, web, home, config / "teamtui", state, claude):
        d.mkdir(parents=True)
    events = tmp_path / "events.jsonl"
    command = json.dumps(["sh", "-c", f"cat >> '{events}'"])
    (config / "teamtui" / "config.toml").write_text(f"[notify]\ncommand = {command}\n", encoding="utf-8")

    a = NativeTeam(api, "api-team")
    a.create(description="")
    a.add_member("ana")
    a.create_task("build the api")

    long_ago = time.time() - 3600
    w = NativeTeam(web, "web-team")
    w.create(description="")
    w.add_member("cy")
    w.add_member("dee", joined_at=long_ago)
    w.create_task("build the web")
    w.create_task("old work")
    w.update_task("2", owner="dee", status="in_progress", claimed_at=long_ago)

    env = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(config),
        "XDG_STATE_HOME": str(state),
        "CLAUDE_CONFIG_DIR": str(claude),
        "TERM": "xterm-256color",
        "TERM_PROGRAM": "",
        "LC_TERMINAL": "",
    }
    return {"api": api, "web": web, "events": events, "cwd": tmp_path, "env": env}


def teamtui(*args: str, env: dict[str, str]) -> None:
    """A `teamtui` command, as a teammate or a person in another terminal would run it."""
    full = {k: v for k, v in os.environ.items() if not k.startswith(("TEAMTUI_", "TMUX"))}
    full.update(env, PYTHONPATH=str(REPO))
    subprocess.run([sys.executable, "-m", "teamtui", *args], env=full, check=True, capture_output=True, timeout=30)


def bells(out: bytes | bytearray) -> int:
    """The bells alone: not the BEL that ends an OSC sequence (Textual's own end with one too)."""
    return re.sub(rb"\x1b\][^\x07\x1b]*(\x07|\x1b\\\\)", b"", bytes(out)).count(b"\x07")


def events_of(path: Path) -> list[dict]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def wait_for(cond, what: str, app: PtyProcess, limit: float = LIMIT) -> None:
    """Read the app's terminal while waiting (its output must keep flowing) until `cond()`."""
    end = time.monotonic() + limit
    while not cond():
        if time.monotonic() > end:
            raise AssertionError(f"never happened: {what}; terminal: {bytes(app.out[-1500:])!r}")
        if app.proc.poll() is not None:
            raise AssertionError(f"teamtui exited ({app.proc.poll()}) before: {what}; {bytes(app.out[-3000:])!r}")
        app._read(0.1)


def test_the_terminal_rings_and_the_command_gets_each_event_once(machine) -> None:
    env = machine["env"]
    app = PtyProcess([str(machine["api"]), str(machine["web"]), "--health-timeout", "1"], env=env, cwd=machine["cwd"])
    try:
        # The overview lists both teams (and dee, who disappeared before it opened).
        app.read_until(lambda out: b"api-team" in out and b"web-team" in out, "both teams' rows", limit=LIMIT)
        time.sleep(1.0)  # dee's "disappeared" was there first: were it called, it would be by now
        app._read(0.5)
        assert events_of(machine["events"]) == [], "... not called"
        assert b"dee" in app.out and b": no activity while holding a task" in app.out  # listed ...
        assert bells(app.out) == 0 and b"\x1b]9;" not in app.out and b"\x1b]777;" not in app.out

        # (1) The only task of api-team completed, from another process: the team finished.
        teamtui("task", "complete", "1", "--root", str(machine["api"]), "--team", "api-team", env=env)
        wait_for(lambda: len(events_of(machine["events"])) >= 1, "team_finished reaches the command", app)
        # (2) cy claims web-team's task and then says nothing for longer than the health timeout.
        teamtui("task", "claim", "1", "--as", "cy", "--root", str(machine["web"]), "--team", "web-team", env=env)
        wait_for(lambda: len(events_of(machine["events"])) >= 2, "teammate_disappeared reaches the command", app)
        nine_f, seven_f = _osc_bytes(*FINISHED)
        nine_g, seven_g = _osc_bytes(*GONE)
        wait_for(lambda: seven_g in app.out, "the second notification's bytes reach the terminal", app)

        # No duplicate comes later (the health timer keeps looking; files keep changing).
        NativeTeam(machine["api"], "api-team").send("ana", "thanks", "lead")
        end = time.monotonic() + 2.5
        while time.monotonic() < end:
            app._read(0.1)
        got = events_of(machine["events"])
        assert [(e["kind"], e["team"]) for e in got] == [
            ("team_finished", "api-team"),
            ("teammate_disappeared", "web-team"),
        ]
        assert got[0]["text"] == "all 1 tasks done" and got[0]["host"] == local_host()
        assert got[1]["text"] == "cy: no activity while holding a task"
        assert all(isinstance(e["at"], float) for e in got)

        out = bytes(app.out)
        # Exactly the bytes teamtui/notify/osc.py builds, each once: BEL, then OSC 9 and OSC 777.
        assert out.count(BEL.encode() + nine_f + seven_f) == 1, out[-3000:]
        assert out.count(BEL.encode() + nine_g + seven_g) == 1, out[-3000:]
        for seq in (nine_f, seven_f, nine_g, seven_g):
            assert out.count(seq) == 1
        assert out.count(b"\x1b]9;") == 2 and out.count(b"\x1b]777;") == 2 and bells(out) == 2
        assert b"dee" not in b"".join(json.dumps(e).encode() for e in got)

        app.write(b"q")
        assert app.finish(LIMIT) == 0
    finally:
        app.close()


@pytest.mark.tmux
def test_inside_tmux_without_passthrough_the_text_goes_to_the_message_line(
    machine, attached_tmux: AttachedTmux
) -> None:
    """The same control room in a tmux window whose allow-passthrough is off: no OSC reaches the
    terminal outside; tmux's message line shows the text, once; the command still gets the JSON."""
    attached_tmux.run("set-option", "-g", "allow-passthrough", "off")
    env = {**machine["env"], "PYTHONPATH": str(REPO)}
    argv = [sys.executable, "-m", "teamtui", str(machine["api"]), str(machine["web"]), "--teammate-mode", "in-process"]
    attached_tmux.run(
        "new-window",
        "-c",
        str(machine["cwd"]),
        *(a for k, v in env.items() for a in ("-e", f"{k}={v}")),
        shlex.join(argv),
    )
    client = attached_tmux.client
    client.read_until(lambda out: b"api-team" in out and b"web-team" in out, "both teams' rows", limit=LIMIT)
    teamtui("task", "complete", "1", "--root", str(machine["api"]), "--team", "api-team", env=machine["env"])
    wait_for(lambda: len(events_of(machine["events"])) >= 1, "team_finished reaches the command", client)
    shown = "message: {}: {}".format(*FINISHED)
    wait_for(lambda: shown in attached_tmux.run("show-messages"), "tmux's message line shows it", client)
    end = time.monotonic() + 1.5
    while time.monotonic() < end:
        client._read(0.1)
    assert attached_tmux.run("show-messages").count(shown) == 1
    assert [(e["kind"], e["team"]) for e in events_of(machine["events"])] == [("team_finished", "api-team")]
    out = bytes(client.out)
    assert b"\x1b]9;" not in out and b"\x1b]777;" not in out and b"Ptmux;" not in out


async def test_an_event_before_the_channels_are_ready_is_sent_once_they_are(machine, monkeypatch) -> None:
    """The channels are built on a thread (inside tmux, asking tmux can take seconds): an event
    that comes meanwhile waits for them rather than being lost."""
    import threading

    from teamtui.notify import build
    from teamtui.notify.notifier import Notifier
    from teamtui.protocol.settings import load_settings
    from teamtui.session.fleet import Fleet
    from teamtui.session.local import LocalSource
    from teamtui.tui.app import TeamTUI

    sent: list = []
    release = threading.Event()

    class Recorder:
        def send(self, event) -> None:
            sent.append(event)

    def slow_build(*args, **kwargs) -> Notifier:
        release.wait(10)
        return Notifier([Recorder()])

    monkeypatch.setattr(build, "build_notifier", slow_build)
    config = machine["cwd"] / "none.toml"
    fleet = LocalSource(
        load_settings(config),
        roots=[machine["api"], machine["web"]],
        cwd=machine["cwd"],
        claude_root=machine["cwd"] / "claude",
        registry=machine["cwd"] / "running",
        journal=machine["cwd"] / "journal",
    )
    fleet.discover()
    app = TeamTUI(Fleet([fleet]), config_path=config, cursor_blink=False, sync_panes=False)
    try:
        await _early_event(app, fleet, machine, release, sent)
    finally:
        release.set()  # the builder's thread never outlives the test


async def _early_event(app, fleet, machine, release, sent) -> None:

    async with app.run_test(size=(160, 40)) as pilot:
        assert app.fleet is not None
        control, key = app.fleet, next(k for k in fleet.sessions if k[2] == "api-team")

        async def until(cond, what: str) -> None:
            await pilot_until(pilot, cond, what, LIMIT)

        NativeTeam(machine["api"], "api-team").complete_task("1")
        await until(lambda: key in control.alerts._seen and control.alerts._seen[key].finished, "the team finished")
        assert control.notifier is None and sent == []  # called while the channels were still being built
        release.set()
        await until(lambda: bool(sent), "the early event sent once the channels are ready")
        await pilot.pause(0.3)
        assert [(e.kind, e.team) for e in sent] == [("team_finished", "api-team")]
