"""18. allow pressed in the room → the tool runs, here and over ssh.

The real control room (TeamTUI, headless, driven by Pilot) over a Claude Code team whose session's
hook asks: each round starts `teamtui hook` with a PermissionRequest for `touch FILE` (as the real
2.1.332 sent it for in-process alice, from tests/fixtures), waits (on the app) until the room lists
it, opens it (`a` in the needs list), and starts the clock just before the person's `a` (allow).
This script stands in for Claude Code: a thread reads the hook's printed decision and runs the
command; the clock stops when the command has run. Rounds 1… are counted (round 0 warms up).

- local: the team and its hooks on this machine (the room's worker answers, the hook wakes);
- ssh: the team and its hooks behind a real OpenSSH server on 127.0.0.1 (a second HOME), the room
  following it over `ssh … teamtui stream`: the `answer` request travels to the stream, which
  carries it out there, and the hook there prints it.

`python benchmarks/answer_bench.py --n 20` prints one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from hooks_bench import pct, recorded  # noqa: E402
from ssh_bench import start_sshd  # noqa: E402

from teamtui.protocol.hooks.place import ensure_spool  # noqa: E402
from teamtui.protocol.settings import HostSettings, Settings  # noqa: E402
from teamtui.session.fleet import Fleet  # noqa: E402
from teamtui.session.local import LocalSource  # noqa: E402
from teamtui.session.remote import RemoteHost  # noqa: E402

EXAMPLES = REPO / "tests" / "fixtures" / "examples"


def summary(xs: list[float]) -> dict:
    return {"n": len(xs), "p50": pct(xs, 50), "p90": pct(xs, 90), "max": max(xs) if xs else float("nan")}


def claude_team(claude: Path, session_id: str) -> None:
    team = f"session-{session_id[:8]}"
    shutil.copytree(EXAMPLES / "claude" / "teams" / "work-team", claude / "teams" / team)
    cfg = json.loads((claude / "teams" / team / "config.json").read_text())
    cfg["name"] = team
    (claude / "teams" / team / "config.json").write_text(json.dumps(cfg))


def hook_env(home: Path, claude: Path, state: Path) -> dict[str, str]:
    drop = ("TMUX", "TMUX_PANE", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(
        HOME=str(home), CLAUDE_CONFIG_DIR=str(claude), XDG_STATE_HOME=str(state), XDG_CONFIG_HOME=str(home / ".config")
    )
    return env


class StandIn:
    """Claude Code's part: the hook started with the event, its decision read, the tool run."""

    def __init__(self, teamtui: str, env: dict[str, str], event: dict, marker: Path):
        self.marker = marker
        self.done = threading.Event()
        self.ran_at = 0.0
        self.proc = subprocess.Popen(
            [teamtui, "hook"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(event).encode())
        self.proc.stdin.close()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        assert self.proc.stdout is not None
        out = self.proc.stdout.read()
        self.proc.wait()
        if out and json.loads(out)["hookSpecificOutput"]["decision"]["behavior"] == "allow":
            subprocess.run(["touch", str(self.marker)], check=True)  # the tool, as Claude Code would run it
        self.ran_at = time.perf_counter()
        self.done.set()


async def rounds(app, n: int, start, base: Path, ready=lambda: True) -> list[float]:
    from teamtui.tui.screens.answer import AnswerScreen
    from teamtui.tui.screens.fleet import FleetScreen
    from teamtui.tui.widgets.fleet import FleetNeeds

    took = []
    async with app.run_test(size=(140, 42)) as pilot:

        async def until(cond, what: str, limit: float = 30.0) -> None:
            end = time.monotonic() + limit
            while not cond():
                if time.monotonic() > end:
                    raise TimeoutError(what)
                await pilot.pause(0.005)

        def asks() -> list:
            return [x for v in app.fleet.needs.values() for x in v if x.kind == "ask"]

        await until(lambda: isinstance(app.screen, FleetScreen) or app.dashboard is not None, "the room")
        if not isinstance(app.screen, FleetScreen):
            await pilot.press("escape")
        await until(lambda: isinstance(app.screen, FleetScreen), "the overview")
        app.screen.query_one(FleetNeeds).focus()
        await until(ready, "the room that answers, ready")
        for i in range(n + 1):
            marker = base / f"ran-{i}"
            hook = start(marker)
            await until(lambda: len(asks()) == 1, "the request listed")
            await pilot.press("a")
            await until(lambda: isinstance(app.screen, AnswerScreen), "the request in full")
            t0 = time.perf_counter()
            await pilot.press("a")
            await until(hook.done.is_set, "the tool ran")
            assert marker.exists(), f"round {i}: not allowed"
            if i:
                took.append(hook.ran_at - t0)
            await until(lambda: not asks(), "the request gone")
    return took


def local(n: int, teamtui: str, base: Path) -> dict:
    from teamtui.tui.app import TeamTUI

    event = recorded("PermissionRequest", "in-process")
    base.mkdir(parents=True)
    home, claude, state = base / "home", base / "claude", base / "state"
    claude_team(claude, event["session_id"])
    env = hook_env(home, claude, state)
    spool = ensure_spool(env)
    empty = base / "empty"
    empty.mkdir()
    source = LocalSource(
        Settings(),
        roots=[claude],
        cwd=empty,
        claude_root=claude,
        registry=empty / "r",
        journal=empty / "j",
        hooks=spool,
    )
    source.discover()
    app = TeamTUI(Fleet([source]), config_path=base / "none.toml", cursor_blink=False, sync_panes=False)

    def start(marker: Path) -> StandIn:
        ev = {**event, "tool_input": {"command": f"touch {marker}", "description": "bench"}, "transcript_path": ""}
        return StandIn(teamtui, env, ev, marker)

    return summary(asyncio.run(rounds(app, n, start, base)))


def over_ssh(n: int, teamtui: str, base: Path) -> dict:
    from teamtui.tui.app import TeamTUI

    event = recorded("PermissionRequest", "in-process")
    base.mkdir(parents=True)
    sshd, port = start_sshd(base)
    try:
        home = base / "remote-home"
        claude, state = home / "claude", home / ".state"
        claude_team(claude, event["session_id"])
        env = hook_env(home, claude, state)
        there = {k: env[k] for k in ("HOME", "CLAUDE_CONFIG_DIR", "XDG_STATE_HOME", "XDG_CONFIG_HOME")}
        command = "env " + " ".join(f"{k}={shlex.quote(v)}" for k, v in there.items())
        command += f" {shlex.quote(sys.executable)} -m teamtui"
        options = ["-F", "/dev/null", "-o", "StrictHostKeyChecking=no", "-o", f"UserKnownHostsFile={base / 'kh'}"]
        options += ["-o", "IdentitiesOnly=yes", "-o", "LogLevel=ERROR", "-i", str(base / "user_key"), "-p", str(port)]
        host = RemoteHost(HostSettings("box", f"{getpass.getuser()}@127.0.0.1", options, [], command))
        empty = base / "empty"
        empty.mkdir()
        local_side = LocalSource(Settings(), cwd=empty, claude_root=empty, registry=empty / "r", journal=empty / "j")
        local_side.discover()
        app = TeamTUI(Fleet([local_side, host]), config_path=base / "none.toml", cursor_blink=False, sync_panes=False)

        def start(marker: Path) -> StandIn:
            ev = {**event, "tool_input": {"command": f"touch {marker}", "description": "bench"}, "transcript_path": ""}
            return StandIn(teamtui, env, ev, marker)

        return summary(asyncio.run(rounds(app, n, start, base, ready=lambda: host.connected)))
    finally:
        sshd.terminate()
        sshd.wait(10)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--no-ssh", action="store_true")
    a = ap.parse_args()
    teamtui = str(Path(sys.executable).with_name("teamtui"))
    out: dict = {}
    # ignore_cleanup_errors: a stream there may still be writing its last history rows as it ends.
    with tempfile.TemporaryDirectory(prefix="tt-bench-answer-", ignore_cleanup_errors=True) as tmp:
        out["local"] = local(a.n, teamtui, Path(tmp) / "local")
        if not a.no_ssh:
            out["ssh"] = over_ssh(a.n, teamtui, Path(tmp) / "ssh")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
