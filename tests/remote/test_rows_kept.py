"""A host's row is kept until its team changes (benchmark row 17: a thousand teams through NATS);
a kept row must still say the host's own needs count (the room raises it on the row it is given)
and the connection's standing (which changes no team)."""

from __future__ import annotations

import time

from teamtui.protocol import stream as wire
from teamtui.protocol.settings import HostSettings
from teamtui.session.ops import LINE_TYPES
from teamtui.session.remote import RemoteHost
from teamtui.session.source import FleetBatch

from .test_untrusted import KEY, header


def take(h: RemoteHost, *lines: dict) -> FleetBatch:
    batch = FleetBatch(source=h.name)
    for line in lines:
        obj = wire.parse(wire.dumps(line), LINE_TYPES)
        assert obj is not None
        h._take(obj, batch)
    return batch


def test_a_kept_streamed_row_says_its_hosts_count_and_its_connection() -> None:
    h = RemoteHost(HostSettings("box", "me@box"))
    h._up(FleetBatch())
    row_said = {**header()["row"], "needs_you": 2}
    take(h, header(row=row_said))
    (key,) = h.sessions
    now = time.time()
    (row,) = h.rows(now)
    assert row.needs_you == 2 and row.problem is None
    row.needs_you = 5  # the room raises it to the needs it counts itself (FleetControl.show)
    (again,) = h.rows(now + 0.5, changed=set())  # nothing changed: the row is kept ...
    assert again is row and again.needs_you == 2  # ... saying the host's count again, not the room's last
    h._disconnected(FleetBatch())
    (down,) = h.rows(now + 0.6, changed=set())  # no team changed, the connection did
    assert down.problem is not None and down.problem.startswith("disconnected since")
    assert key == h.key(KEY[1], KEY[2])
