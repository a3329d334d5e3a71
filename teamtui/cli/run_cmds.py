"""`teamtui run TEAMFILE` and `teamtui demo`: run a team with the lead runtime, headless or under the dashboard."""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

from teamtui.cli.common import EXIT_USAGE, CliError, Context, inert
from teamtui.cli.mode import teammate_mode
from teamtui.cli.terminal import detach_terminal, need_terminal
from teamtui.tmux.mode import add_teammate_mode_option

# The runtime (and pydantic, asyncio, watchfiles with it) is imported by the functions that run a
# team: `teamtui --help` and `teamtui run --help` start as fast as the hot commands.
TYPE_CHECKING = False  # not typing's: importing it costs ~2 ms
if TYPE_CHECKING:
    import threading
    from typing import Unpack

    from teamtui.runtime.lead import Lead, LeadEvent
    from teamtui.runtime.team_shutdown import RunResult
    from teamtui.runtime.teamfile import TeamFile
    from teamtui.tmux.api import PaneSpec, TeammatePanes
    from teamtui.tmux.mode import ModeDecision
    from teamtui.tui.app import AppOptions


def register(sub: argparse._SubParsersAction, parents: list[argparse.ArgumentParser], only: str | None = None) -> None:
    p = sub.add_parser(
        "run",
        parents=parents,
        help="run a team from a TOML team file",
        description="Create the team and its tasks, start its teammates and lead them. "
        "The team lives in --root (default: the team file's folder). "
        "Run again, it resumes the team as the last run left it (its board, held tasks and inboxes); "
        "it refuses a team another live `teamtui run` leads.",
    )
    p.add_argument("teamfile", type=Path, help="the TOML team file")
    p.add_argument(
        "--fresh",
        action="store_true",
        # The words of teamtui.runtime.resume.FRESH_REMOVES (a test holds them equal), without its imports.
        help="start the team over from the team file instead of resuming it: first remove its task board "
        "(.tasks/), and its inboxes, logs, shutdown summaries and member list (.teams/<team>/)",
    )
    p.add_argument(
        "--headless", action="store_true", help="no dashboard: print progress; exit 0 when every task is completed"
    )
    add_teammate_mode_option(p, top=False)
    p.set_defaults(handler=cmd_run)

    d = sub.add_parser(
        "demo",
        parents=parents,
        help="run the built-in demo team (simulated teammates, no LLM)",
        description="A built-in team of simulated teammates working through about 15 tasks.",
    )
    d.add_argument(
        "--dir",
        type=Path,
        help="project root for the demo team, kept afterwards (default: a fresh temp folder, removed at exit)",
    )
    d.add_argument("--teammates", type=int, default=5, metavar="N", help="how many teammates, 4 to 6 (default 5)")
    d.add_argument(
        "--speed", type=float, default=1.0, metavar="X", help="time runs X times faster (default 1: about two minutes)"
    )
    d.add_argument("--headless", action="store_true", help="no dashboard: print progress")
    add_teammate_mode_option(d, top=False)
    d.set_defaults(handler=cmd_demo)


def cmd_run(ctx: Context) -> int:
    from teamtui.runtime.teamfile import TeamFileError, load_team_file

    try:
        spec = load_team_file(ctx.args.teamfile)
    except TeamFileError as exc:
        raise CliError(str(exc)) from None
    if ctx.team:
        spec.team.name = ctx.team
    root = ctx.root if ctx.root is not None else spec.base_dir
    mode = teammate_mode(ctx)
    if not ctx.args.headless:  # before the team is made
        need_terminal("--headless prints progress instead")
    refuse_unstartable(spec, root, elsewhere="give it a folder of its own (--root DIR)")
    return run_team(spec, root, headless=ctx.args.headless, mode=mode, fresh=ctx.args.fresh)


def cmd_demo(ctx: Context) -> int:
    if not 4 <= ctx.args.teammates <= 6:
        raise CliError(f"--teammates must be between 4 and 6, got {ctx.args.teammates}", EXIT_USAGE)
    if not ctx.args.speed > 0:  # NaN too
        raise CliError("--speed must be more than 0", EXIT_USAGE)
    mode = teammate_mode(ctx)  # refuse `--teammate-mode tmux` outside tmux before making a folder
    if not ctx.args.headless:
        need_terminal("--headless prints progress instead")
    import shutil
    import tempfile

    if ctx.args.dir is not None:
        return _run_demo(ctx, ctx.args.dir, mode)
    # A folder of its own, removed when the demo ends (after its teammates): /tmp does not fill up.
    root = Path(tempfile.mkdtemp(prefix="teamtui-demo-"))
    try:
        return _run_demo(ctx, root, mode)
    finally:
        shutil.rmtree(root, ignore_errors=True)
        print(f"teamtui demo: removed {root} (--dir D keeps a demo's files)", flush=True)


def _run_demo(ctx: Context, root: Path, mode: ModeDecision) -> int:
    from teamtui.demo.team import demo_team

    root.mkdir(parents=True, exist_ok=True)
    spec = demo_team(root, teammates=ctx.args.teammates, speed=ctx.args.speed)
    if (root / ".teams" / spec.team.name).exists():
        raise CliError(f"{root} already holds a demo team: pass another --dir, or none for a fresh folder")
    refuse_unstartable(spec, root, elsewhere="pass another --dir, or none for a fresh folder")
    print(f"teamtui demo: team {spec.team.name!r} in {root}", flush=True)
    return run_team(spec, root, headless=ctx.args.headless, mode=mode, simulated=True)


def refuse_unstartable(spec: TeamFile, root: Path, *, elsewhere: str) -> None:
    """CliError, before anything starts, for a team that cannot work: a teammate's program that is
    not there (each said on its own line), or a root whose one task board another team uses."""
    from teamtui.runtime.preflight import board_sharers, missing_programs

    name = spec.team.name
    missing = missing_programs(spec)
    for m in missing:
        _say(f"teamtui: {inert(m)}", sys.stderr)
    if missing:
        fix = "install it" if len(missing) == 1 else "install them"
        raise CliError(f"team {name!r} not started: {fix}, or correct the command in the team file")
    others = board_sharers(root, name)
    if others:
        held = ", ".join(repr(o) for o in others)
        raise CliError(
            f"{inert(root)} already holds team{'s' if len(others) > 1 else ''} {held}, and every team in one folder "
            f"shares its task board (.tasks/, as the native layout has it): {name!r} would see and work "
            f"{'their' if len(others) > 1 else 'its'} tasks; {elsewhere}, or remove "
            f"{' and '.join(f'.teams/{o}' for o in others)} and .tasks/ once done with them"
        )


def run_team(
    spec: TeamFile, root: Path, *, headless: bool, mode: ModeDecision, fresh: bool = False, simulated: bool = False
) -> int:
    """Run the team (resumed when it is on disk; with `fresh`, removed and made again); in tmux mode
    (`mode`, from teamtui.cli.mode.teammate_mode) each teammate runs in its own pane, closed with the team.
    `simulated`: the demo's team (q stops it, no question)."""
    from teamtui.protocol.fleet.registry import registered_run
    from teamtui.tmux.mode import make_panes

    panes, notice = make_panes(mode, spec.team.name)
    # Registered while it leads (removed however it ends): every fleet overview on this machine lists it.
    with registered_run(root, spec.team.name, "native"):
        try:
            if notice and headless:
                _say(f"teamtui: {inert(notice)}", sys.stderr)
            spawner = _tmux_spawner(panes, spec)
            if headless:
                return run_headless(spec, root, spawner=spawner, fresh=fresh)
            return run_with_dashboard(
                spec, root, spawner=spawner, fresh=fresh, simulated=simulated, panes=LeadPanes(panes), notice=notice
            )
        finally:
            panes.close_all()  # after the lead is done: every pane it opened goes, whatever ended the run


def _tmux_spawner(panes: TeammatePanes, spec: TeamFile):
    """The lead's spawner: teammates in panes in tmux mode, else plain child processes (None)."""
    if not panes.active:
        return None
    from teamtui.protocol.colors import color_name
    from teamtui.tmux.panes import TmuxPanes
    from teamtui.tmux.spawner import TmuxSpawner

    if not isinstance(panes, TmuxPanes):  # active panes are tmux's; any other has no pane to run in
        return None
    colors = {t.name: t.color for t in spec.teammates}
    return TmuxSpawner(panes, color_of=lambda name: color_name(colors.get(name, ""), name))


class LeadPanes:
    """The panes as the dashboard sees them under a lead: the lead's spawner opens and closes them
    (each runs its teammate), so the dashboard only hides, shows and selects, and leaving the
    dashboard must not close them before the lead has shut the team down gracefully."""

    def __init__(self, panes: TeammatePanes):
        self._panes = panes
        self.active = panes.active
        self.team = panes.team

    def sync(self, specs: list[PaneSpec]) -> None:
        return None

    def close(self, name: str) -> None:
        return None

    def toggle(self) -> bool:
        return self._panes.toggle()

    def select(self, name: str) -> bool:
        return self._panes.select(name)

    def close_all(self) -> None:
        return None  # run_team closes them once the lead has finished

    def listen(self, listener) -> None:
        self._panes.listen(listener)

    def waiting(self) -> tuple[str, ...]:
        return self._panes.waiting()


def _print_event(ev: LeadEvent) -> None:
    import time

    stamp = time.strftime("%H:%M:%S", time.localtime(ev.ts))
    mark = {"warning": " warning:", "error": " error:"}.get(ev.level, "")
    _say(f"{stamp}{mark} {inert(ev.text)}")


def _say(line: str, file=None) -> None:
    """Print a progress line; a terminal that is gone (EIO, a closed pipe) must not stop the lead."""
    try:
        print(line, file=file or sys.stdout, flush=True)
    except (OSError, ValueError):
        pass


def _report(result: RunResult) -> int:
    if result.code != 0:
        _say(f"teamtui: {inert(result.reason)}", sys.stderr)
    return result.code


def run_headless(spec: TeamFile, root: Path, *, spawner=None, fresh: bool = False) -> int:
    import asyncio

    from teamtui.runtime.lead import Lead
    from teamtui.runtime.recording import RunRecording
    from teamtui.runtime.team_shutdown import EXIT_INTERRUPTED

    lead = Lead(spec, root, spawner=spawner, on_event=_print_event, fresh=fresh)

    async def main() -> RunResult:
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGINT, lead.stop, "interrupted (Ctrl-C)", EXIT_INTERRUPTED)
        loop.add_signal_handler(signal.SIGTERM, lead.stop, "terminated (SIGTERM)", 128 + signal.SIGTERM)
        loop.add_signal_handler(signal.SIGHUP, _hangup, lead)
        # Recorded in the history as a dashboard would record it: with no dashboard, nothing else does.
        record = RunRecording(root, spec.team.name, health_timeout=spec.team.health_timeout)
        lead.on_lead_messages = lambda messages: record.ingest("lead", messages)
        lead.on_teammate_messages = record.ingest
        run = loop.create_task(lead.run())
        await asyncio.sleep(0)  # lead.run goes as far as its first wait: the team is on disk, or it failed
        if lead.started.is_set() and (why := record.start()):
            _say(f"teamtui: {inert(why)}", sys.stderr)
        try:
            return await run
        finally:
            await record.finish()

    return _report(asyncio.run(main()))


def _hangup(lead: Lead) -> None:
    detach_terminal()
    lead.stop("terminal closed (SIGHUP)", 128 + signal.SIGHUP)


def run_with_dashboard(
    spec: TeamFile,
    root: Path,
    *,
    spawner=None,
    fresh: bool = False,
    simulated: bool = False,
    **app_kwargs: Unpack[AppOptions],
) -> int:
    """The lead runs in a background thread with its own event loop; the dashboard owns the main thread.
    Leaving the dashboard stops the team, or (asked so on q) the lead goes on headless in this process."""
    import asyncio
    import os
    import threading

    from teamtui.runtime.lead import Lead

    try:
        from teamtui.tui.app import TeamTUI  # fail early, before the team exists
    except ImportError as exc:
        print(f"teamtui: the dashboard is not available ({exc}); running headless", file=sys.stderr)
        return run_headless(spec, root, spawner=spawner, fresh=fresh)

    app_box: list[TeamTUI] = []
    pending: list[LeadEvent] = []

    def on_event(ev: LeadEvent) -> None:
        app = app_box[0] if app_box else None
        if app is not None and app.is_running:
            if ev.notify:
                severity = "error" if ev.level == "error" else "warning"
                try:
                    app.call_from_thread(app.notify, ev.text, severity=severity)
                except Exception:  # noqa: BLE001 - the app is closing: the line is printed below
                    pending.append(ev)
            return
        _print_event(ev)

    lead = Lead(spec, root, spawner=spawner, on_event=on_event, fresh=fresh)
    outcome: list[RunResult | BaseException] = []
    finished = threading.Event()

    def lead_thread() -> None:
        try:
            outcome.append(asyncio.run(lead.run()))
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread
            outcome.append(exc)
        finally:
            lead.started.set()
            finished.set()

    thread = threading.Thread(target=lead_thread, name="teamtui-lead")
    thread.start()
    lead.started.wait()
    if outcome:  # failed before the team existed (e.g. another run leads it)
        thread.join()
        return _finish(outcome)

    from teamtui.tui.screens.leave_lead import KEEP, Leading

    leading = Leading(spec.team.name, lambda: not finished.is_set(), pid=os.getpid(), simulated=simulated)
    app_kwargs["leading"] = leading  # this process leads the team: quitting asks what becomes of it
    app = connect_dashboard(lead, spec, root, **app_kwargs)
    app_box.append(app)

    def on_sigterm(signum: int, frame: object) -> None:
        if signum == signal.SIGHUP:
            detach_terminal()
        lead.stop(f"terminated (signal {signum})", 128 + signum)
        app.exit()

    old_term = signal.signal(signal.SIGTERM, on_sigterm)
    old_hup = signal.signal(signal.SIGHUP, on_sigterm)
    kept = False
    try:
        kept = app.run() == KEEP
    finally:
        app_box.clear()
        old_int = signal.getsignal(signal.SIGINT)
        if kept and not finished.is_set():
            # Headless from here: Ctrl-C is the lead's, as under --headless (never a KeyboardInterrupt
            # between two lines here, which would leave the lead's thread running on its own).
            signal.signal(signal.SIGINT, _ctrl_c(lead))
            _leading_on(lead, spec)
        else:
            # Leaving the dashboard (q, S, or a signal) shuts the team down gracefully.
            lead.stop("dashboard closed", 0, escalate=False)
        for ev in pending:
            _print_event(ev)
        _wait_for_lead(lead, finished)
        thread.join()
        signal.signal(signal.SIGTERM, old_term)
        signal.signal(signal.SIGHUP, old_hup)
        signal.signal(signal.SIGINT, old_int)
    return _finish(outcome)


def _ctrl_c(lead: Lead):
    """A SIGINT handler for a lead gone headless: the first Ctrl-C stops the team, each one after climbs the ladder."""
    from teamtui.runtime.team_shutdown import EXIT_INTERRUPTED

    seen: list[int] = []

    def on_sigint(signum: int, frame: object) -> None:
        lead.stop("interrupted again (Ctrl-C)" if seen else "interrupted (Ctrl-C)", EXIT_INTERRUPTED)
        seen.append(signum)

    return on_sigint


def _leading_on(lead: Lead, spec: TeamFile) -> None:
    """The dashboard closed and the lead goes on headless: say where its output goes and how to stop it."""
    import os

    pid, log = os.getpid(), lead.store.log_paths("lead")[0]
    _say(
        f"teamtui: the dashboard is closed; this process (pid {pid}) leads team {inert(spec.team.name)!r} "
        "on, headless, until the team is done"
    )
    _say(f"teamtui: its progress follows here and goes to {inert(str(log))}")
    _say(f"teamtui: to stop the team: Ctrl-C here, or kill {pid} (a graceful shutdown)")


def _wait_for_lead(lead: Lead, finished: threading.Event) -> None:
    """Block until the lead's thread is done: only then may its team's folder go (the demo's).

    A Ctrl-C climbs the ladder a rung; an error a signal handler raises meanwhile cannot cut the
    wait short (Thread.join cannot be trusted after one: Python 3.11 may call the thread stopped)."""
    from teamtui.runtime.team_shutdown import EXIT_INTERRUPTED

    failed: Exception | None = None
    while not finished.is_set():
        try:
            finished.wait()
        except KeyboardInterrupt:
            lead.stop("interrupted again (Ctrl-C)", EXIT_INTERRUPTED)  # climbs the ladder
        except Exception as exc:  # noqa: BLE001 - raised again once the lead is done
            failed = failed or exc
    if failed is not None:
        raise failed


def connect_dashboard(lead: Lead, spec: TeamFile, root: Path, **app_kwargs: Unpack[AppOptions]):
    """The dashboard on a running lead's team: S hands the team shutdown to the lead (its requests and
    ladder; progress comes back as snapshots, nothing waits), and what the lead drains from its own
    inbox is handed to the screen, not lost. The team comes through the one fleet every dashboard
    has: this machine's teams, only this one shown, called for like any other."""
    import os

    from teamtui.protocol.settings import load_settings
    from teamtui.session.fleet import open_fleet
    from teamtui.tui.app import TeamTUI

    name = spec.team.name
    fleet = open_fleet(
        load_settings(),
        roots=[root],
        cwd=root,
        team=name,
        layout="native",
        only_root=root,
        health_timeout=spec.team.health_timeout,
        on_shutdown=lead.request_shutdown,
        lead_of=(os.path.realpath(root), name),
    )
    app = TeamTUI(fleet, focus=name, **app_kwargs)

    lead.on_lead_messages = app.ingest_lead_messages  # thread-safe: it posts a message
    lead.on_teammate_messages = lambda name, messages: app.ingest_lead_messages(messages, name)
    return app


def _finish(outcome: list[RunResult | BaseException]) -> int:
    got = outcome[0] if outcome else RuntimeError("the lead ended without a result")
    if isinstance(got, BaseException):
        raise got
    return _report(got)
