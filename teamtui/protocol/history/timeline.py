"""A team's history as a timeline: one lane per teammate, tasks as spans, messages as ticks.

Pure: `build_timeline(history, start, end, resolution)` reads a TeamHistory (query.py fills it
from the database; `from_model` from a live team's memory) and returns what to draw, for any
window from minutes to the whole run. Drawing is the caller's (report.py's SVG, the dashboard's
TimelineScreen); `cells` turns a lane into one state per column for a character grid.

A lane's state at any moment, the first that holds:
  gone     the teammate has not joined yet, has left, or was shut down;
  waiting  something of theirs waits for a person (a needs-you item from when it opened until it
           was answered or went, the team ended, or the teammate wrote again);
  working  it wrote within `idle_after` seconds (a log or transcript line), or said it works;
  idle     otherwise.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Any

GONE, WAITING, WORKING, IDLE = "gone", "waiting", "working", "idle"
STATES = (GONE, WAITING, WORKING, IDLE)
# Which state a column shows when several share it (the rarer, more telling one first).
_RANK = {WAITING: 0, WORKING: 1, GONE: 2, IDLE: 3}
# A teammate that wrote counts as working for this long after (the health rule's minute).
IDLE_AFTER = 60.0
# Statuses a member's files give (MemberStatus), as lane states.
_STATUS = {"working": WORKING, "active": WORKING, "idle": IDLE, "shutdown": GONE}


@dataclass
class HistoryMember:
    name: str
    agent_type: str = ""
    color: str = ""
    joined_at: float | None = None
    left_at: float | None = None


@dataclass
class TeamHistory:
    """What the database holds of one team, as the timeline and the report read it. Times are epoch
    seconds; each list is in time order."""

    name: str
    layout: str = ""
    host: str = ""
    root: str = ""
    lead: str = ""
    description: str = ""
    start: float = 0.0  # first seen
    end: float = 0.0  # last seen, or ended
    ended_at: float | None = None
    members: list[HistoryMember] = field(default_factory=list)
    member_events: list[tuple[float, str, str, str]] = field(
        default_factory=list
    )  # ts, name, joined|left|status, detail
    activity: list[tuple[float, str]] = field(default_factory=list)  # ts, who (log and transcript lines)
    task_events: list[tuple[float, str, str, str, str, str]] = field(
        default_factory=list
    )  # ts, source, id, status, owner, subject
    messages: list[tuple[float, str, str, str]] = field(default_factory=list)  # at, sender, recipient, type
    needs: list[tuple[float, float | None, str, str, str, str]] = field(
        default_factory=list
    )  # opened, answered, member, kind, text, answer
    changes: list[tuple[float, str, str, str]] = field(default_factory=list)  # ts, member, path, change
    costs: list[tuple[float, str, float | None, int]] = field(default_factory=list)  # ts, member, usd, tokens
    message_texts: list[tuple[float, str, str, str]] = field(
        default_factory=list
    )  # at, sender, recipient, text (the newest, bounded)
    note: str = ""  # what of it is missing, and why (an answer cut to fit the stream; memory only)


@dataclass
class Span:
    start: float
    end: float
    state: str


@dataclass
class Lane:
    name: str
    color: str
    spans: list[Span]
    needs: list[float]  # when something of theirs began to wait for a person


@dataclass
class TaskSpan:
    id: str
    subject: str
    owner: str
    source: str  # task | assigned
    created: float
    begun: float | None  # in progress from
    end: float | None  # completed or removed at (None: still open at the window's end)
    status: str


@dataclass
class Tick:
    at: float
    sender: str
    recipient: str
    kind: str


@dataclass
class NeedMark:
    at: float
    answered_at: float | None
    member: str
    kind: str
    text: str
    answer: str


@dataclass
class Timeline:
    start: float
    end: float
    lanes: list[Lane]
    tasks: list[TaskSpan]
    ticks: list[Tick]
    needs: list[NeedMark]


# ------------------------------------------------------------------ intervals


def _merge(intervals: list[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    for a, b in sorted(intervals):
        if b <= a:
            continue
        if out and a <= out[-1][1]:
            if b > out[-1][1]:
                out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def _presence(
    m: HistoryMember, events: list[tuple[float, str, str]], start: float, end: float
) -> list[tuple[float, float]]:
    """When the teammate was in the team: from joining (or the team's first sight) to leaving."""
    spans: list[tuple[float, float]] = []
    first_in = next((e for e in events if e[1] in ("joined", "left") or _STATUS.get(e[2]) == GONE), None)
    joined = first_in[0] if first_in is not None and first_in[1] == "joined" else None  # not there before it
    if m.joined_at is not None:
        since: float | None = min(m.joined_at, joined) if joined is not None else m.joined_at
    else:
        since = joined if joined is not None else start
    for ts, kind, detail in events:
        gone = kind == "left" or (kind == "status" and _STATUS.get(detail) == GONE)
        back = kind == "joined" or (kind == "status" and _STATUS.get(detail) in (WORKING, IDLE))
        if gone and since is not None:
            spans.append((since, ts))
            since = None
        elif back and since is None:
            since = ts
    if since is not None:
        spans.append((since, m.left_at if m.left_at is not None and m.left_at > since else end))
    return _merge(spans)


def _working(
    activity: list[float], events: list[tuple[float, str, str]], idle_after: float, end: float
) -> list[tuple[float, float]]:
    spans: list[tuple[float, float]] = []
    if activity:  # in time order: one pass, no sort (an 8-hour lane is tens of thousands of lines)
        a, b = activity[0], activity[0] + idle_after
        for t in activity:
            if t <= b:
                b = max(b, t + idle_after)
            else:
                spans.append((a, b))
                a, b = t, t + idle_after
        spans.append((a, b))
    said: float | None = None
    stated: list[tuple[float, float]] = []
    for ts, kind, detail in events:
        if kind != "status":
            continue
        state = _STATUS.get(detail)
        if state == WORKING and said is None:
            said = ts
        elif state != WORKING and said is not None:
            stated.append((said, ts))
            said = None
    if said is not None:
        stated.append((said, end))
    return _merge(spans + stated) if stated else spans


def _lane_spans(
    presence: list[tuple[float, float]],
    waiting: list[tuple[float, float]],
    working: list[tuple[float, float]],
    start: float,
    end: float,
) -> list[Span]:
    """One state per moment of [start, end), from the three interval lists (a sweep)."""
    cuts = {start, end}
    for spans in (presence, waiting, working):
        for a, b in spans:
            if start < a < end:
                cuts.add(a)
            if start < b < end:
                cuts.add(b)
    points = sorted(cuts)
    out: list[Span] = []
    cursors = [0, 0, 0]
    lists = (presence, waiting, working)
    for a, b in zip(points, points[1:], strict=False):
        inside = []
        for i, spans in enumerate(lists):
            j = cursors[i]
            while j < len(spans) and spans[j][1] <= a:
                j += 1
            cursors[i] = j
            inside.append(j < len(spans) and spans[j][0] <= a)
        state = GONE if not inside[0] else WAITING if inside[1] else WORKING if inside[2] else IDLE
        if out and out[-1].state == state:
            out[-1].end = b
        else:
            out.append(Span(a, b, state))
    return out


def _coarsen(spans: list[Span], resolution: float) -> list[Span]:
    """Runs of spans shorter than `resolution` drawn as one, in the state they spent most time in
    (a zoomed-out view draws no hairlines; a long span is never swallowed by short ones)."""
    if resolution <= 0 or len(spans) < 2:
        return spans
    out: list[Span] = []
    run: list[Span] = []

    def put(span: Span) -> None:
        if out and out[-1].state == span.state:
            out[-1].end = span.end
        else:
            out.append(span)

    def close_run() -> None:
        if not run:
            return
        time_in: dict[str, float] = {}
        for r in run:
            time_in[r.state] = time_in.get(r.state, 0.0) + (r.end - r.start)
        state = max(time_in, key=lambda st: (time_in[st], -_RANK[st]))
        put(Span(run[0].start, run[-1].end, state))
        run.clear()

    for s in spans:
        if s.end - s.start < resolution:
            run.append(s)
        else:
            close_run()
            put(Span(s.start, s.end, s.state))
    close_run()
    return out


# ------------------------------------------------------------------ the timeline


def build_timeline(
    h: TeamHistory,
    start: float | None = None,
    end: float | None = None,
    *,
    resolution: float = 0.0,
    idle_after: float = IDLE_AFTER,
) -> Timeline:
    """What to draw of `h` between `start` and `end` (default: the whole run). `resolution`: the
    seconds one drawn unit stands for (spans shorter than it are folded into a neighbour)."""
    run_start = h.start
    run_end = max(h.end, h.ended_at or 0.0, run_start + 1.0)
    start = run_start if start is None else start
    end = run_end if end is None else end
    if end <= start:
        end = start + 1.0
    names = [m.name for m in h.members]
    by_name = {m.name: m for m in h.members}
    events: dict[str, list[tuple[float, str, str]]] = {}
    for ts, name, kind, detail in h.member_events:
        events.setdefault(name, []).append((ts, kind, detail))
        if name not in by_name:
            by_name[name] = HistoryMember(name)
            names.append(name)
    activity: dict[str, list[float]] = {}
    for ts, who in h.activity:  # in time order (TeamHistory's promise)
        activity.setdefault(who, []).append(ts)
    for who in activity:  # one who wrote but is no member (a Claude Code lead): a lane too
        if who and who not in by_name:
            by_name[who] = HistoryMember(who)
            names.append(who)
    waiting: dict[str, list[tuple[float, float]]] = {}
    for opened, answered, member, *_ in h.needs:
        waiting.setdefault(member, []).append(
            (opened, _waited_until(opened, answered, activity.get(member, []), run_end))
        )
    lanes = []
    for name in names:
        m = by_name[name]
        evs = sorted(events.get(name, []))
        presence = _presence(m, evs, run_start, run_end)
        spans = _lane_spans(
            presence,
            _merge(waiting.get(name, [])),
            _working(activity.get(name, []), evs, idle_after, run_end),
            start,
            end,
        )
        marks = [a for a, _ in waiting.get(name, []) if start <= a <= end]
        lanes.append(Lane(name, m.color, _coarsen(spans, resolution), marks))
    return Timeline(start, end, lanes, _task_spans(h, start, end), _ticks(h, start, end), _needs(h, start, end))


def _waited_until(opened: float, answered: float | None, activity: list[float], run_end: float) -> float:
    """When a need stopped waiting: answered (dismissed, gone, the team ended); else when its
    teammate wrote again (not waiting for anyone then: a collision, a need whose closing was never
    recorded); else the run's end."""
    end = answered if answered is not None else run_end
    i = bisect.bisect_right(activity, opened + IDLE_AFTER)
    return min(end, activity[i]) if i < len(activity) else end


def _task_spans(h: TeamHistory, start: float, end: float) -> list[TaskSpan]:
    spans: dict[tuple[str, str], TaskSpan] = {}
    for ts, source, tid, status, owner, subject in h.task_events:
        span = spans.get((source, tid))
        if span is None:
            span = spans[(source, tid)] = TaskSpan(tid, subject, owner, source, ts, None, None, status)
        if subject:
            span.subject = subject
        if owner:
            span.owner = owner
        if status == "removed":
            span.end = span.end or ts
            continue
        span.status = status
        if status == "in_progress" and span.begun is None:
            span.begun = ts
        if status == "completed" and span.end is None:
            span.end = ts
            span.begun = span.begun if span.begun is not None else span.created
        elif status != "completed":
            span.end = None  # reopened
    return [s for s in spans.values() if s.created <= end and (s.end is None or s.end >= start)]


def _ticks(h: TeamHistory, start: float, end: float) -> list[Tick]:
    times = [m[0] for m in h.messages]
    lo, hi = bisect.bisect_left(times, start), bisect.bisect_right(times, end)
    return [Tick(at, sender, recipient, kind) for at, sender, recipient, kind in h.messages[lo:hi]]


def _needs(h: TeamHistory, start: float, end: float) -> list[NeedMark]:
    return [
        NeedMark(opened, answered, member, kind, text, answer)
        for opened, answered, member, kind, text, answer in h.needs
        if opened <= end and (answered is None or answered >= start)
    ]


def cells(lane: Lane, start: float, end: float, width: int) -> list[str]:
    """The lane as `width` columns over [start, end): each the state covering most of it (ties to
    the rarer state: a short wait still shows)."""
    if width <= 0:
        return []
    step = (end - start) / width
    out: list[str] = []
    spans = lane.spans
    j = 0
    for col in range(width):
        a, b = start + col * step, start + (col + 1) * step
        while j < len(spans) and spans[j].end <= a:
            j += 1
        cover: dict[str, float] = {}
        k = j
        while k < len(spans) and spans[k].start < b:
            s = spans[k]
            cover[s.state] = cover.get(s.state, 0.0) + min(b, s.end) - max(a, s.start)
            k += 1
        if not cover:
            out.append(GONE)
            continue
        most = max(cover.values())
        out.append(min((s for s, v in cover.items() if v >= most * 0.999 or s == WAITING), key=_RANK.__getitem__))
    return out


def from_model(state: object, now: float) -> TeamHistory:
    """A live team's history as far as its memory goes (its messages, log buffers, tasks): the
    timeline of a team the database does not hold yet."""
    s: Any = state
    cfg = s.config
    members = [HistoryMember(m.name, m.agent_type, m.color, None, None) for m in (cfg.members if cfg else [])]
    members += [HistoryMember(name, m.agent_type, m.color, None, now) for name, m in s.departed.items()]
    activity = sorted((e.ts, name) for name, buf in s.logs.items() for e in buf if e.ts is not None)
    messages = sorted((m.timestamp, m.sender, m.recipient, m.type) for m in s.messages if m.timestamp)
    times = [t for t, _ in activity] + [m[0] for m in messages]
    start = min(times) if times else now - 3600.0
    tasks = sorted(
        (at, "task", t.id, status, t.owner, t.subject)
        for t in list(s.tasks.values()) + list(s.assigned.values())
        for at, status in task_steps(t, now, start)
    )
    return TeamHistory(
        name=s.name,
        lead=s.lead,
        start=start,
        end=now,
        members=members,
        activity=activity,
        task_events=tasks,
        messages=messages,
        message_texts=sorted((m.timestamp, m.sender, m.recipient, m.content) for m in s.messages)[-200:],
    )


def task_steps(t: Any, now: float, fallback: float, first: bool = True) -> list[tuple[float, str]]:
    """When a task (first seen, or changed) went through its states, at its own times where it has
    them (never after now), else at `fallback`: a task first seen past pending gets the steps it
    went through before (created, claimed), so a team read days after it ran draws them then."""
    status = t.status.value
    created = min(t.created_at, now) if t.created_at else fallback
    steps = [(created, "pending")] if first and status != "pending" and t.created_at else []
    if first and t.claimed_at and status == "completed":
        steps.append((max(min(t.claimed_at, now), created), "in_progress"))
    own = {"completed": t.completed_at, "in_progress": t.claimed_at}.get(status, t.created_at if first else None)
    at = min(own, now) if own else fallback
    steps.append((max(at, steps[-1][0]) if steps else at, status))
    return steps
