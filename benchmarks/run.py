"""`make bench`: run the benchmark suite on the real dashboard and write docs/benchmarks.md.

    python benchmarks/run.py            the full suite (about 15 minutes on 2 cores)
    python benchmarks/run.py --quick    fewer repetitions, shorter runs (a smoke run)
    --only latency,idle                 a subset (the doc then shows only those rows)
    --only cli --merge-into latest      a subset, its rows replaced in a saved full result, the doc written
                                        from that (the header says which rows are from which run)
    --cli-before REF                    the cli rows also time the package at git REF, in the same run
    --tmux-before REF                   the tmux rows also time the package at git REF (one run, auto mode)
    --save NAME                         also keep the raw results in benchmarks/results/NAME.json
    --before FILE                       a saved result shown in the "before" column
                                        (default benchmarks/results/before.json when it exists)

Each scenario runs in a fresh interpreter (scenarios.py) so memory and CPU are its own.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SCEN = HERE / "scenarios.py"
TMUX_SCEN = HERE / "tmux_bench.py"
FLEET_SCEN = HERE / "fleet_bench.py"
SSH_SCEN = HERE / "ssh_bench.py"
DEEP_SCEN = HERE / "deep_bench.py"
HOOKS_SCEN = HERE / "hooks_bench.py"
CHANGES_SCEN = HERE / "changes_bench.py"
HIST_SCEN = HERE / "history_bench.py"
NATS_SCEN = HERE / "nats_bench.py"
ANSWER_SCEN = HERE / "answer_bench.py"

FULL = dict(
    quiet_n=4,
    lat_n=200,
    poll_n=200,
    scale_reps=3,
    scale_updates=20,
    sus_s=60,
    idle_s=60,
    idle_warm=5,
    start_n=10,
    imp_n=10,
    cli_n=15,
    tr_reps=3,
    tr_n=200,
    tmux_n=3,
    journal_n=20000,
    fleet_n=100,
    fleet_idle_s=10,
    fleet_pty=3,
    ssh_n=200,
    deep_reps=3,
    hooks_n=30,
    changes_reps=3,
    changes_n=200,
    hist_mb=1024,
    hist_n=300,
    hist_tl_n=30,
    nats_n=200,
    nats_idle_s=30,
    answer_n=30,
)
QUICK = dict(
    quiet_n=1,
    lat_n=30,
    poll_n=30,
    scale_reps=1,
    scale_updates=5,
    sus_s=10,
    idle_s=10,
    idle_warm=2,
    start_n=3,
    imp_n=5,
    cli_n=3,
    tr_reps=1,
    tr_n=30,
    tmux_n=1,
    journal_n=2000,
    fleet_n=30,
    fleet_idle_s=5,
    fleet_pty=1,
    ssh_n=30,
    deep_reps=1,
    hooks_n=10,
    changes_reps=1,
    changes_n=30,
    hist_mb=64,
    hist_n=60,
    hist_tl_n=5,
    nats_n=30,
    nats_idle_s=10,
    answer_n=10,
)
# Quiet before each change of the quiet-latency row: longer than the watcher's busy spell (5 s).
QUIET_GAP_S = 6.0
# The control room (11): the targets hold for FLEET_TEAMS[0] teams; the larger fleet says what happens.
FLEET_TEAMS = (20, 100)
FLEET_MEMBERS = 10
GROUPS = (
    "latency",
    "scale",
    "sustained",
    "idle",
    "poll",
    "startup",
    "cli",
    "transcripts",
    "tmux",
    "journal",
    "fleet",
    "ssh",
    "deep",
    "hooks",
    "changes",
    "history",
    "nats",
    "answers",
)
# Which result keys each group fills (for --merge-into).
GROUP_KEYS = {
    "latency": ("latency_5", "latency_50", "latency_quiet"),
    "poll": tuple(
        f"{k}{'' if p == 1.0 else f'@{p:g}s'}" for p in (0.5, 1.0, 2.0) for k in ("poll_5", "poll_50", "poll_idle_50")
    ),
    "scale": ("scale",),
    "sustained": ("sustained",),
    "idle": ("idle_50",),
    "startup": ("startup", "import"),
    "cli": ("cli",),
    "transcripts": ("transcripts",),
    "journal": ("journal",),
    "tmux": ("tmux_auto", "tmux_inprocess", "tmux_before"),
    "fleet": tuple(f"fleet_{n}" for n in FLEET_TEAMS),
    "ssh": ("ssh",),
    "deep": ("deep",),
    "hooks": ("hooks",),
    "changes": ("changes",),
    "answers": ("answers",),
    "history": ("history_gen", "history_search", "history_timeline", "history_record_off", "history_record_on"),
    "nats": ("nats",),
}
# Teams on many machines through NATS (17): hosts × teams per host, through one nats-server.
NATS_HOSTS, NATS_TEAMS = 200, 5
# A hot CLI command, and `teamtui follow`'s first screen, at most this many times a bare `python -c pass`.
CLI_RATIO = 2.5
# The deep folder chain (13): its depth, and the targets while it is written.
DEEP_DEPTH = 2000
DEEP_KEYS_MS = 100
DEEP_OTHERS_MS = 150
# `teamtui hook` runs inside Claude Code's loop: at most this many times a bare `python -c pass`.
HOOK_RATIO = 2.0
# Allow pressed → the tool runs; over ssh at most this much more (#30).
ALLOW_S = 0.200
ALLOW_SSH_MORE_S = 0.150
# Inside tmux, the dashboard's first screen is held to the in-process first-screen target (2.).
FIRST_SCREEN_S = 2.0
TMUX_MEMBERS = 50
# The polling peers' periods: tmai polls every 0.5 s, agent-deck every 2 s; the table's rows 5 use 1 s.
POLL_PERIODS = (0.5, 1.0, 2.0)


def poll_key(name: str, period: float) -> str:
    """Result key of a poll scenario; the 1 s ones keep their old names (the saved "before" run has them)."""
    return name if period == 1.0 else f"{name}@{period:g}s"


def _pinned_claude() -> str:
    sys.path.insert(0, str(REPO))
    from teamtui.protocol.claude_versions import PINNED_CLAUDE_CODE

    return PINNED_CLAUDE_CODE


def scenario(name: str, *args: str, timeout: float = 1800, script: Path = SCEN) -> dict:
    t0 = time.time()
    argv = [name, *args] if script == SCEN else list(args)
    r = subprocess.run([sys.executable, str(script), *argv], capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"scenario {name} {' '.join(args)} failed:\n{r.stderr[-3000:]}")
    res = json.loads(r.stdout.strip().splitlines()[-1])
    print(f"  {name} {' '.join(args)}: {time.time() - t0:.1f}s", file=sys.stderr, flush=True)
    return res


def median(xs: list[float]) -> float:
    xs = sorted(x for x in xs if not math.isnan(x))
    if not xs:
        return float("nan")
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    if not s:
        return float("nan")
    k = max(0, min(len(s) - 1, int(round(p / 100 * len(s) + 0.5)) - 1))
    return s[k]


# ------------------------------------------------------------------ running
def run_all(cfg: dict, only: set[str], cli_before: str | None = None, tmux_before: str | None = None) -> dict:
    res: dict = {}
    if "latency" in only:
        for m in (5, 50):
            res[f"latency_{m}"] = scenario("latency", "--members", str(m), "--n", str(cfg["lat_n"]))
        res["latency_quiet"] = scenario(
            "latency", "--members", "5", "--n", str(cfg["quiet_n"]), "--gap", str(QUIET_GAP_S)
        )
    if "poll" in only:
        for period in POLL_PERIODS:
            for m in (5, 50):
                res[poll_key(f"poll_{m}", period)] = scenario(
                    "poll", "--members", str(m), "--n", str(cfg["poll_n"]), "--period", str(period)
                )
            res[poll_key("poll_idle_50", period)] = scenario(
                "poll_idle", "--members", "50", "--seconds", str(cfg["idle_s"]), "--period", str(period)
            )
    if "scale" in only:
        tmp = Path(tempfile.mkdtemp(prefix="tt-bench-scale-"))
        try:
            scenario("make_scale", "--root", str(tmp), "--members", "100", "--tasks", "10000", "--log-mb", "100")
            res["scale"] = [
                scenario(
                    "scale",
                    "--root",
                    str(tmp),
                    "--members",
                    "100",
                    "--tasks",
                    "10000",
                    "--updates",
                    str(cfg["scale_updates"]),
                )
                for _ in range(cfg["scale_reps"])
            ]
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    if "sustained" in only:
        res["sustained"] = scenario("sustained", "--members", "100", "--rate", "10", "--seconds", str(cfg["sus_s"]))
    if "idle" in only:
        res["idle_50"] = scenario(
            "idle", "--members", "50", "--seconds", str(cfg["idle_s"]), "--warmup", str(cfg["idle_warm"])
        )
    if "startup" in only:
        res["startup"] = scenario("startup", "--n", str(cfg["start_n"]))
        res["import"] = scenario("import", "--n", str(cfg["imp_n"]))
    if "cli" in only:
        with tempfile.TemporaryDirectory(prefix="tt-bench-tree-") as tree:
            args = ["--n", str(cfg["cli_n"])]
            if cli_before:
                archive = subprocess.run(
                    ["git", "-C", str(REPO), "archive", cli_before, "teamtui"], capture_output=True, check=True
                )
                subprocess.run(["tar", "-x", "-C", tree], input=archive.stdout, check=True)
                args += ["--before-tree", tree]
            res["cli"] = scenario("cli", *args)
            if cli_before:
                res["cli"]["before_ref"] = subprocess.run(
                    ["git", "-C", str(REPO), "rev-parse", "--short", cli_before], capture_output=True, text=True
                ).stdout.strip()
    if "transcripts" in only:
        res["transcripts"] = [
            scenario("transcripts", "--members", "10", "--log-mb", "10", "--n", str(cfg["tr_n"]))
            for _ in range(cfg["tr_reps"])
        ]
    if "journal" in only:
        res["journal"] = scenario("journal", "--n", str(cfg["journal_n"]))
    if "fleet" in only:
        for teams in FLEET_TEAMS:
            res[f"fleet_{teams}"] = scenario(
                "fleet",
                "--teams",
                str(teams),
                "--members",
                str(FLEET_MEMBERS),
                "--changes",
                str(cfg["fleet_n"]),
                "--idle",
                str(cfg["fleet_idle_s"]),
                "--pty",
                str(cfg["fleet_pty"]),
                script=FLEET_SCEN,
            )
    if "history" in only:  # 13: the history database (its 1 GB under /tmp, removed after)
        where = Path(tempfile.mkdtemp(prefix="tt-bench-history-", dir="/tmp"))
        try:
            res["history_gen"] = scenario(
                "history",
                "generate",
                "--dir",
                str(where),
                "--teams",
                "1000",
                "--mb",
                str(cfg["hist_mb"]),
                script=HIST_SCEN,
            )
            res["history_search"] = scenario(
                "history", "search", "--dir", str(where), "--n", str(cfg["hist_n"]), script=HIST_SCEN
            )
        finally:
            shutil.rmtree(where, ignore_errors=True)
        res["history_timeline"] = scenario("history", "timeline", "--n", str(cfg["hist_tl_n"]), script=HIST_SCEN)
        for on in (0, 1):  # the same change→screen run without, then with, the recorder
            res[f"history_record_{'on' if on else 'off'}"] = scenario(
                "history", "record", "--members", "50", "--n", str(cfg["lat_n"]), "--history", str(on), script=HIST_SCEN
            )
    if "nats" in only:  # 17: 200 simulated hosts × 5 teams through one nats-server on this machine
        res["nats"] = scenario(
            "nats",
            "run",
            "--hosts",
            str(NATS_HOSTS),
            "--teams",
            str(NATS_TEAMS),
            "--changes",
            str(cfg["nats_n"]),
            "--idle",
            str(cfg["nats_idle_s"]),
            script=NATS_SCEN,
        )
    if "ssh" in only:  # 12: a team on another machine (sshd on 127.0.0.1), beside the same change here
        res["ssh"] = scenario("ssh", "--n", str(cfg["ssh_n"]), "--members", "5", script=SSH_SCEN)
    if "deep" in only:  # 13: a 2,000-deep folder chain written in one team while the room answers keys
        res["deep"] = [scenario("deep", "--depth", str(DEEP_DEPTH), script=DEEP_SCEN) for _ in range(cfg["deep_reps"])]
    if (
        "hooks" in only
    ):  # 14: the hook in Claude Code's loop; an answer reaching the tool (the real binary when installed)
        args = ["--n", str(cfg["hooks_n"])]
        claude = REPO / ".cache" / "interop" / _pinned_claude() / "node_modules" / ".bin" / "claude"
        if claude.exists():
            args += ["--real", str(claude)]
        res["hooks"] = scenario("hooks", *args, script=HOOKS_SCEN)
    if "answers" in only:  # 18: allow pressed in the room → the tool runs, here and over ssh
        res["answers"] = scenario("answers", "--n", str(cfg["answer_n"]), script=ANSWER_SCEN)
    if "changes" in only:  # 15: what each teammate changed, 1,000 edits across 10 teammates
        res["changes"] = [
            scenario(
                "changes",
                "--teammates",
                "10",
                "--edits",
                "1000",
                "--n",
                str(cfg["changes_n"]),
                script=CHANGES_SCEN,
            )
            for _ in range(cfg["changes_reps"])
        ]
    if "tmux" in only:
        common = ["--members", str(TMUX_MEMBERS), "--n", str(cfg["tmux_n"])]
        res["tmux_inprocess"] = scenario("tmux", *common, "--mode", "in-process", script=TMUX_SCEN)
        res["tmux_auto"] = scenario("tmux", *common, "--mode", "auto", script=TMUX_SCEN)
        if tmux_before:
            with tempfile.TemporaryDirectory(prefix="tt-bench-tree-") as tree:
                archive = subprocess.run(
                    ["git", "-C", str(REPO), "archive", tmux_before, "teamtui", "themes"],
                    capture_output=True,
                    check=True,
                )
                subprocess.run(["tar", "-x", "-C", tree], input=archive.stdout, check=True)
                res["tmux_before"] = scenario(
                    "tmux",
                    "--members",
                    str(TMUX_MEMBERS),
                    "--n",
                    "1",
                    "--mode",
                    "auto",
                    "--tree",
                    tree,
                    script=TMUX_SCEN,
                )
            res["tmux_before"]["ref"] = subprocess.run(
                ["git", "-C", str(REPO), "rev-parse", "--short", tmux_before], capture_output=True, text=True
            ).stdout.strip()
    return res


# ------------------------------------------------------------------ figures
def figures(res: dict) -> list[dict]:
    """Rows of the table: id, figure, target text, value, unit, pass (None: no target)."""
    rows: list[dict] = []

    def row(key, figure, value, unit, target=None, limit=None, higher_is_worse=True, note=""):
        ok = None
        if limit is not None and value is not None and not (isinstance(value, float) and math.isnan(value)):
            ok = value <= limit if higher_is_worse else value >= limit
        rows.append(dict(key=key, figure=figure, value=value, unit=unit, target=target or "", ok=ok, note=note))

    def tail_row(key, s):
        """The p90 and the worst of a latency whose p50 is the row before."""
        row(key, "    p90 · max", f"{1000 * s['p90']:.0f} · {1000 * s['max']:.0f} ms", "")

    def allow_row(key, figure, s):
        """An answer → the tool runs: its p50 against ALLOW_S, then its tail."""
        row(key, figure, 1000 * s["p50"], "ms", f"≤ {1000 * ALLOW_S:g} ms", 1000 * ALLOW_S)
        tail_row(f"{key}_p90", s)

    for m in (5, 50):
        r = res.get(f"latency_{m}")
        if r:
            n = r["all"]["n"]
            row(
                f"lat{m}_p50",
                f"1. change→screen, {m} teammates, p50 (n={n}, {r['missed']} missed)",
                1000 * r["all"]["p50"],
                "ms",
                "≤ 50 ms",
                50,
            )
            row(f"lat{m}_p99", f"1. change→screen, {m} teammates, p99", 1000 * r["all"]["p99"], "ms", "≤ 150 ms", 150)
            for kind in ("task", "log", "inbox"):
                row(
                    f"lat{m}_{kind}",
                    f"   {kind}: p50 / p99",
                    f"{1000 * r[kind]['p50']:.0f} / {1000 * r[kind]['p99']:.0f}",
                    "ms",
                )
    q = res.get("latency_quiet")
    if q:
        row(
            "lat_quiet",
            f"   after {QUIET_GAP_S:g} s without a change, 5 teammates: p50 / max (n={q['all']['n']})",
            f"{1000 * q['all']['p50']:.0f} / {1000 * q['all']['max']:.0f}",
            "ms",
        )
    sc = res.get("scale")
    if sc:
        first = [x["first_screen_s"] for x in sc]
        row(
            "scale_first",
            f"2. 100 teammates, 10,000 tasks, 100 MB logs: first complete screen (median of {len(sc)})",
            median(first),
            "s",
            "≤ 2 s",
            2,
        )
        row(
            "scale_load",
            "   of which TeamState.load_all + first fill of the panels (median)",
            median([x["load_s"] for x in sc]),
            "s",
        )
        row(
            "scale_rss",
            "2. resident memory, peak (max over runs)",
            max(x["rss_peak_mb"] for x in sc),
            "MB",
            "≤ 300 MB",
            300,
        )
        handle = [v for x in sc for v in x["update_handle_ms"]]
        apply_ = [v for x in sc for v in x["update_apply_ms"]]
        lat = [v for x in sc for v in x["update_latency_s"]]
        row(
            "scale_update",
            f"2. one task update among 10,000: app time, p50 (n={len(handle)})",
            median(handle),
            "ms",
            "≤ 5 ms",
            5,
        )
        row("scale_update_p99", "   app time p99", pct(handle, 99), "ms", "≤ 5 ms", 5)
        row("scale_update_apply", "   of which TeamState.apply (re-read one file), p50", median(apply_), "ms")
        row("scale_update_lat", "   change→screen at this scale, p50", 1000 * median(lat), "ms")
    s = res.get("sustained")
    if s:
        secs = s["seconds"]
        row(
            "sus_p99",
            f"3. {s['members']}×{s['rate']:g} lines/s for {secs:g}s: change→screen p99 (n={s['screen_latency']['n']})",
            1000 * s["screen_latency"]["p99"],
            "ms",
            "≤ 250 ms",
            250,
        )
        row(
            "sus_handled_p99",
            f"   line written→handled by the feed, p99 (n={s['handled_latency']['n']})",
            1000 * s["handled_latency"]["p99"],
            "ms",
        )
        growth = s["last_fifth_p50"] - s["first_fifth_p50"]
        backlog_ok = s["handled"] >= s["written"] and s["drain_s"] <= 1.0 and growth <= 0.1
        row(
            "sus_backlog",
            "3. backlog: drain after the writer stops; p50 first→last fifth",
            f"{s['drain_s']:.2f} s; {1000 * s['first_fifth_p50']:.0f}→{1000 * s['last_fifth_p50']:.0f} ms",
            "",
            "drain ≤ 1 s, growth ≤ 100 ms",
            None,
        )
        rows[-1]["ok"] = backlog_ok
        row("sus_key", f"3. key press answered, max (n={s['key']['n']})", 1000 * s["key"]["max"], "ms", "≤ 100 ms", 100)
        row("sus_key_p50", "   key press p50", 1000 * s["key"]["p50"], "ms")
        if "key_open" in s:
            o, c = s["key_open"], s["key_close"]
            row(
                "sus_key_split",
                "   `/` p50 · max; escape p50 · max",
                f"{1000 * o['p50']:.0f} · {1000 * o['max']:.0f}; {1000 * c['p50']:.0f} · {1000 * c['max']:.0f} ms",
                "",
            )
            g = s["full_gc"]
            row(
                "sus_gc",
                "   CPython full collections during the run: count; p50 · max",
                f"{g['n']}; {1000 * g['p50']:.0f} · {1000 * g['max']:.0f} ms" if g["n"] else "0",
                "",
            )
    i = res.get("idle_50")
    if i:
        row("idle", f"4. idle, 50 teammates, {i['wall_s']:.0f} s: CPU of one core", i["core_pct"], "%", "≤ 1 %", 1)
        if i.get("windows_pct"):
            row(
                "idle_win",
                f"   worst 10 s window (of {len(i['windows_pct'])}); frames drawn",
                f"{max(i['windows_pct']):.2f} %; {i['frames']}",
                "",
            )
    for m in (5, 50):
        p, a = res.get(f"poll_{m}"), res.get(f"latency_{m}")
        if p:
            row(
                f"poll{m}_p50",
                f"5. poll-and-rescan (1 s), {m} teammates: p50 (n={p['all']['n']}, {p['missed']} missed)",
                1000 * p["all"]["p50"],
                "ms",
            )
            row(f"poll{m}_p99", f"5. poll-and-rescan (1 s), {m} teammates: p99", 1000 * p["all"]["p99"], "ms")
            if a:
                row(
                    f"ratio{m}",
                    f"5. ratio poll/teamtui at {m} teammates, p50 · p99",
                    f"{p['all']['p50'] / a['all']['p50']:.1f}× · {p['all']['p99'] / a['all']['p99']:.1f}×",
                    "",
                )
    pi = res.get("poll_idle_50")
    if pi:
        row("poll_idle", "5. poll-and-rescan idle CPU, 50 teammates (compare 4.)", pi["core_pct"], "%")
    st = res.get("startup")
    if st:
        row(
            "startup",
            f"6. `teamtui watch` in a pty: exec → first screen, p50 (n={st['startup']['n']})",
            st["startup"]["p50"],
            "s",
        )
        row("startup_max", "   max", st["startup"]["max"], "s")
    im = res.get("import")
    if im:
        row(
            "import",
            "6. import teamtui.protocol: -X importtime cumulative, p50",
            1000 * im["importtime_cumulative_s"]["p50"],
            "ms",
        )
        row(
            "import_wall",
            "   subprocess wall, `import teamtui.protocol` minus bare python, p50",
            1000 * im["import_only_p50_s"],
            "ms",
        )
    c = res.get("cli")
    if c:
        base = c["python_p50_s"]
        row(
            "cli_python",
            f"7. bare `python -c pass` of the same venv, median (n={c['python_s']['n']})",
            1000 * base,
            "ms",
        )
        before = c["trees"].get("before")
        for command, v in c["trees"]["now"].items():
            what = "first screen" if command == "follow" else "median wall"
            b = before.get(command) if before else None
            was = f"; at {c.get('before_ref', 'before')} {1000 * b['p50_s']:.0f} ms · {b['ratio']:.1f}×" if b else ""
            row(
                f"cli_{command.replace(' ', '_')}",
                f"7. `teamtui {command}` {what}, cold process (n={v['summary']['n']}){was}",
                f"{1000 * v['p50_s']:.0f} ms · {v['ratio']:.1f}×",
                "",
                f"≤ {CLI_RATIO:g}× python",
                None,
            )
            rows[-1]["ok"] = v["ratio"] <= CLI_RATIO
        cpu = c.get("cpu_p50_s", {})
        for tree, label in (
            ("now", "CPU (user + sys) of one run, median, ms"),
            ("before", f"at {c.get('before_ref', 'before')}"),
        ):
            parts = [
                f"{k.removeprefix(tree + ' ')} {1000 * v:.0f}"
                for k, v in sorted(cpu.items())
                if k.startswith(tree + " ")
            ]
            if parts:
                head = f"pass {1000 * cpu['pass']:.0f} · " if tree == "now" else ""
                row(f"cli_cpu_{tree}", f"   {label}: {head}" + " · ".join(parts), "", "")
    tr = res.get("transcripts")
    if tr:
        first = [x["first_screen_s"] for x in tr]
        row(
            "tr_first",
            f"8. Claude Code team, 10 teammates (and the lead) with 10 MB of transcript each: first screen (median of {len(tr)})",
            median(first),
            "s",
            "≤ 0.6 s",
            0.6,
        )
        if all("tokens_s" in x for x in tr):
            row(
                "tr_tokens",
                f"   every transcript's tokens filled in, counted after the first screen (median of {len(tr)})",
                median([x["tokens_s"] for x in tr]),
                "s",
            )
        if all("cost_s" in x for x in tr):
            row(
                "tr_cost",
                f"   the team's cost in the header, every message priced by genai-prices (median of {len(tr)})",
                median([x["cost_s"] for x in tr]),
                "s",
            )
        row(
            "tr_rss",
            "   resident memory, peak (max over runs)",
            max(x["rss_peak_mb"] for x in tr),
            "MB",
            "≤ 300 MB",
            300,
        )
        lines = [v for x in tr for v in x["samples"]]
        missed = sum(x["missed"] for x in tr)
        row(
            "tr_line_p50",
            f"8. a new transcript line reaches the screen, p50 (n={len(lines)}, {missed} missed)",
            1000 * pct(lines, 50),
            "ms",
            "≤ 50 ms",
            50,
        )
        row(
            "tr_line_p99",
            "8. a new transcript line reaches the screen, p99",
            1000 * pct(lines, 99),
            "ms",
            "≤ 150 ms",
            150,
        )
    jo = res.get("journal")
    if jo:
        row(
            "journal_cost",
            f"10. journal of a Claude Code team, {jo['messages']:,} messages seen and delivered: "
            f"cost on the dashboard's loop per batch, p99 (n={jo['observe']['n']:,}; p50 {1e6 * jo['observe']['p50']:.0f} µs)",
            1000 * jo["observe"]["p99"],
            "ms",
            "≤ 1 ms",
            1,
        )
        row("journal_drain", "    on disk after the last batch (the writer thread's lag)", 1000 * jo["drain_s"], "ms")
        row(
            "journal_bytes",
            f"10. journal on disk at the end: {jo['files']} files, {jo['records_on_disk']:,} records, "
            f"{jo['dropped']} dropped (bound: one file and one older generation)",
            jo["bytes"] / (1 << 20),
            "MB",
            f"≤ {jo['limit_bytes'] / (1 << 20):g} MB, none dropped",
            None,
        )
        rows[-1]["ok"] = jo["bytes"] <= jo["limit_bytes"] and jo["dropped"] == 0
    rows += history_rows(res)
    if res.get("nats"):
        from nats_bench import rows as nats_rows

        rows += nats_rows(res["nats"])
    sh = res.get("ssh")
    if sh:
        r, lo = sh["ssh"], sh["local"]
        row(
            "ssh_p50",
            f"12. a change on another machine → the state here, over ssh to 127.0.0.1, p50 (n={r['n']}, "
            f"{r['missed']} missed)",
            1000 * r["p50"],
            "ms",
        )
        row("ssh_p99", "12. over ssh, p99", 1000 * r["p99"], "ms")
        row(
            "ssh_local",
            f"    the same change on this machine → its state, p50 / p99 (n={lo['n']}, {lo['missed']} missed)",
            f"{1000 * lo['p50']:.0f} / {1000 * lo['p99']:.0f} ms",
            "ms",
        )
    deep = res.get("deep")
    if deep:
        keys = [k for r in deep for k in r["key_samples"]]
        others = [c for r in deep for c in r["change_samples"]]
        lost = sum(r["missed"]["keys"] + r["missed"]["changes"] for r in deep)
        d = deep[0]["depth"]
        row(
            "deep_keys",
            f"13. a {d:,}-deep folder chain written in one team (a file at every level): a key answered, "
            f"p99 (n={len(keys)}, {lost} missed; max {1000 * max(keys, default=float('nan')):.0f} ms)",
            1000 * pct(keys, 99),
            "ms",
            f"≤ {DEEP_KEYS_MS} ms",
            DEEP_KEYS_MS,
        )
        row(
            "deep_others",
            f"13. meanwhile another team's change → its row, p99 (n={len(others)}; p50 {1000 * median(others):.0f} ms)",
            1000 * pct(others, 99),
            "ms",
            f"≤ {DEEP_OTHERS_MS} ms",
            DEEP_OTHERS_MS,
        )
        row(
            "deep_caught_up",
            "   the chain written in (median) · the room had taken all of it after (median)",
            f"{median([r['chain_write_s'] for r in deep]):.1f} s · {median([r['caught_up_s'] for r in deep]):.1f} s",
            "",
        )
    hk = res.get("hooks")
    if hk:
        nt = hk["notification"]
        row(
            "hook_notification",
            f"14. `teamtui hook` for a Notification event, median wall, cold process (n={nt['hook']['n']})",
            f"{1000 * nt['hook']['p50']:.0f} ms · {nt['ratio']:.1f}×",
            "",
            f"≤ {HOOK_RATIO:g}× python",
            None,
        )
        rows[-1]["ok"] = nt["ratio"] <= HOOK_RATIO
        row(
            "hook_python",
            "    bare `python -c pass` of the same interpreter, in the same rounds, median",
            1000 * nt["python"]["p50"],
            "ms",
        )
        al = hk["allow"]
        allow_row(
            "hook_allow",
            f"14. allow answered → the tool runs (this script in Claude Code's place), p50 (n={al['n']})",
            al,
        )
        real = hk.get("allow_real")
        if real:
            allow_row(
                "hook_allow_real",
                f"14. allow answered → the tool runs, the real Claude Code {hk.get('claude_version', '')}, p50 (n={real['n']})",
                real,
            )
    an = res.get("answers")
    if an:
        lo = an["local"]
        allow_row(
            "answer_local",
            f"18. allow pressed in the room → the tool runs, p50 (n={lo['n']}; this script in Claude Code's place)",
            lo,
        )
        ssh = an.get("ssh")
        if ssh:
            more = ssh["p50"] - lo["p50"]
            row(
                "answer_ssh",
                f"18. the same with the team on another machine, over ssh to 127.0.0.1, p50 (n={ssh['n']}): "
                f"{1000 * more:+.0f} ms",
                1000 * ssh["p50"],
                "ms",
                f"≤ local + {1000 * ALLOW_SSH_MORE_S:g} ms",
                None,
            )
            rows[-1]["ok"] = more <= ALLOW_SSH_MORE_S
            tail_row("answer_ssh_p90", ssh)
    ta, ti, tb = res.get("tmux_auto"), res.get("tmux_inprocess"), res.get("tmux_before")
    if ta:
        n = len(ta["runs"])
        was = f"; at {tb['ref']} {tb['first_screen_p50_s']:.1f} s" if tb else ""
        row(
            "tmux_first",
            f"9. {ta['members']} teammates inside tmux, auto mode: exec → first screen, p50 (n={n}){was}",
            ta["first_screen_p50_s"],
            "s",
            f"≤ {FIRST_SCREEN_S:g} s",
            FIRST_SCREEN_S,
        )
        row("tmux_first_max", "   max", ta["first_screen_max_s"], "s")
    if ti:
        row(
            "tmux_first_inproc",
            f"9. the same with --teammate-mode in-process: first screen, p50 (n={len(ti['runs'])})",
            ti["first_screen_p50_s"],
            "s",
            f"≤ {FIRST_SCREEN_S:g} s",
            FIRST_SCREEN_S,
        )
    if ta and ti:
        row(
            "tmux_first_ratio",
            "   auto / in-process, first screen p50",
            f"{ta['first_screen_p50_s'] / ti['first_screen_p50_s']:.2f}×",
            "",
        )
    if ta or ti:
        parts = [
            f"{label} {r['cpu_p50_s']:.1f} s"
            for label, r in (("auto", ta), ("in-process", ti), (f"at {tb['ref']}" if tb else "", tb))
            if r
        ]
        row(
            "tmux_cpu",
            "9. CPU (user + sys, all processes under tmux) in the first 10 s, median: " + " · ".join(parts),
            "",
            "",
        )
        parts = [
            f"{label} {1000 * r['keys_p50_s']:.0f} · {1000 * r['keys_max_s']:.0f} ms"
            for label, r in (("auto", ta), ("in-process", ti))
            if r and r["keys_n"]
        ]
        row(
            "tmux_keys",
            "   `/` answered while the panes open (every 0.5 s up to 10 s), p50 · max: " + "; ".join(parts),
            "",
            "",
        )
    if ta:
        was = f" (at {tb['ref']}: {tb['follows_max']})" if tb else ""
        row(
            "tmux_panes",
            f"9. `follow` panes running 10 s after start, max over runs{was}",
            ta["follows_max"],
            "",
            "≤ 8 (max_panes)",
            8,
        )
    for teams in FLEET_TEAMS:
        f = res.get(f"fleet_{teams}")
        if not f:
            continue
        # The targets are the first size's; a larger fleet has none: its rows say what happens.
        held = teams == FLEET_TEAMS[0]
        first_t, ms50_t, ms150_t, idle_t, rss_t = (
            (("≤ 2 s", 2), ("≤ 50 ms", 50), ("≤ 150 ms", 150), ("≤ 1 %", 1), ("≤ 300 MB", 300))
            if held
            else ((), (), (), (), ())
        )
        k = f"fleet{teams}"
        what = f"{f['teams']} teams × {f['members']} teammates ({f['native']} native, {f['claude']} Claude Code)"
        row(
            f"{k}_first",
            f"11. control room over {what}{'' if held else ', no target'}: first screen, every row",
            f["first_screen_s"],
            "s",
            *first_t,
        )
        if f.get("pty_p50_s") is not None:
            row(
                f"{k}_pty",
                f"   `teamtui ROOT…` in a pty: exec → every row, p50 (n={len(f['pty_s'])})",
                f["pty_p50_s"],
                "s",
                *first_t,
            )
        row(f"{k}_complete", "   every Claude Code row's tokens in (its transcripts read)", f["complete_s"], "s")
        row(
            f"{k}_p50",
            f"11. change → overview row, p50 (n={f['change']['n']}, {f['missed']} missed)",
            1000 * f["change"]["p50"],
            "ms",
            *ms50_t,
        )
        row(f"{k}_p99", "11. change → overview row, p99", 1000 * f["change"]["p99"], "ms", *ms150_t)
        row(
            f"{k}_handled",
            "   of which written → through FleetControl.changed, p50 / p99; changed itself, p50 / p99",
            f"{1000 * f['handled']['p50']:.0f} / {1000 * f['handled']['p99']:.0f}; "
            f"{f['changed_ms']['p50']:.1f} / {f['changed_ms']['p99']:.1f} ms",
            "",
        )
        row(f"{k}_idle", f"11. idle, {f['idle_wall_s']:.0f} s: CPU of one core", f["idle_pct"], "%", *idle_t)
        row(f"{k}_rss", "11. resident memory, peak", f["rss_peak_mb"], "MB", *rss_t)
    changes_rows(res.get("changes"), row)
    return rows


def changes_rows(ch: list[dict] | None, row) -> None:
    """15. What each teammate changed (benchmarks/changes_bench.py)."""
    if not ch:
        return
    c0 = ch[0]
    what = f"{c0['teammates']} teammates, {c0['edits']:,} edits ({c0['files']} files)"
    row(
        "ch_first",
        f"15. changes view, a Claude Code team of {what}: first fill, `c` → every row (median of {len(ch)})",
        1000 * median([x["first_fill_s"] for x in ch]),
        "ms",
        "≤ 200 ms",
        200,
    )
    row(
        "ch_fill",
        "   of which ChangesScreen.fill (rows, collisions, table), median",
        1000 * median([x["fill_s"] for x in ch]),
        "ms",
    )
    lat = [v for x in ch for v in x["samples"]]
    missed = sum(x["missed"] for x in ch)
    row(
        "ch_edit_p50",
        f"15. a new edit → on screen (the view open on its file), p50 (n={len(lat)}, {missed} missed)",
        1000 * pct(lat, 50),
        "ms",
        "≤ 50 ms",
        50,
    )
    row("ch_edit_p99", "15. a new edit → on screen, p99", 1000 * pct(lat, 99), "ms")
    row(
        "ch_handled",
        "   of which written → through apply_changes, p50; apply_changes, p50; the view's part, p50",
        f"{1000 * median([x['write_to_handled']['p50'] for x in ch]):.0f}; "
        f"{1000 * median([x['batch_widgets']['p50'] for x in ch]):.1f}; "
        f"{1000 * median([x['view_refresh']['p50'] for x in ch]):.1f} ms",
        "",
    )
    row("ch_rss", "15. resident memory, peak (max over runs)", max(x["rss_peak_mb"] for x in ch), "MB", "≤ 300 MB", 300)
    bound = c0["bound"]
    row(
        "ch_bound",
        "15. one team's EditLog fed "
        + ", then ".join(f"{b['edits']:,}" for b in bound)
        + " edits of 40 lines: edits held; diff text held; traced memory",
        "; ".join(f"{b['held']:,}; {b['chars'] / 2**20:.1f} MiB; {b['traced_mb']:.1f} MB" for b in bound),
        "",
        "flat past its caps",
        note="caps: 20,000 edits, 8 MiB of diff text, 5,000 files per team",
    )


def history_rows(res: dict) -> list[dict]:
    """16. The history database: search over 1,000 teams, one team's timeline, what recording costs."""
    rows: list[dict] = []

    def row(key, figure, value, unit, target="", limit=None):
        ok = None if limit is None or isinstance(value, str) else value <= limit
        rows.append(dict(key=key, figure=figure, value=value, unit=unit, target=target, ok=ok, note=""))

    g, se = res.get("history_gen"), res.get("history_search")
    if g and se:
        row(
            "hist_gen",
            f"16. history of {g['teams']:,} teams, {g['text_mb']:,.0f} MB of text ({g['entries']:,} entries, "
            f"{g['messages']:,} messages): database on disk; generated in {g['seconds']:.0f} s "
            f"(rows {g['rows_s']:.0f} s, FTS5 index {g['index_s']:.0f} s)",
            g["db_mb"],
            "MB",
        )
        s_ = se["search"]
        row(
            "hist_search_p50",
            f"16. search, newest 50 with the match marked, p50 (n={s_['n']}, warm page cache)",
            1000 * s_["p50"],
            "ms",
            "≤ 100 ms",
            100,
        )
        row("hist_search_p99", "16. search, p99", 1000 * s_["p99"], "ms", "≤ 300 ms", 300)
        kinds = " · ".join(f"{k} {1000 * v['p50']:.1f}/{1000 * v['max']:.0f}" for k, v in sorted(se["kinds"].items()))
        row("hist_search_kinds", f"   by kind, p50/max ms: {kinds}", "", "")
    t = res.get("history_timeline")
    if t:
        row(
            "hist_timeline",
            f"16. timeline of a {t['members']}-teammate, {t['hours']:g}-hour team ({t['lines']:,} lines, {t['tasks']} tasks, "
            f"{t['messages']} messages): read, built and drawn (200 columns), p50 (n={t['tui']['n']})",
            1000 * t["tui"]["p50"],
            "ms",
            "≤ 200 ms",
            200,
        )
        row(
            "hist_timeline_max",
            "   max; of which reading the database, p50",
            f"{1000 * t['tui']['max']:.0f} ms; {1000 * t['load']['p50']:.0f} ms",
            "",
        )
        row("hist_report", "   the same as the HTML report (SVG and tables), p50", 1000 * t["report"]["p50"], "ms")
    off, on = res.get("history_record_off"), res.get("history_record_on")
    if off and on:
        row(
            "hist_rec_p50",
            f"16. change→screen, 50 teammates, recorder attached, p50 (n={on['all']['n']}, {on['missed']} missed; "
            f"without: {1000 * off['all']['p50']:.0f} ms)",
            1000 * on["all"]["p50"],
            "ms",
            "≤ 50 ms",
            50,
        )
        row(
            "hist_rec_p99",
            f"16. the same, p99 (without: {1000 * off['all']['p99']:.0f} ms)",
            1000 * on["all"]["p99"],
            "ms",
            "≤ 150 ms",
            150,
        )
        per_on, per_off = on["cpu_s"] / max(on["changes"], 1), off["cpu_s"] / max(off["changes"], 1)
        own = on["observe_s"] + on["writer_cpu_s"]
        row(
            "hist_rec_cpu",
            f"16. CPU the recorder adds: its own (on the loop, p99 {1e6 * on['observe']['p99']:.0f} µs a batch, and its "
            f"writer thread) over the dashboard process's, all threads",
            100 * own / on["cpu_s"],
            "%",
            "≤ 5 %",
            5,
        )
        row(
            "hist_rec_cpu_runs",
            "   the process's CPU per change, without → with (two runs, so their noise too); database and WAL",
            f"{1000 * per_off:.1f} → {1000 * per_on:.1f} ms ({100 * (per_on - per_off) / per_off:+.1f} %); {on['db_kb']:.0f} KB",
            "",
        )
    return rows


def fmt(v, unit: str) -> str:
    if isinstance(v, str):
        return v
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    if unit == "ms":
        return f"{v:.1f} ms" if v < 10 else f"{v:.0f} ms"
    if unit == "s":
        return f"{v:.2f} s"
    if unit == "%":
        return f"{v:.2f} %"
    if unit == "MB":
        return f"{v:.1f} MB" if v < 10 else f"{v:.0f} MB"
    return f"{v}"


def peers_section(res: dict) -> str:
    """teamtui beside the polling peers at their periods, as ratios; empty unless one run measured both."""
    ours = {m: res.get(f"latency_{m}") for m in (5, 50)}
    idle = res.get("idle_50")
    polls = [
        (p, {m: res.get(poll_key(f"poll_{m}", p)) for m in (5, 50)}, res.get(poll_key("poll_idle_50", p)))
        for p in POLL_PERIODS
    ]
    if not all(ours.values()) or not idle or not all(all(by_m.values()) and pi for _, by_m, pi in polls):
        return ""

    def cell(m: int, r: dict) -> str:
        a = ours[m]["all"]
        return (
            f"{1000 * r['all']['p50']:.0f} / {1000 * r['all']['p99']:.0f} ms "
            f"({r['all']['p50'] / a['p50']:.1f}× · {r['all']['p99'] / a['p99']:.1f}×)"
        )

    def seen(*runs: dict) -> str:
        missed = sum(r["missed"] for r in runs)
        return f"{missed} of {missed + sum(r['all']['n'] for r in runs)}"

    lines = [
        "## Beside the polling peers",
        "",
        "The peers (tmai, agent-deck and the like) poll: every period they list the team folders and re-read",
        "and parse every file. The same scenario as rows 1, 4 and 5, at the periods they use, in the same run:",
        "change→screen for teamtui, change→seen for the poller (it renders nothing), and idle CPU with 50",
        "teammates. In brackets, the poller's figure over teamtui's.",
        "",
        "| Watcher | 5 teammates: p50 / p99 (× teamtui) | 50 teammates: p50 / p99 (× teamtui) | idle CPU, 50 teammates (× teamtui) | changes never seen |",
        "|---|---|---|---|---|",
    ]
    lines.append(
        f"| teamtui (file events) | {1000 * ours[5]['all']['p50']:.0f} / {1000 * ours[5]['all']['p99']:.0f} ms | "
        f"{1000 * ours[50]['all']['p50']:.0f} / {1000 * ours[50]['all']['p99']:.0f} ms | {idle['core_pct']:.2f} % | "
        f"{seen(ours[5], ours[50])} |"
    )
    for p, by_m, pi in polls:
        lines.append(
            f"| poll-and-rescan every {p:g} s | {cell(5, by_m[5])} | {cell(50, by_m[50])} | "
            f"{pi['core_pct']:.2f} % ({pi['core_pct'] / idle['core_pct']:.1f}×) | {seen(by_m[5], by_m[50])} |"
        )
    lines += [
        "",
        "*Changes never seen*: for teamtui, changes not on screen within 5 s; for a poller, task rewrites "
        "overwritten before any poll read them, which are left out of its percentiles (that flatters it).",
        "",
    ]
    return "\n".join(lines)


def fleet_section(res: dict) -> str:
    """The control room's figures at each fleet size, side by side (rows 11, one run)."""
    runs = [(n, res[f"fleet_{n}"]) for n in FLEET_TEAMS if res.get(f"fleet_{n}")]
    if len(runs) < 2:
        return ""
    first, last = runs[0][1], runs[-1][1]

    def ms(s: dict) -> str:
        return f"{1000 * s['p50']:.0f} / {1000 * s['p99']:.0f} ms"

    figures = [
        ("first screen, every row (FleetSession → frame)", lambda f: f"{f['first_screen_s']:.2f} s", "first_screen_s"),
        (
            "of which discovery and every team read (`FleetSession.discover`)",
            lambda f: f"{f['discover_s']:.2f} s",
            "discover_s",
        ),
        (
            "`teamtui ROOT…` in a pty: exec → every row, p50",
            lambda f: f"{f['pty_p50_s']:.2f} s" if f.get("pty_p50_s") is not None else "n/a",
            "pty_p50_s",
        ),
        ("every Claude Code row's tokens in", lambda f: f"{f['complete_s']:.2f} s", "complete_s"),
        ("change → overview row, p50 / p99", lambda f: ms(f["change"]), None),
        ("written → through FleetControl.changed, p50 / p99", lambda f: ms(f["handled"]), None),
        (
            "FleetControl.changed (needs, every row, the table), p50 / p99",
            lambda f: f"{f['changed_ms']['p50']:.1f} / {f['changed_ms']['p99']:.1f} ms",
            None,
        ),
        ("reading the changed files, p50", lambda f: f"{f['read_ms']['p50']:.1f} ms", None),
        ("idle CPU of one core", lambda f: f"{f['idle_pct']:.2f} %", "idle_pct"),
        ("resident memory, peak", lambda f: f"{f['rss_peak_mb']:.0f} MB", "rss_peak_mb"),
        ("folders watched (one watcher)", lambda f: f"{f['watched_dirs']}", "watched_dirs"),
    ]
    head = " | ".join(f"{n} teams" for n, _ in runs)
    lines = [
        "## The control room: fleet sizes side by side",
        "",
        f"Rows 11, one run: {first['members']} teammates a team, half native, half Claude Code (pane and in-process",
        "teammates in turn); the last column is the largest fleet's figure over the smallest's.",
        "",
        f"| Figure | {head} | × |",
        "|---|" + "---|" * len(runs) + "---|",
    ]
    for label, cell, key in figures:
        ratio = ""
        if key is not None and isinstance(first.get(key), (int, float)) and first[key] and last.get(key) is not None:
            ratio = f"{last[key] / first[key]:.1f}×"
        elif key is None and label.startswith("change"):
            ratio = f"{last['change']['p50'] / first['change']['p50']:.1f}× · {last['change']['p99'] / first['change']['p99']:.1f}×"
        elif key is None and label.startswith("FleetControl"):
            ratio = f"{last['changed_ms']['p50'] / first['changed_ms']['p50']:.1f}×"
        lines.append(f"| {label} | " + " | ".join(cell(f) for _, f in runs) + f" | {ratio} |")
    loads = "; ".join(f"{n} teams {f['load'][0]:.2f}" for n, f in runs if f.get("load"))
    lines += ["", f"Load average (1 min) when each run ended: {loads}.", ""]
    return "\n".join(lines)


# ------------------------------------------------------------------ the doc
def machine() -> dict:
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram = "?"
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                ram = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass

    def ver(p):
        try:
            return metadata.version(p)
        except metadata.PackageNotFoundError:
            return "?"

    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "ram": ram,
        "kernel": platform.release(),
        "python": platform.python_version(),
        "textual": ver("textual"),
        "watchfiles": ver("watchfiles"),
        "teamtui": ver("teamtui"),
        "rich": ver("rich"),
        "commit": subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        ).stdout.strip(),
        "dirty": bool(
            subprocess.run(
                ["git", "-C", str(REPO), "status", "--porcelain", "teamtui"], capture_output=True, text=True
            ).stdout.strip()
        ),
    }


DEFINITIONS = """\
## What each figure means

- **Shows.** A change *shows* at the moment the first frame containing its text is ready for
  the terminal: the benchmark wraps the real app's `App._display` (the call that hands each
  compositor update — full or partial — to the driver) and scans that frame's text for the
  change's unique token. The app is the real `TeamTUI` (subclassed only to add this probe and
  to subscribe to its `on_batch` hook), headless through `App.run_test(size=(160, 50))`; only
  the final write to a terminal is skipped. Scanning frames costs the app a little time, which
  is counted against it.
- **Change → screen latency (1).** Another process (`benchmarks/writer.py`, plain `os` calls,
  no teamtui import) makes one change at a time and reports `time.time()` taken just *before*
  its write; the latency is the frame time minus that. Three kinds, shuffled, equal numbers:
  an atomic rewrite (temp file + rename) of task #1 (the first row of the board) with a new
  subject, a line appended to the selected teammate's log (the large log panel), and a line
  appended to that teammate's inbox (message table). 10–50 ms pause between changes. Timed
  out changes (5 s) are counted as missed. *After 6 s without a change*: the same, with 6 s of
  quiet before each change, so each one meets the watcher at its quiet step (25 ms instead of
  10 ms, `teamtui/protocol/watch.py`); it shows what the idle saving costs.
- **Scale (2).** 100 teammates, 10,000 task files, 100 × 1 MB of JSONL logs. *First complete
  screen*: from `TeamTUI(...)` construction until frames have shown the header counting all
  10,000 tasks and the last line of the selected teammate's log in the large log panel (the
  later of the two). Imports are not in it (see 6).
  Each repetition is a fresh process; the page cache is warm. *RSS*: `VmHWM` (peak resident)
  of that process from /proc/self/status. *One task update, app time*: for each feed batch
  caused by a rewrite of one task file, the time reading the changed files (`TeamState.apply`)
  plus `apply_changes` (the synchronous widget updates), as `TeamTUI.on_batch` reports them —
  not the later compositor render, which the latency row includes.
- **Sustained (3).** The writer appends round-robin to 100 logs at 1,000 lines/s total, each
  line stamped with its write time. *change→screen*: lines of the selected teammate (10/s),
  measured as in (1). *written→handled*: every line, until the feed's `apply_changes` has
  run for it (`on_batch`). *Backlog*: every written line handled, drain time after the writer stops, and
  the p50 handling latency of the first vs. last fifth of the lines. *Key press*: every
  second a real `Key` event goes through the driver (`/` focuses the task filter, answered at
  the first frame showing the filter's editing placeholder; `escape` leaves it, answered at the first
  frame after `close_filter` ran); the figure is the worst of all presses.
- **Idle (4).** 50 teammates (100 KB of log each), nothing written: utime + stime of the whole
  process (all threads, the watcher's included) from /proc/self/stat over the window, after a
  warm-up, divided by wall time. Headless: the real driver's input thread is not running.
- **Poll-and-rescan (5).** The peers' approach, as generously as possible: every 1 s (and, for
  the section beside the peers, every 0.5 s and 2 s; random phase) list the team folders and re-read and parse every config, task, inbox and log file,
  then look for the token. No rendering at all. Same writer, same kinds of change, 100–300 ms
  apart (they overlap, which does not change what a poller sees). *Missed* changes are task
  rewrites overwritten by the next rewrite of the same task before any poll saw them: a
  poller never shows such a state at all, and they are left out of its percentiles (which
  flatters it).
- **Start-up (6).** `teamtui watch ROOT --teammate-mode in-process` in a real pseudo-terminal
  (160×50, TERM=xterm-256color), 5 teammates / 10 tasks, from exec to the first output in
  which the header's "/10 done" appears; then `q`. Import time: `python -X importtime -c
  "import teamtui.protocol"` (cumulative µs of the package) and the subprocess wall time minus
  a bare `python -c pass`.
- **CLI (7).** The steps a teammate runs several times per task, each a fresh process of the
  venv's `teamtui` script against a 5-teammate team (`TEAMTUI_ROOT`/`TEAMTUI_TEAM` set):
  `send`, `log`, `inbox`, `task claim` (the next ready task), `task complete` (the one just
  claimed), `status`, `tasks`; and `teamtui follow` from exec until its first screen (the header
  and the task line) is printed. Wall time from `subprocess.run` until exit. Beside them, in the
  same rounds, a bare `python -c pass` of the same interpreter; each round runs them all in a
  shuffled order, a first round warms the page cache and is not counted. The ratio is median over
  median. With `--cli-before REF`, the package at REF (extracted with `git archive`, put first on
  `PYTHONPATH`) is timed in the same rounds on its own copy of the team.
- **Claude Code transcripts (8).** A Claude Code 2.1.328 team (`teams/`, `tasks/`, `projects/`)
  with the lead and 10 pane teammates, each with a 10 MB session transcript shaped like the real
  ones (`benchmarks/transcripts.py`: prompts, attachments, prompt snapshots, API request lines,
  tool calls with usage, tool results of a few KB), 110 MB in all. *First screen*: from
  `TeamTUI(...)` construction until frames have shown the last line of the selected teammate's
  transcript in the large log panel (every transcript read from its end, as far as its log
  window needs, in a thread). *Tokens filled in*: until the header shows the team's total tokens
  (each transcript's head counted in a thread worker after the first screen). Each repetition is
  a fresh process with a fresh team. *A new transcript line*: then a `Bash` tool call appended
  to the selected teammate's transcript by the benchmark process (`time.time()` before the
  write), until a frame shows `Bash: echo <token>` in its log panel; 10–50 ms apart.
- **Inside tmux (9).** `benchmarks/tmux_bench.py`: a private tmux server (own socket, no
  config file, a 160×50 window) whose pane runs `teamtui watch ROOT` on 50 teammates / 100
  tasks, auto mode (so one `teamtui follow` pane per teammate, within `max_panes`, default 8),
  and the same with `--teammate-mode in-process`. The pane's output goes to a file
  (`pipe-pane`) before Enter releases the shell's `read`, so the clock starts at the exec.
  *First screen*: until the output shows the header's "/100 done". *Key*: every 0.5 s until
  10 s, `/` sent with `send-keys`, until the filter's editing placeholder is in the output
  after it (then escape). *CPU*: user + system time of the tmux server and every process under
  it (the dashboard, its tmux clients, every pane's process, reaped ones included) from Enter
  to 10 s later. *Panes*: `follow` processes running at 10 s. With `--tmux-before REF`, one
  run of the package at REF (from `git archive`, first on `PYTHONPATH`, the panes too).
- **Journal (10).** A Claude Code 2.1.328 team (two teammates) whose `mate00` inbox gets 20,000
  messages, one at a time, each an atomic rewrite of the inbox file that also drops the entries
  taken (at most five stay: the rest are *delivered*, as Claude Code prunes them); every rewrite
  goes through the real `TeamState.apply_batch` with the team's `TeamJournal`. *Cost on the
  loop*: the time `TeamJournal.observe` takes per batch (building the records and queueing them;
  the writing is the journal's own thread), which a dashboard pays on its loop. *On disk after
  the last batch*: `journal.flush()` after the loop. *Journal on disk*: bytes of every journal
  file at the end (rotated at 4 MB, one older generation kept) and records the full queue dropped.
- **Control room (11).** `benchmarks/fleet_bench.py`, one fresh process per fleet size: N teams
  of 10 teammates (`benchmarks/fleetgen.py`), half native (a project root each, 20 tasks, 50 KB of
  log per teammate), half Claude Code 2.1.328 teams in one config folder, made from the
  `tmux-running` and `inprocess-running` fixtures in turn (pane and in-process teammates: the team,
  its sessions and cwd renamed, its teammates grown to 10 by copying the fixture's under new names,
  transcripts included; the lead's `leadProcess` is the benchmark process, so it reads as alive).
  The app is `TeamTUI(fleet=LocalSource(...))` with the frame probe of (1), headless, 160×50.
  *First screen*: from `LocalSource(...)` (discovery and every team read, which `teamtui ROOT…`
  does before its app starts) to the first frame with every team's row in the table; *tokens in*:
  to the first frame where every Claude Code row has its tokens (each team's transcripts read from
  the end, one team at a time, in a thread). *In a pty*: `teamtui ROOT… --teammate-mode in-process`
  from exec until the header says "N teams" (one run not counted warms the page cache).
  *Change → overview row*: another process (`fleetgen.py write`) adds a task file to a random team
  or completes one it added (atomic rewrite), taking `time.time()` before the write; the latency
  ends at the first frame drawn while that team's Tasks cell holds the new done/total. Each change
  waits for the previous one (5 s: missed), then 20–80 ms. *Written → through
  FleetControl.changed*: until `on_batch` reported the batch (the rest is the frame);
  *FleetControl.changed*: the time `on_batch` reports for it (the needs of the changed team, every
  row, the table). *Idle*: as (4), over 10 s after a 2 s warm-up. *Resident memory*: VmHWM at the
  end of the run. The targets are for 20 teams; 100 teams has none (what happens).
- **Another machine (12).** `benchmarks/ssh_bench.py`: a real OpenSSH server on 127.0.0.1 (its
  own sshd_config and throwaway keys) serves a second HOME with a native team of 5 teammates;
  `RemoteHost` follows it over `ssh -T ... teamtui stream` (session/remote.py). In the same
  process and loop a `FleetSession` follows an identical team of this machine. Each round
  rewrites one task's subject (`NativeTeam.update_task`) in the remote team, then in the local
  one, from just before the write until the feed's batch holding it was applied to the team's
  state (no screen: the state is what the overview and dashboard draw from). 5 s: missed; 20–80
  ms between rounds. The difference is what the stream and ssh add (to 127.0.0.1: no network).
- **A deep folder chain (13).** `benchmarks/deep_bench.py`, one fresh process per run: two native
  teams (roots of their own) in the control room (`TeamTUI(fleet=...)` with the frame probe,
  headless, 160×50). Another process makes a 2,000-deep chain of folders in the first team's
  folder and writes one file at every level, 1 ms apart (a shell loop's pace). Meanwhile a key
  (`down`/`up`) is sent every 50 ms: answered at the first frame with the cursor on the other row;
  and every 100 ms a task is added to the second team by another process: until the first frame
  whose Tasks cell shows it (as 11). Until a log line written after the chain is in the first
  team's state, and a second more. Three runs, samples pooled.
- **The hook (14).** `benchmarks/hooks_bench.py`. *`teamtui hook` for a Notification*: the
  venv's `teamtui hook` with the `worker_permission_prompt` event 2.1.332 sent
  (tests/fixtures/examples/claude-2.1.332-hooks), a cold process each, beside `python -c pass` of
  the same interpreter, shuffled per round (a warm-up round not counted); every event is checked
  to be in the spool at the end. *Allow answered → the tool runs*: a room of the benchmark process
  holds the room lock; each round starts `teamtui hook` with a PermissionRequest as Claude Code
  does, waits (file events) for the request to be listed, then the clock runs from
  `answers.answer(..., "allow")` (what a room calls) until the tool ran: with this script in
  Claude Code's place, until it read the hook's decision and ran the command; with the real Claude
  Code (the pinned binary offline, its model scripted to ask one Bash a turn, when `make interop`
  installed it), until the command's file appeared.
- **Allow pressed → the tool runs (18).** `benchmarks/answer_bench.py`. The real control room
  (headless, Pilot, 140×42) over a Claude Code team whose session's hook asks; each round starts
  `teamtui hook` with the PermissionRequest 2.1.332 sent for in-process alice (its command made
  `touch FILE`), waits on the app until the room lists it, presses `a` in the needs list (the
  request in full), and the clock runs from just before the second `a` (allow) until the tool has
  run: a thread of the script, in Claude Code's place, reads the hook's printed decision and runs
  the command. A warm-up round is not counted. *Over ssh*: the same with the team and its hooks in
  a second HOME behind a real OpenSSH server on 127.0.0.1 (12's), the room following it over `ssh
  … teamtui stream`: the `answer` request goes to the stream, which carries it out there.
- **What each teammate changed (15).** `benchmarks/changes_bench.py`, one fresh process per run:
  a Claude Code 2.1.328-shaped team (the lead and 10 pane teammates, `make_claude_team` of
  `scenarios.py`) whose transcripts hold benchmarks/transcripts.py's turns with 1,000 Edit or
  Write calls and their results between them (2.1.332's `toolUseResult`, FORMATS.md §5): 100
  per teammate, 1–12 lines each, over 20 files of its own and, 15 % of the time, two files it
  shares with a neighbour (collisions). The app is the real one with the frame probe of (1),
  headless, 160×50, waited on until every edit is read (the heads counted). *First fill*: from
  the `c` key to the first frame holding the view's title with every file counted;
  *ChangesScreen.fill* as timed inside it. *A new edit → on screen*: with the view open and
  mate00's first file selected, an Edit result line appended to mate00's transcript by the
  benchmark process (`time.time()` before the write) until the first frame whose diff title holds
  that file's new counts; each waits for the last (5 s: missed), then 10–50 ms. *Written →
  through apply_changes*: until the dashboard's `on_batch` reported the batch (the rest is the
  frame); *apply_changes*: what `on_batch` reports; *the view's part*: `ChangesScreen.refresh_rows`.
  *EditLog bound*: one `EditLog` fed 200,000 edits of 40 distinct lines each (3,000 files,
  10 teammates), its size by `tracemalloc` after 2,000, 20,000 and 200,000.
- **Teams on many machines through NATS (17).** `benchmarks/nats_bench.py`: Debian's
  `nats-server` on 127.0.0.1 (JetStream, a store of the run's own). One process plays every host:
  200 × 5 native teams on disk (5 teammates, 20 tasks, two inbox lines and 4 KB of log each), read
  by one LocalSource and one Streamer whose lines go to one real NatsSink per host (its own
  connection, epoch, spool, rollups, heartbeats every 3 s), each given only its own teams' lines:
  what `teamtui stream --publish` does, with one watcher over every host's folders; once every host
  has published, that process freezes what it read out of full garbage collections (a real host's
  few teams make a few ms of them; 200 hosts' in one process, 250 ms pauses). The room is
  the real app with the frame probe of (1), headless, 160×50, over a Fleet of an empty LocalSource
  and a NatsSource (what `[[nats]]` makes). History is off on both sides, and health_timeout is an
  hour (the generated teammates never write: past a minute all 5,000 would count as disappeared).
  *First screen*: from `NatsSource(...)` until the first frame with every team's row (every host
  had published before). *Change → row*: as (11), a task added or completed in a random team's
  folder by another process, until the first frame whose Tasks cell holds the new figure (5 s:
  missed), 20–80 ms apart. *Idle*: the room's process over the window after a 2 s warm-up, every
  host beating; the server's and the hosts' process's CPU beside it. *Resident memory*: the
  room's VmHWM. *A host that stops*: one host's connection closed without a goodbye (as a killed
  process), until each of its rows says "disconnected since" (the room's default STALL); a task and
  a message are written in one of its teams meanwhile; the host starts again (a new epoch, its
  teams whole), until the row shows the task and no "disconnected"; the message must be there once.
- Percentiles are nearest-rank over all samples of the run(s); "median of N" is over
  repetitions, each a fresh process.
"""


def write_doc(
    path: Path,
    res: dict,
    cfg_name: str,
    mach: dict,
    started: float,
    elapsed: float,
    load_before: tuple,
    before: dict | None,
    before_label: str,
    extra: str,
    reruns: list | None = None,
) -> None:
    rows = figures(res)
    brows = {r["key"]: r for r in figures(before)} if before else {}
    lines = ["# Benchmarks", ""]
    lines.append(
        f"Generated by `python benchmarks/run.py{' --quick' if cfg_name == 'quick' else ''}` "
        f"(`make bench`) on {dt.datetime.fromtimestamp(started).strftime('%Y-%m-%d %H:%M')}, "
        f"{cfg_name} run, {elapsed / 60:.1f} min. Numbers are from that run; nothing is typed in by hand."
    )
    lines.append("")
    lines.append(f"- Machine: {mach['nproc']} CPUs ({mach['cpu']}), {mach['ram']} RAM, Linux {mach['kernel']}.")
    lines.append(
        f"- Load average when the run started: {load_before[0]:.2f} / {load_before[1]:.2f} / {load_before[2]:.2f} "
        f"(1/5/15 min){' — above 0.5, so the figures may be noisier than on an idle machine' if load_before[0] > 0.5 else ''}."
    )
    for rerun in reruns or []:
        lines.append(
            f"- Rows of {', '.join(rerun['groups'])} re-run alone (`--only {','.join(rerun['groups'])}`) on "
            f"{dt.datetime.fromtimestamp(rerun['started']).strftime('%Y-%m-%d %H:%M')} at commit {rerun['machine']['commit']}"
            f"{' + uncommitted changes' if rerun['machine']['dirty'] else ''}, load average "
            f"{rerun['load'][0]:.2f} / {rerun['load'][1]:.2f} / {rerun['load'][2]:.2f}; the other rows are from the run above."
        )
    lines.append(
        f"- Versions: Python {mach['python']}, textual {mach['textual']}, rich {mach['rich']}, watchfiles {mach['watchfiles']}, "
        f"teamtui {mach['teamtui']} (commit {mach['commit']}{' + uncommitted changes' if mach['dirty'] else ''})."
    )
    lines.append("")
    head = "| Figure | Target |" + (f" Before ({before_label}) |" if before else "") + " Measured | |"
    lines.append(head)
    lines.append("|---|---|" + ("---|" if before else "") + "---|---|")
    for r in rows:
        mark = "" if r["ok"] is None else ("pass" if r["ok"] else "**miss**")
        b = brows.get(r["key"])
        bcell = (
            (
                f" {fmt(b['value'], b['unit'])}{'' if b['ok'] is None else (' pass' if b['ok'] else ' miss')} |"
                if b
                else " |"
            )
            if before
            else ""
        )
        lines.append(f"| {r['figure']} | {r['target']} |{bcell} {fmt(r['value'], r['unit'])} | {mark} |")
    lines.append("")
    # The ratios mean something only when both sides come from one run.
    run_of = {g: i for i, rerun in enumerate(reruns or []) for g in rerun["groups"]}
    peers = peers_section(res) if len({run_of.get(g) for g in ("poll", "latency", "idle")}) == 1 else ""
    if peers:
        lines.append(peers)
    fleet = fleet_section(res)
    if fleet:
        lines.append(fleet)
    if extra:
        lines.append(extra.rstrip() + "\n")
    lines.append(DEFINITIONS)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default=",".join(GROUPS))
    ap.add_argument("--out", type=Path, default=REPO / "docs" / "benchmarks.md")
    ap.add_argument("--save", metavar="NAME")
    ap.add_argument("--before", type=Path, default=HERE / "results" / "before.json")
    ap.add_argument("--notes", type=Path, default=HERE / "notes.md", help="text appended under the table")
    ap.add_argument("--from-results", type=Path, help="only (re)write the doc from a saved result")
    ap.add_argument(
        "--merge-into",
        metavar="NAME",
        help="replace the rows of --only in benchmarks/results/NAME.json and write the doc from it",
    )
    ap.add_argument(
        "--cli-before", metavar="REF", help="cli rows: also time the package at this git commit, side by side"
    )
    ap.add_argument(
        "--tmux-before", metavar="REF", help="tmux rows: also time the package at this git commit (one run)"
    )
    a = ap.parse_args()
    only = set(a.only.split(","))
    unknown = only - set(GROUPS)
    if unknown:
        ap.error(f"unknown group(s) {', '.join(sorted(unknown))}; choose from {', '.join(GROUPS)}")
    if a.from_results:
        saved = json.loads(a.from_results.read_text())
        res, meta = saved["results"], saved["meta"]
    else:
        cfg = QUICK if a.quick else FULL
        started = time.time()
        load = os.getloadavg()
        res = run_all(cfg, only, a.cli_before, a.tmux_before)
        meta = {
            "config": "quick" if a.quick else "full",
            "started": started,
            "elapsed": time.time() - started,
            "load": load,
            "machine": machine(),
        }
        if a.merge_into:
            into = HERE / "results" / f"{a.merge_into}.json"
            saved = json.loads(into.read_text())
            rerun = {**meta, "groups": sorted(only)}
            for group in only:
                for key in GROUP_KEYS[group]:
                    saved["results"].pop(key, None)
            saved["results"].update(res)
            saved["meta"]["reruns"] = [r for r in saved["meta"].get("reruns", []) if not set(r["groups"]) & only] + [
                rerun
            ]
            into.write_text(json.dumps(saved, indent=1))
            res, meta = saved["results"], saved["meta"]
        if a.save:
            out = HERE / "results" / f"{a.save}.json"
            out.parent.mkdir(exist_ok=True)
            out.write_text(json.dumps({"meta": meta, "results": res}, indent=1))
    before = before_label = None
    if a.before and a.before.exists():
        b = json.loads(a.before.read_text())
        bm = b["meta"]
        before, before_label = b["results"], f"{bm['config']} run, commit {bm['machine']['commit']}"
    extra = a.notes.read_text() if a.notes and a.notes.exists() else ""
    write_doc(
        a.out,
        res,
        meta["config"],
        meta["machine"],
        meta["started"],
        meta["elapsed"],
        tuple(meta["load"]),
        before,
        before_label or "",
        extra,
        meta.get("reruns"),
    )
    for r in figures(res):
        mark = "" if r["ok"] is None else ("pass" if r["ok"] else "MISS")
        print(f"{r['figure'][:90]:90} {fmt(r['value'], r['unit']):>18} {mark}")
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
