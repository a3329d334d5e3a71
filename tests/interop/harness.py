"""Running the real `claude` binary offline: a private HOME, a private tmux server, a fake model.

Used by the interop tests (and usable by hand: `python -m tests.interop.harness tmux` runs one
scripted session and leaves its HOME for a look).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from teamtui.protocol.claude_versions import PINNED_CLAUDE_CODE
from tests.conftest import poll
from tests.interop.fakeapi import FakeApi, Reply, Request, Script

REPO = Path(__file__).resolve().parents[2]
CACHE = REPO / ".cache" / "interop"
CLAUDE_VERSION = PINNED_CLAUDE_CODE
API_KEY = "sk-ant-test"


def claude_bin() -> Path | None:
    """The pinned binary `make interop` installs, in a cache folder per version (or
    $TEAMTUI_CLAUDE_BIN: `make interop` passes the one it runs, pinned or latest)."""
    env = os.environ.get("TEAMTUI_CLAUDE_BIN")
    path = Path(env) if env else CACHE / CLAUDE_VERSION / "node_modules" / ".bin" / "claude"
    return path if path.exists() else None


def wait_until(check: Callable[[], Any], what: str, timeout: float = 30.0, period: float = 0.1) -> Any:
    return poll(check, timeout, period, lambda: TimeoutError(f"timed out after {timeout:.0f}s waiting for: {what}"))


# ------------------------------------------------------------------ the script the fake model follows


def tmux_env() -> dict[str, str]:
    """The environment a private tmux server starts with: every pane inherits it, and COLUMNS and
    LINES (set by the test session) would pin each program in them at 80×24 whatever its window."""
    return {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}


LEAD = "TMLEAD"
ALICE = "TMALICE"
BOB = "TMBOB"
# What the lead's prompt must contain for the fake model to run the team.
LEAD_PROMPT = f"{LEAD}: start the team"


def who(req: Request) -> str:
    """Which agent sent a request: the marker word in its first user message (or system prompt)."""
    first = req.first_user_text
    for marker, name in ((ALICE, "alice"), (BOB, "bob"), (LEAD, "team-lead")):
        if marker in first:
            return name
    system = json.dumps(req.body.get("system", ""))
    for marker, name in ((ALICE, "alice"), (BOB, "bob")):
        if marker in system:
            return name
    return ""


def spawn_alice(done: list[str]) -> Reply:
    """The lead's turn in a script: spawn alice once, then idle."""
    if "Agent" not in done:
        return Reply(
            tools=[("Agent", {"description": "alice helper", "name": "alice", "prompt": "TMALICE: you are alice."})]
        )
    return Reply(text="LEADIDLE")


def bash_twice(done: list[str], allowed: str, denied: str, agent: str) -> Reply | None:
    """An agent's turn: run `allowed`, then `denied` (each a Bash command a person is asked about), then None."""
    for n, (command, verdict) in enumerate(((allowed, "allowed"), (denied, "denied"))):
        if done.count("Bash") == n:
            return Reply(tools=[("Bash", {"command": command, "description": f"{agent} {verdict}"})])
    return None


def start_idle_team(s: Session) -> Session:
    """`s` started and its lead prompted, once alice and bob are spawned, ran their command and went idle."""
    s.start()
    s.prompt_lead()
    wait_until(lambda: {"alice", "bob"} <= set(s.members()), "the lead to spawn alice and bob", 90)
    # Both teammates ran their Bash command and answered: the team is idle and waiting.
    wait_until(lambda: len(s.requests("alice")) >= 2 and len(s.requests("bob")) >= 2, "both teammates to go idle", 60)
    return s


def team_script(req: Request) -> Reply:
    """The lead spawns alice and bob, creates a task, messages alice, then waits; each teammate runs
    one Bash command, then answers every later turn with a short text."""
    agent = who(req)
    done = req.tool_calls()
    last = req.last_user_text
    if agent == "team-lead" and 'teammate_id="teamtui"' in last and "shutdown_request" in last:
        # teamtui asks the lead to stop the team: it sends each named teammate a signed request.
        names = re.search(r"Teammates: ([\w, -]+)", last)
        targets = [n.strip() for n in names.group(1).split(",")] if names else []
        return Reply(
            tools=[
                ("SendMessage", {"to": n, "message": {"type": "shutdown_request", "reason": "teamtui asked"}})
                for n in targets
                if n
            ]
        )
    if agent in ("alice", "bob") and '"type":"shutdown_request"' in last:
        request = re.search(r'"requestId":"([^"]+)"', last)
        if request:
            return Reply(
                tools=[
                    (
                        "SendMessage",
                        {
                            "to": "team-lead",
                            "message": {"type": "shutdown_response", "request_id": request.group(1), "approve": True},
                        },
                    )
                ]
            )
    if agent == "team-lead":
        if "Agent" not in done:
            return Reply(
                tools=[
                    (
                        "Agent",
                        {
                            "description": "alice helper",
                            "name": "alice",
                            "prompt": f"{ALICE}: you are alice. Reply briefly.",
                        },
                    )
                ]
            )
        if done.count("Agent") == 1:
            return Reply(
                tools=[
                    (
                        "Agent",
                        {"description": "bob helper", "name": "bob", "prompt": f"{BOB}: you are bob. Reply briefly."},
                    )
                ]
            )
        if "TaskCreate" not in done:
            return Reply(
                tools=[
                    (
                        "TaskCreate",
                        {"subject": "probe task one", "description": "TASKDESC one", "activeForm": "probing"},
                    )
                ]
            )
        if "SendMessage" not in done:
            return Reply(
                tools=[("SendMessage", {"to": "alice", "message": "LEADMSG hello alice", "summary": "hello alice"})]
            )
        return Reply(text="LEADIDLE")
    if agent in ("alice", "bob"):
        if "Bash" not in done:
            return Reply(tools=[("Bash", {"command": f"echo BASH-{agent}", "description": "Say hello"})])
        return Reply(text=f"{agent.upper()}IDLE")
    return Reply(text="ok")


# ------------------------------------------------------------------ a session


class Folders:
    """Where a Claude Code run under `base` keeps its private HOME, its Claude folder and its project."""

    base: Path
    home = property(lambda self: self.base / "home")
    claude_dir = property(lambda self: self.home / ".claude")
    cwd = property(lambda self: self.base / "app")


@dataclass
class Session(Folders):
    """One interactive lead in its own tmux server, HOME and project folder."""

    base: Path
    mode: str  # "tmux" | "in-process"
    script: Script = team_script
    socket: str = field(default_factory=lambda: f"teamtui-interop-{uuid.uuid4().hex[:8]}")
    api: FakeApi | None = None
    extra_env: dict[str, str] = field(default_factory=dict)
    # The lead's permission flags; its teammates start with the same mode.
    lead_flags: str = "--dangerously-skip-permissions"
    team_name: str | None = None
    record = property(lambda self: self.base / "requests.jsonl")
    state_dir = property(lambda self: self.base / "state")

    def env(self) -> dict[str, str]:
        assert self.api is not None
        env = {
            "HOME": str(self.home),
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "TERM": "xterm-256color",
            "LANG": "C.UTF-8",
            "ANTHROPIC_BASE_URL": self.api.url,
            "ANTHROPIC_API_KEY": API_KEY,
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS": "1",
            "CLAUDE_CODE_ENABLE_TODO_TOOLS": "1",
            "DISABLE_AUTOUPDATER": "1",
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_STATE_HOME": str(self.state_dir),
        }
        if os.geteuid() == 0:
            env["IS_SANDBOX"] = "1"
        env.update(self.extra_env)
        return env

    def write_home(self) -> None:
        self.claude_dir.mkdir(parents=True, exist_ok=True)
        self.cwd.mkdir(parents=True, exist_ok=True)
        (self.claude_dir / "settings.json").write_text(
            json.dumps({"teammateMode": self.mode, "skipDangerousModePermissionPrompt": True})
        )
        (self.home / ".claude.json").write_text(
            json.dumps(
                {
                    "hasCompletedOnboarding": True,
                    "customApiKeyResponses": {"approved": [API_KEY]},
                    "projects": {
                        str(self.cwd): {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}
                    },
                }
            )
        )

    # ---------------------------------------------------------------- tmux
    def tmux(self, *args: str, check: bool = True) -> str:
        res = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=20, check=False, env=tmux_env()
        )
        if check and res.returncode != 0:
            raise RuntimeError(f"tmux {' '.join(args)}: {res.stderr.strip()}")
        return res.stdout

    def capture(self, target: str) -> str:
        return self.tmux("capture-pane", "-p", "-J", "-t", target, check=False)

    def keys(self, target: str, *keys: str, literal: bool = False) -> None:
        self.tmux("send-keys", "-t", target, *(["-l"] if literal else []), *keys)

    def type_line(self, target: str, text: str) -> None:
        """Type text, then Enter as its own send-keys (Claude Code's input needs that)."""
        self.keys(target, text, literal=True)
        time.sleep(0.3)
        self.keys(target, "Enter")

    def panes(self) -> list[dict[str, str]]:
        out = self.tmux(
            "list-panes", "-a", "-F", "#{pane_id}\t#{window_name}\t#{pane_pid}\t#{pane_current_command}", check=False
        )
        rows = []
        for line in out.splitlines():
            pid, win, ppid, cmd = (line.split("\t") + ["", "", "", ""])[:4]
            rows.append({"pane_id": pid, "window": win, "pid": ppid, "command": cmd})
        return rows

    # ---------------------------------------------------------------- the lead
    def start(self) -> Session:
        binary = claude_bin()
        if binary is None:
            raise RuntimeError("claude is not installed: run `make interop`")
        self.base.mkdir(parents=True, exist_ok=True)
        self.api = FakeApi(self.script, self.record).start()
        self.write_home()
        env = self.env()
        # The server's global environment is what every pane (the teammates' too) inherits.
        self.tmux(
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "lead",
            "-x",
            "220",
            "-y",
            "50",
            "-c",
            str(self.cwd),
            "env",
            *(f"{k}={v}" for k, v in env.items()),
            "bash",
            "--norc",
            "--noprofile",
        )
        for k, v in env.items():
            self.tmux("set-environment", "-g", k, v)
        self.tmux("set-option", "-g", "remain-on-exit", "off")
        self.type_line("lead:0.0", f"cd {self.cwd} && exec {binary} {self.lead_flags}".rstrip())
        wait_until(lambda: self.team_dir() is not None, "the lead to create its session team", 60)
        wait_until(lambda: "❯" in self.capture("lead:0.0") or ">" in self.capture("lead:0.0"), "the lead's prompt", 30)
        return self

    def team_dir(self) -> Path | None:
        """The lead's own session team (the first one to appear; a test may add other teams beside it)."""
        if self.team_name is None:
            teams = sorted((self.claude_dir / "teams").glob("session-*/config.json"))
            if not teams:
                return None
            self.team_name = teams[0].parent.name
        d = self.claude_dir / "teams" / self.team_name
        return d if (d / "config.json").exists() else None

    @property
    def team(self) -> str:
        if self.team_name is None:
            self.team_dir()
        assert self.team_name is not None
        return self.team_name

    def config(self) -> dict[str, Any]:
        d = self.team_dir()
        if d is None:
            return {}
        try:
            return json.loads((d / "config.json").read_text())
        except (OSError, ValueError):
            return {}

    def members(self) -> list[str]:
        return [m.get("name") for m in self.config().get("members", [])]

    def prompt_lead(self, text: str = LEAD_PROMPT) -> None:
        self.type_line("lead:0.0", text)

    def requests(self, agent: str | None = None) -> list[Request]:
        reqs = [Request(row["body"]) for row in (self.api.requests() if self.api else []) if row.get("reply")]
        return [r for r in reqs if agent is None or who(r) == agent]

    def stop(self) -> None:
        self.tmux("kill-server", check=False)
        if self.api is not None:
            self.api.stop()


def main(argv: list[str]) -> int:
    mode = argv[0] if argv else "tmux"
    base = Path(argv[1]) if len(argv) > 1 else Path("/tmp") / f"interop-{mode}-{os.getpid()}"
    if base.exists():
        shutil.rmtree(base)
    s = Session(base, mode).start()
    print("team", s.team, "socket", s.socket, "base", base, flush=True)
    try:
        s.prompt_lead()
        wait_until(lambda: {"alice", "bob"} <= set(s.members()), "alice and bob", 90)
        time.sleep(float(os.environ.get("INTEROP_LINGER", "15")))
        print(json.dumps(s.config(), indent=1))
        print(s.capture("lead:0.0"))
    finally:
        if not os.environ.get("INTEROP_KEEP"):
            s.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
