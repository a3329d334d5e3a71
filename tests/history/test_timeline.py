"""The timeline is a pure function of a team's history: lanes (working, idle, waiting for a person,
gone), task spans, message ticks and needs-you marks, for any window from minutes to the run."""

from __future__ import annotations

from teamtui.protocol.history.timeline import (
    GONE,
    IDLE,
    WAITING,
    WORKING,
    HistoryMember,
    TeamHistory,
    build_timeline,
    cells,
)

T0 = 1_800_000_000.0
HOUR = 3600.0


def a_team() -> TeamHistory:
    """ada works the first half hour, waits on a person for ten minutes, works again, then leaves at
    1 h; bob joins at 30 min and is idle but for one line; a task ada does, one nobody started."""
    return TeamHistory(
        name="probe",
        start=T0,
        end=T0 + 2 * HOUR,
        members=[HistoryMember("ada", joined_at=T0, left_at=T0 + HOUR), HistoryMember("bob", joined_at=T0 + 1800)],
        member_events=[(T0 + 1800, "bob", "joined", ""), (T0 + HOUR, "ada", "left", "")],
        activity=[(T0 + s, "ada") for s in range(0, 1800, 30)]
        + [(T0 + 2400 + s, "ada") for s in range(0, 600, 30)]
        + [(T0 + 4000, "bob")],
        needs=[(T0 + 1800, T0 + 2400, "ada", "permission", "ada asks to run make deploy", "answered")],
        task_events=[
            (T0 + 60, "task", "1", "pending", "", "build it"),
            (T0 + 120, "task", "1", "in_progress", "ada", ""),
            (T0 + 3000, "task", "1", "completed", "ada", ""),
            (T0 + 60, "task", "2", "pending", "", "ship it"),
        ],
        messages=[
            (T0 + 100, "lead", "ada", "message"),
            (T0 + 2500, "ada", "lead", "message"),
            (T0 + 5000, "lead", "bob", "message"),
        ],
    )


def states(spans) -> list[tuple[float, float, str]]:
    return [(s.start - T0, s.end - T0, s.state) for s in spans]


def test_each_teammate_has_a_lane_of_what_it_was_doing() -> None:
    tl = build_timeline(a_team())
    ada, bob = tl.lanes
    assert (ada.name, bob.name) == ("ada", "bob")
    assert states(ada.spans) == [
        (0, 1800, WORKING),  # a line every 30 s; the last one counts for IDLE_AFTER (60 s)
        (1800, 2400, WAITING),  # a need open: waiting beats working
        (2400, 3030, WORKING),
        (3030, 3600, IDLE),
        (3600, 7200, GONE),  # left
    ]
    assert states(bob.spans) == [(0, 1800, GONE), (1800, 4000, IDLE), (4000, 4060, WORKING), (4060, 7200, IDLE)]
    assert ada.needs == [T0 + 1800] and bob.needs == []


def test_tasks_are_spans_and_messages_ticks() -> None:
    tl = build_timeline(a_team())
    spans = {t.id: t for t in tl.tasks}
    assert (spans["1"].created, spans["1"].begun, spans["1"].end) == (T0 + 60, T0 + 120, T0 + 3000)
    assert (spans["1"].owner, spans["1"].status, spans["1"].subject) == ("ada", "completed", "build it")
    assert (spans["2"].begun, spans["2"].end, spans["2"].status) == (None, None, "pending")
    assert [(t.at - T0, t.sender, t.recipient) for t in tl.ticks] == [
        (100, "lead", "ada"),
        (2500, "ada", "lead"),
        (5000, "lead", "bob"),
    ]
    [need] = tl.needs
    assert (need.member, need.answered_at, need.answer) == ("ada", T0 + 2400, "answered")


def test_a_window_shows_only_its_minutes() -> None:
    tl = build_timeline(a_team(), T0 + 1700, T0 + 1900)
    ada = tl.lanes[0]
    assert states(ada.spans) == [(1700, 1800, WORKING), (1800, 1900, WAITING)]
    assert tl.ticks == [] and [t.id for t in tl.tasks] == ["1", "2"]
    late = build_timeline(a_team(), T0 + 4500, T0 + 5500)
    assert [t.id for t in late.tasks] == ["2"]  # the first was done by then
    assert [t.at - T0 for t in late.ticks] == [5000]


def test_zooming_out_folds_what_is_too_short_to_draw() -> None:
    h = a_team()
    h.activity += [(T0 + 5000 + s, "bob") for s in (0, 200, 400)]  # three short bursts
    fine = build_timeline(h)
    coarse = build_timeline(h, resolution=600.0)
    assert len(coarse.lanes[1].spans) < len(fine.lanes[1].spans)
    for lane in coarse.lanes:
        assert lane.spans[0].start == T0 and lane.spans[-1].end == T0 + 2 * HOUR
        assert all(a.end == b.start for a, b in zip(lane.spans, lane.spans[1:], strict=False)), "no gaps, no overlaps"


def test_cells_draw_a_lane_in_columns_and_a_short_wait_still_shows() -> None:
    tl = build_timeline(a_team())
    ada = tl.lanes[0]
    row = cells(ada, tl.start, tl.end, 12)  # ten minutes a column
    assert row == [WORKING, WORKING, WORKING, WAITING, WORKING, IDLE, GONE, GONE, GONE, GONE, GONE, GONE]
    h = a_team()
    h.needs = [(T0 + 100, T0 + 130, "ada", "plan", "approve?", "answered")]
    row = cells(build_timeline(h).lanes[0], T0, T0 + 2 * HOUR, 12)
    assert row[0] == WAITING, "30 s of waiting in a 10 min column is still drawn"
    assert cells(ada, tl.start, tl.end, 0) == []


def test_an_empty_or_one_moment_history_still_draws() -> None:
    tl = build_timeline(TeamHistory(name="empty", start=T0, end=T0))
    assert tl.lanes == [] and tl.end > tl.start
    one = TeamHistory(name="x", start=T0, end=T0, members=[HistoryMember("solo")])
    assert [s.state for s in build_timeline(one).lanes[0].spans] == [IDLE]
