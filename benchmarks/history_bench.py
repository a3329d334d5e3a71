"""13. The history database: search over 1,000 teams / 1 GB of text, one team's timeline, and what
recording costs the dashboard.

    python benchmarks/history_bench.py generate --dir D --teams 1000 --mb 1024   the history, once (kept in D)
    python benchmarks/history_bench.py search --dir D --n 300                    search latency, warm page cache
    python benchmarks/history_bench.py timeline --n 30                           a 10-teammate, 8-hour team drawn
    python benchmarks/history_bench.py record --members 50 --n 200               change→screen and CPU, with and
                                                                                 without the recorder

Each prints one JSON line. The generator writes the real schema (protocol/history/schema.py) in
bulk: entries in time order (as a live recorder writes them, so the newest have the highest
rowids), text drawn from a Zipf-distributed vocabulary of 8,000 made-up words (a few very common,
most rare) with error codes and file paths among it, then the FTS5 index built in one pass.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

DAY = 86400.0
VOCAB = 8000
SENTENCES = 40_000


def summary(xs: list[float]) -> dict:
    from scenarios import summary as s

    return s(xs)


# ------------------------------------------------------------------ the generator


def vocabulary(rnd: random.Random) -> list[str]:
    syll = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "qu", "dr", "st", "en", "or", "il"]
    words: set[str] = set()
    while len(words) < VOCAB:
        words.add("".join(rnd.choice(syll) for _ in range(rnd.randint(2, 4))))
    return sorted(words)


def generate(directory: Path, teams: int, mb: float, seed: int = 13) -> dict:
    from teamtui.protocol.history.schema import ensure

    rnd = random.Random(seed)
    words = vocabulary(rnd)
    weights = [1.0 / (r + 1) for r in range(VOCAB)]  # Zipf: word k is 1/k as common as the first
    cum = []
    acc = 0.0
    for w in weights:
        acc += w
        cum.append(acc)
    sentences = [" ".join(rnd.choices(words, cum_weights=cum, k=rnd.randint(6, 22))) for _ in range(SENTENCES)]
    directory.mkdir(parents=True, exist_ok=True)
    db = directory / "history.sqlite3"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    t0 = time.perf_counter()
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("PRAGMA journal_mode=OFF")
    con.execute("PRAGMA synchronous=OFF")
    con.execute("PRAGMA cache_size=-262144")
    ensure(con)
    con.execute("DROP TRIGGER entries_indexed")  # the index is built in one pass at the end
    budget = int(mb * (1 << 20))
    per_team = budget // teams
    now = time.time()
    span = 60 * DAY  # the teams ran over the last two months, one after another
    text_bytes = entries = messages = 0
    eid = 0
    con.execute("BEGIN")
    for t in range(teams):
        start = now - span + t * (span / teams)
        name = f"team-{t:04d}-{rnd.choice(words)}"
        members = [f"{rnd.choice(words)}-{i}" for i in range(8)]
        con.execute(
            "INSERT INTO teams(id, host, layout, root, name, lead, first_seen, last_seen, ended_at) VALUES (?, '', ?, ?, ?, 'lead', ?, ?, ?)",
            (
                t + 1,
                "claude" if t % 3 else "native",
                f"/src/project-{t}",
                name,
                start,
                start + 8 * 3600,
                start + 8 * 3600,
            ),
        )
        con.executemany(
            "INSERT INTO members(team_id, name, joined_at) VALUES (?, ?, ?)", [(t + 1, m, start) for m in members]
        )
        rows, msgs = [], []
        used = 0
        n = 0
        while used < per_team:
            n += 1
            eid += 1
            kind = rnd.choices(("transcript", "message", "log"), weights=(6, 2, 2))[0]
            body = " ".join(rnd.choices(sentences, k=rnd.randint(1, 6)))
            extra = rnd.random()
            if extra < 0.02:
                body += f" ERR-{rnd.randint(0, 99999):05d}"
            elif extra < 0.06:
                body += f" src/{rnd.choice(words)}/{rnd.choice(words)}.py"
            who = rnd.choice(members)
            ts = start + (used / per_team) * 8 * 3600
            ref = rnd.choice(members) if kind == "message" else ""
            rows.append((eid, t + 1, ts, kind, who, body, ref, "", eid))
            if kind == "message":
                msgs.append((t + 1, eid, ts, ts, who, ref, "message", eid))
            used += len(body)
        con.executemany(
            "INSERT INTO entries(id, team_id, ts, kind, who, text, ref, level, dedupe) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        con.executemany(
            "INSERT INTO messages(team_id, key, at, seen, sender, recipient, type, entry_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            msgs,
        )
        text_bytes += used
        entries += n
        messages += len(msgs)
    con.execute("COMMIT")
    rows_s = time.perf_counter() - t0
    con.execute("INSERT INTO search(search) VALUES ('rebuild')")
    con.execute(
        "CREATE TRIGGER entries_indexed AFTER INSERT ON entries BEGIN "
        "INSERT INTO search(rowid, text, tag) VALUES (new.id, new.text, new.tag); END"
    )
    index_s = time.perf_counter() - t0 - rows_s
    con.execute("PRAGMA journal_mode=WAL")
    con.close()
    (directory / "words.json").write_text(json.dumps(words))
    return {
        "teams": teams,
        "entries": entries,
        "messages": messages,
        "text_mb": text_bytes / (1 << 20),
        "db_mb": db.stat().st_size / (1 << 20),
        "rows_s": rows_s,
        "index_s": index_s,
        "seconds": time.perf_counter() - t0,
    }


# ------------------------------------------------------------------ search


def queries(words: list[str], rnd: random.Random, n: int) -> list[tuple[str, dict, str]]:
    """(query, filters, what it is) of every kind a person types, n in all."""
    common, mid, rare = words[:20], words[100:1000], words[4000:]
    kinds = [
        ("common word", lambda: (rnd.choice(common), {})),
        ("mid word", lambda: (rnd.choice(mid), {})),
        ("rare word", lambda: (rnd.choice(rare), {})),
        ("two words", lambda: (f"{rnd.choice(common)} {rnd.choice(mid)}", {})),
        ("phrase", lambda: (f'"{rnd.choice(common)} {rnd.choice(common)}"', {})),
        ("prefix", lambda: (rnd.choice(mid)[:3] + "*", {})),
        ("error code", lambda: (f"ERR-{rnd.randint(0, 99999):05d}", {})),
        ("OR / NOT", lambda: (f"{rnd.choice(mid)} OR {rnd.choice(rare)} NOT {rnd.choice(common)}", {})),
        ("word, one team", lambda: (rnd.choice(common + mid), {"team_ids": [rnd.randint(1, 1000)]})),
        ("word, last 7 days", lambda: (rnd.choice(mid + rare), {"since": time.time() - 7 * DAY})),
    ]
    out = []
    for i in range(n):
        what, make = kinds[i % len(kinds)]
        q, f = make()
        out.append((q, f, what))
    rnd.shuffle(out)
    return out


def search_bench(directory: Path, n: int, seed: int = 7) -> dict:
    from teamtui.protocol.history.query import open_history
    from teamtui.protocol.history.search import search

    words = json.loads((directory / "words.json").read_text())
    rnd = random.Random(seed)
    con = open_history(directory / "history.sqlite3", import_journals=False)
    search(con, words[0])  # the first query opens the file's pages
    lat: list[float] = []
    by_kind: dict[str, list[float]] = {}
    found = 0
    for q, filters, what in queries(words, rnd, n):
        t0 = time.perf_counter()
        hits = search(con, q, limit=50, **filters)
        dt = time.perf_counter() - t0
        found += len(hits)
        lat.append(dt)
        by_kind.setdefault(what, []).append(dt)
    db = directory / "history.sqlite3"
    return {
        "search": summary(lat),
        "kinds": {k: summary(v) for k, v in by_kind.items()},
        "hits_mean": found / max(n, 1),
        "db_mb": db.stat().st_size / (1 << 20),
    }


# ------------------------------------------------------------------ a timeline


def timeline_bench(n: int, members: int = 10, hours: float = 8.0, seed: int = 3) -> dict:
    """A team of `members` teammates over `hours`, written through the real writer path (ops), then
    read from the database, built and drawn (the dashboard's TimelineScreen text, 200 columns, and
    the HTML report's SVG), `n` times."""
    from rich.console import Console
    from textual.theme import BUILTIN_THEMES

    from teamtui.protocol.history.db import connect
    from teamtui.protocol.history.ops import TeamIdent, Txn
    from teamtui.protocol.history.query import open_history, team_history
    from teamtui.protocol.history.report import render
    from teamtui.protocol.history.timeline import build_timeline
    from teamtui.tui.palette import Palette
    from teamtui.tui.screens.timeline import draw_timeline

    rnd = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="tt-bench-timeline-") as tmp:
        path = Path(tmp) / "history.sqlite3"
        con = connect(path)
        team = TeamIdent("", "native", "/src/p", "eight-hours")
        names = [f"mate-{i}" for i in range(members)]
        t0 = time.time() - hours * 3600
        ops: list[tuple] = [
            ("header", team, t0, ("lead", "", None, [(m, "", "", "", "", t0) for m in names], {}, True))
        ]
        lines = 0
        for m in names:
            t = t0
            batch = []
            while t < t0 + hours * 3600:  # bursts of work, pauses between
                burst_end = t + rnd.uniform(300, 2400)
                while t < burst_end:
                    t += rnd.uniform(2, 8)
                    batch.append((m, t, "info", f"{m} did step {lines}", lines))
                    lines += 1
                t += rnd.uniform(60, 1200)
            ops.append(("entries", team, t0, ("transcript", batch)))
        for i in range(400):
            at = t0 + rnd.uniform(0, hours * 3600)
            ops.append(
                ("message", team, at, ("lead", rnd.choice(names), "message", f"message {i}", "", at, None, False))
            )
        for i in range(60):
            at = t0 + i * hours * 3600 / 60
            owner = rnd.choice(names)
            ops.append(("task", team, at, ("task", str(i), f"task {i}", "", "in_progress", owner, [])))
            ops.append(
                ("task", team, at + rnd.uniform(600, 7200), ("task", str(i), f"task {i}", "", "completed", owner, []))
            )
        for i in range(20):
            at = t0 + rnd.uniform(0, hours * 3600)
            ops.append(("need_open", team, at, (f"n{i}", "permission", rnd.choice(names), "asks", None)))
            ops.append(("need_closed", team, at + rnd.uniform(30, 900), (f"n{i}", "answered")))
        con.execute("BEGIN")
        txn = Txn(con)
        for op in ops:
            txn.apply(op)
        txn.finish()
        con.execute("COMMIT")
        con.close()
        theme = BUILTIN_THEMES["textual-dark"]
        palette = Palette.of(theme, {}, {})
        console = Console(width=220, file=open(os.devnull, "w"), color_system="truecolor")
        tui, svg, load = [], [], []
        for _ in range(n):
            a = time.perf_counter()
            reader = open_history(path, import_journals=False)
            h = team_history(reader, 1)
            reader.close()
            b = time.perf_counter()
            tl = build_timeline(h, resolution=(h.end - h.start) / 200)
            console.print(draw_timeline(tl, 200, palette))  # the characters, styled, as the terminal gets them
            c = time.perf_counter()
            render(h)
            d = time.perf_counter()
            load.append(b - a)
            tui.append(c - a)
            svg.append((d - c) + (b - a))
        return {
            "members": members,
            "hours": hours,
            "lines": lines,
            "tasks": 60,
            "messages": 400,
            "load": summary(load),
            "tui": summary(tui),
            "report": summary(svg),
        }


# ------------------------------------------------------------------ what recording costs


def record_bench(members: int, n: int, history: bool, seed: int = 1) -> dict:
    """Row 1's change→screen scenario (the same changes as scenarios.latency: a task, a log line or
    a message, in random order, each waited for on screen) with the recorder attached or not. CPU of
    the dashboard process (all its threads: the history writer's too) from the first change until
    what was recorded is on disk, so the app's start-up does not dilute it."""
    os.environ["TEAMTUI_HISTORY"] = "1" if history else "0"
    with tempfile.TemporaryDirectory(prefix="tt-bench-hist-") as tmp:
        os.environ["XDG_STATE_HOME"] = str(Path(tmp) / "state")
        from probe import proc_cpu_seconds
        from scenarios import SIZE, Writer, change_cmd, new_app, wait_opened
        from teamgen import make_team

        from teamtui.protocol.history import db_path
        from teamtui.protocol.history.recorder import HistoryRecorder
        from teamtui.protocol.history.writer import flush_all, shared_writer

        on_loop: list[float] = []  # the recorder's time on the dashboard's loop, per batch
        observe = HistoryRecorder.observe

        def timed(self, state, changes) -> None:
            t = time.perf_counter()
            observe(self, state, changes)
            on_loop.append(time.perf_counter() - t)

        HistoryRecorder.observe = timed  # type: ignore[method-assign]

        async def run() -> dict:
            rnd = random.Random(seed)
            root = make_team(Path(tmp), members, tasks=max(20, 2 * members))
            app = new_app(root)
            out: dict[str, list[float]] = {"log": [], "inbox": [], "task": []}
            missed = 0
            async with app.run_test(size=SIZE):
                await wait_opened(app)
                await asyncio.sleep(0.5)
                flush_all(10.0)  # the first snapshot written: what follows is the changes' cost
                cpu0, wall0 = proc_cpu_seconds(), time.perf_counter()
                writer_cpu0 = shared_writer(db_path()).cpu_s
                on_loop.clear()
                async with Writer(root) as w:
                    order = [k for k in out for _ in range(n)]
                    rnd.shuffle(order)
                    for i, kind in enumerate(order):
                        token = f"{kind[0].upper()}{i:05d}q"
                        fut = app.expect(token)
                        t_write = await w.do(**change_cmd(kind, token, members))
                        try:
                            out[kind].append(await asyncio.wait_for(fut, 5.0) - t_write)
                        except TimeoutError:
                            missed += 1
                            app._awaited.pop(token, None)
                        await asyncio.sleep(rnd.uniform(0.01, 0.05))
                flush_all(10.0)
                cpu, wall = proc_cpu_seconds() - cpu0, time.perf_counter() - wall0
                writer_cpu = shared_writer(db_path()).cpu_s - writer_cpu0
            all_ = [x for v in out.values() for x in v]
            return {
                "missed": missed,
                "all": summary(all_),
                "cpu_s": cpu,
                "writer_cpu_s": writer_cpu,
                "observe": summary(on_loop),
                "observe_s": sum(on_loop),
                "wall_s": wall,
                "changes": len(order),
            }

        res = asyncio.run(run())
        db = Path(tmp) / "state" / "teamtui" / "history" / "history.sqlite3"
        on_disk = sum(Path(f"{db}{s}").stat().st_size for s in ("", "-wal") if Path(f"{db}{s}").exists())
        res.update(history=history, members=members, core_pct=100 * res["cpu_s"] / res["wall_s"], db_kb=on_disk / 1024)
        return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("name", choices=("generate", "search", "timeline", "record"))
    ap.add_argument("--dir", type=Path)
    ap.add_argument("--teams", type=int, default=1000)
    ap.add_argument("--mb", type=float, default=1024)
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--members", type=int, default=50)
    ap.add_argument("--history", type=int, default=1)
    a = ap.parse_args()
    if a.name == "generate":
        res = generate(a.dir, a.teams, a.mb)
    elif a.name == "search":
        res = search_bench(a.dir, a.n)
    elif a.name == "timeline":
        res = timeline_bench(a.n)
    else:
        res = record_bench(a.members, a.n, bool(a.history))
    sys.stdout.write("\n" + json.dumps(res) + "\n")


if __name__ == "__main__":
    main()
