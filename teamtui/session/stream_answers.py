"""The stream's part for answering (session/stream_server.py carries the lines and requests): the
`hooks` line's items, and an `answer` request carried out here by this machine's rules (first
answer wins; a pane teammate's request only through the lead's own dialog; written under the
honest sender), journaled as from a host. protocol/stream_hooks.py is the wire.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import Any

from teamtui.protocol.stream import NAME_CAP, TEXT_CAP, name
from teamtui.protocol.stream_hooks import HOOK_ITEMS_CAP
from teamtui.session.items import Answered, Outcome

TYPE_CHECKING = False
if TYPE_CHECKING:
    from teamtui.session.local import LocalSource
    from teamtui.session.team import TeamSession

# What answers a request's result: (ok, error, detail).
Result = Callable[[bool, str, str], None]


def hooks_items(fleet: LocalSource) -> list[dict[str, Any]]:
    """What this machine's hooks say waits for the person, each item with the key of its team
    (null: a request of no team listed), at most HOOK_ITEMS_CAP."""
    items: list[dict[str, Any]] = []
    for key, session in list(fleet.sessions.items()):
        answers = session.actions.answers
        if answers is not None and session.live:
            items += [{**i.to_json(), "key": list(key)} for i in answers.items()]
    if fleet.answers is not None:
        items += [{**i.to_json(), "key": None} for i in fleet.answers.items()]
    return items[:HOOK_ITEMS_CAP]


def answer_request(
    fleet: LocalSource, session: TeamSession | None, req: dict[str, Any], result: Result, via: str = "ssh"
) -> None:
    """Carry out an `answer` request (its team's `session`, or None: a request of no team) off the
    loop; `result` is called back on it. A malformed request raises ValueError at once."""
    item, decision, message = req.get("item"), req.get("answer"), req.get("message")
    for field, value in (("item", item), ("answer", decision)):
        if not isinstance(value, str) or not value or len(value) > NAME_CAP:
            raise ValueError(f"{field} must be a non-empty string")
    if message is not None and not isinstance(message, str):
        raise ValueError("message must be a string")
    answers = session.actions.answers if session is not None else fleet.answers
    if answers is None:
        raise ValueError("nothing here can be answered" + (f": {session.read_only}" if session else ""))
    said = name(req.get("from"), 200) or "a room"
    client = os.environ.get("SSH_CONNECTION", "").split(" ")[0]
    where = f"{said} over {via}" + (f" from {client}" if client and via == "ssh" else "")
    loop = asyncio.get_running_loop()

    def background(work: Callable[[], Any], done: Callable[[Any], None]) -> None:
        def finished(fut: asyncio.Future) -> None:
            if not fut.cancelled():
                done(fut.result() if fut.exception() is None else None)

        loop.run_in_executor(None, work).add_done_callback(finished)

    def report(outcome: Outcome | None) -> None:
        # A refusal's `detail` names what became of it (Answered: already, moved, refused), so the room reads no words.
        if outcome is None:
            result(False, "the answer could not be carried out here", Answered.REFUSED.value)
        elif outcome.taken:
            result(True, "", outcome.text)
        else:
            result(False, outcome.text, outcome.state.value)

    answers.answer(
        str(item),
        str(decision),
        (message or "")[:TEXT_CAP],
        via="host",
        where=where[:NAME_CAP],
        report=report,
        background=background,
    )


__all__ = ["answer_request", "hooks_items"]
