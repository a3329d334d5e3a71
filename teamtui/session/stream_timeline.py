"""The stream server's answer to a `timeline` request: the team it names read from this machine's
history database (in a thread: protocol/history/query.py read_history), whether the stream lists
the team now or not, written as one `timeline` line, bounded (protocol/stream_timeline.py), then
the request's result. A team the database does not hold, or a history that cannot be read, is
the result's error.
"""

from __future__ import annotations

from teamtui.session.stream_thread import answer_in_thread

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from teamtui.session.stream_thread import Streamer

NOT_HELD = "its history does not hold this team (not recorded there yet, or recording is off there)"


def answer_budget(rid: Any, team: list[str]) -> int:
    """The bytes a timeline line's `history` may take: its line's budget, less its id and team."""
    from teamtui.protocol.stream import dumps
    from teamtui.protocol.stream_timeline import TIMELINE_BUDGET

    return TIMELINE_BUDGET - len(dumps({"id": rid, "team": team}))


def answer_timeline(streamer: Streamer, rid: Any, req: dict[str, Any]) -> None:
    """Raises ValueError for a request it cannot read (the server answers it)."""
    from teamtui.protocol.stream_timeline import timeline_request

    key = timeline_request(req)

    def run() -> tuple[dict[str, Any], dict[str, int]] | None:
        from teamtui.protocol.history.query import read_history
        from teamtui.protocol.stream_timeline import timeline_json

        found = read_history(key)
        return timeline_json(found, answer_budget(rid, list(key))) if found is not None else None

    def answer(found: tuple[dict[str, Any], dict[str, int]] | None) -> None:
        if found is None:
            streamer._result(rid, False, NOT_HELD)
            return
        history, left_out = found
        streamer.line({"type": "timeline", "id": rid, "team": list(key), "history": history, "left_out": left_out})
        lanes = len(history["lanes"])
        streamer._result(rid, True, detail=f"{lanes} lane{'s' if lanes != 1 else ''}")

    answer_in_thread(streamer, rid, run, answer)


__all__ = ["NOT_HELD", "answer_budget", "answer_timeline"]
