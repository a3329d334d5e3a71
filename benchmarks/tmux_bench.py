"""8. `teamtui watch` inside tmux: first screen, keys and CPU while the teammates' panes open.

Each repetition starts a private tmux server (its own socket, no config file, a 160x50 window),
whose first pane runs `sh -c 'read _; exec teamtui watch ROOT ...'`. The pane's output is
copied to a file (`pipe-pane`) before Enter releases the `read`, so the clock starts at the
exec and every byte the dashboard writes is seen. Measured:

- first screen: Enter sent → the first output in which the header's "/T done" shows;
- key press: every 0.5 s until 10 s, `/` sent with `send-keys` → the filter's editing
  placeholder in the output after it (then escape);
- CPU: user + system time of the tmux server and everything under it (the dashboard, its tmux
  clients, every pane's process, the reaped ones included) from Enter to 10 s after it;
- panes: follow processes running at 10 s.

`python benchmarks/tmux_bench.py --members 50 --mode auto --n 3` prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from teamgen import TEAM, make_team  # noqa: E402

SIZE = (160, 50)
WINDOW_S = 10.0
KEY_EVERY_S = 0.5
EDITING = b"filter tasks: id"
_ANSI = re.compile(rb"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|[@-Z\\-_])")
_CLK = os.sysconf("SC_CLK_TCK")


def _tree_cpu(root_pid: int) -> tuple[float, int]:
    """CPU seconds (own + reaped children) of `root_pid` and its descendants; how many run `follow`."""
    children: dict[int, list[int]] = {}
    stats: dict[int, list[str]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rpartition(")")[2].split()
        except OSError:
            continue
        pid = int(entry)
        stats[pid] = fields
        children.setdefault(int(fields[1]), []).append(pid)
    total, follows, todo = 0.0, 0, [root_pid]
    while todo:
        pid = todo.pop()
        fields = stats.get(pid)
        if fields is None:
            continue
        # fields[0] is the state (field 3 of stat): utime, stime, cutime, cstime are fields 14-17.
        total += sum(int(x) for x in fields[11:15]) / _CLK
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"\0follow\0" in f.read():
                    follows += 1
        except OSError:
            pass
        todo.extend(children.get(pid, []))
    return total, follows


class Server:
    def __init__(self, tmpdir: Path):
        self.socket = str(tmpdir / "bench.sock")
        self.tmux = shutil.which("tmux") or "tmux"

    def run(self, *args: str) -> list[str]:
        r = subprocess.run([self.tmux, "-S", self.socket, *args], capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            raise RuntimeError(f"tmux {args[0]}: {r.stderr.strip()}")
        return r.stdout.splitlines()

    def kill(self) -> None:
        subprocess.run([self.tmux, "-S", self.socket, "kill-server"], capture_output=True, timeout=30)


def once(members: int, tasks: int, mode: str, tree: str | None, timeout: float, max_panes: int | None = None) -> dict:
    exe = str(Path(sys.executable).with_name("teamtui"))
    with tempfile.TemporaryDirectory(prefix="tt-bench-tmux-") as tmp:
        tmpdir = Path(tmp)
        root = make_team(tmpdir / "root", members, tasks)
        out = tmpdir / "dashboard.out"
        server = Server(tmpdir)
        env = {
            "XDG_CONFIG_HOME": str(tmpdir / "_config"),
            "TERM": "xterm-256color",
            "HOME": os.environ.get("HOME", "/"),
        }
        drop = ("TMUX", "TMUX_PANE", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "TEAMTUI_ROOT", "TEAMTUI_TEAM")
        base_env = {k: v for k, v in os.environ.items() if k not in drop}
        if tree:
            env["PYTHONPATH"] = tree  # ahead of the venv's editable install, in the panes too
        command = f"read _; exec {exe} watch {root} --team {TEAM} --teammate-mode {mode}"
        if max_panes:
            command += f" --max-panes {max_panes}"
        args = ["-f", "/dev/null", "new-session", "-d", "-x", str(SIZE[0]), "-y", str(SIZE[1]), "-s", "bench"]
        for k, v in env.items():
            args += ["-e", f"{k}={v}"]
        subprocess.run(
            [server.tmux, "-S", server.socket, *args, "sh", "-c", command], env=base_env, check=True, timeout=30
        )
        try:
            pane, server_pid = server.run("display-message", "-p", "-t", "bench", "#{pane_id}\t#{pid}")[0].split("\t")
            server.run("pipe-pane", "-o", "-t", pane, f"cat >> {out}")
            time.sleep(0.3)  # the server and the pipe settled: nothing of theirs in the window
            cpu0, _ = _tree_cpu(int(server_pid))
            t0 = time.time()
            server.run("send-keys", "-t", pane, "Enter")
            needle = f"/{tasks} done".encode()
            seen, first, keys, at_window = b"", None, [], None
            while time.time() - t0 < timeout:
                if at_window is None and time.time() - t0 >= WINDOW_S:  # a first screen slower than the window
                    at_window = _tree_cpu(int(server_pid))
                seen = out.read_bytes() if out.exists() else b""
                if needle in _ANSI.sub(b"", seen):
                    first = time.time() - t0
                    break
                time.sleep(0.005)
            if first is None:
                raise RuntimeError(f"no first screen within {timeout} s: {_ANSI.sub(b'', seen)[-300:]!r}")
            while time.time() - t0 < WINDOW_S - KEY_EVERY_S:
                time.sleep(KEY_EVERY_S)
                mark = out.stat().st_size
                k0 = time.time()
                server.run("send-keys", "-t", pane, "/")
                took = None
                while time.time() - k0 < 5:
                    with open(out, "rb") as f:
                        f.seek(mark)
                        if EDITING in _ANSI.sub(b"", f.read()):
                            took = time.time() - k0
                            break
                    time.sleep(0.005)
                keys.append(took if took is not None else float("inf"))
                server.run("send-keys", "-t", pane, "Escape")
            if at_window is None:
                time.sleep(max(0.0, t0 + WINDOW_S - time.time()))
                at_window = _tree_cpu(int(server_pid))
            cpu1, follows = at_window
            wall = min(time.time() - t0, WINDOW_S)
            server.run("send-keys", "-t", pane, "q")
            end = time.time() + 20
            while time.time() < end and _tree_cpu(int(server_pid))[1]:
                time.sleep(0.1)
            left = _tree_cpu(int(server_pid))[1]
        finally:
            server.kill()
    return {
        "first_screen_s": first,
        "cpu_s": cpu1 - cpu0,
        "wall_s": wall,
        "follows_at_10s": follows,
        "follows_after_quit": left,
        "keys_s": keys,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--members", type=int, default=50)
    ap.add_argument("--tasks", type=int, default=100)
    ap.add_argument("--mode", choices=("auto", "in-process"), default="auto")
    ap.add_argument("--n", type=int, default=3)
    ap.add_argument("--tree", help="time the teamtui package in this folder (an older commit) instead")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--max-panes", type=int, help="watch --max-panes (default: the dashboard's own)")
    a = ap.parse_args()
    runs = []
    for _ in range(a.n):
        runs.append(once(a.members, a.tasks, a.mode, a.tree, a.timeout, a.max_panes))
        time.sleep(2)  # the last run's processes gone before the next starts
    firsts = [r["first_screen_s"] for r in runs]
    keys = [k for r in runs for k in r["keys_s"]]
    res = {
        "members": a.members,
        "tasks": a.tasks,
        "mode": a.mode,
        "runs": runs,
        "first_screen_p50_s": statistics.median(firsts),
        "first_screen_max_s": max(firsts),
        "cpu_p50_s": statistics.median(r["cpu_s"] for r in runs),
        "follows_max": max(r["follows_at_10s"] for r in runs),
        "keys_n": len(keys),
        "keys_p50_s": statistics.median(keys) if keys else float("nan"),
        "keys_max_s": max(keys) if keys else float("nan"),
    }
    sys.stdout.write("\n" + json.dumps(res) + "\n")


if __name__ == "__main__":
    main()
