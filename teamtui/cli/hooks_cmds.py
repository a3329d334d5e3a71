"""`teamtui hooks install|uninstall|status`, `teamtui hook`, `teamtui requests`, `teamtui answer`.

`teamtui hook` itself is dispatched by `cli.main` before any parser is built (it runs inside
Claude Code's loop); it is registered here only so that `teamtui --help` lists it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from teamtui.cli.common import EXIT_ERROR, EXIT_USAGE, CliError, Context, guarded, inert, out

TYPE_CHECKING = False  # not typing's: `teamtui --help` loads this module
if TYPE_CHECKING:
    from typing import Any

REQUESTS_HELP = """\
Each line: ID, team, who, what waits, and the answers it takes (`teamtui answer ID ANSWER`).
A permission request a hook waits on has a 32-hex id; the others are KIND:TEAM:WHAT (pane, held,
stuck, gone; perm, plan, wait, lead and collision are answered elsewhere: the line says where).
--json prints {"requests": [{id, kind, team, who, text, since, answers, note, detail?}],
"problems": [...]}; --follow (with or without --json) holds the room lock, so hooks wait for an
answer, and prints each new permission request as it comes (a JSON object a line with --json)."""

ANSWER_HELP = """\
ANSWER by kind of request:
  permission request (32-hex id)  allow | deny [--message WHY] | lead (leave it to the lead's terminal)
  pane:TEAM:…                     allow | deny [--message WHY: sent to the teammate as a message]
  held:TEAM:TASK                  retry | block --message WHY
  stuck:TEAM:NAME                 message --message TEXT | restart (where `teamtui run` leads the team)
  gone:TEAM:NAME                  release | message --message TEXT | restart (…)
  perm:TEAM:ID                    allow | deny, while the lead's dialog shows it (else in the lead's terminal)
  plan:, wait:, lead:, collision: take no answer from here: `teamtui answer ID` says where they are answered
Exit status: 0 the answer was taken; 1 it was not (already answered, nobody waits any more, the
lead's dialog shows another request, …: the line on stderr says which); 2 a bad id or answer."""


def _spool() -> Path:
    from teamtui.protocol.hooks.place import ensure_spool

    try:
        return ensure_spool()
    except OSError as exc:
        raise CliError(str(exc)) from None


# ------------------------------------------------------------------ hooks install / uninstall / status


def _settings_file(ctx: Context) -> Path:
    from teamtui.protocol.hooks.install import project_settings, user_settings

    project = ctx.args.project
    if project is None:
        return user_settings()
    if not project.is_dir():
        raise CliError(f"--project {project}: not a folder", EXIT_USAGE)
    return project_settings(project.resolve())


def cmd_hooks_install(ctx: Context) -> int:
    from teamtui.protocol.hooks.event import INSTALLED_EVENTS
    from teamtui.protocol.hooks.install import SettingsFileError, hook_command, install

    path, command = _settings_file(ctx), hook_command()
    try:
        change = install(path, command)
    except SettingsFileError as exc:
        raise CliError(str(exc)) from None
    if not change.changed:
        out(f"teamtui's hooks are already installed in {inert(path)} (nothing changed)")
        return 0
    out(f"installed teamtui's hooks in {inert(path)}: {', '.join(change.events or INSTALLED_EVENTS)}")
    out(f"  command: {inert(command)}")
    if change.backup is not None:
        out(f"  the previous file is kept as {inert(change.backup)}")
    return 0


def cmd_hooks_uninstall(ctx: Context) -> int:
    from teamtui.protocol.hooks.install import SettingsFileError, uninstall

    path = _settings_file(ctx)
    try:
        change = uninstall(path)
    except SettingsFileError as exc:
        raise CliError(str(exc)) from None
    if not change.changed:
        out(f"no teamtui hook in {inert(path)} (nothing changed)")
        return 0
    out(f"removed teamtui's hooks from {inert(path)}: {', '.join(change.events)}")
    if change.removed:
        out("  it held nothing else: the file is removed")
    if change.backup is not None:
        out(f"  the previous file is kept as {inert(change.backup)}")
    return 0


def cmd_hooks_status(ctx: Context) -> int:
    from teamtui.protocol.hooks.install import project_settings, status, user_settings
    from teamtui.protocol.hooks.place import spool_dir
    from teamtui.protocol.hooks.room import room_running
    from teamtui.protocol.hooks.spool import count_dropped
    from teamtui.protocol.settings import load_settings

    paths = [user_settings()]
    project = ctx.args.project if ctx.args.project is not None else Path.cwd()
    if project.is_dir():
        paths.append(project_settings(project.resolve()))
    found = [status(p) for p in dict.fromkeys(paths)]
    spool = spool_dir()
    settings = load_settings()
    report: dict[str, object] = {
        "files": [
            {
                "path": str(s.path),
                "exists": s.exists,
                "problem": s.problem,
                "events": s.events,
                "missing": s.missing,
                "other_events": s.extra,
                "commands": {c: {"runs": not why, "problem": why} for c, why in s.commands.items()},
            }
            for s in found
        ],
        "spool": str(spool),
        "room_running": spool.is_dir() and room_running(spool),
        "dropped": count_dropped(spool) if spool.is_dir() else 0,
        "answer_wait": settings.answer_wait,
    }
    if ctx.args.json:
        print(json.dumps(report, indent=2))
        return 0
    installed_anywhere = False
    for s in found:
        if s.problem:
            out(f"{inert(s.path)}: {inert(s.problem)}")
            continue
        if not s.events:
            out(f"{inert(s.path)}: no teamtui hook" + ("" if s.exists else " (no such file)"))
            continue
        installed_anywhere = True
        done = [e for e in s.events if e not in s.extra]
        out(f"{inert(s.path)}: {', '.join(done)}" + (f"; missing {', '.join(s.missing)}" if s.missing else ""))
        for command, why in s.commands.items():
            out(f"  {inert(command)}: " + ("runs" if not why else f"does NOT run: {inert(why)}"))
    out(f"spool: {inert(spool)} ({report['dropped']} events dropped)")
    wait = settings.answer_wait
    out(
        "permission requests: "
        + (
            f"offered to a room for {wait:g} s"
            if wait > 0
            else "answered in the lead's terminal only (answer_wait = 0)"
        )
        + ("; a room that answers is running" if report["room_running"] else "; no room that answers is running")
    )
    if not installed_anywhere:
        out("install them with `teamtui hooks install` (or `--project DIR` for one project)")
    return 0


# ------------------------------------------------------------------ requests / answer


def _fleet_items(ctx: Context, only_team: str | None = None) -> tuple[list[Any], list[str], dict[str, Any]]:
    """Every team's items (a team named `only_team` alone when given): (items, problems, stores by team)."""
    import time

    from teamtui.protocol.fleet import discover_fleet
    from teamtui.protocol.layout import open_team
    from teamtui.protocol.settings import load_settings
    from teamtui.session.local_team import open_local
    from teamtui.session.requests import team_items

    settings = load_settings()
    roots = [ctx.root] if ctx.root is not None else []
    fleet = discover_fleet(roots, settings=settings, ended=False)
    problems = list(fleet.problems)
    items, sessions = [], {}
    now = time.time()
    for team in fleet.teams:
        if team.ended or team.problem is not None:
            continue
        if only_team is not None and team.name != only_team:
            continue
        try:
            store = open_team(team.root, team.name, team.layout)
            session, state = open_local(
                store, log_limit=settings.log_lines, health_timeout=settings.health_timeout, sender=settings.sender
            )
            state.load_all(one_shot=True)
            if state.transcripts is not None:
                state.load_transcripts()
            found = team_items(session, store, team.key, now)
        except Exception as exc:  # noqa: BLE001 - one team that does not read must not hide the others
            problems.append(f"{team.name}: {exc}")
            continue
        if only_team is not None and session.name in sessions:
            raise CliError(f"two teams are named {only_team}: give --root to say which", EXIT_USAGE)
        sessions[session.name] = store
        items += found
    return items, problems, sessions


def _line(item: Any) -> str:
    answers = "|".join(item.answers) if item.answers else f"({item.note})" if item.note else ""
    team = f"{item.team}  " if item.team else ""
    return f"{item.id}  {inert(team)}{inert(item.text)}  {answers}"


def cmd_requests(ctx: Context) -> int:
    from teamtui.session.requests import permission_items

    if ctx.args.follow:
        return _follow(ctx)
    spool = _spool()
    items = permission_items(spool)
    more, problems, _ = _fleet_items(ctx)
    items += more
    if ctx.args.json:
        print(json.dumps({"requests": [i.to_json() for i in items], "problems": problems}, indent=2))
        return 0
    for item in items:
        out(_line(item))
    if not items:
        out("nothing waits for you")
    for p in problems:
        print(f"teamtui: {inert(p)}", file=sys.stderr)
    return 0


def _follow(ctx: Context) -> int:
    """A room for scripts: hold the room lock, print each new permission request until interrupted."""
    from teamtui.protocol.filewatch import FileWatch
    from teamtui.protocol.hooks.place import ensure_requests
    from teamtui.protocol.hooks.room import RoomPresence
    from teamtui.session.requests import permission_items

    spool = _spool()
    ensure_requests(spool)
    seen: set[str] = set()

    def show() -> None:
        for item in permission_items(spool):
            if item.id in seen:
                continue
            seen.add(item.id)
            print(json.dumps(item.to_json()) if ctx.args.json else _line(item), flush=True)

    with RoomPresence(spool), FileWatch(spool / "requests", recursive=True) as watch:
        if not ctx.args.json:
            print("holding the room: permission requests wait for an answer (Ctrl-C to stop)", flush=True)
        show()
        for _ in watch.changes():
            show()
    return 0


def cmd_answer(ctx: Context) -> int:
    from teamtui.protocol.hooks.asks import is_request_id

    item_id, decision, message = ctx.args.id, ctx.args.answer, ctx.args.message or ""
    where = os.uname().nodename
    if is_request_id(item_id):  # a hook's request: only protocol/hooks is needed (and imported)
        from teamtui.protocol.hooks.answers import AnswerRefused, answer

        if decision not in ("allow", "deny", "lead"):
            shown = f", not {decision!r}" if decision else ""
            raise CliError(f"a permission request takes allow, deny or lead{shown}", EXIT_USAGE)
        try:
            answer(_spool(), item_id, decision, message=message, via="cli", where=where)
        except AnswerRefused as exc:
            raise CliError(f"not taken: {inert(exc)}", EXIT_ERROR) from None
        said = {"allow": "allowed", "deny": "denied", "lead": "left to the lead's terminal"}[decision]
        out(f"{said}: request {item_id}")
        return 0
    from teamtui.session.items import HOW
    from teamtui.session.requests import NotAnswered, answer_item, parse_id

    try:
        kind, team, target = parse_id(item_id)
    except ValueError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    if kind in HOW and kind != "perm":  # answered elsewhere whatever it is now: say where
        raise CliError(f"{item_id} takes no answer from here: {HOW[kind]}", EXIT_USAGE)
    try:
        items, _problems, sessions = _fleet_items(ctx, only_team=team)
        if kind == "perm":  # a pane teammate's request: pressed while the lead's dialog shows this very one
            item = next((i for i in items if i.kind == "pane" and i.detail.get("request_id") == target), None)
            if item is None:
                raise NotAnswered(f"the lead's dialog does not show {item_id} now: {HOW['perm']}")
        else:
            item = next((i for i in items if i.id == item_id), None)
        if item is None:
            raise NotAnswered(f"{item_id} waits no more (or never did): see `teamtui requests`")
        if decision not in item.answers:
            if not item.answers:
                raise CliError(f"{item_id} takes no answer from here: {item.note or HOW.get(kind, '')}", EXIT_USAGE)
            shown = f", not {decision!r}" if decision else f" (`teamtui answer {item_id} {item.answers[0]}`)"
            raise CliError(f"{item_id} takes {', '.join(item.answers)}{shown}", EXIT_USAGE)
        from teamtui.protocol.settings import load_settings

        settings = load_settings()
        taken = answer_item(sessions[item.team], settings.sender, item, decision, message, via="cli", where=where)
    except NotAnswered as exc:
        raise CliError(f"not taken: {inert(exc)}", EXIT_ERROR) from None
    out(inert(taken.text))
    return 0


# ------------------------------------------------------------------ registration


def register(sub: argparse._SubParsersAction, parents: list[argparse.ArgumentParser], only: str | None = None) -> None:
    if only in (None, "hook"):
        sub.add_parser(
            "hook",
            help="what Claude Code runs for each hooked event (installed by `teamtui hooks install`); reads the event on stdin",
            description="Record one Claude Code hook event (JSON on stdin) in teamtui's spool; for a PermissionRequest, "
            "offer it to a running room and print its answer. Always exits 0.",
        ).set_defaults(handler=lambda ctx: _hook())

    if only in (None, "hooks"):
        hooks = sub.add_parser("hooks", parents=parents, help="install, remove or check teamtui's Claude Code hooks")
        hooks_sub = hooks.add_subparsers(
            dest="hooks_command", metavar="ACTION", required=True, parser_class=type(hooks)
        )
        for name, handler, text in (
            (
                "install",
                cmd_hooks_install,
                "add teamtui's hooks to Claude Code's settings.json (idempotent; keeps a backup)",
            ),
            ("uninstall", cmd_hooks_uninstall, "remove teamtui's hooks (and nothing else) from settings.json"),
            ("status", cmd_hooks_status, "what is installed where, whether its command still runs, the spool"),
        ):
            p = hooks_sub.add_parser(name, parents=parents, help=text, description=text)
            p.set_defaults(handler=guarded(handler))
            p.add_argument(
                "--project",
                type=Path,
                default=None,
                metavar="DIR",
                help="the project's .claude/settings.local.json instead of the user's settings.json",
            )
            if name == "status":
                p.add_argument("--json", action="store_true", help="machine-readable output")

    if only in (None, "requests"):
        p = sub.add_parser(
            "requests",
            parents=parents,
            help="what waits for you in every team, each with an id to answer",
            description="What waits for you in every team: permission requests, held tasks, stuck or gone teammates.",
            epilog=REQUESTS_HELP,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        p.set_defaults(handler=guarded(cmd_requests))
        p.add_argument("--json", action="store_true", help="machine-readable output")
        p.add_argument(
            "--follow", action="store_true", help="be a room: hold the room lock and print requests as they come"
        )

    if only in (None, "answer"):
        p = sub.add_parser(
            "answer",
            parents=parents,
            help="answer one request by its id (from `teamtui requests`)",
            description="Answer one request by its id (from `teamtui requests` or a notification).",
            epilog=ANSWER_HELP,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        p.set_defaults(handler=guarded(cmd_answer))
        p.add_argument("id", metavar="ID")
        p.add_argument(
            "answer",
            metavar="ANSWER",
            nargs="?",
            default="",
            choices=("", "allow", "deny", "lead", "retry", "block", "release", "message", "restart"),
            help="without it, the answers ID takes (or how it is answered) are said",
        )
        p.add_argument(
            "--message", "-m", default="", metavar="TEXT", help="the reason for deny or block, or the message to send"
        )


def _hook() -> int:
    from teamtui.protocol.hooks.hook import main

    return main()
