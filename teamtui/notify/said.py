"""What the control room said, and the collisions the person dismissed, remembered across starts.

Kept in $XDG_STATE_HOME/teamtui/notify/said.json (a folder of its own: a watcher of teamtui/ must
not wake at every write), one entry per thing said (host, team and its life, kind, item key) or
dismissed, with when. A room started again does not say again what an earlier one said, and a
dismissed collision stays dismissed. Bounded: entries older than KEEP_SECONDS go, and the oldest
beyond MAX_KEPT. Written atomically, merged with what another room wrote meanwhile. A file that
cannot be parsed is moved aside (`said.json.damaged-<time>`); one that cannot be read is left alone
and nothing is written over it. Either way the room says so once (`take_problem`) and remembers in
memory for as long as it runs.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from teamtui.protocol.fsio import write_json_atomic

KEEP_SECONDS = 30 * 86400
MAX_KEPT = 5000
VERSION = 1
_SECTIONS = ("said", "dismissed")


def said_path() -> Path:
    from teamtui.protocol.fleet.registry import state_dir

    return state_dir() / "notify" / "said.json"


class _Unparsable(ValueError):
    pass


class SaidBook:
    """The things said and dismissed (see the module's doc). `before` is what earlier rooms said:
    this room's own calls are still decided by what it saw at its last look."""

    def __init__(self, path: Path | None = None):
        self.path = path or said_path()
        self.entries: dict[str, dict[str, float]] = {s: {} for s in _SECTIONS}
        self.writable = True
        self._problem: str | None = None
        self._dirty = False
        try:
            self.entries = self._read()
        except _Unparsable as exc:
            self._aside(str(exc))
        except OSError as exc:
            self._give_up(f"{self.path} cannot be read ({exc.strerror or exc})")
        self.before = frozenset(self.entries["said"])

    # ------------------------------------------------------------------ asking
    def said_before(self, key: str) -> bool:
        """Said by an earlier room."""
        return key in self.before

    def said(self, key: str) -> bool:
        """Said by an earlier room or this one."""
        return key in self.entries["said"]

    def dismissed(self, prefix: str) -> set[str]:
        """The dismissed keys of one scope (`prefix|key`), without their prefix."""
        lead = prefix + "|"
        return {k[len(lead) :] for k in self.entries["dismissed"] if k.startswith(lead)}

    def is_dismissed(self, prefix: str, key: str) -> bool:
        return f"{prefix}|{key}" in self.entries["dismissed"]

    def take_problem(self) -> str | None:
        """What went wrong with the file, once."""
        problem, self._problem = self._problem, None
        return problem

    # ------------------------------------------------------------------ remembering
    def say(self, key: str) -> None:
        self._note("said", key)

    def dismiss(self, prefix: str, key: str) -> None:
        self._note("dismissed", f"{prefix}|{key}")

    def _note(self, section: str, key: str) -> None:
        if key not in self.entries[section]:
            self.entries[section][key] = time.time()
            self._dirty = True

    def save(self) -> None:
        """What was noted since the last save, merged with the file (another room's), pruned, written."""
        if not self._dirty or not self.writable:
            return
        self._dirty = False
        try:
            on_disk = self._read()
        except _Unparsable as exc:
            self._aside(str(exc))
            on_disk = {s: {} for s in _SECTIONS}
        except OSError as exc:
            self._give_up(f"{self.path} cannot be read ({exc.strerror or exc})")
            return
        now = time.time()
        for section in _SECTIONS:
            merged = {**on_disk[section], **self.entries[section]}
            fresh = [(k, at) for k, at in merged.items() if now - at < KEEP_SECONDS]
            self.entries[section] = dict(sorted(fresh, key=lambda kv: kv[1])[-MAX_KEPT:])
        if not self.writable:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            write_json_atomic(self.path, {"version": VERSION, **self.entries}, indent=None)
        except OSError as exc:
            self._give_up(f"{self.path} cannot be written ({exc.strerror or exc})")

    # ------------------------------------------------------------------ the file
    def _read(self) -> dict[str, dict[str, float]]:
        """The file's entries ({} when there is none); _Unparsable when it is not ours to read."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {s: {} for s in _SECTIONS}
        except UnicodeDecodeError as exc:
            raise _Unparsable(f"not text ({exc.reason})") from exc
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise _Unparsable(f"not JSON ({exc})") from exc
        if not isinstance(data, dict) or not all(isinstance(data.get(s, {}), dict) for s in _SECTIONS):
            raise _Unparsable("not a record of what was said")
        return {
            s: {
                k: float(v)
                for k, v in data.get(s, {}).items()
                if isinstance(v, (int, float)) and not isinstance(v, bool)
            }
            for s in _SECTIONS
        }

    def _aside(self, why: str) -> None:
        """A file that cannot be parsed: kept for a person to look at, out of the way of a new one."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        aside = self.path.with_name(f"{self.path.name}.damaged-{stamp}")
        n = 1
        while aside.exists():
            n += 1
            aside = self.path.with_name(f"{self.path.name}.damaged-{stamp}-{n}")
        try:
            os.replace(self.path, aside)
        except OSError as exc:
            self._give_up(f"{self.path} is damaged ({why}) and cannot be moved aside ({exc.strerror or exc})")
            return
        self._say(
            f"{self.path} was damaged ({why}): moved aside to {aside.name}; what was said before may be said again"
        )

    def _give_up(self, line: str) -> None:
        """Never written over: remembered in memory only, for this run."""
        self.writable = False
        self._say(f"{line}: what is said is remembered until the room quits")

    def _say(self, line: str) -> None:
        if self._problem is None:
            self._problem = line


__all__ = ["KEEP_SECONDS", "MAX_KEPT", "SaidBook", "said_path"]
