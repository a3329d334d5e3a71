"""The stream's requests ("ops"), each declared once, in its own module: its request record, the
handler the host runs (`teamtui stream`, session/stream_server.py) and the call the room makes
(over ssh or NATS alike, session/stream_reader.py). This is the one list of them: the server looks
an op up here, the readers the lines that answer one. Adding an op is its module and its line here.
"""

from __future__ import annotations

from teamtui.protocol.stream import STREAM_LINES
from teamtui.session.ops import answers, diffs, messages, ping, search, shutdown, timeline
from teamtui.session.ops.base import Op

OPS: dict[str, Op] = {
    op.name: op
    for module in (messages, shutdown, diffs, search, timeline, answers, ping)  # the registry line
    for op in module.OPS
}
# What answers a request before its result (a shutdown's progress, a diff ...), to its asker.
ANSWER_LINES = frozenset(kind for op in OPS.values() for kind in op.lines)
LINE_TYPES = STREAM_LINES | ANSWER_LINES  # every line kind the stream carries (an unknown one is dropped)

__all__ = ["ANSWER_LINES", "LINE_TYPES", "OPS", "Op"]
