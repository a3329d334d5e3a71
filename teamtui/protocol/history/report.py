"""One team's history as one self-contained HTML page: `teamtui history TEAM --html FILE`.

The timeline as inline SVG (a lane per teammate, tasks as bars, messages as ticks, needs-you
marks), then the members, tasks, messages, file changes and cost as tables. Nothing is fetched:
no script, no font, no image, and a Content-Security-Policy that forbids every fetch. Every piece
of text from a team is escaped (and its terminal escapes made visible), so a name like
`<script>` is shown, never run.
"""

from __future__ import annotations

import html
import time
from collections import Counter
from collections.abc import Iterable
from decimal import Decimal

from teamtui.protocol.cost import kept_text
from teamtui.protocol.history.timeline import GONE, IDLE, WAITING, WORKING, TeamHistory, Timeline, build_timeline
from teamtui.protocol.text import inert

WIDTH = 1200  # the SVG's width in px
LABEL = 170  # the lanes' names
LANE = 20
TASK = 14
# At most this many task bars (the table lists them all).
MAX_TASK_BARS = 120
COLORS = {WORKING: "#2e9d5b", IDLE: "#d8dde3", WAITING: "#e59a1c", GONE: "none"}
_STEPS = (60, 300, 900, 1800, 3600, 7200, 4 * 3600, 6 * 3600, 12 * 3600, 86400, 2 * 86400, 7 * 86400)

CSS = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #1d232b; background: #fff; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; }
.meta { color: #56606b; } table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid #e3e7eb; vertical-align: top; }
th { background: #f3f5f7; } td.text { white-space: pre-wrap; word-break: break-word; }
.legend span { display: inline-block; margin-right: 16px; } .swatch { display: inline-block; width: 12px;
height: 12px; margin-right: 4px; vertical-align: -1px; border: 1px solid #9aa3ad; }
svg text { font: 12px system-ui, sans-serif; fill: #1d232b; } .none { color: #56606b; }
"""


def _e(value: object) -> str:
    """Text from a team, safe in HTML: escapes made visible, markup escaped."""
    return html.escape(inert(value, newlines=True), quote=True)


def _when(ts: float | None, with_date: bool = True) -> str:
    if ts is None:
        return "–"
    try:
        return time.strftime("%Y-%m-%d %H:%M:%S" if with_date else "%H:%M:%S", time.localtime(ts))
    except (OverflowError, OSError, ValueError):
        return "–"


def render(h: TeamHistory, *, now: float | None = None) -> str:
    """The page."""
    now = time.time() if now is None else now
    tl = build_timeline(h, resolution=(max(h.end, h.ended_at or 0.0) - h.start) / (WIDTH - LABEL))
    usd, unknown = _spent(c[2] for c in h.costs)
    tokens = sum(c[3] or 0 for c in h.costs)
    state = f"ended {_when(h.ended_at)}" if h.ended_at else f"last seen {_when(h.end)}"
    where = f"{h.host}:{h.root}" if h.host else h.root
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        f"<title>teamtui history: {_e(h.name)}</title><style>{CSS}</style></head><body>",
        f'<h1 id="team">{_e(h.name)}</h1>',
        f'<p class="meta" id="summary">{_e(h.layout)} team · lead {_e(h.lead)} · {_e(where)}<br>'
        f"first seen {_when(h.start)} · {state} · {len(h.members)} members · "
        f"{len({(e[1], e[2]) for e in h.task_events})} tasks · {len(h.messages)} messages · "
        f"{len(h.changes)} file changes"
        + (f" · {_e(kept_text(usd, unknown))} ({tokens:,} tokens)" if h.costs else "")
        + "</p>",
        "<h2>Timeline</h2>",
        _legend(),
        _svg(tl),
        _members(h),
        _tasks(h),
        _needs(h),
        _messages(h),
        _changes(h),
        _costs(h),
        f'<p class="meta">Written by teamtui at {_when(now)} from its history database.</p>',
        "</body></html>",
    ]
    return "\n".join(parts)


def _legend() -> str:
    items = [(WORKING, "working"), (IDLE, "idle"), (WAITING, "waiting for a person"), (GONE, "gone")]
    spans = "".join(
        f'<span><span class="swatch" style="background:{COLORS[s] if COLORS[s] != "none" else "#fff"}"></span>{label}</span>'
        for s, label in items
    )
    return f'<p class="legend">{spans}<span>│ a message</span><span>▲ needs you</span></p>'


def _x(ts: float, tl: Timeline) -> float:
    return LABEL + (ts - tl.start) / (tl.end - tl.start) * (WIDTH - LABEL - 10)


def _svg(tl: Timeline) -> str:
    bars = tl.tasks[:MAX_TASK_BARS]
    top = 24
    lanes_h = len(tl.lanes) * LANE
    ticks_y = top + lanes_h + 6
    tasks_y = ticks_y + 24
    height = tasks_y + len(bars) * (TASK + 4) + 10
    out = [
        f'<svg id="timeline" xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" role="img" aria-label="timeline">'
    ]
    out += _axis(tl, height)
    for i, lane in enumerate(tl.lanes):
        y = top + i * LANE
        out.append(f'<g class="lane" data-name="{_e(lane.name)}">')
        out.append(f'<text x="4" y="{y + 14}">{_e(_short(lane.name, 22))}</text>')
        for s in lane.spans:
            if s.state == GONE:
                continue
            x0, x1 = _x(s.start, tl), _x(s.end, tl)
            out.append(
                f'<rect class="span {s.state}" x="{x0:.1f}" y="{y + 3}" width="{max(x1 - x0, 0.5):.1f}" '
                f'height="{LANE - 6}" fill="{COLORS[s.state]}"><title>{_e(lane.name)}: {s.state} '
                f"{_when(s.start, False)}–{_when(s.end, False)}</title></rect>"
            )
        for at in lane.needs:
            x = _x(at, tl)
            out.append(
                f'<path class="need" d="M{x:.1f},{y + 2} l5,9 h-10 z" fill="#c0392b"><title>{_e(lane.name)} needs you '
                f"at {_when(at, False)}</title></path>"
            )
        out.append("</g>")
    out.append(f'<text x="4" y="{ticks_y + 12}">messages</text>')
    for tick in tl.ticks:
        x = _x(tick.at, tl)
        out.append(
            f'<line class="tick" x1="{x:.1f}" y1="{ticks_y}" x2="{x:.1f}" y2="{ticks_y + 14}" stroke="#3a6fb0">'
            f"<title>{_when(tick.at, False)} {_e(tick.sender)} → {_e(tick.recipient)}</title></line>"
        )
    for i, t in enumerate(bars):
        y = tasks_y + i * (TASK + 4)
        end = t.end if t.end is not None else tl.end
        out.append(f'<g class="task" data-id="{_e(t.id)}">')
        out.append(f'<text x="4" y="{y + 11}">#{_e(_short(t.id, 6))} {_e(_short(t.subject, 16))}</text>')
        x0, x1 = _x(max(t.created, tl.start), tl), _x(min(end, tl.end), tl)
        out.append(
            f'<rect x="{x0:.1f}" y="{y}" width="{max(x1 - x0, 1):.1f}" height="{TASK}" fill="#e8edf3"><title>#{_e(t.id)} '
            f"{_e(t.subject)} ({_e(t.status)}, {_e(t.owner) or 'no owner'})</title></rect>"
        )
        if t.begun is not None:
            b0 = _x(max(t.begun, tl.start), tl)
            fill = "#2e9d5b" if t.status == "completed" else "#3a6fb0"
            out.append(
                f'<rect x="{b0:.1f}" y="{y}" width="{max(x1 - b0, 1):.1f}" height="{TASK}" fill="{fill}"></rect>'
            )
        out.append("</g>")
    if len(tl.tasks) > len(bars):
        out.append(f'<text x="4" y="{height - 2}">{len(tl.tasks) - len(bars)} more tasks: see the table</text>')
    out.append("</svg>")
    return "\n".join(out)


def _axis(tl: Timeline, height: int) -> list[str]:
    span = tl.end - tl.start
    step = next((s for s in _STEPS if span / s <= 12), _STEPS[-1])
    first = (int(tl.start) // step + 1) * step
    out = []
    t = float(first)
    fmt = "%H:%M" if step < 86400 else "%m-%d"
    while t < tl.end:
        x = _x(t, tl)
        out.append(f'<line x1="{x:.1f}" y1="18" x2="{x:.1f}" y2="{height}" stroke="#eef1f4"></line>')
        out.append(f'<text class="axis" x="{x + 2:.1f}" y="12">{time.strftime(fmt, time.localtime(t))}</text>')
        t += step
    return out


def _short(s: str, n: int) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"


def _table(id_: str, title: str, head: list[str], rows: list[list[str]], empty: str, note: str = "") -> str:
    if not rows:
        return f'<h2>{title}</h2><p class="none" id="{id_}">{empty}</p>'
    th = "".join(f"<th>{h}</th>" for h in head)
    body = "\n".join("<tr>" + "".join(rows_i) + "</tr>" for rows_i in rows)
    extra = f'<p class="meta">{note}</p>' if note else ""
    return f'<h2>{title}</h2>{extra}<table id="{id_}"><thead><tr>{th}</tr></thead><tbody>\n{body}\n</tbody></table>'


def _members(h: TeamHistory) -> str:
    counts = Counter(who for _, who in h.activity)
    rows = [
        [
            f"<td>{_e(m.name)}</td>",
            f"<td>{_e(m.agent_type)}</td>",
            f"<td>{_when(m.joined_at)}</td>",
            f"<td>{_when(m.left_at)}</td>",
            f"<td>{counts.get(m.name, 0)}</td>",
        ]
        for m in h.members
    ]
    return _table("members", "Members", ["Name", "Type", "Joined", "Left", "Lines"], rows, "No members recorded.")


def _tasks(h: TeamHistory) -> str:
    last: dict[tuple[str, str], tuple] = {}
    created: dict[tuple[str, str], float] = {}
    for ts, source, tid, status, owner, subject in h.task_events:
        created.setdefault((source, tid), ts)
        prev = last.get((source, tid))
        last[(source, tid)] = (
            ts,
            status,
            owner or (prev[2] if prev else ""),
            subject or (prev[3] if prev else ""),
        )
    rows = [
        [
            f"<td>{_e(tid)}{' (assigned)' if source == 'assigned' else ''}</td>",
            f'<td class="text">{_e(v[3])}</td>',
            f"<td>{_e(v[2])}</td>",
            f"<td>{_e(v[1])}</td>",
            f"<td>{_when(created[(source, tid)])}</td>",
            f"<td>{_when(v[0])}</td>",
        ]
        for (source, tid), v in last.items()
    ]
    return _table(
        "tasks", "Tasks", ["#", "Subject", "Owner", "Status", "First seen", "Last change"], rows, "No tasks recorded."
    )


def _needs(h: TeamHistory) -> str:
    rows = [
        [
            f"<td>{_when(opened)}</td>",
            f"<td>{_e(member)}</td>",
            f"<td>{_e(kind)}</td>",
            f'<td class="text">{_e(text)}</td>',
            f"<td>{_when(answered)} {_e(answer)}</td>",
        ]
        for opened, answered, member, kind, text, answer in h.needs
    ]
    return _table(
        "needs", "Needs you", ["Opened", "Who", "Kind", "What", "Answered"], rows, "Nothing waited for a person."
    )


def _messages(h: TeamHistory) -> str:
    rows = [
        [
            f"<td>{_when(at)}</td>",
            f"<td>{_e(sender)}</td>",
            f"<td>{_e(recipient)}</td>",
            f'<td class="text">{_e(text)}</td>',
        ]
        for at, sender, recipient, text in h.message_texts
    ]
    note = (
        f"The newest {len(h.message_texts)} of {len(h.messages)} messages."
        if len(h.messages) > len(h.message_texts)
        else ""
    )
    return _table("messages", "Messages", ["When", "From", "To", "Text"], rows, "No messages recorded.", note)


def _changes(h: TeamHistory) -> str:
    rows = [
        [
            f"<td>{_when(ts)}</td>",
            f"<td>{_e(member)}</td>",
            f"<td>{_e(change)}</td>",
            f'<td class="text">{_e(path)}</td>',
        ]
        for ts, member, path, change in h.changes
    ]
    return _table("changes", "Changes", ["When", "Who", "Change", "File"], rows, "No file changes recorded.")


def _spent(usds: Iterable[float | None]) -> tuple[Decimal, bool]:
    """The sum of what was priced, and whether something was not (a model without a price)."""
    total, unknown = Decimal(0), False
    for usd in usds:
        if usd is None:
            unknown = True
        else:
            total += Decimal(str(usd))
    return total, unknown


def _costs(h: TeamHistory) -> str:
    per: dict[str, list[tuple[float | None, int]]] = {}
    for _, member, usd, tokens in h.costs:
        per.setdefault(member, []).append((usd, tokens or 0))
    rows = [
        [
            f"<td>{_e(m)}</td>",
            f"<td>{sum(t for _, t in v):,}</td>",
            f"<td>{_e(kept_text(*_spent(u for u, _ in v)))}</td>",
        ]
        for m, v in sorted(per.items())
    ]
    return _table("cost", "Cost", ["Who", "Tokens", "USD"], rows, "No cost recorded.")
