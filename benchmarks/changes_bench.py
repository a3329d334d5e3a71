"""13. What each teammate changed: a Claude Code team of 10 teammates whose transcripts hold 1,000
edits between them (benchmarks/transcripts.py's turns, with an Edit or Write and its result every
few lines), on the real dashboard (BenchTUI, headless, 160×50).

- first fill: from the `c` key until the first frame the driver is handed with the changes view's
  title (every file counted); and the view's own fill (`ChangesScreen.fill`: TeamChanges.rows,
  the collisions, every table row) as timed inside it;
- a new edit → on screen: with the view open and one of mate00's files selected, an Edit result
  line appended to mate00's transcript (by this process, `time.time()` before the write) until
  the first frame whose diff title holds that file's new counts; each waits for the last (or 5 s:
  missed), then 10–50 ms;
- memory: the process's peak RSS, and the team's EditLog (edits held, diff characters held); then
  the bound itself: 200,000 edits of 40 lines each fed into one EditLog, its size (tracemalloc)
  after 2,000, 20,000 and 200,000 — it stops growing at its caps (protocol/edits.py).

`python benchmarks/changes_bench.py --teammates 10 --edits 1000 --n 100` prints one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from probe import BenchTUI, rss_mb  # noqa: E402
from scenarios import CC_TEAM, SIZE, make_claude_team, summary  # noqa: E402
from transcripts import TranscriptWriter, _dump  # noqa: E402

BENCH_FILE = "/src/app/aaa_bench.py"  # mate00's file the latency edits go to (its first row)


def edit_lines(w: TranscriptWriter, path: str, old: int, new: int, tid: str, create: bool = False) -> list[bytes]:
    """A Write or Edit call and the user line answering it, as Claude Code 2.1.332 writes them."""
    rng = w.rng
    before = [f"    old_{rng.getrandbits(24):06x}()" for _ in range(old)]
    after = [f"    new_{rng.getrandbits(24):06x}(x, y)" for _ in range(new)]
    if create:
        content = "\n".join(after) + "\n"
        call = {"type": "tool_use", "id": tid, "name": "Write", "input": {"file_path": path, "content": content}}
        result = {"type": "create", "filePath": path, "content": content, "structuredPatch": [], "originalFile": None}
    else:
        lines = [" def f():", *(f"-{x}" for x in before), *(f"+{x}" for x in after), " "]
        patch = [{"oldStart": 10, "oldLines": old + 2, "newStart": 10, "newLines": new + 2, "lines": lines}]
        call = {
            "type": "tool_use",
            "id": tid,
            "name": "Edit",
            "input": {"file_path": path, "old_string": "\n".join(before), "new_string": "\n".join(after)},
        }
        result = {
            "filePath": path,
            "oldString": "\n".join(before),
            "newString": "\n".join(after),
            "originalFile": None,
            "structuredPatch": patch,
            "userModified": False,
            "replaceAll": False,
        }
    out = w._assistant([call], "tool_use")
    block = {"tool_use_id": tid, "type": "tool_result", "content": f"The file {path} has been updated successfully."}
    out.append(_dump(w._base("user", message={"role": "user", "content": [block]}, toolUseResult=result)))
    return out


def make_team(root: Path, teammates: int, edits: int) -> tuple[list, int]:
    """The team, its transcripts with `edits` edits between them; (writers, files changed)."""
    writers = make_claude_team(root, teammates, 0.05)
    per = edits // teammates
    files: set[tuple[int, str]] = set()
    for i, (path, w) in enumerate(writers):
        own = [f"/src/app/mod{i:02d}/file{k:02d}.py" for k in range(20)]
        shared = [f"/src/app/shared/common{(i + k) % 8}.py" for k in range(2)]  # two teammates on each: collisions
        with open(path, "ab") as fh:
            if i == 0:
                for line in edit_lines(w, BENCH_FILE, 0, 1, "toolu_bench_first", create=True):
                    fh.write(line)
                files.add((i, BENCH_FILE))
            for k in range(per - (1 if i == 0 else 0)):
                if k % 4 == 0:
                    for line in w.turn():  # the rest of a working transcript between edits
                        fh.write(line)
                target = w.rng.choice(shared) if w.rng.random() < 0.15 else w.rng.choice(own)
                created = (i, target) not in files
                for line in edit_lines(w, target, w.rng.randint(1, 8), w.rng.randint(1, 12), f"toolu_{i}_{k}", created):
                    fh.write(line)
                files.add((i, target))
    return writers, len({p for _, p in files})


def log_bound(total: int, checkpoints: tuple[int, ...]) -> list[dict]:
    """An EditLog fed `total` edits of 40 diff lines each: its size at each checkpoint."""
    from teamtui.protocol.edits import Edit, EditLog, Hunk

    tracemalloc.start()
    log = EditLog()
    out = []
    for n in range(1, total + 1):
        lines = tuple(f"+    value_{n}_{i} = compute(value_{i - 1})  # forty lines of a hunk" for i in range(40))
        log.add(Edit(f"m{n % 10}", f"/src/f{n % 3000}.py", "Edit", float(n), 40, 0, (Hunk(1, 0, 1, 40, lines),)))
        if n in checkpoints:
            current, _ = tracemalloc.get_traced_memory()
            out.append(
                {"edits": n, "held": log.held, "chars": log.chars, "files": len(log.files), "traced_mb": current / 1e6}
            )
    tracemalloc.stop()
    return out


async def run(teammates: int, edits: int, n: int, seed: int = 13) -> dict:
    import textual.pilot

    from teamtui.tui.screens.changes import SEP, ChangesScreen

    wait = textual.pilot.Pilot._wait_for_screen
    textual.pilot.Pilot._wait_for_screen = lambda self, timeout=600.0: wait(self, timeout)
    rnd = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="tt-bench-changes-") as tmp:
        root = Path(tmp)
        writers, n_files = make_team(root, teammates, edits)
        (root / "_config").mkdir()
        app = BenchTUI.watching(
            root, CC_TEAM, "claude", config_path=root / "_config" / "config.toml", cursor_blink=False
        )
        fills: list[float] = []
        real_fill = ChangesScreen.fill

        def timed_fill(self: ChangesScreen) -> None:
            t = time.perf_counter()
            real_fill(self)
            fills.append(time.perf_counter() - t)

        ChangesScreen.fill = timed_fill  # type: ignore[method-assign]
        async with app.run_test(size=SIZE) as pilot:
            end = time.time() + 600
            while time.time() < end:
                feed = app.state.transcripts if app.state is not None else None
                if feed is not None and feed.ready and not feed.counting and feed.edits.held >= edits:
                    break
                await asyncio.sleep(0.02)
            log = app.state.transcripts.edits
            held, files_seen = log.held, len(log.files)
            await asyncio.sleep(0.5)
            title = app.expect(f"{n_files} files changed by {teammates}")
            t_key = time.time()
            await pilot.press("c")
            first_fill = await asyncio.wait_for(title, 30) - t_key
            screen = app.screen
            assert isinstance(screen, ChangesScreen)
            key = f"f{SEP}mate00{SEP}{BENCH_FILE}{SEP}seen"
            screen.select(key)
            await asyncio.sleep(0.3)
            path, w = writers[0]
            added = log.files[("mate00", BENCH_FILE)].added
            app.batches.clear()
            refreshes: list[float] = []
            real_refresh = screen.refresh_rows

            def timed_refresh() -> None:
                t = time.perf_counter()
                real_refresh()
                refreshes.append(time.perf_counter() - t)

            screen.refresh_rows = timed_refresh  # type: ignore[method-assign]
            handled_at: list[float] = []
            real_handled = app.on_batch

            def handled(*args) -> None:
                handled_at.append(time.time())
                real_handled(*args)

            app.on_batch = handled
            lat, missed, to_batch = [], 0, []
            for i in range(n):
                added += 1
                lines = edit_lines(w, BENCH_FILE, 0, 1, f"toolu_live_{i}")
                fut = app.expect(f"aaa_bench.py · +{added} -0")
                t_write = time.time()
                with open(path, "ab") as fh:
                    fh.writelines(lines)
                try:
                    lat.append(await asyncio.wait_for(fut, 5.0) - t_write)
                    to_batch.append(next((h for h in handled_at if h >= t_write), float("nan")) - t_write)
                except TimeoutError:
                    missed += 1
                    app._awaited.pop(f"aaa_bench.py · +{added} -0", None)
                await asyncio.sleep(rnd.uniform(0.01, 0.05))
            _, rss_peak = rss_mb()
            chars = log.chars
            batches = list(app.batches)
    return {
        "teammates": teammates,
        "edits": edits,
        "edits_held": held,
        "files": files_seen,
        "rows_files": n_files,
        "first_fill_s": first_fill,
        "fill_s": fills[0] if fills else float("nan"),
        "new_edit": summary(lat),
        "write_to_handled": summary(to_batch),  # the write until its batch went through apply_changes
        "batch_read": summary([b[0] for b in batches]),  # the feed reading the changed transcript
        "batch_widgets": summary([b[1] for b in batches]),  # apply_changes: the dashboard and the view
        "view_refresh": summary(refreshes),  # of which the changes view's rows and diff
        "missed": missed,
        "samples": lat,
        "rss_peak_mb": rss_peak,
        "diff_chars_held": chars,
        "bound": log_bound(200_000, (2_000, 20_000, 200_000)),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--teammates", type=int, default=10)
    ap.add_argument("--edits", type=int, default=1000)
    ap.add_argument("--n", type=int, default=100)
    a = ap.parse_args()
    print(json.dumps(asyncio.run(run(a.teammates, a.edits, a.n))))


if __name__ == "__main__":
    main()
