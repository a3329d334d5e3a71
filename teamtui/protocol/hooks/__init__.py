"""Claude Code's hooks: the spool `teamtui hook` records events into, the permission requests it
waits on, the answers, the room lock, the journal, and teamtui's entries in Claude Code's
settings.json.

Everything lives in one folder only the user can read and write (`place.py`):

    $XDG_STATE_HOME/teamtui/hooks/          0700
      events.jsonl, events.1.jsonl          the spool: one event a line, rotated (spool.py)
      rooms.lock                            every room that answers holds a shared flock (room.py)
      requests/<id>/request.json            a permission request the hook waits on (asks.py)
      requests/<id>/wake                    a FIFO: an answer, a room leaving or the terminal wakes it
      requests/<id>/answer.json             the one answer, claimed with link(): first one wins
      journal.jsonl, journal.1.jsonl        what was asked and answered, how, from where, when

Nothing here imports another package of teamtui (or Textual); `teamtui hook` imports only
`hook.py` and what it names, to stay cheap inside Claude Code's loop.
"""
