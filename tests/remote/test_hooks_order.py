"""A host's `hooks` line read before the team its request belongs to (through NATS: the host's
stored state, then a newer snapshot of the team) lists that request under its team once the team
is there, not among the host's requests of no team as well: listed once, with its team."""

from __future__ import annotations

from teamtui.protocol.settings import HostSettings
from teamtui.session.remote import RemoteHost
from teamtui.session.source import FleetBatch

from .test_rows_kept import take
from .test_untrusted import KEY, header

RID = "0123456789abcdef0123456789abcdef"


def test_a_request_listed_before_its_team_moves_under_it_when_the_team_comes() -> None:
    h = RemoteHost(HostSettings("box", "me@box"))
    h._up(FleetBatch())
    item = {"id": RID, "kind": "permission", "team": "t", "who": "ann", "text": "ann asks", "answers": ["allow"]}
    take(h, {"type": "hooks", "items": [{**item, "key": KEY}]})
    assert [i.id for i in h.answers.items()] == [RID]  # no such team yet: a request of no team, for now
    batch = take(h, header())
    (key,) = h.sessions
    assert batch.hooks and h.answers.items() == []
    assert [i.id for i in h.sessions[key].actions.answers.items()] == [RID]
