"""One benchmark scenario per process: `python benchmarks/scenarios.py NAME [options]`.

Prints one JSON object (the raw samples and summary figures) as its last stdout line.
run.py starts each scenario in a fresh interpreter so memory and CPU figures are its own.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import gc
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from ptyrun import exec_until  # noqa: E402
from teamgen import TEAM, make_team, member_name, team_dir  # noqa: E402

WRITER = HERE / "writer.py"
SIZE = (160, 50)


def pct(samples: list[float], p: float) -> float:
    """Percentile by nearest rank (p in 0..100)."""
    if not samples:
        return float("nan")
    s = sorted(samples)
    k = max(0, min(len(s) - 1, int(round(p / 100 * len(s) + 0.5)) - 1))
    return s[k]


def summary(samples: list[float]) -> dict:
    return {
        "n": len(samples),
        "p50": pct(samples, 50),
        "p90": pct(samples, 90),
        "p99": pct(samples, 99),
        "max": max(samples) if samples else float("nan"),
        "mean": statistics.fmean(samples) if samples else float("nan"),
    }


def new_app(root: Path, **kw):
    from probe import BenchTUI

    cfg = root / "_config" / "config.toml"
    return BenchTUI.watching(root, TEAM, "native", config_path=cfg, cursor_blink=False, **kw)


async def wait_opened(app, timeout: float = 30.0) -> None:
    end = time.time() + timeout
    while app.first_full_frame is None:
        if time.time() > end:
            raise TimeoutError("the dashboard never showed its first screen")
        await asyncio.sleep(0.005)


class Writer:
    """The writer subprocess in command mode."""

    def __init__(self, root: Path):
        self.root = root
        self.proc: asyncio.subprocess.Process | None = None

    async def __aenter__(self) -> Writer:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            str(WRITER),
            str(self.root),
            "cmd",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        return self

    async def do(self, **cmd) -> float:
        assert self.proc and self.proc.stdin and self.proc.stdout
        self.proc.stdin.write((json.dumps(cmd) + "\n").encode())
        await self.proc.stdin.drain()
        reply = json.loads(await self.proc.stdout.readline())
        return reply["t"]

    async def __aexit__(self, *exc) -> None:
        assert self.proc and self.proc.stdin
        try:
            self.proc.stdin.write(b'{"op": "quit"}\n')
            await self.proc.stdin.drain()
            await asyncio.wait_for(self.proc.wait(), 5)
        except Exception:  # noqa: BLE001
            self.proc.kill()
            await self.proc.wait()


def change_cmd(kind: str, token: str, members: int) -> dict:
    if kind == "log":
        return {"op": "log", "member": member_name(0), "token": token}
    if kind == "inbox":
        return {"op": "inbox", "member": member_name(0), "token": token}
    return {"op": "task", "task": 1, "members": members, "token": token}


# ---------------------------------------------------------------- 1. latency
async def latency(members: int, per_kind: int, seed: int = 1, gap: float | None = None) -> dict:
    """`gap`: seconds of quiet before each change (the watcher steps less often once quiet)."""
    rnd = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="tt-bench-") as tmp:
        root = make_team(Path(tmp), members, tasks=max(20, 2 * members))
        app = new_app(root)
        out: dict[str, list[float]] = {"log": [], "inbox": [], "task": []}
        missed = 0
        async with app.run_test(size=SIZE):
            await wait_opened(app)
            await asyncio.sleep(0.5 if gap is None else gap)  # let the watcher settle (or go quiet)
            async with Writer(root) as w:
                order = [k for k in out for _ in range(per_kind)]
                rnd.shuffle(order)
                for i, kind in enumerate(order):
                    token = f"{kind[0].upper()}{i:05d}q"
                    fut = app.expect(token)
                    t_write = await w.do(**change_cmd(kind, token, members))
                    try:
                        t_seen = await asyncio.wait_for(fut, 5.0)
                        out[kind].append(t_seen - t_write)
                    except TimeoutError:
                        missed += 1
                        app._awaited.pop(token, None)
                    await asyncio.sleep(gap if gap is not None else rnd.uniform(0.01, 0.05))
        all_ = [x for v in out.values() for x in v]
        handle = [a + b for a, b, _ in app.batches]
        return {
            "members": members,
            "missed": missed,
            "all": summary(all_),
            **{k: summary(v) for k, v in out.items()},
            "handle": summary(handle),
            "samples": all_,
        }


# ---------------------------------------------------------------- 5. poll-and-rescan
class PollRescan:
    """The peers' approach: every `interval` s list the team folders and re-read and parse every file."""

    def __init__(self, root: Path, interval: float = 1.0):
        self.root = root
        self.interval = interval
        self.awaited: dict[str, float] = {}  # token -> write time (filled by the driver)
        self.seen: dict[str, float] = {}
        self.polls = 0

    def poll(self) -> str:
        parts: list[str] = []
        td = team_dir(self.root)
        cfg = json.loads((td / "config.json").read_text())
        parts.append(json.dumps(cfg))
        for p in sorted((self.root / ".tasks").glob("task_*.json")):
            try:
                parts.append(json.loads(p.read_text()).get("subject", ""))
            except (OSError, ValueError):
                pass
        for p in sorted(td.glob("*_inbox.jsonl")):
            for line in p.read_text().splitlines():
                try:
                    parts.append(json.loads(line).get("content", ""))
                except ValueError:
                    pass
        for p in sorted((td / "logs").iterdir()):
            for line in p.read_text().splitlines():
                try:
                    parts.append(json.loads(line).get("text", ""))
                except ValueError:
                    parts.append(line)
        self.polls += 1
        return "\n".join(parts)

    async def run(self, stop: asyncio.Event) -> None:
        # A random phase, as a peer's timer has no relation to when teammates write.
        await asyncio.sleep(random.uniform(0, self.interval))
        while not stop.is_set():
            text = await asyncio.to_thread(self.poll)
            t = time.time()
            for token in [k for k in self.awaited if k in text]:
                self.seen[token] = t - self.awaited.pop(token)
            try:
                await asyncio.wait_for(stop.wait(), self.interval)
            except TimeoutError:
                pass


async def poll_latency(members: int, changes: int, period: float = 1.0, seed: int = 2) -> dict:
    rnd = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="tt-bench-") as tmp:
        root = make_team(Path(tmp), members, tasks=max(20, 2 * members))
        poller = PollRescan(root, period)
        stop = asyncio.Event()
        runner = asyncio.create_task(poller.run(stop))
        kinds = ["log", "inbox", "task"]
        async with Writer(root) as w:
            for i in range(changes):
                kind = kinds[i % 3]
                token = f"{kind[0].upper()}{i:05d}q"
                cmd = change_cmd(kind, token, members)
                # Register before the write with a placeholder, then the true write time.
                poller.awaited[token] = time.time()
                poller.awaited[token] = await w.do(**cmd)
                await asyncio.sleep(rnd.uniform(0.1, 0.3))
            end = time.time() + 2 * period + 1
            while poller.awaited and time.time() < end:
                await asyncio.sleep(0.05)
        stop.set()
        await runner
        s = list(poller.seen.values())
        return {"members": members, "period_s": period, "missed": len(poller.awaited), "all": summary(s), "samples": s}


def poll_idle(members: int, seconds: float, period: float = 1.0) -> dict:
    with tempfile.TemporaryDirectory(prefix="tt-bench-") as tmp:
        from probe import proc_cpu_seconds

        root = make_team(Path(tmp), members, tasks=2 * members, log_bytes=IDLE_LOG_BYTES)
        poller = PollRescan(root, period)
        c0, t0 = proc_cpu_seconds(), time.time()
        while time.time() - t0 < seconds:
            poller.poll()
            time.sleep(period)
        cpu, wall = proc_cpu_seconds() - c0, time.time() - t0
        return {"members": members, "period_s": period, "cpu_s": cpu, "wall_s": wall, "core_pct": 100 * cpu / wall}


# ---------------------------------------------------------------- 2. scale
def make_scale_team(root: Path, members: int, tasks: int, log_mb: float) -> None:
    make_team(root, members, tasks, log_bytes=int(log_mb * (1 << 20) / members))


async def scale_once(root: Path, members: int, tasks: int, updates: int) -> dict:
    import textual.pilot
    from probe import rss_mb

    # run_test waits at most 30 s for the first screen to settle; a slow first screen must be
    # measured, not turned into an error.
    wait = textual.pilot.Pilot._wait_for_screen
    textual.pilot.Pilot._wait_for_screen = lambda self, timeout=600.0: wait(self, timeout)
    app = new_app(root)
    # Complete: the first frame whose header counts every task (awaited before the app starts).
    # ... and whose large log panel shows the selected teammate's (m000) last line.
    futs = [app.expect(t) for t in (f"/{tasks} done", f"END-{member_name(0)}")]
    async with app.run_test(size=SIZE):
        first = max(await asyncio.wait_for(asyncio.gather(*futs), 600))
        first_screen = first - app.created_at
        rss_first, _ = rss_mb()
        await asyncio.sleep(1.0)
        app.batches.clear()
        lat = []
        async with Writer(root) as w:
            for i in range(updates):
                token = f"U{i:05d}q"
                fut = app.expect(token)
                t_write = await w.do(op="task", task=1, members=members, token=token)
                try:
                    lat.append(await asyncio.wait_for(fut, 10) - t_write)
                except TimeoutError:
                    app._awaited.pop(token, None)
                await asyncio.sleep(0.05)
        task_batches = [b for b in app.batches if b[2] >= 1]
        rss_now, rss_peak = rss_mb()
    return {
        "first_screen_s": first_screen,
        "load_s": app.opened_at - app.created_at,
        "rss_first_mb": rss_first,
        "rss_peak_mb": rss_peak,
        "rss_end_mb": rss_now,
        "update_apply_ms": [1000 * a for a, _, _ in task_batches],
        "update_handle_ms": [1000 * (a + b) for a, b, _ in task_batches],
        "update_latency_s": lat,
    }


# ---------------------------------------------------------------- 2b. Claude Code transcripts
CC_TEAM = "session-bench0"
CC_LEAD_SESSION = "bench000-lead-4000-8000-000000000000"


def make_claude_team(root: Path, teammates: int, mb: float) -> list:
    """A Claude Code 2.1.328 team: the lead and `teammates` pane teammates, each with a session
    transcript of `mb` MB (benchmarks/transcripts.py), the first ending on an END marker."""
    from transcripts import write_transcript

    names = [f"mate{i:02d}" for i in range(teammates)]
    now_ms = int(time.time() * 1000)
    members = [
        {
            "agentId": f"team-lead@{CC_TEAM}",
            "name": "team-lead",
            "agentType": "team-lead",
            "joinedAt": now_ms - 3_600_000,
            "tmuxPaneId": "leader",
            "cwd": "/src/app",
            "subscriptions": [],
            "backendType": "in-process",
        }
    ]
    members += [
        {
            "agentId": f"{n}@{CC_TEAM}",
            "name": n,
            "color": "blue",
            "joinedAt": now_ms - 3_500_000,
            "tmuxPaneId": f"%{i + 1}",
            "subscriptions": [],
            "model": "claude-sonnet-4-5",
            "prompt": "bench",
            "planModeRequired": False,
            "cwd": "/src/app",
            "backendType": "tmux",
            "isActive": True,
        }
        for i, n in enumerate(names)
    ]
    team = root / "teams" / CC_TEAM
    (team / "inboxes").mkdir(parents=True)
    (root / "tasks" / CC_TEAM).mkdir(parents=True)
    config = {
        "name": CC_TEAM,
        "createdAt": now_ms - 3_600_000,
        "leadAgentId": f"team-lead@{CC_TEAM}",
        "leadSessionId": CC_LEAD_SESSION,
        "members": members,
    }
    (team / "config.json").write_text(json.dumps(config, indent=2))
    for n in ["team-lead", *names]:
        (team / "inboxes" / f"{n}.json").write_text("[]")
    project = root / "projects" / "-src-app"
    project.mkdir(parents=True)
    size = int(mb * (1 << 20))
    write_transcript(project / f"{CC_LEAD_SESSION}.jsonl", size, seed=1000)
    writers = []
    for i, n in enumerate(names):
        w = write_transcript(project / "pending.jsonl", size, seed=i, team=CC_TEAM, agent=n)
        (project / "pending.jsonl").rename(project / f"{w.session}.jsonl")
        writers.append((project / f"{w.session}.jsonl", w))
    path, w = writers[0]
    with open(path, "ab") as fh:
        fh.write(w._assistant([{"type": "text", "text": f"END-{names[0]}"}], "end_turn")[0])
    return writers


def journal_bench(messages: int) -> dict:
    """A Claude Code team's journal while its inboxes churn: each message written to a teammate's
    inbox and pruned a few later (delivered), as Claude Code does, every batch applied by the
    real TeamState. Measures what the journal costs the dashboard's loop per batch (building the
    records; the writing is another thread's), how long the writer needs after the last batch,
    and how big the journal is at the end (bounded: one file and one older generation)."""
    from teamtui.protocol.claude import journal as jmod
    from teamtui.protocol.layout import open_team
    from teamtui.protocol.state import TeamState

    with tempfile.TemporaryDirectory(prefix="tt-bench-") as tmp:
        root = Path(tmp) / "claude"
        make_claude_team(root, 2, 0.05)
        store = open_team(root, CC_TEAM, "claude")
        where = Path(tmp) / "journal"
        journal = jmod.TeamJournal.open(store, where)
        observe, cost = journal.observe, []

        def timed(state, changes) -> None:
            t0 = time.perf_counter()
            observe(state, changes)
            cost.append(time.perf_counter() - t0)

        journal.observe = timed  # type: ignore[method-assign]
        state = TeamState(store, journal=journal)
        state.load_all()
        inbox = root / "teams" / CC_TEAM / "inboxes" / "mate00.json"
        pending: list[dict] = []
        t0 = time.perf_counter()
        for i in range(messages):
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
            pending.append(
                {
                    "from": "team-lead",
                    "text": f"step {i}: " + "run the tests and report back " * 6,
                    "timestamp": stamp,
                    "read": False,
                    "msgV": 1,
                    "msg_id": f"{i:032x}",
                    "type": "message",
                }
            )
            if len(pending) > 5:  # the teammate took the older ones: they leave the file (delivered)
                pending = pending[-2:]
            tmp_path = inbox.with_name(f"mate00.json.{i}")
            tmp_path.write_text(json.dumps(pending))
            os.replace(tmp_path, inbox)
            state.apply_batch([inbox])
        loop_s = time.perf_counter() - t0
        t1 = time.perf_counter()
        jmod.flush(120)
        drain = time.perf_counter() - t1
        files = sorted(where.iterdir())
        records = sum(1 for f in files for _ in f.open("rb"))
        return {
            "messages": messages,
            "batches": len(cost),
            "observe": summary(cost),
            "loop_s": loop_s,
            "drain_s": drain,
            "bytes": sum(f.stat().st_size for f in files),
            "limit_bytes": 2 * jmod.MAX_FILE_BYTES,
            "files": len(files),
            "records_on_disk": records,
            "dropped": jmod._WRITER.dropped,
        }


async def transcripts_bench(teammates: int, mb: float, n: int, seed: int = 4) -> dict:
    """First screen of a Claude Code team with big transcripts, then new lines to the screen."""
    import textual.pilot
    from probe import BenchTUI, rss_mb

    wait = textual.pilot.Pilot._wait_for_screen
    textual.pilot.Pilot._wait_for_screen = lambda self, timeout=600.0: wait(self, timeout)
    rnd = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="tt-bench-cc-") as tmp:
        root = Path(tmp)
        writers = make_claude_team(root, teammates, mb)
        (root / "_config").mkdir()
        app = BenchTUI.watching(
            root, CC_TEAM, "claude", config_path=root / "_config" / "config.toml", cursor_blink=False
        )
        # First screen: the selected teammate's last line in the large log panel; then the team's tokens in
        # the header, then what they cost (genai-prices, loaded after the first screen) beside them.
        shown, counted, priced = app.expect("END-mate00"), app.expect(" tokens "), app.expect(" tokens · $")
        async with app.run_test(size=SIZE):
            first_screen = await asyncio.wait_for(shown, 600) - app.created_at
            tokens_s = await asyncio.wait_for(counted, 600) - app.created_at
            cost_s = await asyncio.wait_for(priced, 600) - app.created_at
            rss_first, _ = rss_mb()
            await asyncio.sleep(1.0)
            assert app.selected == "mate00", app.selected
            path, w = writers[0]
            lat, missed = [], 0
            for i in range(n):
                token = f"T{i:05d}q"
                call = {
                    "type": "tool_use",
                    "id": f"toolu_bench_{i}",
                    "name": "Bash",
                    "input": {"command": f"echo {token}"},
                }
                line = w._assistant([call], "tool_use")[0]
                fut = app.expect(f"Bash: echo {token}")
                t_write = time.time()
                with open(path, "ab") as fh:
                    fh.write(line)
                try:
                    lat.append(await asyncio.wait_for(fut, 5.0) - t_write)
                except TimeoutError:
                    missed += 1
                    app._awaited.pop(f"Bash: echo {token}", None)
                await asyncio.sleep(rnd.uniform(0.01, 0.05))
            _, rss_peak = rss_mb()
    return {
        "teammates": teammates,
        "mb": mb,
        "first_screen_s": first_screen,
        "tokens_s": tokens_s,
        "cost_s": cost_s,
        "load_s": app.opened_at - app.created_at,
        "rss_first_mb": rss_first,
        "rss_peak_mb": rss_peak,
        "line": summary(lat),
        "missed": missed,
        "samples": lat,
    }


# ---------------------------------------------------------------- 3. sustained
async def sustained(members: int, rate: float, seconds: float, key_every: float = 1.0) -> dict:
    with tempfile.TemporaryDirectory(prefix="tt-bench-") as tmp:
        root = make_team(Path(tmp), members, tasks=2 * members)
        app = new_app(root)
        handled: list[tuple[float, float]] = []  # (write time, handled time) for every line
        screen_lat: list[float] = []
        pending_screen: list[asyncio.Task] = []
        selected = member_name(0)
        count = 0

        def on_entries(member: str, entries, now: float) -> None:
            nonlocal count
            for e in entries:
                if e.text.startswith("S") and e.ts:
                    count += 1
                    handled.append((e.ts, now))
                    if member == selected:
                        token = e.text.split(" ", 1)[0]
                        fut = app.expect(token)
                        ts = e.ts

                        async def wait(fut=fut, ts=ts):
                            try:
                                screen_lat.append(await asyncio.wait_for(fut, 10) - ts)
                            except TimeoutError:
                                pass

                        pending_screen.append(asyncio.ensure_future(wait()))

        open_lat: list[float] = []  # "/" pressed -> the filter shown as being edited
        close_lat: list[float] = []  # escape pressed -> the first frame after it was handled
        full_gc: list[float] = []  # CPython's full collections during the run, seconds each
        gc_started = [0.0]

        def on_gc(phase: str, info: dict) -> None:
            if info["generation"] == 2:
                if phase == "start":
                    gc_started[0] = time.perf_counter()
                else:
                    full_gc.append(time.perf_counter() - gc_started[0])

        async with app.run_test(size=SIZE):
            await wait_opened(app)
            await asyncio.sleep(0.5)
            app.on_log_entries = on_entries
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                str(WRITER),
                str(root),
                "load",
                str(members),
                str(rate),
                str(seconds),
                stdout=asyncio.subprocess.PIPE,
            )
            start = json.loads(await proc.stdout.readline())["start"]
            from textual import events

            driver = app._driver
            gc.callbacks.append(on_gc)
            while time.time() - start < seconds:
                await asyncio.sleep(key_every)
                # A real key press through the driver, as a terminal would deliver it: "/" opens the
                # task filter; answered when a frame shows the placeholder it has while being edited.
                fut = app.expect("filter tasks: id")
                t0 = time.time()
                ev = events.Key("slash", "/")
                ev.set_sender(app)
                driver.send_message(ev)
                try:
                    open_lat.append(await asyncio.wait_for(fut, 5) - t0)
                except TimeoutError:
                    open_lat.append(float("inf"))
                await asyncio.sleep(0.1)
                # escape leaves it again; answered at the first frame after close_filter ran.
                fut = app.frame_after_close()
                t0 = time.time()
                ev = events.Key("escape", "\x1b")
                ev.set_sender(app)
                driver.send_message(ev)
                try:
                    close_lat.append(await asyncio.wait_for(fut, 5) - t0)
                except TimeoutError:
                    close_lat.append(float("inf"))
            gc.callbacks.remove(on_gc)
            tail = json.loads(await proc.stdout.readline())
            await proc.wait()
            written, t_end = tail["written"], tail["end"]
            end = time.time() + 30
            while count < written and time.time() < end:
                await asyncio.sleep(0.01)
            drain = time.time() - t_end
            await asyncio.gather(*pending_screen)
        lat_all = [h - w for w, h in handled]
        # Backlog: the handling latency in the first and last fifth of the run.
        fifth = max(1, len(lat_all) // 5)
        first_q, last_q = lat_all[:fifth], lat_all[-fifth:]
        return {
            "members": members,
            "rate": rate,
            "seconds": seconds,
            "written": written,
            "handled": count,
            "writer_late_s": tail["late"],
            "drain_s": drain,
            "handled_latency": summary(lat_all),
            "screen_latency": summary(screen_lat),
            "first_fifth_p50": pct(first_q, 50),
            "last_fifth_p50": pct(last_q, 50),
            "first_fifth_p99": pct(first_q, 99),
            "last_fifth_p99": pct(last_q, 99),
            "key": summary(open_lat + close_lat),
            "key_open": summary(open_lat),
            "key_close": summary(close_lat),
            "full_gc": summary(full_gc),
        }


# ---------------------------------------------------------------- 4. idle
IDLE_LOG_BYTES = 100 * 1024  # per teammate, for the dashboard and the poller alike
IDLE_WINDOW = 10.0


async def idle(members: int, seconds: float, warmup: float) -> dict:
    from probe import proc_cpu_seconds

    with tempfile.TemporaryDirectory(prefix="tt-bench-") as tmp:
        root = make_team(Path(tmp), members, tasks=2 * members, log_bytes=IDLE_LOG_BYTES)
        app = new_app(root)
        windows = []
        async with app.run_test(size=SIZE):
            await wait_opened(app)
            await asyncio.sleep(warmup)
            f0, c0, t0 = app.frames, proc_cpu_seconds(), time.time()
            while time.time() - t0 < seconds - 1e-3:
                cw, tw = proc_cpu_seconds(), time.time()
                await asyncio.sleep(min(IDLE_WINDOW, seconds - (tw - t0)))
                windows.append(100 * (proc_cpu_seconds() - cw) / (time.time() - tw))
            cpu, wall, frames = proc_cpu_seconds() - c0, time.time() - t0, app.frames - f0
        return {
            "members": members,
            "cpu_s": cpu,
            "wall_s": wall,
            "core_pct": 100 * cpu / wall,
            "frames": frames,
            "windows_pct": windows,
        }


# ---------------------------------------------------------------- 6. start-up and import
def startup_once(root: Path, needle: bytes, timeout: float = 20.0) -> float:
    """`teamtui watch ROOT` in a real pseudo-terminal: seconds from exec to the first screen."""
    exe = Path(sys.executable).with_name("teamtui")
    return exec_until(
        [str(exe), "watch", str(root), "--team", TEAM, "--teammate-mode", "in-process"],
        needle,
        size=SIZE,
        what="first screen",
        timeout=timeout,
        env={"XDG_CONFIG_HOME": str(root / "_config")},
    )


def startup(reps: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="tt-bench-") as tmp:
        root = make_team(Path(tmp), 5, tasks=10)
        # The header's task count is on the first screen once the team is loaded.
        needle = b"/10 done"
        startup_once(root, needle)  # warm the page cache
        times = [startup_once(root, needle) for _ in range(reps)]
    return {"startup": summary(times), "samples": times}


def import_time(reps: int) -> dict:
    py = sys.executable

    def wall(code: str) -> float:
        t0 = time.perf_counter()
        subprocess.run([py, "-c", code], check=True)
        return time.perf_counter() - t0

    check = "import sys, teamtui.protocol; assert 'textual' not in sys.modules"
    wall(check)
    base = [wall("pass") for _ in range(reps)]
    full = [wall("import teamtui.protocol") for _ in range(reps)]
    cumul = []
    for _ in range(reps):
        r = subprocess.run(
            [py, "-X", "importtime", "-c", "import teamtui.protocol"], capture_output=True, text=True, check=True
        )
        for line in r.stderr.splitlines():
            parts = [p.strip() for p in line.split("|")]
            if len(parts) == 3 and parts[2] == "teamtui.protocol":
                cumul.append(int(parts[1]) / 1e6)
    return {
        "python_s": summary(base),
        "with_import_s": summary(full),
        "import_only_p50_s": pct(full, 50) - pct(base, 50),
        "importtime_cumulative_s": summary(cumul),
    }


# ---------------------------------------------------------------- 7. the CLI on a teammate's step
CLI_COMMANDS = ("send", "log", "inbox", "task claim", "task complete", "status", "tasks", "follow")


def _cli_argv(command: str, claimed: str) -> list[str]:
    me, other = member_name(1), member_name(2)
    return {
        "send": ["send", other, "build is green", "--from", me],
        "log": ["log", me, "ran the unit tests"],
        "inbox": ["inbox", me],
        "task claim": ["task", "claim", "--as", me],
        "task complete": ["task", "complete", claimed],
        "status": ["status"],
        "tasks": ["tasks"],
        "follow": ["follow", me],
    }[command]


def _follow_once(exe: list[str], env: dict[str, str]) -> float:
    """`teamtui follow`: exec until its first screen (the header and the task line) is printed."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([*exe, *_cli_argv("follow", "")], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        head = proc.stdout.readline()
        task = proc.stdout.readline()
        took = time.perf_counter() - t0
        if not (head.startswith("following") and task.startswith("task")):
            raise RuntimeError(f"follow printed {head!r} {task!r}")
    finally:
        proc.kill()
        proc.wait()
    return took


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def cli(reps: int, before: str | None = None) -> dict:
    """Each hot command, `teamtui follow` and a bare `python -c pass`, each a fresh process, in a shuffled order per round."""
    venv_teamtui = str(Path(sys.executable).with_name("teamtui"))
    trees = {"now": None, **({"before": before} if before else {})}
    rng = random.Random(7)
    samples: dict[str, dict[str, list[float]]] = {t: {c: [] for c in CLI_COMMANDS} for t in trees}
    base: list[float] = []
    cpu: dict[str, list[float]] = collections.defaultdict(
        list
    )  # CPU seconds of each run, by command line (a check on the wall times under load)
    with tempfile.TemporaryDirectory(prefix="tt-bench-cli-") as tmp:
        roots = {t: make_team(Path(tmp) / t, 5, tasks=3 * (reps + 2) + 3) for t in trees}

        def env_for(tree: str) -> dict[str, str]:
            # PYTHONDONTWRITEBYTECODE off: an installed teamtui has its .pyc files; the warm-up round writes them.
            drop = ("TMUX", "TMUX_PANE", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "TEAMTUI_NAME")
            env = {k: v for k, v in os.environ.items() if k not in drop}
            env.update(TEAMTUI_ROOT=str(roots[tree]), TEAMTUI_TEAM=TEAM, XDG_CONFIG_HOME=str(Path(tmp) / "_config"))
            if trees[tree]:
                env["PYTHONPATH"] = trees[tree]  # ahead of the venv's editable install
            return env

        def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float, str]:
            cpu0 = _children_cpu()
            t0 = time.perf_counter()
            r = subprocess.run(argv, env=env, capture_output=True, text=True)
            took = time.perf_counter() - t0
            if r.returncode != 0:
                raise RuntimeError(f"{argv[1:]} exited {r.returncode}: {r.stderr[-500:]}")
            return took, _children_cpu() - cpu0, r.stdout.strip()

        for rnd in range(reps + 1):  # round 0 warms the page cache, writes the .pyc files and is not counted
            jobs = [("pass", "now")] + [(c, t) for t in trees for c in CLI_COMMANDS if c != "task complete"]
            rng.shuffle(jobs)
            for command, tree in jobs:
                env = env_for(tree)
                if command == "pass":
                    took, used, _ = timed([sys.executable, "-c", "pass"], env)
                    if rnd:
                        base.append(took)
                        cpu["pass"].append(used)
                    continue
                if command == "follow":
                    took = _follow_once([venv_teamtui], env)
                    if rnd:
                        samples[tree][command].append(took)
                    continue
                took, used, printed = timed([venv_teamtui, *_cli_argv(command, "")], env)
                if rnd:
                    samples[tree][command].append(took)
                    cpu[f"{tree} {command}"].append(used)
                if command == "task claim":  # complete what was claimed, so a ready task is left for the next round
                    took, used, _ = timed([venv_teamtui, *_cli_argv("task complete", printed)], env)
                    if rnd:
                        samples[tree]["task complete"].append(took)
                        cpu[f"{tree} task complete"].append(used)
    python_p50 = statistics.median(base)
    out: dict = {
        "python_s": summary(base),
        "python_p50_s": python_p50,
        "trees": {},
        "cpu_p50_s": {k: statistics.median(v) for k, v in cpu.items()},
    }
    for tree, per in samples.items():
        out["trees"][tree] = {
            c: {"p50_s": statistics.median(v), "ratio": statistics.median(v) / python_p50, "summary": summary(v)}
            for c, v in per.items()
        }
    return out


# ---------------------------------------------------------------- main
def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("name")
    ap.add_argument("--members", type=int, default=5)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--rate", type=float, default=10)
    ap.add_argument("--tasks", type=int, default=10000)
    ap.add_argument("--log-mb", type=float, default=100)
    ap.add_argument("--root", type=Path)
    ap.add_argument("--updates", type=int, default=20)
    ap.add_argument("--warmup", type=float, default=5)
    ap.add_argument("--gap", type=float)
    ap.add_argument("--period", type=float, default=1.0, help="poll, poll_idle: the poller's period in seconds")
    ap.add_argument("--before-tree", help="cli: also time the package tree in this folder (an older commit)")
    a = ap.parse_args()
    if a.name == "latency":
        res = asyncio.run(latency(a.members, a.n, gap=a.gap))
    elif a.name == "poll":
        res = asyncio.run(poll_latency(a.members, a.n, a.period))
    elif a.name == "poll_idle":
        res = poll_idle(a.members, a.seconds, a.period)
    elif a.name == "make_scale":
        make_scale_team(a.root, a.members, a.tasks, a.log_mb)
        res = {"root": str(a.root)}
    elif a.name == "scale":
        res = asyncio.run(scale_once(a.root, a.members, a.tasks, a.updates))
    elif a.name == "sustained":
        res = asyncio.run(sustained(a.members, a.rate, a.seconds))
    elif a.name == "idle":
        res = asyncio.run(idle(a.members, a.seconds, a.warmup))
    elif a.name == "startup":
        res = startup(a.n)
    elif a.name == "import":
        res = import_time(a.n)
    elif a.name == "transcripts":
        res = asyncio.run(transcripts_bench(a.members, a.log_mb, a.n))
    elif a.name == "journal":
        res = journal_bench(a.n)
    elif a.name == "cli":
        res = cli(a.n, a.before_tree)
    else:
        raise SystemExit(f"unknown scenario {a.name}")
    sys.stdout.write("\n" + json.dumps(res) + "\n")


if __name__ == "__main__":
    main()
