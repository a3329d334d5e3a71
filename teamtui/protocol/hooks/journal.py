"""The record of every request and answer: what was asked and answered, how, from where (this
room, a host, a browser, the CLI, the hook itself) and when. One JSON object a line in
`journal.jsonl` beside the spool, rotated like it (one older generation), for the history to
import.
"""

from __future__ import annotations

import time
from pathlib import Path

from teamtui.protocol.hooks.place import JOURNAL, JOURNAL_OLD
from teamtui.protocol.hooks.spool import append_line, line_of

MAX_JOURNAL_BYTES = 4 << 20

# What a line says happened.
ASKED = "asked"  # a permission request reached the hook and waits (or not: `outcome` says why)
ANSWERED = "answered"  # someone answered it (or a need of a native team)
CARRIED_OUT = "carried_out"  # the hook printed the decision, or left it to Claude Code's dialog


def write(spool: Path, what: str, **fields: object) -> None:
    """Append one line; a journal that cannot be written must never stop an answer."""
    entry = {"v": 1, "at": fields.pop("at", None) or time.time(), "what": what, **fields}
    try:
        append_line(spool / JOURNAL, spool / JOURNAL_OLD, line_of(entry), MAX_JOURNAL_BYTES)
    except OSError:
        pass


def read(spool: Path) -> list[dict[str, object]]:
    """Every line of both generations, oldest first (the history's import)."""
    import json

    out = []
    for name in (JOURNAL_OLD, JOURNAL):
        try:
            data = (spool / name).read_bytes()
        except OSError:
            continue
        for raw in data.splitlines():
            try:
                rec = json.loads(raw)
            except (ValueError, RecursionError):
                continue
            if isinstance(rec, dict):
                out.append(rec)
    return out
