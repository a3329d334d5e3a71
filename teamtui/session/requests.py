"""Everything the person can answer, with one id each, and the one `answer` that carries an answer
out, whoever gives it (the CLI today; the room, a browser session and a remote stream through
the same functions).

    <32 hex>                 a permission request a hook waits on (protocol/hooks): allow, deny, lead
    pane:<team>:<12 hex>     a pane teammate's request in the lead's dialog (tmux/lead_dialog): allow, deny
    held:<team>:<task>       a task held after too many failures: retry, block
    stuck:<team>:<member>    a teammate interrupted, failed or silent: message (restart where `teamtui run` leads)
    gone:<team>:<member>     a teammate that disappeared holding work: release, message (restart …)
    perm:/plan:<team>:<id>   a request only the lead's terminal can answer now: listed, not answerable here
    lead:<team>              the lead ended while teammates worked: listed

Team names and members are safe names ([A-Za-z0-9._-]), so ':' separates the parts.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from teamtui.protocol.hooks import journal
from teamtui.protocol.hooks.answers import OPEN, PermissionAsk, list_asks
from teamtui.protocol.hooks.asks import is_request_id
from teamtui.protocol.store import RecordsLead, RunsLead, TeamStore
from teamtui.session.alerts import Need, needs_of
from teamtui.session.items import ANSWERS, Item, kind_of_id, offered
from teamtui.session.team import TeamSession


class NotAnswered(Exception):
    """An answer that was not taken: one line saying why."""


@dataclass
class Taken:
    text: str
    confirmed: bool | None = None  # a pane answer: whether the lead's response reached the teammate


def permission_items(spool: Path) -> list[Item]:
    """The permission requests hooks wait on now."""
    return [item_of_ask(a) for a in list_asks(spool) if a.state == OPEN]


def item_of_ask(a: PermissionAsk) -> Item:
    """A permission request a hook waits on, as an item (its detail: everything it would do)."""
    return Item(
        a.id,
        "permission",
        a.team or (f"session {a.session_id[:8]}" if a.session_id else ""),
        a.asker,
        f"{a.asker} asks permission: {a.summary}",
        a.at,
        ANSWERS["permission"],
        f"waits until {time.strftime('%H:%M:%S', time.localtime(a.deadline))}" if a.deadline else "",
        a.to_json(),
    )


def team_items(
    session: TeamSession, store: TeamStore, key: tuple[str, str, str], now: float, *, screen: bool = True
) -> list[Item]:
    """What waits for the person in one team of this machine (the room's needs-you list), each with
    its id; with `screen`, a pane teammate's request is also read off the lead's dialog (tmux)."""
    name = session.name
    runs_it = isinstance(store, RunsLead) and store.running_lead() is not None
    out: list[Item] = []
    dialog = _dialog(store) if screen and isinstance(store, RecordsLead) and store.lead_pid() is not None else None
    pane_ask = dialog.ask(name) if dialog is not None else None
    for need in needs_of(key, session, now):
        item = _of_need(name, need, runs_it)
        if item.kind == "perm" and pane_ask is not None and need.member == pane_ask.teammate:
            rid = need.key.split(":", 1)[1]
            pane_ask = type(pane_ask)(pane_ask.team, pane_ask.teammate, pane_ask.tool, pane_ask.command, rid)
            continue  # the dialog on screen is this request: listed once, below, answerable
        out.append(item)
    if pane_ask is not None:
        out.append(
            Item(
                pane_ask.id,
                "pane",
                name,
                pane_ask.teammate,
                f"{pane_ask.teammate} asks permission for {pane_ask.tool}: {' '.join(pane_ask.command.split())}",
                None,
                ANSWERS["pane"],
                "answered in the lead's own dialog",
                {"tool": pane_ask.tool, "command": pane_ask.command, "request_id": pane_ask.request_id},
            )
        )
    return out


def _dialog(store: TeamStore) -> Any:
    from teamtui.tmux.lead_dialog import read_dialog

    try:
        found = read_dialog(store)
    except Exception:  # noqa: BLE001 - tmux that cannot be asked shows no dialog
        return None
    return None if isinstance(found, str) else found


def _of_need(team: str, need: Need, runs_it: bool) -> Item:
    answers, how = offered(need.answer_id, runs_lead=runs_it)
    return Item(need.answer_id, kind_of_id(need.answer_id), team, need.member, need.text, need.since, answers, how)


def item_of_need(need: Need, *, runs_lead: bool) -> Item:
    """A need of the room as an item a person answers there (`runs_lead`: a `teamtui run` leads the
    team, so a teammate can be restarted). A pane teammate's request is offered allow and deny:
    pressed in the lead's own dialog once it is checked to show this very request (answer_item)."""
    item = _of_need(need.team_name, need, runs_lead)
    if item.kind == "perm":
        item.answers = ANSWERS["pane"]
        item.note = "pressed in the lead's own dialog, once it is seen to show this very request"
    return item


def parse_id(item_id: str) -> tuple[str, str, str]:
    """(kind, team, rest) of an item id; ValueError for one that is none."""
    if is_request_id(item_id):
        return "permission", "", item_id
    kind, sep, rest = item_id.partition(":")
    team, sep2, target = rest.partition(":")
    if (
        not sep
        or kind not in ("pane", "held", "stuck", "gone", "perm", "plan", "lead", "wait", "collision")
        or not team
    ):
        raise ValueError(f"{item_id!r} is not a request id (see `teamtui requests`)")
    return kind, team, target


def answer_item(
    store: TeamStore,
    sender: str,
    item: Item,
    decision: str,
    message: str,
    *,
    spool: Path | None = None,
    via: str = "cli",
    where: str = "",
) -> Taken:
    """Carry out `decision` on `item` of the team of `store` (on this machine; not a hook's permission
    request: see protocol/hooks/answers.py answer), writing as `sender` (the configured name: the
    store makes it honest). NotAnswered says why it was not taken."""
    from teamtui.protocol import need_answers as na
    from teamtui.protocol.errors import ProtocolError

    if decision not in item.answers:
        if not item.answers:
            raise NotAnswered(f"{item.id} takes no answer from here: {item.note or 'see `teamtui requests`'}")
        raise NotAnswered(f"{item.id} takes {', '.join(item.answers)}, not {decision!r}")
    target = item.id.split(":", 2)[-1]
    try:
        if item.kind == "pane":
            return _answer_pane(store, sender, item, decision == "allow", message, spool=spool, via=via, where=where)
        if decision == "retry":
            task = na.retry_held(store, target, via=via, where=where, spool=spool)
            return Taken(f"#{task.id} back on the board, its failure count reset")
        if decision == "block":
            task = na.block_held(store, target, message, sender, via=via, where=where, spool=spool)
            return Taken(f"#{task.id} kept off the board: {message.strip()}")
        if decision == "release":
            ids = na.release_tasks(store, target, via=via, where=where, spool=spool)
            return Taken(f"released #{', #'.join(ids)} from {target}" if ids else f"{target} held no unfinished task")
        if decision == "message":
            na.message_teammate(store, target, message, sender, via=via, where=where, spool=spool)
            return Taken(f"sent to {target} as {store.outgoing_sender(sender)}")
        if decision == "restart":
            rid = na.ask_restart(store, target, message, sender, via=via, where=where, spool=spool)
            return Taken(f"asked the team's lead to restart {target} (request {rid})")
    except (ProtocolError, ValueError, OSError) as exc:
        raise NotAnswered(str(exc)) from None
    raise NotAnswered(f"{decision!r} is not an answer teamtui knows")


def _answer_pane(
    store: TeamStore, sender: str, item: Item, allow: bool, message: str, *, spool: Path | None, via: str, where: str
) -> Taken:
    from teamtui.protocol.hooks.place import ensure_spool
    from teamtui.tmux.lead_dialog import PaneAsk, answer_in_dialog

    d = item.detail
    ask = PaneAsk(item.team, item.who, d.get("tool", ""), d.get("command", ""), d.get("request_id", ""))
    done = answer_in_dialog(store, ask, allow)
    try:
        journal.write(
            spool or ensure_spool(),
            journal.ANSWERED,
            id=item.id,
            team=item.team,
            kind="pane",
            who=item.who,
            tool=ask.tool,
            summary=ask.command[:300],
            decision="allow" if allow else "deny",
            via=via,
            where=where,
            taken=done.taken,
            confirmed=done.confirmed,
            outcome=done.text,
        )
    except OSError:
        pass
    if not done.taken or done.confirmed is False:
        raise NotAnswered(done.text)
    text = done.text
    if not allow and message.strip():
        # The dialog has no room for a reason: it goes to the teammate as a message of teamtui's own.
        from teamtui.protocol import need_answers as na

        na.message_teammate(
            store,
            item.who,
            f"Your {ask.tool} request was denied: {message.strip()}",
            sender,
            via=via,
            where=where,
            spool=spool,
        )
        text += f"; the reason was sent to {item.who} as a message"
    return Taken(text, done.confirmed)
