"""A whole team's transcripts: one reader per member, kept current from watch events.

The dashboard watches `watch_dirs`, hands each batch of changed paths to `apply`, and gets back
what changed per member. A transcript that appears later (a teammate spawned while watching, or
a restarted one's new session) is found by the same call.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from teamtui.protocol.claude.transcripts.locate import TranscriptFinder, TranscriptSource
from teamtui.protocol.claude.transcripts.reader import DEFAULT_WINDOW, HeadCount, TranscriptReader, TranscriptUpdate


class TeamTranscripts:
    def __init__(self, config_dir: Path, config: Mapping[str, object], *, window: int = DEFAULT_WINDOW):
        self.finder = TranscriptFinder(config_dir, config)
        self.window = window
        self.sources: dict[str, TranscriptSource] = {}
        self.readers: dict[str, TranscriptReader] = {}
        self._by_path: dict[Path, str] = {}

    @property
    def watch_dirs(self) -> list[Path]:
        return self.finder.watch_dirs

    def load(self, *, from_end: bool = False) -> dict[str, TranscriptUpdate]:
        """Find every transcript and read it (the first screen). `from_end`: only what the
        windows need; the heads are then counted by `count_heads` and added by `take_heads`."""
        return self._refind(read_all=True, from_end=from_end)

    def count_heads(self) -> dict[str, HeadCount]:
        """Each head a first read from the end left, counted: safe in a thread (reads files only)."""
        readers = [(m, r) for m, r in list(self.readers.items()) if r.head_pending]
        return {m: head for m, r in readers if (head := r.count_head()) is not None}

    def take_heads(self, heads: dict[str, HeadCount]) -> list[str]:
        """Add what `count_heads` found; the members whose sums are now their transcript's."""
        return [m for m, head in heads.items() if (r := self.readers.get(m)) is not None and r.take_head(head)]

    def update_config(self, config: Mapping[str, object]) -> dict[str, TranscriptUpdate]:
        """Members came or went: find again; a departed member's reader is kept (its history stays)."""
        self.finder.update_config(config)
        return self._refind()

    def apply(self, paths: Iterable[Path], *, rescan: bool = False) -> dict[str, TranscriptUpdate]:
        """A batch of changed paths from the watcher: read the transcripts that grew, and look
        for new ones when a path could be one. `rescan` (the watcher restarted) reads everything."""
        if rescan:
            return self._refind(read_all=True)
        out: dict[str, TranscriptUpdate] = {}
        look = False
        for path in {Path(p) for p in paths}:
            member = self._by_path.get(path)
            if member is not None:
                update = self.readers[member].read()
                if update.changed:
                    out[member] = update
                if update.missing:
                    self.finder.forget(path)
                    look = True
            elif self.finder.concerns(path):
                look = True
        if look:
            out.update(self._refind())
        return out

    def _refind(self, read_all: bool = False, from_end: bool = False) -> dict[str, TranscriptUpdate]:
        out: dict[str, TranscriptUpdate] = {}
        for member, source in self.finder.resolve().items():
            known = self.sources.get(member)
            if known is None or known.path != source.path:
                if known is not None:
                    self._by_path.pop(known.path, None)
                self.sources[member] = source
                reader = self.readers[member] = TranscriptReader(source.path, window=self.window)
                self._by_path[source.path] = member
                update = reader.read_tail() if from_end else reader.read()
                update.reset = known is not None  # a new session replaces the old one's window
                out[member] = update
            elif read_all:
                update = self.readers[member].read()
                if update.changed:
                    out[member] = update
        return out
