"""Keys typed fast, or pasted, right after "/" or "m" go where the user is typing.

A terminal delivers such a burst all at once. Textual routes each key to the widget focused
when the key is read, so the filter or the message box opened by the first key missed the rest:
"/auth" left the filter empty, and its "t" toggled the tmux panes. "mhello quit" lost the
message, and its "q" could quit. `type_fast` posts a whole burst before the app reads any of it.
"""

from __future__ import annotations

import json

from textual import events

from teamtui.tui.app import TeamTUI
from teamtui.tui.widgets.tasks import TaskBoard

from .conftest import SIZE, RecordingPanes, cells, make

NAMES = {"/": "slash", " ": "space"}


def type_fast(app: TeamTUI, text: str) -> None:
    for ch in text:
        app.post_message(events.Key(NAMES.get(ch, ch), ch))


async def test_a_fast_slash_and_query_filters_the_board_and_toggles_nothing(frozen_native, config_file):
    panes = RecordingPanes()
    app = make(frozen_native, config_file, panes=panes)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        type_fast(app, "/tests")
        await pilot.pause()
        assert app.dashboard.query_one("#task-filter").value == "tests"
        assert [r.split(" | ")[1] for r in cells(app.dashboard.query_one(TaskBoard))] == ["2"]
        assert not [c for c in panes.calls if c[0] == "toggle"]  # its "t"s were text, not the panes key
        type_fast(app, "mb/")  # the keys that open things are text while the filter has focus
        await pilot.pause()
        assert app.dashboard.query_one("#task-filter").value == "testsmb/" and app.screen is app.dashboard  # no dialog


async def test_a_fast_m_and_message_keeps_every_key_and_quits_nothing(frozen_native, config_file):
    app = make(frozen_native, config_file)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        type_fast(app, "mplease rebase/ then quit")
        await pilot.pause()
        assert type(app.screen).__name__ == "MessageModal" and app.is_running
        await pilot.press("enter")
        inbox = frozen_native / ".teams/refactor-auth/hunter_inbox.jsonl"
        last = json.loads(inbox.read_text().splitlines()[-1])
        assert last["content"] == "please rebase/ then quit"
