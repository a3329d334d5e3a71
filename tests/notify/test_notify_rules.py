"""The Notifier's rules with an injected clock: one notification per (team, kind) per 30 s, a mute
silences every channel until it ends, a failing channel stops neither the others nor the caller."""

from __future__ import annotations

from teamtui.notify import Notifier, NotifyEvent, NotifyKind


class Collect:
    """A channel that keeps what it is sent."""

    def __init__(self) -> None:
        self.sent: list[NotifyEvent] = []

    def send(self, event: NotifyEvent) -> None:
        self.sent.append(event)


class Broken:
    def send(self, event: NotifyEvent) -> None:
        raise OSError("terminal gone")


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def _event(team: str = "alpha", kind: NotifyKind = NotifyKind.NEEDS_YOU, text: str = "bob asks") -> NotifyEvent:
    return NotifyEvent(kind, team, text, host="box", at=1.0)


def test_one_notification_per_team_and_kind_per_30_seconds() -> None:
    clock, sink = Clock(), Collect()
    n = Notifier([sink], clock=clock)
    assert n.notify(_event())
    clock.now += 10
    assert not n.notify(_event(text="another question"))  # same team, same kind, within 30 s
    assert n.notify(_event(kind=NotifyKind.TEAM_FINISHED))  # another kind
    assert n.notify(_event(team="beta"))  # another team
    assert n.notify(NotifyEvent(NotifyKind.NEEDS_YOU, "alpha", "x", host="other-box"))  # the same name elsewhere
    clock.now += 19.9
    assert not n.notify(_event())
    clock.now += 0.1  # 30 s after the first
    assert n.notify(_event(text="third"))
    assert [(e.team, e.kind, e.text) for e in sink.sent] == [
        ("alpha", "needs_you", "bob asks"),
        ("alpha", "team_finished", "bob asks"),
        ("beta", "needs_you", "bob asks"),
        ("alpha", "needs_you", "x"),
        ("alpha", "needs_you", "third"),
    ]


def test_a_mute_silences_every_channel_until_it_ends() -> None:
    clock, a, b = Clock(), Collect(), Collect()
    n = Notifier([a, b], clock=clock)
    assert n.muted_until is None
    end = n.mute(60)
    assert end == clock.now + 60 and n.muted_until == end
    assert not n.notify(_event())
    clock.now += 59.9
    assert not n.notify(_event(kind=NotifyKind.TEAMMATE_CRASHED))
    assert n.muted_until == end
    clock.now += 0.1
    assert n.muted_until is None
    # An event dropped by the mute does not count against the rate limit.
    assert n.notify(_event())
    assert len(a.sent) == len(b.sent) == 1


def test_unmute_and_a_new_mute_replaces_the_old() -> None:
    clock, sink = Clock(), Collect()
    n = Notifier([sink], clock=clock)
    n.mute(600)
    assert n.mute(5) == clock.now + 5
    n.unmute()
    assert n.muted_until is None and n.notify(_event())


def test_a_failing_channel_is_reported_once_and_the_others_still_get_the_event() -> None:
    clock, sink = Clock(), Collect()
    problems: list[str] = []
    n = Notifier([Broken(), sink], clock=clock, on_problem=problems.append)
    assert n.notify(_event("a"))
    assert n.notify(_event("b"))
    assert [e.team for e in sink.sent] == ["a", "b"]
    assert problems == ["notification through Broken failed: terminal gone"]


def test_hostile_fields_are_cleaned_before_any_channel_and_the_rate_key() -> None:
    clock, sink = Clock(), Collect()
    n = Notifier([sink], clock=clock)
    assert n.notify(NotifyEvent(NotifyKind.NEEDS_YOU, "t\x1b[31m", "a\nb" + "x" * 100_000, host="h\x07"))
    e = sink.sent[0]
    assert e.team == "t\\x1b[31m" and e.host == "h\\x07"
    assert "\n" not in e.text and len(e.text) == 240 and e.text.endswith("…")
    # The same team, however it was spelled on the wire, is one key.
    assert not n.notify(NotifyEvent(NotifyKind.NEEDS_YOU, "t\x1b[31m", "again", host="h\x07"))
