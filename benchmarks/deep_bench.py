"""13. A deep folder chain in a team folder: the control room keeps answering keys and other teams.

Two native teams, each in a root of its own (benchmarks/fleetgen.py). While the real control room
(BenchTUI with the fleet's frame probe, headless, 160×50) watches both, another process makes a
chain of `--depth` nested folders inside the first team's folder (`chain/d/d/…`, one `d` per level,
so the deepest path stays under PATH_MAX) and writes one file at every level, `--pace` seconds
apart (1 ms: a shell loop's pace, slow enough that the watcher takes in every level).
Measured while the chain is written and until the room has taken every batch of it:

- keys: every 50 ms a `down` or `up` is sent to the overview (the driver's own key message);
  answered = the first frame drawn with the table's cursor on the other row;
- other teams' changes: every 100 ms another process (`fleetgen.py write`) adds a task to the
  second team; change → the first frame whose Tasks cell shows it (as row 11);
- the chain: written in how long, and when the room had taken its last batch.

`python benchmarks/deep_bench.py --depth 2000` prints one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from fleet_bench import SIZE, Writer, make_app  # noqa: E402
from fleetgen import make_native, native_task  # noqa: E402

MEMBERS = 5
KEY_EVERY = 0.05
CHANGE_EVERY = 0.1

# The chain's writer: its own process, plain os calls, folders reached by descriptor (no long paths).
CHAIN = """
import os, sys, time
top, depth, pace = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
print(time.time(), flush=True)
for i in range(depth):
    os.mkdir("d" if i else "chain", dir_fd=fd)
    nxt = os.open("d" if i else "chain", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
    os.close(fd)
    fd = nxt
    f = os.open("level.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
    os.write(f, b"%d\\n" % i)
    os.close(f)
    time.sleep(pace)
print(time.time(), flush=True)
"""


class _Empty:
    def since(self, seq: int) -> list:
        return []


def summary(xs: list[float]) -> dict:
    from scenarios import summary as s

    return s(xs)


async def run(base: Path, depth: int, pace: float) -> dict:
    from textual import events

    from teamtui.protocol.settings import load_settings
    from teamtui.session.local import LocalSource
    from teamtui.tui.widgets.fleet import FleetTable, row_key

    deep_root = make_native(base, 0, MEMBERS, 10_000)
    other_root = make_native(base, 1, MEMBERS, 10_000)
    config = base / "config" / "teamtui" / "config.toml"
    fleet = LocalSource(
        load_settings(config),
        roots=[deep_root, other_root],
        cwd=base / "cwd",
        claude_root=base / "claude",
        registry=base / "state" / "running",
        journal=base / "state" / "journal",
    )
    fleet.discover()
    app = make_app(fleet, config, 2)
    other = next(k for k, s in fleet.sessions.items() if s.store.root == other_root)
    deep_dir = fleet.sessions[next(k for k in fleet.sessions if k != other)].store.team_dir
    async with app.run_test(size=SIZE):
        for _ in range(300):
            await asyncio.sleep(0.01)
            if app.rows_at is not None:
                break
        await asyncio.sleep(1.0)
        table = app.fleet.overview.query_one(FleetTable)
        table.focus()
        keys: list[float] = []
        changes: list[float] = []
        missed = {"keys": 0, "changes": 0}
        stop = asyncio.Event()

        async def press_keys() -> None:
            down = True
            while not stop.is_set():
                want = 1 if down else 0
                sent = time.time()
                app._driver.send_message(events.Key("down" if down else "up", None))
                end = sent + 30
                while table.cursor_row != want and time.time() < end:
                    await asyncio.wait([app.next_frame()], timeout=1.0)
                if table.cursor_row == want:
                    keys.append(time.time() - sent)
                else:
                    missed["keys"] += 1
                down = not down
                await asyncio.sleep(KEY_EVERY)

        async def change_other() -> None:
            next_id = 500
            async with Writer() as w:
                while not stop.is_set():
                    shown = table.get_cell(row_key(other), "Tasks").plain
                    done, total = (int(x) for x in shown.split("/"))
                    fut = app.expect_cell(row_key(other), f"{done}/{total + 1}")
                    t_write = await w.write(
                        fleet.sessions[other].store.task_path(str(next_id)), native_task(next_id, MEMBERS, "pending")
                    )
                    next_id += 1
                    try:
                        changes.append(await asyncio.wait_for(fut, 30.0) - t_write)
                    except TimeoutError:
                        missed["changes"] += 1
                        app.cells.pop((row_key(other), f"{done}/{total + 1}"), None)
                    await asyncio.sleep(CHANGE_EVERY)

        pressing = asyncio.create_task(press_keys())
        changing = asyncio.create_task(change_other())
        await asyncio.sleep(1.0)  # a baseline before the chain
        chain = await asyncio.create_subprocess_exec(
            sys.executable, "-c", CHAIN, str(deep_dir), str(depth), str(pace), stdout=subprocess.PIPE
        )
        out, _ = await chain.communicate()
        started, written = (float(x) for x in out.split())
        # A log line written after the chain: once the room shows it, it has taken every batch before it.
        deep_key = next(k for k in fleet.sessions if k != other)
        fleet.sessions[deep_key].store.log("m000", "CHAIN-DONE")
        while not any(
            e.text == "CHAIN-DONE" for e in (fleet.sessions[deep_key].state.logs.get("m000") or _Empty()).since(0)
        ):
            await asyncio.sleep(0.01)
        caught_up = time.time()
        await asyncio.sleep(1.0)  # and a second after it
        stop.set()
        await asyncio.gather(pressing, changing)
        batches = list(app.batches)
    return {
        "depth": depth,
        "pace_s": pace,
        "chain_write_s": written - started,
        "caught_up_s": caught_up - started,
        "keys": summary(keys),
        "keys_max_s": max(keys) if keys else float("nan"),
        "changes": summary(changes),
        "missed": missed,
        "batches": len(batches),
        "read_ms": summary([1000 * r for r, _, _ in batches]),
        "changed_ms": summary([1000 * c for _, c, _ in batches]),
        "watched_dirs": len(fleet.watch_dirs()),
        "key_samples": keys,
        "change_samples": changes,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--depth", type=int, default=2000)
    ap.add_argument(
        "--pace", type=float, default=0.001, help="seconds between levels (a shell loop's pace: the watcher sees each)"
    )
    a = ap.parse_args()
    base = Path(tempfile.mkdtemp(prefix="tt-bench-deep-"))
    try:
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
        res = asyncio.run(run(base, a.depth, a.pace))
        res["load"] = os.getloadavg()
    finally:
        subprocess.run(["rm", "-rf", str(base)], check=False)  # shutil.rmtree recurses once per level
    sys.stdout.write("\n" + json.dumps(res) + "\n")


if __name__ == "__main__":
    main()
