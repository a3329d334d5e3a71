"""The stream's part for the timeline: a `timeline` request naming a team, answered by the remote
machine's own history database (protocol/history/query.py read_history) as one `timeline` line
before its result.

Only what the timeline draws goes (protocol/history/timeline.py): the teammates (lanes), their
joins, departures and statuses, when each wrote (thinned to the moments that draw the same lanes:
at most two a minute), the tasks' changes, the messages (ticks) and what waited for a person.
Each part is capped, and past the line's byte budget the oldest of the biggest part are left out;
what was left out is counted in the line (`left_out`) and said on the screen. Read back as
untrusted input: every value checked, every string capped and made inert, every time within
reason (a hostile time of 1e300 would have the screen draw a ruler of centuries).
"""

from __future__ import annotations

from teamtui.protocol.stream import MAX_LINE, _items, dumps, name, number, team_key, text, whole

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from teamtui.protocol.history.timeline import TeamHistory

LANES_CAP = 100  # teammates (lanes) in one answer
EVENTS_CAP = 5000  # joins, departures and statuses
ACTIVITY_CAP = 50_000  # moments a teammate wrote (after thinning)
TASK_EVENTS_CAP = 10_000
TICKS_CAP = 10_000  # messages
NEEDS_CAP = 1000
WHO_CAP = 128  # characters of a teammate's name (and a sender's, a task's owner)
SHORT_CAP = 64  # characters of a kind, a status, a task's id, a colour
SUBJECT_CAP = 200  # characters of a task's subject
NEED_TEXT_CAP = 500  # characters of what a need said, and of its answer
TIMELINE_BUDGET = MAX_LINE - 64 * 1024  # bytes of one timeline line (the oldest left out past it)
# Times from the wire outside this range are dropped: before 2001, after 2286.
EARLIEST, LATEST = 1e9, 1e10
# The parts cut when the line is too big, each a list in time order (the oldest first).
PARTS = ("activity", "member_events", "task_events", "messages", "needs")
_WHAT = {
    "lanes": "teammates",
    "activity": "moments of work",
    "member_events": "joins and departures",
    "task_events": "task changes",
    "messages": "messages",
    "needs": "waits for a person",
}


def timeline_request(req: dict[str, Any]) -> tuple[str, str, str]:
    """A timeline request's team (the answering machine's key of it), checked (raises ValueError:
    said in its result)."""
    key = team_key(req.get("team"))
    if key is None:
        raise ValueError("team must be [layout, root, name]")
    return key


# ------------------------------------------------------------------ written (the answering machine)


def thin(times: list[float], idle_after: float, after: tuple[float, ...] | list[float] = ()) -> list[float]:
    """The moments (in time order) that draw the same working spans as all of `times` do: a span
    runs from a first moment to `idle_after` past its last, so a moment is needed only where
    dropping it would part a span (the next one would be too far from the last kept). The first
    moment past `idle_after` after each of `after` is kept too (it ends a wait: timeline.py)."""
    if len(times) <= 2:
        return list(times)
    kept = [times[0]]
    for i in range(1, len(times) - 1):
        if times[i + 1] - kept[-1] > idle_after:
            kept.append(times[i])
    kept.append(times[-1])
    if after:
        import bisect

        ends = {times[j] for a in after if (j := bisect.bisect_right(times, a + idle_after)) < len(times)}
        kept = sorted(set(kept) | ends)
    return kept


def _t(v: float) -> float:
    return round(float(v), 3)


def timeline_json(h: TeamHistory, budget: int = TIMELINE_BUDGET) -> tuple[dict[str, Any], dict[str, int]]:
    """`h` as a timeline line's `history`, within `budget` bytes (the line's id and team aside), and
    how many of each part were left out (the newest are kept)."""
    from teamtui.protocol.history.timeline import IDLE_AFTER

    left: dict[str, int] = {}
    index: dict[str, int] = {}  # each lane's name -> its place in `lanes`
    over: set[str] = set()  # names past LANES_CAP: their records left out

    def idx(who: str) -> int | None:
        who = who[:WHO_CAP]
        if not who:
            return None  # no one's: no lane (as build_timeline draws none)
        found = index.get(who)
        if found is None and who not in over:
            if len(index) < LANES_CAP:
                found = index[who] = len(index)
            else:
                over.add(who)
        return found

    members, named = [], set()
    for m in h.members:
        if m.name not in named and idx(m.name) is not None:
            named.add(m.name)
            members.append([m.name[:WHO_CAP], m.agent_type[:SHORT_CAP], m.color[:SHORT_CAP], m.joined_at, m.left_at])
    per: dict[int, list[float]] = {}
    for ts, who in h.activity:
        i = idx(who)
        if i is not None:
            per.setdefault(i, []).append(ts)
    waits: dict[int, list[float]] = {}  # when each lane's needs opened: its next moment ends the wait
    for opened, _, member, *_ in h.needs:
        if (i := index.get(member[:WHO_CAP])) is not None:
            waits.setdefault(i, []).append(opened)
    activity = sorted([_t(ts), i] for i, times in per.items() for ts in thin(times, IDLE_AFTER, after=waits.get(i, [])))
    events = [
        [_t(ts), i, kind[:SHORT_CAP], detail[:SHORT_CAP]]
        for ts, who, kind, detail in h.member_events
        if (i := idx(who)) is not None
    ]
    parts: dict[str, list[Any]] = {
        "activity": activity,
        "member_events": events,
        "task_events": [
            [_t(ts), source[:SHORT_CAP], tid[:SHORT_CAP], status[:SHORT_CAP], owner[:WHO_CAP], subject[:SUBJECT_CAP]]
            for ts, source, tid, status, owner, subject in h.task_events
        ],
        "messages": [[_t(at), s[:WHO_CAP], r[:WHO_CAP], kind[:SHORT_CAP]] for at, s, r, kind in h.messages],
        "needs": [
            [_t(opened), None if answered is None else _t(answered), member[:WHO_CAP], kind[:SHORT_CAP],
             said[:NEED_TEXT_CAP], answer[:NEED_TEXT_CAP]]
            for opened, answered, member, kind, said, answer in h.needs
        ],
    }  # fmt: skip
    caps = {
        "activity": ACTIVITY_CAP,
        "member_events": EVENTS_CAP,
        "task_events": TASK_EVENTS_CAP,
        "messages": TICKS_CAP,
        "needs": NEEDS_CAP,
    }
    for part, cap in caps.items():
        _cut(parts, part, len(parts[part]) - cap, left)
    if over:
        left["lanes"] = len(over)
    head = {
        "name": h.name[: WHO_CAP * 4],
        "lead": h.lead[:WHO_CAP],
        "start": h.start,
        "end": h.end,
        "ended_at": h.ended_at,
        "lanes": list(index),
        "members": members,
    }
    room = budget - len(dumps(head)) - 1024  # the line's own keys and its left_out
    for _ in range(16):  # each round cuts the biggest parts down to one level: a few rounds at most
        sizes = {part: len(dumps({"x": items})) for part, items in parts.items()}
        if sum(sizes.values()) <= room:
            break
        level = _level(list(sizes.values()), room)
        for part, size in sizes.items():
            if size > level and parts[part]:
                _cut(parts, part, int((size - level) / (size / len(parts[part]))) + 1, left)
    if sum(len(dumps({"x": items})) for items in parts.values()) > room:  # never (the caps): the lanes alone
        for part in parts:
            _cut(parts, part, len(parts[part]), left)
    return {**head, **parts}, left


def _level(sizes: list[int], room: int) -> int:
    """The bytes each part may keep for all of them to fit in `room`: the smaller ones whole, the
    bigger ones cut to one level (no part is emptied to spare another)."""
    left = max(room, 0)
    ordered = sorted(sizes)
    for i, size in enumerate(ordered):
        share = left // (len(ordered) - i)
        if size > share:
            return share
        left -= size
    return ordered[-1] if ordered else 0


def _cut(parts: dict[str, list[Any]], part: str, n: int, left: dict[str, int]) -> None:
    """The oldest `n` of a part left out, and counted."""
    n = min(n, len(parts[part]))
    if n > 0:
        del parts[part][:n]
        left[part] = left.get(part, 0) + n


# ------------------------------------------------------------------ read (this side)


def _when(v: Any) -> float | None:
    t = number(v)
    return t if t is not None and EARLIEST <= t <= LATEST else None


_BAD = object()  # a value a row cannot have: the row is dropped


def _time(v: Any) -> Any:
    t = _when(v)
    return _BAD if t is None else t


def _maybe_time(v: Any) -> Any:
    return None if v is None else _time(v)


def _str(cap: int, *, empty: bool = True, lines: bool = False) -> Any:
    def read(v: Any) -> Any:
        s = text(v, cap) if lines else name(v, cap)
        return _BAD if s is None or (not s and not empty) else s

    return read


def _one_of(*allowed: str) -> Any:
    return lambda v: v if isinstance(v, str) and v in allowed else _BAD


def _rows(d: dict[str, Any], part: str, cap: int, *spec: Any, timed: bool = True) -> list[tuple[Any, ...]]:
    """A part's rows (lists of len(spec) values, each read by its spec), at most `cap`, in time order
    when `timed` (the first value a time); a row of any other shape, or with a value of the wrong
    type, dropped."""
    out = []
    for x in _items(d.get(part))[:cap]:
        if isinstance(x, list) and len(x) == len(spec):
            row = tuple(read(v) for read, v in zip(spec, x, strict=True))
            if not any(v is _BAD for v in row):
                out.append(row)
    if timed:
        out.sort(key=lambda r: r[0])  # stable: rows of one moment stay in their order
    return out


def read_timeline(line: dict[str, Any], host: str) -> TeamHistory | None:
    """A timeline line's history, every value checked, as a TeamHistory of `host`'s team (None:
    no history in it); what the answering machine left out said in its `note`."""
    from teamtui.protocol.history.timeline import HistoryMember, TeamHistory

    d = line.get("history")
    if not isinstance(d, dict) or not (team := name(d.get("name"), WHO_CAP * 4)):
        return None
    lanes = [name(x, WHO_CAP) or None for x in _items(d.get("lanes"))[:LANES_CAP]]  # in place: indexed

    def lane(v: Any) -> Any:
        i = whole(v)
        found = lanes[i] if i is not None and 0 <= i < len(lanes) else None
        return _BAD if found is None else found

    who, short = _str(WHO_CAP, empty=False), _str(SHORT_CAP)
    members, named = [], set()
    for m in _rows(d, "members", LANES_CAP, who, short, short, _maybe_time, _maybe_time, timed=False):
        if m[0] not in named:  # in the order sent: the lanes' (the database's, by joining)
            named.add(m[0])
            members.append(HistoryMember(*m))
    said = _str(NEED_TEXT_CAP, lines=True)
    activity = _rows(d, "activity", ACTIVITY_CAP, _time, lane)
    events = _rows(d, "member_events", EVENTS_CAP, _time, lane, _one_of("joined", "left", "status"), short)
    tasks = _rows(
        d, "task_events", TASK_EVENTS_CAP,
        _time, _one_of("task", "assigned"), _str(SHORT_CAP, empty=False), _str(SHORT_CAP, empty=False),
        _str(WHO_CAP), _str(SUBJECT_CAP),
    )  # fmt: skip
    messages = _rows(d, "messages", TICKS_CAP, _time, _str(WHO_CAP), _str(WHO_CAP), short)
    needs = _rows(d, "needs", NEEDS_CAP, _time, _maybe_time, who, short, said, said)
    times = [r[0] for part in (activity, events, tasks, messages, needs) for r in part[:1]]
    start = _when(d.get("start"))
    start = min([start, *times]) if start is not None else min(times, default=None)
    if start is None:
        return None
    end = max(_when(d.get("end")) or start, start)
    return TeamHistory(
        name=team,
        host=host,
        lead=name(d.get("lead"), WHO_CAP) or "",
        start=start,
        end=end,
        ended_at=_when(d.get("ended_at")),
        members=members,
        member_events=events,
        activity=activity,
        task_events=tasks,
        messages=messages,
        needs=needs,
        note=left_out_note(line.get("left_out"), host),
    )


def left_out_note(v: Any, host: str) -> str:
    """What the answering machine left out, in words ("" when nothing)."""
    said = []
    for part, what in _WHAT.items():
        n = whole(v.get(part)) if isinstance(v, dict) else None
        if n is not None and n > 0:
            said.append(f"{n:,} {what} past the first {LANES_CAP}" if part == "lanes" else f"the oldest {n:,} {what}")
    if not said:
        return ""
    return f"{host} sent what fits in one stream line: {'; '.join(said)} left out"


__all__ = [
    "LANES_CAP",
    "TIMELINE_BUDGET",
    "left_out_note",
    "read_timeline",
    "thin",
    "timeline_json",
    "timeline_request",
]
