"""17. Teams on many machines through NATS JetStream: H simulated hosts × T teams through one
nats-server on this machine (Debian's, on 127.0.0.1, a JetStream store of the run's own).

- The hosts: one process (`nats_bench.py publish`) plays every host. Its teams are real native
  teams on disk (`fleetgen.make_native`: 5 teammates, 20 tasks, two inbox lines and 4 KB of log
  each), read by one LocalSource and one Streamer (session/stream_server.py), whose lines go to one
  real NatsSink per host (session/nats_publish.py: its own connection, epoch, revs, spool, rollups,
  heartbeats, request subscription), each given only its own teams' lines and its own hello. What
  a host does is what `teamtui stream --publish` does; only the watcher and the Streamer are shared
  (one watcher over every host's folders: slower than one per host, if anything).
- The room: this process, the real app (`benchmarks/probe.py` BenchTUI: TeamTUI with the frame
  probe, headless, 160×50) over a Fleet of an empty LocalSource and a NatsSource (what `[[nats]]`
  makes). History is off on both sides (TEAMTUI_HISTORY=0: a streamed team is not recorded here
  anyway).

Measured, in one run:

- first screen: from `NatsSource(...)` until the first frame the app hands the driver with every
  team's row in the table (every host had published before);
- change → row: another process (`fleetgen.py write`) adds or completes a task of a random team on
  disk (atomic rewrite) and reports `time.time()` before the write; the latency ends at the first
  frame drawn while that team's Tasks cell holds the new figure (5 s: missed), 20–80 ms apart;
- idle CPU: the room's process (all threads) over `--idle` seconds after a 2 s warm-up, the hosts
  beating every 3 s; beside it the server's and the hosts' process's;
- resident memory: the room's VmHWM at the end;
- a host that stops: one host's connection closed (no goodbye, as a killed process), until its
  rows say "disconnected since" (STALL, the room's default); meanwhile a task and a message are
  written to one of its teams; started again (a new process: a new epoch, its teams whole), until
  the row shows the task and no "disconnected", the message there once.

`python benchmarks/nats_bench.py run --hosts 200 --teams 5 --changes 200 --idle 30` prints one JSON line
(NATS_BENCH_PROFILE=/tmp/p also writes the room's cProfile of each phase to /tmp/p.first, .changes, .idle).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from fleetgen import make_native, native_name, native_task  # noqa: E402

SIZE = (160, 50)
MEMBERS = 5
LOG_BYTES = 4 * 1024
MISS_S = 5.0
# The generated teammates never write: past the default minute every one holding a task would count
# as disappeared (thousands of "needs you" items at once), which is not what this row measures.
HEALTH_TIMEOUT = 3600.0
_DONE = re.compile(r"(\d+)/(\d+)")


def host_of(i: int, teams: int) -> str:
    return f"h{i // teams:03d}"


def summary(xs: list[float]) -> dict:
    from scenarios import summary as s

    return s(xs)


# ------------------------------------------------------------------ the hosts (one process)


class Hosts:
    """The Streamer's sink: each team's lines to its host's NatsSink, the host's own lines to each."""

    def __init__(self, link, roots: dict[str, str]):
        self.link = link
        self.host_of_root = roots  # a team's root (as its key says) -> its host
        self.sinks: dict = {}
        self.tasks: dict[str, asyncio.Future] = {}
        self.hello: dict | None = None
        self.streamer = None

    def make(self, host: str):
        from teamtui.session.nats_publish import NatsSink

        sink = NatsSink(self.link, host, say=lambda text: print(f"{host}: {text}", file=sys.stderr))
        self.sinks[host] = sink
        return sink

    async def open(self, streamer) -> None:
        self.streamer = streamer
        for sink in self.sinks.values():
            await sink.open(streamer)

    def put(self, obj: dict, data: bytes) -> None:
        from teamtui.protocol import stream as wire
        from teamtui.protocol.stream import STATE_LINES

        kind = obj.get("type")
        key = wire.team_key(obj.get("team"))
        if kind in STATE_LINES and key is not None:
            sink = self.sinks.get(self.host_of_root.get(key[1], ""))
            if sink is not None:
                sink.put(obj, data)
            return
        if kind == "hello":
            self.hello = obj
        for host, sink in self.sinks.items():
            if kind == "hello":
                said = {**obj, "host": host}
                sink.put(said, wire.dumps(said))
            else:
                sink.put(obj, data)

    async def flush(self) -> None:
        for sink in list(self.sinks.values()):
            await sink.flush()

    async def serve(self, streamer) -> None:
        for host, sink in self.sinks.items():
            self.tasks[host] = asyncio.ensure_future(sink.serve(streamer))
        await asyncio.Event().wait()  # until the run ends

    async def close(self) -> None:
        for t in self.tasks.values():
            t.cancel()
        await asyncio.gather(*(s.close() for s in self.sinks.values()), return_exceptions=True)

    # ---------------------------------------------------------------- a host stops, and starts again
    async def stop(self, host: str) -> None:
        sink = self.sinks.pop(host)
        task = self.tasks.pop(host)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        sink._closing = True
        if sink.nc is not None:
            await sink.nc.close()  # no goodbye: its heartbeats just stop

    async def start(self, host: str) -> None:
        from teamtui.protocol import stream as wire

        sink = self.make(host)  # a new process, as far as anyone can tell: a new epoch
        await sink.open(self.streamer)
        self.tasks[host] = asyncio.ensure_future(sink.serve(self.streamer))
        assert self.hello is not None and self.streamer is not None
        said = {**self.hello, "host": host}
        sink.put(said, wire.dumps(said))
        for key in list(self.streamer.fleet.teams):
            if self.host_of_root.get(key[1]) == host:
                self.streamer.team_lines(key, full=True)
        sink.put({"type": "ready"}, b"")
        await sink.flush()


async def publish(a: argparse.Namespace) -> None:
    import gc

    from probe import proc_cpu_seconds, rss_mb

    from teamtui.protocol.settings import Settings
    from teamtui.session.local import LocalSource
    from teamtui.session.nats_link import NatsLink
    from teamtui.session.stream_server import Streamer

    base = Path(a.dir)
    n = a.hosts * a.teams
    roots = [base / "native" / f"{i:03d}" for i in range(n)]
    hosts = Hosts(NatsLink(a.url, label="nats_bench hosts"), {str(r): host_of(i, a.teams) for i, r in enumerate(roots)})
    for h in range(a.hosts):
        hosts.make(f"h{h:03d}")
    fleet = LocalSource(
        Settings(),
        roots=roots,
        health_timeout=HEALTH_TIMEOUT,
        cwd=base / "cwd",
        claude_root=base / "claude",
        registry=base / "state" / "running",
        journal=base / "state" / "journal",
    )
    streamer = Streamer(fleet, heartbeat=3.0, host="bench", sink=hosts)
    run = asyncio.ensure_future(streamer.run())
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)

    def say(obj: dict) -> None:
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()

    # Every host's snapshots stored: then the room may start.
    while not (
        len(fleet.teams) == n
        and all(s.sent >= 1 + a.teams and not s.spool for s in hosts.sinks.values())
        and len(hosts.tasks) == a.hosts
    ):
        if run.done():
            run.result()
        await asyncio.sleep(0.2)
    # One process holds what 200 hosts' processes would (each a few teams, its full collections a few
    # ms): what it read is frozen out of them, or a 250 ms pause here would be counted as NATS's.
    gc.collect()
    gc.freeze()
    say({"ready": time.time(), "sent": sum(s.sent for s in hosts.sinks.values())})
    prof = Profile()
    prof.start()
    while True:
        line = await reader.readline()
        if not line:
            break
        cmd = json.loads(line)
        op = cmd["op"]
        if op == "stop":
            await hosts.stop(cmd["host"])
            say({"t": time.time()})
        elif op == "start":
            t = time.time()
            await hosts.start(cmd["host"])
            say({"t": t})
        elif op == "stats":
            say({"cpu_s": proc_cpu_seconds(), "rss_mb": rss_mb()[1], "sent": sum(s.sent for s in hosts.sinks.values())})
        elif op == "quit":
            break
    prof.stop("hosts")
    run.cancel()
    await asyncio.gather(run, return_exceptions=True)


# ------------------------------------------------------------------ the room (this process)


def make_app(fleet, config: Path):
    from probe import BenchTUI

    from teamtui.tui.widgets.fleet import FleetTable

    class NatsBench(BenchTUI):
        """The frame probe with the overview's cells as what is awaited."""

        def __init__(self, *args, teams: int, **kw):
            super().__init__(*args, **kw)
            self.teams = teams
            self.rows_at: float | None = None  # the first frame with every team's row
            self.cells: list[tuple[str, str, object, asyncio.Future[float]]] = []
            self._table = None
            self.on_batch = self._batch_handled  # (changes, seconds reading, seconds in FleetControl.changed)
            self.handled_at: list[float] = []  # when each batch was through FleetControl.changed

        def _batch_handled(self, changes, read_s: float, widgets_s: float) -> None:
            self.handled_at.append(time.time())
            super()._batch_handled(changes, read_s, widgets_s)

        def expect(self, key: str, column: str, ok) -> asyncio.Future[float]:
            fut = asyncio.get_running_loop().create_future()
            self.cells.append((key, column, ok, fut))
            return fut

        def _probe_display(self, screen, renderable) -> None:
            if renderable is not None and self.fleet is not None:
                t = time.time()
                if self._table is None:
                    self._table = self.fleet.overview.query_one(FleetTable)
                table = self._table
                if self.rows_at is None and table.row_count >= self.teams:
                    self.rows_at = t
                for item in list(self.cells):
                    key, column, ok, fut = item
                    try:
                        shown = table.get_cell(key, column).plain
                    except Exception:  # noqa: BLE001 - the row is being rebuilt
                        continue
                    if ok(shown):
                        self.cells.remove(item)
                        if not fut.done():
                            fut.set_result(t)
            super()._probe_display(screen, renderable)

    return NatsBench


class Pipe:
    """A line-in, line-out helper process (the hosts, the writer)."""

    def __init__(self, *argv: str, env: dict | None = None):
        self.argv, self.env = argv, env

    async def __aenter__(self) -> Pipe:
        self.proc = await asyncio.create_subprocess_exec(
            *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=self.env, limit=1 << 20
        )
        return self

    async def ask(self, obj: dict | None, timeout: float = 60.0) -> dict:
        assert self.proc.stdin and self.proc.stdout
        if obj is not None:
            self.proc.stdin.write((json.dumps(obj) + "\n").encode())
            await self.proc.stdin.drain()
        line = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
        if not line:
            raise RuntimeError(f"{self.argv[1:3]} ended (exit {await self.proc.wait()})")
        return json.loads(line)

    async def __aexit__(self, *exc) -> None:
        if self.proc.returncode is None:
            with_quit = self.proc.stdin is not None and not self.proc.stdin.is_closing()
            if with_quit:
                assert self.proc.stdin
                self.proc.stdin.write(b'{"op": "quit"}\n')
                await self.proc.stdin.drain()
            try:
                await asyncio.wait_for(self.proc.wait(), 10)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()


def start_server(folder: Path) -> tuple[subprocess.Popen, str]:
    exe = shutil.which("nats-server") or "/usr/sbin/nats-server"
    if not os.path.exists(exe):
        raise SystemExit("nats-server is not installed (apt-get install nats-server)")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    conf = folder / "server.conf"
    conf.write_text(f'listen: 127.0.0.1:{port}\njetstream {{ store_dir: "{folder / "store"}" }}\n')
    proc = subprocess.Popen([exe, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=(folder / "log").open("wb"))
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return proc, f"nats://127.0.0.1:{port}"
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                raise SystemExit(f"nats-server did not start: {(folder / 'log').read_text()[-2000:]}") from None
            time.sleep(0.05)


class Profile:
    """NATS_BENCH_PROFILE=PREFIX: where the room's time goes in each phase, in PREFIX.<phase> (cProfile)."""

    def __init__(self) -> None:
        self.prefix = os.environ.get("NATS_BENCH_PROFILE", "")
        self.prof = None

    def start(self) -> None:
        if self.prefix:
            import cProfile

            self.prof = cProfile.Profile()
            self.prof.enable()

    def stop(self, phase: str) -> None:
        if self.prof is not None:
            self.prof.disable()
            self.prof.dump_stats(f"{self.prefix}.{phase}")
            self.prof = None


def proc_cpu(pid: int) -> float:
    import psutil

    t = psutil.Process(pid).cpu_times()
    return t.user + t.system


def proc_rss_mb(pid: int) -> float:
    import psutil

    return psutil.Process(pid).memory_info().rss / 2**20


async def room(a: argparse.Namespace, base: Path, url: str, server: subprocess.Popen) -> dict:
    import gc

    import textual.pilot
    from probe import proc_cpu_seconds, rss_mb

    from teamtui.protocol.settings import NatsSettings, Settings
    from teamtui.session.fleet import Fleet
    from teamtui.session.local import LocalSource
    from teamtui.session.nats_source import STALL, NatsSource
    from teamtui.tui.widgets.fleet import row_key

    collections: list[float] = []  # full collections in the room, seconds each (the loop waits on them)
    started: list[float] = []

    def timed(phase: str, info: dict) -> None:
        if info["generation"] == 2:
            if phase == "start":
                started[:] = [time.perf_counter()]
            elif started:
                collections.append(time.perf_counter() - started[0])

    gc.callbacks.append(timed)
    wait = textual.pilot.Pilot._wait_for_screen
    textual.pilot.Pilot._wait_for_screen = lambda self, timeout=600.0: wait(self, timeout)
    rnd = random.Random(a.seed)
    n = a.hosts * a.teams
    roots = [base / "native" / f"{i:03d}" for i in range(n)]
    env = {**os.environ}
    t_made = time.time()
    async with Pipe(sys.executable, str(Path(__file__)), "publish", "--dir", str(base), "--url", url,
                    "--hosts", str(a.hosts), "--teams", str(a.teams), env=env) as hosts:  # fmt: skip
        published = await hosts.ask(None, timeout=1800)
        publish_s = published["ready"] - t_made
        empty = base / "room"
        empty.mkdir()
        config = base / "config" / "teamtui" / "config.toml"
        prof = Profile()
        prof.start()
        t0 = time.time()
        source = NatsSource(NatsSettings(url), health_timeout=HEALTH_TIMEOUT)
        local = LocalSource(Settings(), cwd=empty, claude_root=empty, registry=empty / "runs", journal=empty / "j")
        local.discover()
        fleet = Fleet([local, source])
        app = make_app(fleet, config)(fleet, teams=n, config_path=config, cursor_blink=False, sync_panes=False)
        async with app.run_test(size=SIZE), Pipe(sys.executable, str(HERE / "fleetgen.py"), "write") as writer:
            end = time.time() + 600
            while app.rows_at is None and time.time() < end:
                await asyncio.sleep(0.01)
            if app.rows_at is None:
                raise SystemExit(f"the room never showed {n} rows ({app._table.row_count if app._table else 0})")
            first = app.rows_at - t0
            prof.stop("first")
            prof.start()
            caught_up = source.caught_up
            rss_first = rss_mb()[0]
            await asyncio.sleep(1.0)

            key_of = {
                i: ("nats:" + host_of(i, a.teams), os.path.realpath(r), native_name(i)) for i, r in enumerate(roots)
            }
            assert all(k in source.sessions for k in key_of.values()), "every team, under its host"

            def tasks_shown(i: int) -> tuple[int, int]:
                m = _DONE.fullmatch(app._table.get_cell(row_key(key_of[i]), "Tasks").plain)
                return (int(m[1]), int(m[2])) if m else (0, 0)

            added: dict[int, list[int]] = {i: [] for i in range(n)}
            next_id = dict.fromkeys(range(n), 100)

            async def change(i: int) -> tuple[str, asyncio.Future[float], float]:
                done, total = tasks_shown(i)
                kind = "complete" if added[i] and rnd.random() < 0.5 else "add"
                if kind == "add":
                    tid = next_id[i]
                    next_id[i] += 1
                    added[i].append(tid)
                    want, status = f"{done}/{total + 1}", "pending"
                else:
                    tid = added[i].pop(0)
                    want, status = f"{done + 1}/{total}", "completed"
                fut = app.expect(row_key(key_of[i]), "Tasks", lambda shown, w=want: shown == w)
                path = roots[i] / ".tasks" / f"task_{tid}.json"
                said = await writer.ask({"path": str(path), "data": json.dumps(native_task(tid, MEMBERS, status))})
                return kind, fut, said["t"]

            lat: list[float] = []
            handled: list[float] = []  # written → the batch through FleetControl.changed (the rest is the frame)
            missed = 0
            for _ in range(a.changes):
                _, fut, t_write = await change(rnd.randrange(n))
                try:
                    lat.append(await asyncio.wait_for(fut, MISS_S) - t_write)
                    handled.append(next((h for h in app.handled_at if h >= t_write), float("nan")) - t_write)
                except TimeoutError:
                    missed += 1
                await asyncio.sleep(rnd.uniform(0.02, 0.08))
            batches = list(app.batches)
            prof.stop("changes")

            # Idle: the hosts only beat.
            await asyncio.sleep(2.0)
            s0 = await hosts.ask({"op": "stats"})
            f0, c0, w0, srv0 = app.frames, proc_cpu_seconds(), time.time(), proc_cpu(server.pid)
            prof.start()
            await asyncio.sleep(a.idle)
            prof.stop("idle")
            cpu, wall, frames = proc_cpu_seconds() - c0, time.time() - w0, app.frames - f0
            srv_cpu = proc_cpu(server.pid) - srv0
            s1 = await hosts.ask({"op": "stats"})
            hosts_cpu = s1["cpu_s"] - s0["cpu_s"]

            # A host stops: its rows say so; what changed meanwhile arrives once when it is back.
            i = 0
            gone = host_of(i, a.teams)
            mine = [j for j in range(n) if host_of(j, a.teams) == gone]
            down = [app.expect(row_key(key_of[j]), "Team", lambda shown: "disconnected since" in shown) for j in mine]
            t_stop = (await hosts.ask({"op": "stop", "host": gone}))["t"]
            await asyncio.wait_for(asyncio.gather(*down), 60)
            disconnected = max(f.result() for f in down) - t_stop
            kind, fut, _ = await change(i)
            token = f"while-away-{time.time_ns()}"
            inbox = roots[i] / ".teams" / native_name(i) / "m000_inbox.jsonl"
            with open(inbox, "a") as fh:
                fh.write(
                    json.dumps({"type": "message", "sender": "lead", "content": token, "timestamp": time.time()}) + "\n"
                )
            back_row = app.expect(row_key(key_of[i]), "Team", lambda shown: "disconnected" not in shown)
            t_start = (await hosts.ask({"op": "start", "host": gone}))["t"]
            await asyncio.wait_for(asyncio.gather(fut, back_row), 60)
            back = max(fut.result(), back_row.result()) - t_start
            session = source.sessions[key_of[i]]
            end = time.time() + 10
            while token not in [m.content for m in session.state.messages] and time.time() < end:
                await asyncio.sleep(0.05)
            once = [m.content for m in session.state.messages].count(token)
            host = source.hosts[gone]
            rss_now, rss_peak = rss_mb()
            server_rss = proc_rss_mb(server.pid)
            publisher = await hosts.ask({"op": "stats"})
    return {
        "hosts": a.hosts,
        "teams_per_host": a.teams,
        "teams": n,
        "members": MEMBERS,
        "publish_s": publish_s,
        "first_screen_s": first,
        "caught_up_at_first": caught_up,
        "stored_messages": source.messages,
        "change": summary(lat),
        "missed": missed,
        "handled_ms": summary([1000 * (r + w) for r, w, _ in batches]),
        "written_to_handled": summary(handled),
        "handled_samples": handled,
        "idle_wall_s": wall,
        "idle_pct": 100 * cpu / wall,
        "idle_frames": frames,
        "server_idle_pct": 100 * srv_cpu / wall,
        "hosts_idle_pct": 100 * hosts_cpu / wall,
        "rss_first_mb": rss_first,
        "rss_end_mb": rss_now,
        "rss_peak_mb": rss_peak,
        "server_rss_mb": server_rss,
        "hosts_rss_peak_mb": publisher["rss_mb"],
        "stall_s": STALL,
        "disconnected_s": disconnected,
        "back_s": back,
        "back_change": kind,
        "back_message_once": once,
        "duplicates": host.duplicates,
        "gaps": host.gaps,
        "dropped": source.dropped,
        "gc_full_ms": [round(1000 * c, 1) for c in collections],
        "samples": lat,
        "load": os.getloadavg(),
    }


# ------------------------------------------------------------------ the table's rows (run.py)


def rows(n: dict) -> list[dict]:
    """17. Its rows for docs/benchmarks.md."""
    out: list[dict] = []

    def row(key, figure, value, unit, target="", limit=None):
        ok = None if limit is None or isinstance(value, str) else value <= limit
        out.append(dict(key=key, figure=figure, value=value, unit=unit, target=target, ok=ok, note=""))

    what = f"{n['hosts']} hosts × {n['teams_per_host']} teams ({n['teams']:,} teams of {n['members']} teammates)"
    row(
        "nats_first",
        f"17. {what} through one nats-server: the room's first screen, every row "
        f"({n['stored_messages']:,} stored messages read; the hosts had published in {n['publish_s']:.0f} s)",
        n["first_screen_s"],
        "s",
        "≤ 3 s",
        3,
    )
    c = n["change"]
    row(
        "nats_p50",
        f"17. a task written on a host → its row in the room, p50 (n={c['n']}, {n['missed']} missed)",
        1000 * c["p50"],
        "ms",
        "≤ 100 ms",
        100,
    )
    row("nats_p99", "17. the same, p99", 1000 * c["p99"], "ms", "≤ 300 ms", 300)
    h, w = n["handled_ms"], n["written_to_handled"]
    row(
        "nats_handled",
        "   of which written → the batch through FleetControl.changed (the host, the server, the room's "
        "feed), p50 / p99; FleetControl.changed itself, p50 / p99",
        f"{1000 * w['p50']:.0f} / {1000 * w['p99']:.0f} ms; {h['p50']:.0f} / {h['p99']:.0f} ms",
        "",
    )
    row(
        "nats_idle",
        f"17. idle, {n['idle_wall_s']:.0f} s, every host beating: the room's CPU of one core "
        f"(nats-server {n['server_idle_pct']:.2f} %, the hosts' process {n['hosts_idle_pct']:.2f} %)",
        n["idle_pct"],
        "%",
        "≤ 2 %",
        2,
    )
    row(
        "nats_rss",
        f"17. the room's resident memory, peak (nats-server {n['server_rss_mb']:.0f} MB, "
        f"the hosts' process {n['hosts_rss_peak_mb']:.0f} MB)",
        n["rss_peak_mb"],
        "MB",
        "≤ 400 MB",
        400,
    )
    row(
        "nats_down",
        f'17. a host stops publishing → "disconnected since" on each of its rows (STALL {n["stall_s"]:g} s)',
        n["disconnected_s"],
        "s",
        "≤ 15 s",
        15,
    )
    row(
        "nats_back",
        "   back: what changed meanwhile on its row; the message written meanwhile shown; duplicates dropped",
        f"{n['back_s']:.2f} s; {n['back_message_once']} time; {n['duplicates']}",
        "",
    )
    out[-1]["ok"] = n["back_message_once"] == 1
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--hosts", type=int, default=200)
    r.add_argument("--teams", type=int, default=5)
    r.add_argument("--changes", type=int, default=200)
    r.add_argument("--idle", type=float, default=30.0)
    r.add_argument("--seed", type=int, default=17)
    p = sub.add_parser("publish")
    p.add_argument("--dir", required=True)
    p.add_argument("--url", required=True)
    p.add_argument("--hosts", type=int, required=True)
    p.add_argument("--teams", type=int, required=True)
    a = ap.parse_args()
    if a.cmd == "publish":
        asyncio.run(publish(a))
        return
    base = Path(tempfile.mkdtemp(prefix="tt-bench-nats-"))
    server = None
    try:
        for d in ("state", "config/teamtui", "cwd", "home", "claude", "nats"):
            (base / d).mkdir(parents=True)
        os.environ.update(
            XDG_STATE_HOME=str(base / "state"),
            XDG_CONFIG_HOME=str(base / "config"),
            CLAUDE_CONFIG_DIR=str(base / "claude"),
            HOME=str(base / "home"),
            TEAMTUI_HISTORY="0",
        )
        os.environ.pop("TEAMTUI_ROOT", None)
        os.environ.pop("TEAMTUI_TEAM", None)
        for i in range(a.hosts * a.teams):
            make_native(base, i, MEMBERS, LOG_BYTES)
        server, url = start_server(base / "nats")
        res = asyncio.run(room(a, base, url, server))
    finally:
        if server is not None:
            server.terminate()
            server.wait(10)
        shutil.rmtree(base, ignore_errors=True)
    sys.stdout.write("\n" + json.dumps(res) + "\n")


if __name__ == "__main__":
    main()
