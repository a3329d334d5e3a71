"""13. The hook inside Claude Code's loop, and an answer reaching the tool.

- `teamtui hook` for a `Notification` event (the one 2.1.332 sent when a pane teammate asked, from
  tests/fixtures), a cold process each time, beside a bare `python -c pass` of the same
  interpreter, in a shuffled order per round: the median wall of each and their ratio.
- allow answered → the tool runs: a room of this process holds the room lock; each round starts
  `teamtui hook` with a PermissionRequest as Claude Code does, waits (on file events) for the
  request to be listed, then answers it with `answers.answer` (what the room calls) and stops the
  clock when the tool has run. Two stand-ins for Claude Code: this script itself (it reads the
  hook's printed decision and runs the command, as Claude Code does), and — with `--real CLAUDE`
  — the real Claude Code offline (tests/interop's harness: a fake model asking for one Bash per
  turn); the clock then stops when the command's file appears.

`python benchmarks/hooks_bench.py --n 30 [--real PATH]` prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from teamtui.protocol.filewatch import FileWatch  # noqa: E402
from teamtui.protocol.hooks.answers import answer, list_asks  # noqa: E402
from teamtui.protocol.hooks.place import ensure_requests, ensure_spool  # noqa: E402
from teamtui.protocol.hooks.room import RoomPresence  # noqa: E402

EXAMPLES = REPO / "tests" / "fixtures" / "examples" / "claude-2.1.332-hooks"


def pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    if not s:
        return float("nan")
    return s[max(0, min(len(s) - 1, int(round(p / 100 * len(s) + 0.5)) - 1))]


def summary(xs: list[float]) -> dict:
    return {"n": len(xs), "p50": pct(xs, 50), "p90": pct(xs, 90), "max": max(xs) if xs else float("nan")}


def recorded(event: str, mode: str = "tmux") -> dict:
    for line in (EXAMPLES / mode / "hooks.jsonl").read_text().splitlines():
        stdin = json.loads(line)["stdin"]
        if stdin["hook_event_name"] == event:
            return stdin
    raise LookupError(event)


def env_for(base: Path) -> dict[str, str]:
    drop = ("TMUX", "TMUX_PANE", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "CLAUDE_CONFIG_DIR")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(HOME=str(base / "home"), XDG_STATE_HOME=str(base / "state"), XDG_CONFIG_HOME=str(base / "config"))
    return env


# ------------------------------------------------------------------ the hook's start-up


def notification(reps: int, teamtui: str, base: Path) -> dict:
    env = env_for(base)
    data = json.dumps(recorded("Notification")).encode()
    hook, bare, cpu = [], [], []
    rng = random.Random(13)
    for rnd in range(reps + 1):  # round 0 warms the page cache and writes the .pyc files
        jobs = ["hook", "pass"]
        rng.shuffle(jobs)
        for job in jobs:
            argv = [teamtui, "hook"] if job == "hook" else [sys.executable, "-c", "pass"]
            t0 = time.perf_counter()
            r = subprocess.run(argv, input=data if job == "hook" else b"", env=env, capture_output=True)
            took = time.perf_counter() - t0
            if r.returncode != 0 or r.stdout:
                raise RuntimeError(f"{argv} exited {r.returncode}: {r.stderr[-300:]!r}")
            if rnd:
                (hook if job == "hook" else bare).append(took)
    lines = (base / "state" / "teamtui" / "hooks" / "events.jsonl").read_text().splitlines()
    assert len(lines) == reps + 1 and all('"Notification"' in line for line in lines), "every event recorded"
    del cpu
    return {
        "hook": summary(hook),
        "python": summary(bare),
        "ratio": statistics.median(hook) / statistics.median(bare),
    }


# ------------------------------------------------------------------ allow → the tool runs


def _wait_listed(spool: Path, watch: FileWatch, before: set[str], timeout: float = 20) -> str:
    deadline = time.monotonic() + timeout
    for _ in watch.changes(debounce_ms=5, step_ms=2):
        fresh = [a.id for a in list_asks(spool) if a.id not in before]
        if fresh:
            return fresh[0]
        if time.monotonic() > deadline:
            break
    raise TimeoutError("the hook's request was not listed")


def allow_stand_in(reps: int, teamtui: str, base: Path) -> dict:
    """This script plays Claude Code: it runs the hook, reads its decision, runs the tool."""
    env = env_for(base)
    spool = ensure_spool(env)
    requests = ensure_requests(spool)
    event = recorded("PermissionRequest", "in-process")
    took = []
    with RoomPresence(spool), FileWatch(requests, recursive=True) as watch:
        for i in range(reps + 1):
            marker = base / f"ran-{i}"
            ev = {**event, "tool_input": {"command": f"touch {marker}", "description": "bench"}, "transcript_path": ""}
            before = {a.id for a in list_asks(spool)}
            hook = subprocess.Popen(
                [teamtui, "hook"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
            )
            assert hook.stdin is not None and hook.stdout is not None
            hook.stdin.write(json.dumps(ev).encode())
            hook.stdin.close()
            rid = _wait_listed(spool, watch, before)
            t0 = time.perf_counter()
            answer(spool, rid, "allow", via="room", where="bench")
            decision = json.loads(hook.stdout.read())["hookSpecificOutput"]["decision"]["behavior"]
            hook.wait()
            if decision == "allow":
                subprocess.run(ev["tool_input"]["command"], shell=True, check=True)  # the tool, as Claude Code runs it
            t1 = time.perf_counter()
            assert marker.exists()
            if i:
                took.append(t1 - t0)
    return summary(took)


def allow_real(reps: int, claude: str, base: Path, teamtui: str) -> dict:
    """The real Claude Code offline: each turn the fake model asks for one Bash that writes a file."""
    os.environ["TEAMTUI_CLAUDE_BIN"] = claude
    from tests.interop.fakeapi import Reply, Request
    from tests.interop.harness import Session, who

    def script(req: Request) -> Reply:
        n = req.tool_calls().count("Bash")
        if who(req) == "team-lead" and n <= reps:
            return Reply(tools=[("Bash", {"command": f"echo {n} | tee ran-{n}.txt", "description": f"step {n}"})])
        return Reply(text="LEADIDLE")

    class Bench(Session):
        def write_home(self) -> None:
            super().write_home()
            cfg = {
                "teammateMode": "in-process",
                "skipDangerousModePermissionPrompt": True,
                "permissions": {"defaultMode": "default", "allow": ["Agent", "SendMessage"]},
            }
            (self.claude_dir / "settings.json").write_text(json.dumps(cfg))
            env = {**self.env(), "PYTHONPATH": str(REPO)}
            subprocess.run([teamtui, "hooks", "install"], env=env, check=True, capture_output=True)

    s = Bench(base / "real", "in-process", script=script, lead_flags="--permission-mode default")
    took = []
    try:
        s.start()
        spool = ensure_spool(s.env())
        requests = ensure_requests(spool)
        with RoomPresence(spool), FileWatch(requests, recursive=True) as rq, FileWatch(s.cwd) as files:
            before: set[str] = set()
            s.prompt_lead()
            for i in range(reps + 1):
                rid = _wait_listed(spool, rq, before, 60)
                before.add(rid)
                target = s.cwd / f"ran-{i}.txt"
                t0 = time.perf_counter()
                answer(spool, rid, "allow", via="room", where="bench")
                deadline = time.monotonic() + 30
                if not target.exists():
                    for _ in files.changes(debounce_ms=2, step_ms=2):
                        if target.exists() or time.monotonic() > deadline:
                            break
                t1 = time.perf_counter()
                assert target.exists(), f"step {i} did not run"
                if i:
                    took.append(t1 - t0)
    finally:
        s.stop()
    return summary(took)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=30)
    ap.add_argument("--real", help="the claude binary: also time the real Claude Code")
    a = ap.parse_args()
    teamtui = str(Path(sys.executable).with_name("teamtui"))
    out: dict = {}
    with tempfile.TemporaryDirectory(prefix="tt-bench-hooks-") as tmp:
        base = Path(tmp)
        out["notification"] = notification(a.n, teamtui, base / "n")
        out["allow"] = allow_stand_in(a.n, teamtui, base / "a")
        if a.real:
            out["allow_real"] = allow_real(min(a.n, 20), a.real, base / "r", teamtui)
            out["claude_version"] = subprocess.run(
                [a.real, "--version"], capture_output=True, text=True
            ).stdout.split()[0]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
