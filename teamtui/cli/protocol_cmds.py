"""Commands over the team protocol: team, send, broadcast, inbox, task, log (status and tasks:
status_cmds.py)."""

from __future__ import annotations

import argparse
import json
import re

from teamtui.cli.common import EXIT_NONE_READY, EXIT_USAGE, CliError, Context, guarded, inert, one_line, out, own_sender
from teamtui.protocol.errors import UnsupportedError
from teamtui.protocol.models import LogLevel

# Each command imports what it alone needs (the board, a layout, the whole TeamState) in its body:
# this module is imported by every one of them. Not typing's TYPE_CHECKING: typing costs ~2 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from teamtui.protocol.errors import ReadError
    from teamtui.protocol.models import Message
    from teamtui.protocol.store import TeamStore

    Handler = Callable[[Context], int]

INBOX_JSON_HELP = """\
--json prints one object:
  {"member": str, "drained": bool,
   "messages": [{"type": str, "sender": str, "content": str, "timestamp": float,
                 "read": bool|null, "summary": str,
                 "payload": null | {"type": str, ...protocol fields in snake_case, e.g. "request_id"}}],
   "errors": [{"path": str, "line": int|null, "reason": str}]}"""

FROM_HELP = (
    "sender; default $TEAMTUI_NAME, else the lead when no `teamtui run` in another process leads the team "
    "(Claude Code teams: always sender in the config file, default teamtui)"
)


# ----------------------------------------------------------------------------- helpers


def _errors_json(errors: list[ReadError]) -> list[dict[str, object]]:
    return [{"path": str(e.path), "line": e.line, "reason": e.reason} for e in errors]


def _print_errors(errors: list[ReadError]) -> None:
    if errors:
        out()
        out(f"Unreadable ({len(errors)}):")
        for e in errors:
            out(f"  ! {inert(e)}")


def _print_json(obj: object) -> None:
    # ensure_ascii keeps every control character escaped, so the output is terminal-safe.
    out(json.dumps(obj, ensure_ascii=True, indent=2))


def _me(ctx: Context, given: str | None, what: str) -> str:
    # An explicit empty name is checked (and refused) like any other, not replaced by a default.
    name = given if given is not None else ctx.me
    if name is None:
        raise CliError(f"{what} is required (or set TEAMTUI_NAME)", EXIT_USAGE)
    return name


def _sender(ctx: Context, store: TeamStore) -> str:
    if ctx.args.sender is not None:
        return ctx.args.sender
    if ctx.me:
        return ctx.me
    if store.may_write_as_lead():
        return store.lead_name
    return own_sender()  # a name of teamtui's own, never a lead this process is not


def _require(store: TeamStore, able: bool, what: str) -> None:
    """Refuse up front, before anything is read or written, what the layout cannot do (`able`: its flag)."""
    if not able:
        raise UnsupportedError(f"{what} is not supported for {store.layout} teams")


def _message_json(m: Message) -> dict[str, object]:
    return {
        "type": m.type,
        "sender": m.sender,
        "content": m.content,
        "timestamp": m.timestamp,
        "read": m.read,
        "summary": m.summary,
        "payload": _payload_json(m),
    }


def _payload_json(m: Message) -> dict[str, object] | None:
    # One spelling for both layouts: teamtui's snake_case field names ("from" for the sender).
    if m.payload is None:
        return None
    data = m.payload.model_dump(mode="json")
    if "from_" in data:
        data["from"] = data.pop("from_")
    return data


# ----------------------------------------------------------------------------- team


def cmd_team_create(ctx: Context) -> int:
    from teamtui.protocol.layout import detect_layout, store_class

    root = ctx.root_or_cwd
    # No store exists yet: the layout's class says whether teamtui makes its teams (creates_teams).
    store_class(ctx.layout or detect_layout(root) or "native").create_team(
        root, ctx.args.name, description=ctx.args.description or ""
    )
    out(inert(ctx.args.name))
    return 0


def cmd_team_add(ctx: Context) -> int:
    store = ctx.store()
    _require(store, store.writes_members, "adding a teammate")
    store.add_member(ctx.args.name, agent_type=ctx.args.agent_type, color=ctx.args.color)
    out(inert(ctx.args.name))
    return 0


# ----------------------------------------------------------------------------- messages


_MESSAGE_TYPE = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,63}")
_FIELD_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_ENVELOPE = ("type", "sender", "content", "timestamp", "from", "text", "read")


def _fields(items: list[str]) -> dict[str, object]:
    """KEY=VALUE pairs; a VALUE that is JSON (true, 3, ["a"]) is taken as such, anything else as text."""
    fields: dict[str, object] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not _FIELD_KEY.fullmatch(key):
            raise CliError(f"--field wants KEY=VALUE with KEY a plain identifier, got {item!r}", EXIT_USAGE)
        if key in _ENVELOPE:
            raise CliError(f"--field {key} is part of the message envelope, not a field", EXIT_USAGE)
        try:
            fields[key] = json.loads(value)
        except ValueError:
            fields[key] = value
    return fields


def cmd_send(ctx: Context) -> int:
    from teamtui.protocol.models import decode_payload

    store = ctx.store()
    kind = ctx.args.type
    if not _MESSAGE_TYPE.fullmatch(kind):
        raise CliError(f"--type {kind!r} is not a message type (letters, digits, _ . -)", EXIT_USAGE)
    extra = _fields(ctx.args.field or [])
    sender = _sender(ctx, store)
    if kind not in ("message", "broadcast"):
        extra.setdefault("from", sender)
        try:  # a protocol message its reader could not decode is refused here, not written
            decode_payload({"type": kind, **extra})
        except ValueError as exc:
            raise CliError(f"not a valid {kind}: {one_line(exc)}") from None
    store.send(ctx.args.name, ctx.args.text, sender, type=kind, extra=extra or None)
    return 0


def cmd_broadcast(ctx: Context) -> int:
    from teamtui.protocol.touching import record_touch, touched

    store = ctx.store()
    sender = _sender(ctx, store)
    sent = [m.recipient for m in store.broadcast(ctx.args.text, sender)]
    found = touched(ctx.args.text)
    if found is not None:
        record_touch(store, found[0], sender, task=found[1])  # Specflow: the file stays touched until my task completes
    out(" ".join(inert(n) for n in sent))
    return 0


def cmd_inbox(ctx: Context) -> int:
    store = ctx.store()
    name = _me(ctx, ctx.args.name, "NAME")
    read = store.drain(name) if ctx.args.drain else store.peek(name)
    if ctx.args.json:
        _print_json(
            {
                "member": name,
                "drained": bool(ctx.args.drain),
                "messages": [_message_json(m) for m in read.messages],
                "errors": _errors_json(read.errors),
            }
        )
        return 0
    for m in read.messages:
        kind = "" if m.type == "message" else f"[{inert(m.type)}] "
        out(f"{inert(m.sender)}: {kind}{inert(m.content)}")
    _print_errors(read.errors)
    return 0


# ----------------------------------------------------------------------------- tasks


def cmd_task_create(ctx: Context) -> int:
    store = ctx.store()
    if not store.writes_tasks:
        raise UnsupportedError(f"creating tasks is not supported for {store.layout} teams")
    task = store.create_task(
        ctx.args.subject,
        description=ctx.args.description or "",
        blocked_by=ctx.args.blocked_by or [],
        files=ctx.args.files or [],
    )
    out(inert(task.id))
    return 0


def cmd_task_claim(ctx: Context) -> int:
    from teamtui.protocol.names import check_name

    store = ctx.store()
    owner = _me(ctx, ctx.args.owner, "--as NAME")
    _require(store, store.writes_tasks, "claiming tasks")
    check_name(owner, "owner")
    store.check_recipient(owner, "nothing was claimed")  # as `send` refuses one: a task held by a phantom
    task = store.claim_task(ctx.args.id, owner)
    if task is None:
        raise CliError("no task is ready to claim", EXIT_NONE_READY)
    out(inert(task.id))
    return 0


def cmd_task_complete(ctx: Context) -> int:
    from teamtui.protocol.errors import ConflictError
    from teamtui.protocol.outcomes import complete_as

    store = ctx.store()
    by = ctx.args.owner if ctx.args.owner is not None else ctx.me
    try:
        task = complete_as(store, ctx.args.id, by, ctx.args.result)
    except ConflictError as exc:
        if by and store.has_teammate_logs:
            store.log(by, f"refused: {exc}", "warning")  # shown in my log on the dashboard
        raise
    out(inert(task.id))
    return 0


def cmd_task_fail(ctx: Context) -> int:
    from teamtui.protocol.outcomes import record_failure, team_max_failures

    store = ctx.store()
    by = ctx.args.owner if ctx.args.owner is not None else ctx.me
    limit = team_max_failures(store)
    failure = record_failure(store, ctx.args.id, ctx.args.reason, max_failures=limit, owner=by)
    tid = inert(failure.task.id)
    if failure.held:
        out(
            f"{tid} failed {failure.count} time{'s' if failure.count != 1 else ''}: held as blocked until `teamtui task retry {tid}`"
        )
    else:
        out(f"{tid} failed ({failure.count}/{limit}): back on the board")
    return 0


def cmd_task_import(ctx: Context) -> int:
    """The patterns' plan-to-task mapping: each plan.jsonl's tasks onto the board, `td` and `d` as blocked_by."""
    import sys
    from pathlib import Path

    from teamtui.protocol import plan as plans

    store = ctx.store()
    _require(store, store.writes_tasks, "importing a plan")
    existing, _ = store.list_tasks(include_internal=True)
    known_ids: dict[str, str] = {}
    known: dict[str, list[str]] = {}
    for t in existing:
        key, pid = t.metadata.get("plan_task"), t.metadata.get("plan_id")
        if isinstance(key, str) and isinstance(pid, str):
            known_ids[key] = t.id
            known.setdefault(pid, []).append(key)
    try:
        loaded = [plans.load_plan(Path(p)) for p in ctx.args.plans]
        again = [p.plan_id for p in loaded if p.plan_id in known]
        if again:
            raise CliError(f"plan {', '.join(again)} is already on the board: nothing imported")
        tasks = plans.link_plans(loaded, known=known)
    except plans.PlanError as exc:
        for no, why in exc.problems:
            where = f"{exc.source}:{no}" if no else exc.source
            sys.stderr.write(f"teamtui: {inert(where)}: {inert(why)}\n")
        raise CliError(
            f"nothing imported: {len(exc.problems)} problem{'s' * (len(exc.problems) > 1)} in the plans"
        ) from None
    if any(p.cross_phase for p in loaded):
        summaries = Path(ctx.args.summaries) if ctx.args.summaries else Path(ctx.args.plans[0]).resolve().parent.parent
        checks = plans.check_cross_phase(loaded, plans.read_summaries(summaries))
        for c in checks:
            out(
                f"xd: {inert(c.plan_id)} needs {inert(c.dep.plan_id)} {inert(c.dep.artifact)}: {inert(c.status)}".replace(
                    "  ", " "
                )
            )
        unmet = [c for c in checks if not c.ok]
        if unmet and not ctx.args.ignore_xd:
            raise CliError(
                f"nothing imported: {len(unmet)} cross-phase dependenc{'ies are' if len(unmet) > 1 else 'y is'} not complete "
                f"(summaries looked for under {inert(summaries)}; --ignore-xd imports anyway)"
            )

    def build(first_id: int) -> list[dict[str, object]]:
        dicts = plans.task_dicts(tasks, first_id)
        for d in dicts:  # a dependency on a plan imported earlier: its task's id on the board
            d["blocked_by"] = [known_ids.get(b, b) for b in d["blocked_by"]]
        return dicts

    for task in store.import_tasks(build):
        out(f"{inert(task.id)} {inert(task.metadata.get('plan_task', ''))}")
    return 0


def cmd_task_retry(ctx: Context) -> int:
    from teamtui.protocol.outcomes import retry

    task = retry(ctx.store(), ctx.args.id)
    out(inert(task.id))
    return 0


def cmd_task_release(ctx: Context) -> int:
    task = ctx.store().release_task(ctx.args.id)
    out(inert(task.id))
    return 0


# ----------------------------------------------------------------------------- log


def cmd_log(ctx: Context) -> int:
    store = ctx.store()
    store.log(_me(ctx, ctx.args.name, "NAME"), ctx.args.text, ctx.args.level)
    return 0


# ----------------------------------------------------------------------------- parser


def command_parser(
    subs: argparse._SubParsersAction,
    parents: list[argparse.ArgumentParser],
    name: str,
    handler: Handler,
    help: str,
    epilog: str = "",
) -> argparse.ArgumentParser:
    """One command's parser: its help as its description, the epilog kept as written, guarded."""
    p = subs.add_parser(
        name,
        parents=parents,
        help=help,
        description=help,
        epilog=epilog or None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.set_defaults(handler=guarded(handler))
    return p


def register(sub: argparse._SubParsersAction, parents: list[argparse.ArgumentParser], only: str | None = None) -> None:
    """The parsers of these commands; of `only` alone when given (building the others costs a call ~4 ms)."""

    def add(
        subs: argparse._SubParsersAction, name: str, handler: Handler, help: str, epilog: str = ""
    ) -> argparse.ArgumentParser:
        return command_parser(subs, parents, name, handler, help, epilog)

    if only in (None, "team"):
        team = sub.add_parser("team", parents=parents, help="create a team or add a teammate")
        team_sub = team.add_subparsers(dest="team_command", metavar="ACTION", required=True, parser_class=type(team))
        p = add(team_sub, "create", cmd_team_create, "create a native team under the root (prints its name)")
        p.add_argument("name", metavar="NAME")
        p.add_argument("--description", default="", help="what the team is for")
        p = add(team_sub, "add", cmd_team_add, "add a teammate to the team's config (prints its name)")
        p.add_argument("name", metavar="NAME")
        p.add_argument("--agent-type", default="", help="the teammate's role, e.g. code-reviewer")
        p.add_argument("--color", default="", help="red, blue, green, yellow, purple, orange, pink or cyan")

    if only in (None, "send"):
        p = add(sub, "send", cmd_send, "append a message to NAME's inbox")
        p.add_argument("name", metavar="NAME")
        p.add_argument("text", metavar="TEXT")
        p.add_argument(
            "--type", default="message", metavar="T", help="message (default), or a protocol type such as dev_progress"
        )
        p.add_argument(
            "--field",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="a field of the message; VALUE as JSON when it parses",
        )
        p.add_argument("--from", dest="sender", default=None, help=FROM_HELP)

    if only in (None, "broadcast"):
        p = add(sub, "broadcast", cmd_broadcast, "send TEXT to every teammate but the sender (prints the recipients)")
        p.add_argument("text", metavar="TEXT")
        p.add_argument("--from", dest="sender", default=None, help=FROM_HELP)

    if only in (None, "inbox"):
        p = add(sub, "inbox", cmd_inbox, "show NAME's inbox (or drain it: read and clear)", INBOX_JSON_HELP)
        p.add_argument("name", metavar="NAME", nargs="?", help="whose inbox; default $TEAMTUI_NAME")
        p.add_argument(
            "--drain", action="store_true", help="read and clear (only the inbox's owner should); native only"
        )
        p.add_argument("--json", action="store_true", help="machine-readable output (shape below)")

    if only in (None, "task"):
        task = sub.add_parser(
            "task", parents=parents, help="create, claim, complete, fail, retry, release or import tasks"
        )
        task_sub = task.add_subparsers(dest="task_command", metavar="ACTION", required=True, parser_class=type(task))
        p = add(task_sub, "create", cmd_task_create, "create a pending task (prints its id)")
        p.add_argument("subject", metavar="SUBJECT")
        p.add_argument("--description", default="")
        p.add_argument("--blocked-by", nargs="+", default=[], metavar="ID", help="ids that must complete first")
        p.add_argument(
            "--files", nargs="+", default=[], metavar="PATH", help="paths the task will touch (file-conflict check)"
        )
        p = add(
            task_sub,
            "claim",
            cmd_task_claim,
            "claim task ID, or the next ready one (prints its id; exit 3 when none is ready)",
        )
        p.add_argument("id", metavar="ID", nargs="?")
        p.add_argument("--as", dest="owner", default=None, metavar="NAME", help="the claimer; default $TEAMTUI_NAME")
        p = add(
            task_sub,
            "complete",
            cmd_task_complete,
            "mark task ID completed (prints its id); as a teammate, only a task I hold",
        )
        p.add_argument("id", metavar="ID")
        p.add_argument(
            "--result", default=None, metavar="TEXT", help="what came of it (shown with the task, passed to hooks)"
        )
        p.add_argument(
            "--as", dest="owner", default=None, metavar="NAME", help="who completes it; default $TEAMTUI_NAME"
        )
        p = add(
            task_sub,
            "fail",
            cmd_task_fail,
            "give task ID back as failed: counted, and after the team's max_failures held as blocked",
        )
        p.add_argument("id", metavar="ID")
        p.add_argument("--reason", required=True, metavar="TEXT", help="what went wrong (shown on the board)")
        p.add_argument("--as", dest="owner", default=None, metavar="NAME", help="who held it; default $TEAMTUI_NAME")
        p = add(
            task_sub,
            "import",
            cmd_task_import,
            "put the tasks of the patterns' plan.jsonl files on the board (prints each new id and its plan key, like 03-01/T1)",
        )
        p.add_argument("plans", nargs="+", metavar="PLAN.jsonl")
        p.add_argument(
            "--summaries",
            default=None,
            metavar="DIR",
            help="where the *.summary.jsonl files are for the plans' xd check (default: the folder above the first plan's)",
        )
        p.add_argument(
            "--ignore-xd", action="store_true", help="import even when a cross-phase dependency is not complete"
        )
        p = add(
            task_sub,
            "retry",
            cmd_task_retry,
            "put a task held after too many failures back on the board (prints its id)",
        )
        p.add_argument("id", metavar="ID")
        p = add(task_sub, "release", cmd_task_release, "return task ID to pending with no owner (prints its id)")
        p.add_argument("id", metavar="ID")

    if only in (None, "log"):
        p = add(sub, "log", cmd_log, "append a line to NAME's structured log (native only)")
        p.add_argument("name", metavar="NAME", nargs="?", help="whose log; default $TEAMTUI_NAME")
        p.add_argument("text", metavar="TEXT")
        p.add_argument("--level", default="info", choices=[lv.value for lv in LogLevel])
