"""11. The control room over a fleet: N teams × M teammates of mixed layouts (benchmarks/fleetgen.py).

One fresh process per run; teamtui's state and config go to the run's own folders. Measured:

- first screen: from `LocalSource(...)` (discovery and every team read, as `teamtui ROOT…`
  does before the app starts) until the first frame the real app (BenchTUI: TeamTUI with the
  frame probe, headless, 160×50) hands the driver with every team in the overview's table;
  *complete*: until every Claude Code row shows its tokens (its transcripts read);
- change → overview row: another process (`fleetgen.py write`) rewrites or adds one task file
  of a random team (a task completed, or a new one: the row's "done/total" moves) and reports
  `time.time()` before the write; the latency ends at the first frame drawn while that row's
  Tasks cell holds the new figure. Each change waits for the previous one to show (or 5 s:
  missed), then 20–80 ms;
- app time per batch: what `TeamTUI.on_batch` reports (reading the files; FleetControl.changed:
  the needs, every row, the table);
- idle: CPU of the whole process (all threads) over `--idle` seconds after a 2 s warm-up, as row 4;
- resident memory: VmHWM at the end;
- in a pty: `teamtui ROOT… --teammate-mode in-process` from exec until the header says
  "N teams" (first run not counted: it warms the page cache).

`python benchmarks/fleet_bench.py --teams 20 --members 10 --changes 100 --idle 10 --pty 3` prints one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from fleetgen import claude_task, make_fleet, native_task  # noqa: E402
from ptyrun import exec_until  # noqa: E402

SIZE = (160, 50)
_DONE = re.compile(r"(\d+)/(\d+)")


def summary(xs: list[float]) -> dict:
    from scenarios import summary as s

    return s(xs)


def make_app(fleet, config: Path, teams: int):
    from probe import BenchTUI

    from teamtui.tui.widgets.fleet import FleetTable

    class FleetBench(BenchTUI):
        """The frame probe (BenchTUI) with the overview's rows as its tokens."""

        def __init__(self, *args, **kw):
            super().__init__(*args, **kw)
            self.rows_at: float | None = None  # the first frame with every team's row
            self.complete_at: float | None = None  # ... and every Claude Code row's tokens
            self.cells: dict[tuple[str, str], asyncio.Future[float]] = {}
            self.on_batch = self._batch_handled  # (seconds reading files, seconds in FleetControl.changed, tasks)
            self.handled_at: list[float] = []  # when each batch was through FleetControl.changed
            self._table = None

        def _batch_handled(self, changes, read_s: float, widgets_s: float) -> None:
            self.handled_at.append(time.time())
            super()._batch_handled(changes, read_s, widgets_s)

        def expect_cell(self, key: str, text: str) -> asyncio.Future[float]:
            fut = asyncio.get_running_loop().create_future()
            self.cells[(key, text)] = fut
            return fut

        def _probe_display(self, screen, renderable) -> None:
            if renderable is not None and self.fleet is not None:
                t = time.time()
                if self._table is None:
                    self._table = self.fleet.overview.query_one(FleetTable)
                table = self._table
                if self.rows_at is None and table.row_count >= teams:
                    self.rows_at = t
                if (
                    self.complete_at is None
                    and self.rows_at is not None
                    and all(r.tokens is not None for _, r in self.fleet.overview.rows if r.label == "Claude Code")
                ):
                    self.complete_at = t
                for (key, text), fut in list(self.cells.items()):
                    try:
                        shown = table.get_cell(key, "Tasks").plain
                    except Exception:  # noqa: BLE001 - the row is being rebuilt
                        continue
                    if shown == text:
                        del self.cells[(key, text)]
                        if not fut.done():
                            fut.set_result(t)
            super()._probe_display(screen, renderable)

    return FleetBench(fleet=fleet, config_path=config, cursor_blink=False, sync_panes=False)


class Writer:
    async def __aenter__(self) -> Writer:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            str(HERE / "fleetgen.py"),
            "write",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        return self

    async def write(self, path: Path, data: dict) -> float:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(
            (json.dumps({"path": str(path), "data": json.dumps(data, indent=2) + "\n"}) + "\n").encode()
        )
        await self.proc.stdin.drain()
        return json.loads(await self.proc.stdout.readline())["t"]

    async def __aexit__(self, *exc) -> None:
        assert self.proc.stdin
        self.proc.stdin.write(b'{"op": "quit"}\n')
        await self.proc.stdin.drain()
        await asyncio.wait_for(self.proc.wait(), 5)


async def headless(base: Path, made: dict, teams: int, members: int, changes: int, idle_s: float, seed: int) -> dict:
    import textual.pilot
    from probe import proc_cpu_seconds, rss_mb

    from teamtui.protocol.settings import load_settings
    from teamtui.session.local import LocalSource
    from teamtui.tui.widgets.fleet import row_key

    wait = textual.pilot.Pilot._wait_for_screen
    textual.pilot.Pilot._wait_for_screen = lambda self, timeout=600.0: wait(
        self, timeout
    )  # a slow first screen is measured
    rnd = random.Random(seed)
    config = base / "config" / "teamtui" / "config.toml"
    t0 = time.time()
    fleet = LocalSource(
        load_settings(config),
        roots=made["roots"],
        cwd=base / "cwd",
        claude_root=made["claude"],
        registry=base / "state" / "running",
        journal=base / "state" / "journal",
    )
    fleet.discover()
    discovered = time.time() - t0
    app = make_app(fleet, config, teams)
    async with app.run_test(size=SIZE):
        end = time.time() + 600
        while app.complete_at is None and time.time() < end:
            await asyncio.sleep(0.01)
        first, complete = app.rows_at - t0, app.complete_at - t0
        rss_first, _ = rss_mb()
        await asyncio.sleep(1.0)
        app.batches.clear()
        keys = list(fleet.sessions)
        added: dict[tuple, list[int]] = {k: [] for k in keys}  # tasks this run added and did not complete yet
        next_id = {k: 100 for k in keys}
        lat: dict[str, list[float]] = {"add": [], "complete": []}
        handled: list[float] = []  # write → the batch through FleetControl.changed (the rest is the frame)
        missed = 0
        async with Writer() as w:
            for _ in range(changes):
                key = rnd.choice(keys)
                shown = app._table.get_cell(row_key(key), "Tasks").plain
                m = _DONE.fullmatch(shown)
                done, total = (int(m[1]), int(m[2])) if m else (0, 0)
                kind = "complete" if added[key] and rnd.random() < 0.5 else "add"
                if kind == "add":
                    tid = next_id[key]
                    next_id[key] += 1
                    added[key].append(tid)
                    status, want = "pending", f"{done}/{total + 1}"
                else:
                    tid = added[key].pop(0)
                    status, want = "completed", f"{done + 1}/{total}"
                store = fleet.states[key].store
                if store.layout == "native":
                    path, data = store.task_path(str(tid)), native_task(tid, members, status)
                else:
                    path, data = store.tasks_dir / f"{tid}.json", claude_task(tid, status)
                fut = app.expect_cell(row_key(key), want)
                t_write = await w.write(path, data)
                try:
                    lat[kind].append(await asyncio.wait_for(fut, 5.0) - t_write)
                    handled.append(next((h for h in app.handled_at if h >= t_write), float("nan")) - t_write)
                except TimeoutError:
                    missed += 1
                    app.cells.pop((row_key(key), want), None)
                    if os.environ.get("FLEET_BENCH_DEBUG"):
                        print(
                            f"missed: {key[2]} {kind} #{tid} want {want}, shows "
                            f"{app._table.get_cell(row_key(key), 'Tasks').plain}",
                            file=sys.stderr,
                        )
                await asyncio.sleep(rnd.uniform(0.02, 0.08))
        batches = list(app.batches)
        await asyncio.sleep(2.0)  # warm-up: the last batches and frames
        f0, c0, w0 = app.frames, proc_cpu_seconds(), time.time()
        await asyncio.sleep(idle_s)
        cpu, wall, frames = proc_cpu_seconds() - c0, time.time() - w0, app.frames - f0
        rss_now, rss_peak = rss_mb()
        watched = len(fleet.watch_dirs())
    all_ = lat["add"] + lat["complete"]
    return {
        "discover_s": discovered,
        "first_screen_s": first,
        "complete_s": complete,
        "change": summary(all_),
        "add": summary(lat["add"]),
        "complete": summary(lat["complete"]),
        "missed": missed,
        "handled": summary(handled),
        "read_ms": summary([1000 * r for r, _, _ in batches]),
        "changed_ms": summary([1000 * c for _, c, _ in batches]),
        "idle_cpu_s": cpu,
        "idle_wall_s": wall,
        "idle_pct": 100 * cpu / wall,
        "idle_frames": frames,
        "rss_first_mb": rss_first,
        "rss_end_mb": rss_now,
        "rss_peak_mb": rss_peak,
        "watched_dirs": watched,
        "samples": all_,
    }


def pty_once(base: Path, made: dict, teams: int, timeout: float = 120.0) -> float:
    """`teamtui ROOT… --teammate-mode in-process` in a pseudo-terminal: exec → "N teams" in the header."""
    exe = Path(sys.executable).with_name("teamtui")
    return exec_until(
        [str(exe), *map(str, made["roots"]), "--teammate-mode", "in-process"],
        f"{teams} teams".encode(),
        size=SIZE,
        what="overview",
        timeout=timeout,
        cwd=base / "cwd",
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--teams", type=int, default=20)
    ap.add_argument("--members", type=int, default=10)
    ap.add_argument("--changes", type=int, default=100)
    ap.add_argument("--idle", type=float, default=10.0)
    ap.add_argument("--pty", type=int, default=3, help="pty runs counted (one more warms the page cache); 0: none")
    ap.add_argument("--seed", type=int, default=5)
    a = ap.parse_args()
    base = Path(tempfile.mkdtemp(prefix="tt-bench-fleet-"))
    try:
        # teamtui's own state (journal, registry of runs), config and Claude folder: the run's, not the user's.
        for d in ("state", "config/teamtui", "cwd", "home"):
            (base / d).mkdir(parents=True)
        os.environ.update(
            XDG_STATE_HOME=str(base / "state"),
            XDG_CONFIG_HOME=str(base / "config"),
            CLAUDE_CONFIG_DIR=str(base / "claude"),
            HOME=str(base / "home"),
        )
        os.environ.pop("TEAMTUI_ROOT", None)
        os.environ.pop("TEAMTUI_TEAM", None)
        t0 = time.time()
        made = make_fleet(base, a.teams, a.members)
        made_s = time.time() - t0
        res = asyncio.run(headless(base, made, a.teams, a.members, a.changes, a.idle, a.seed))
        ptys = [pty_once(base, made, a.teams) for _ in range(a.pty + 1)][1:] if a.pty else []
        res.update(
            teams=a.teams,
            members=a.members,
            native=len(made["roots"]),
            claude=a.teams - len(made["roots"]),
            made_s=made_s,
            pty_s=ptys,
            pty_p50_s=statistics.median(ptys) if ptys else None,
            pty_max_s=max(ptys) if ptys else None,
            load=os.getloadavg(),
        )
    finally:
        shutil.rmtree(base, ignore_errors=True)
    sys.stdout.write("\n" + json.dumps(res) + "\n")


if __name__ == "__main__":
    main()
