"""A teamtui process recording a native team into a history database, for the durability tests.

    python recording_worker.py DB ROOT TEAM SENDER COUNT [SHARED_ROOT]

Writes COUNT messages from SENDER into the team's inbox, applying each to a TeamState whose
recorder writes to DB; after every 25 it flushes the writer and prints `committed N` (N messages
now in the database). COUNT 0: forever. With SHARED_ROOT, that team (the same for every worker)
is read and recorded too, between the messages: every worker records what it holds. At the end it
prints the writer's problems as JSON.
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

from teamtui.protocol import NativeTeam
from teamtui.protocol.history.recorder import HistoryRecorder
from teamtui.protocol.history.writer import HistoryWriter
from teamtui.protocol.state import TeamState


def main() -> None:
    db, root, team, sender, count = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])
    shared = Path(sys.argv[6]) if len(sys.argv) > 6 else None
    writer = HistoryWriter(db, import_journals=False, keep_days=3650)
    teams = []
    for r in [root] + ([shared] if shared else []):
        store = NativeTeam(r, team)
        state = TeamState(store, journal=HistoryRecorder.for_store(store, writer))
        state.load_all()
        teams.append((store, state))
    store, state = teams[0]
    for i in itertools.count(1) if count == 0 else range(1, count + 1):
        store.send("hunter", f"{sender} says {i}", sender)
        state.apply(store.inbox_path("hunter"))
        if i % 25 == 0:
            if not writer.flush(30):
                print("flush timed out", flush=True)
            print(f"committed {i}", flush=True)
    writer.close(30)
    print(json.dumps(writer.problems), flush=True)


if __name__ == "__main__":
    main()
