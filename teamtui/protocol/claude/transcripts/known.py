"""What teamtui knows of a Claude Code transcript line, in one place, and what it saw that it does not.

ENTRY_TYPES is every top-level `type` the releases in TESTED_CLAUDE_CODE wrote into a transcript
(tests/fixtures/examples/claude-2.1.328/ and tests/fixtures/claude-workflow/, 2.1.331), and the
older ones teamtui still meets. READ_TYPES are those teamtui reads (render.py, stats.py,
assignments.py): for them ENTRY_KEYS lists every top-level key known. A newer Claude Code may add
a type, a key, or write a `version` newer than the newest tested: that is format drift. `Drift`
records it for one transcript, bounded (per kind a count, the first place and one short example),
and nothing is dropped silently: a line teamtui cannot show is at least counted here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from teamtui.protocol.claude_versions import TESTED_CLAUDE_CODE
from teamtui.protocol.text import inert

# Every entry type seen in the tested releases' transcripts (and "summary", which older ones wrote).
ENTRY_TYPES = frozenset(
    {
        "user",
        "assistant",
        "system",
        "attachment",
        "mode",
        "permission-mode",
        "atis-latch",
        "tools-used",
        "file-history-snapshot",
        "last-prompt",
        "api-request",
        "api-request-blob",
        "api-request-shape",
        "cost-state",
        "queue-operation",
        "summary",
    }
)
# The types teamtui reads: their top-level keys are checked too.
READ_TYPES = frozenset({"user", "assistant", "system"})
_COMMON = frozenset(
    {
        "type",
        "parentUuid",
        "logicalParentUuid",
        "isSidechain",
        "uuid",
        "timestamp",
        "sessionId",
        "session_id",
        "version",
        "gitBranch",
        "cwd",
        "userType",
        "entrypoint",
        "teamName",
        "agentName",
        "agentId",
        "isMeta",
        "slug",
        "isVisibleInTranscriptOnly",
    }
)
# The top-level keys of the types teamtui reads, as the tested releases (and older ones) wrote them.
ENTRY_KEYS: Mapping[str, frozenset[str]] = {
    "user": _COMMON
    | {
        "message",
        "promptId",
        "origin",
        "promptSource",
        "turnOrigin",
        "turnPosition",
        "permissionMode",
        "toolUseResult",
        "sourceToolAssistantUUID",
        "permissionDecision",
        "queueSkipAttachments",
        "rowSource",
        "isCompactSummary",
        "thinkingMetadata",
        "todos",
        "imagePasteIds",
        "toolUseID",
    },
    "assistant": _COMMON
    | {
        "message",
        "requestId",
        "apiBlockIndex",
        "requestRef",
        "requestedModel",
        "promptCacheRequested",
        "effort",
        "perTurnEffort",
        "madeBy",
        "attributionAgent",
        "toolInputStreamMs",
        "failedResponseHadNoToolCall",
        "isApiErrorMessage",
        "apiErrorStatus",
        "apiErrorType",
        "error",
    },
    "system": _COMMON
    | {
        "subtype",
        "content",
        "level",
        "durationMs",
        "messageCount",
        "compactMetadata",
        "error",
        "toolUseID",
        "retryInMs",
        "retryAttempt",
        "maxRetries",
        "cause",
    },
}

# Kinds of drift, in the order they are listed.
NEWER_VERSION = "version"
UNKNOWN_TYPE = "type"
UNKNOWN_KEY = "key"
# Bounds: kinds remembered per transcript, and the characters of an example.
KINDS_KEPT = 64
EXAMPLE_CHARS = 240

_VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)")
_VERSION_MARK = b'"version":"'
_VERSION_NEAR = 512  # bytes from either end of a line searched for it
_TYPE_FIRST = b'{"type":"'


def version_key(version: str) -> tuple[int, ...] | None:
    """`2.1.340` as (2, 1, 340); None when it is no release number."""
    m = _VERSION.match(version)
    return tuple(int(g) for g in m.groups()) if m else None


def newest_tested() -> str:
    return max(TESTED_CLAUDE_CODE, key=lambda v: version_key(v) or ())


_NEWEST_KEY = version_key(newest_tested()) or ()


def is_newer(version: str) -> bool:
    key = version_key(version)
    return key is not None and key > _NEWEST_KEY


def _example(raw: str) -> str:
    s = inert(raw.replace("\n", " "))
    return s if len(s) <= EXAMPLE_CHARS else s[: EXAMPLE_CHARS - 1] + "…"


@dataclass(slots=True)
class DriftItem:
    """One kind of thing teamtui does not know: how often, where first, what it looked like."""

    kind: str  # NEWER_VERSION, UNKNOWN_TYPE or UNKNOWN_KEY
    name: str  # "2.1.340", "thinking-trace", "assistant.fooBar"
    count: int
    path: Path
    line: int | None
    example: str

    @property
    def what(self) -> str:
        if self.kind == NEWER_VERSION:
            return f"entries written by Claude Code {self.name}"
        if self.kind == UNKNOWN_TYPE:
            return f"unknown entry type {self.name!r}"
        return f"unknown key {self.name!r}"


@dataclass(slots=True)
class Drift:
    """What one transcript holds that teamtui does not know (bounded)."""

    path: Path
    items: dict[tuple[str, str], DriftItem] = field(default_factory=dict)
    versions: set[str] = field(default_factory=set)  # every release number seen (few)
    lines: int = 0  # lines looked at
    generation: int = 0  # moves on with each kind seen the first time
    _last_version: bytes = b""
    _last_newer: bool = False

    def _see(self, kind: str, name: str, line: int | None, example: object) -> None:
        item = self.items.get((kind, name))
        if item is not None:
            item.count += 1
            return
        if len(self.items) >= KINDS_KEPT:
            return
        text = example() if callable(example) else str(example)
        self.items[(kind, name)] = DriftItem(kind, name, 1, self.path, line, _example(text))
        self.generation += 1

    def see_line(self, raw: bytes, no: int | None) -> None:
        """A line as bytes (most are never decoded): its `version`, and the type of a line that
        starts with it, as every line teamtui does not read does. Cheap: a few bounded searches."""
        self.lines += 1
        # Claude Code writes the top-level `version` near a line's end (after the message) or, on
        # the lines that start with their type, near its start: only those ends are searched.
        at = raw.rfind(_VERSION_MARK, max(0, len(raw) - _VERSION_NEAR))
        if at < 0:
            at = raw.find(_VERSION_MARK, 0, _VERSION_NEAR)
        if at >= 0:
            start = at + len(_VERSION_MARK)
            end = raw.find(b'"', start, start + 40)
            value = raw[start:end] if end > 0 else b""
            if value and value != self._last_version:
                self._last_version = value
                version = value.decode("ascii", "replace")
                self._last_newer = is_newer(version)
                if version_key(version) is not None and len(self.versions) < KINDS_KEPT:
                    self.versions.add(version)
            if value and self._last_newer:
                self._see(
                    NEWER_VERSION, value.decode("ascii", "replace"), no, lambda: raw[:600].decode("utf-8", "replace")
                )
        if raw.startswith(_TYPE_FIRST):
            end = raw.find(b'"', len(_TYPE_FIRST), len(_TYPE_FIRST) + 80)
            kind = raw[len(_TYPE_FIRST) : end].decode("utf-8", "replace") if end > 0 else ""
            if kind not in ENTRY_TYPES:
                self._see(UNKNOWN_TYPE, kind or "(unreadable type)", no, lambda: raw[:600].decode("utf-8", "replace"))

    def see_record(self, rec: Mapping[str, object], no: int | None) -> None:
        """A decoded line teamtui reads: its type and top-level keys."""
        kind = rec.get("type")
        if not isinstance(kind, str):
            self._see(UNKNOWN_TYPE, "(no type)", no, lambda: json.dumps(rec, ensure_ascii=False)[:600])
            return
        known = ENTRY_KEYS.get(kind)
        if known is None:
            if kind not in ENTRY_TYPES:
                self._see(UNKNOWN_TYPE, kind, no, lambda: json.dumps(rec, ensure_ascii=False)[:600])
            return
        for key in rec:
            if key not in known:
                value = rec[key]
                self._see(
                    UNKNOWN_KEY,
                    f"{kind}.{key}",
                    no,
                    lambda k=key, v=value: f"{k}: {json.dumps(v, ensure_ascii=False, default=str)[:400]}",
                )

    def see_all(self, raw: bytes, no: int | None) -> None:
        """A line checked in full, decoded whatever its type (`teamtui doctor`): its version,
        its type, and the keys of a type teamtui reads."""
        self.see_line(raw, no)
        if raw.startswith(_TYPE_FIRST):
            return  # its type was checked; teamtui reads none of the types written first
        try:
            rec = json.loads(raw)
        except (ValueError, RecursionError):
            return  # not drift: the reader reports a line it cannot read
        if isinstance(rec, dict):
            self.see_record(rec, no)

    def merge(self, other: Drift) -> None:
        """Add what another pass over the same file found (a head counted apart)."""
        self.lines += other.lines
        self.versions |= other.versions
        for key, item in other.items.items():
            mine = self.items.get(key)
            if mine is not None:
                mine.count += item.count
                if item.line is not None and (mine.line is None or item.line < mine.line):
                    mine.line, mine.example = item.line, item.example
            elif len(self.items) < KINDS_KEPT:
                self.items[key] = DriftItem(item.kind, item.name, item.count, item.path, item.line, item.example)
                self.generation += 1


@dataclass(slots=True)
class DriftReport:
    """A team's drift: every transcript's, joined."""

    items: list[DriftItem]
    versions: list[str]  # every release number seen, oldest first

    @property
    def newest(self) -> str | None:
        return self.versions[-1] if self.versions else None

    @property
    def unknown(self) -> list[DriftItem]:
        return [i for i in self.items if i.kind != NEWER_VERSION]

    @property
    def newer(self) -> bool:
        return self.newest is not None and is_newer(self.newest)

    def __bool__(self) -> bool:
        return bool(self.items)

    def summary(self) -> str:
        """One quiet line ('' when nothing is unknown): `Claude Code 2.1.340: 3 unknown entry kinds
        — teamtui tested up to 2.1.331`."""
        if not self.items:
            return ""
        n = len(self.unknown)
        kinds = f"{n} unknown entry kind{'s' if n != 1 else ''}" if n else ""
        tested = newest_tested()
        if self.newer:
            head = f"Claude Code {self.newest}" + (f": {kinds}" if kinds else " wrote these transcripts")
            return f"{head} — teamtui tested up to {tested}"
        return f"Claude Code transcripts: {kinds} — teamtui tested up to {tested}"


def drift_report(drifts: Iterable[Drift]) -> DriftReport:
    """The drifts of a team's transcripts as one report: the same kind in several files once, counted over all."""
    joined: dict[tuple[str, str], DriftItem] = {}
    versions: set[str] = set()
    for d in drifts:
        versions |= d.versions
        for key, item in d.items.items():
            mine = joined.get(key)
            if mine is None:
                joined[key] = DriftItem(item.kind, item.name, item.count, item.path, item.line, item.example)
            else:
                mine.count += item.count
    order = {NEWER_VERSION: 0, UNKNOWN_TYPE: 1, UNKNOWN_KEY: 2}
    items = sorted(joined.values(), key=lambda i: (order.get(i.kind, 3), i.name))
    return DriftReport(items, sorted(versions, key=lambda v: version_key(v) or ()))


__all__ = [
    "ENTRY_KEYS",
    "ENTRY_TYPES",
    "READ_TYPES",
    "Drift",
    "DriftItem",
    "DriftReport",
    "drift_report",
    "is_newer",
    "newest_tested",
    "version_key",
]
