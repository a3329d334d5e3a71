"""What one transcript says about its teammate: current activity, tokens, context in use, and what
it cost (each message's usage priced by genai-prices: protocol/cost.py).

A figure the transcript does not give stays None; nothing is guessed.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, field

from teamtui.protocol.claude.transcripts.render import parse_ts, token_count, tool_label
from teamtui.protocol.cost import PRICES, Charge, Cost, Spend

# Context windows by model-name prefix (longest prefix wins). A model not listed gets no share.
CONTEXT_WINDOWS: dict[str, int] = {
    "claude-3-": 200_000,
    "claude-3-5-": 200_000,
    "claude-3-7-": 200_000,
    "claude-opus-4": 200_000,
    "claude-sonnet-4": 200_000,
    "claude-haiku-4": 200_000,
}
# Message ids whose usage is remembered (a message's blocks are written as consecutive lines).
_IDS_KEPT = 64
_USAGE_KEYS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
_NO_USAGE = (None, None, None, None)


def context_window(model: str | None) -> int | None:
    """The model's context window in tokens, or None when it is not known."""
    if not model:
        return None
    best = max((p for p in CONTEXT_WINDOWS if model.startswith(p)), key=len, default=None)
    return CONTEXT_WINDOWS[best] if best else None


@dataclass(frozen=True, slots=True)
class Activity:
    """What the teammate is doing: `tool` (its last call, in `text`), `thinking`, or `idle`."""

    kind: str
    ts: float | None
    text: str = ""

    def label(self) -> str:
        """`Bash: pytest -q`, `thinking`, or `idle since 14:02:09` (local time)."""
        if self.kind == "idle":
            return f"idle since {time.strftime('%H:%M:%S', time.localtime(self.ts))}" if self.ts else "idle"
        return self.text or self.kind


@dataclass(slots=True)
class Tokens:
    """Token sums over the transcript's `message.usage` (each message id once). A kind the
    transcript never reported stays None."""

    input: int | None = None
    output: int | None = None
    cache_creation: int | None = None
    cache_read: int | None = None

    @property
    def total(self) -> int | None:
        parts = [v for v in (self.input, self.output, self.cache_creation, self.cache_read) if v is not None]
        return sum(parts) if parts else None

    def _add(self, usage: tuple[int | None, ...], sign: int) -> None:
        inp, out, cc, cr = usage  # spelled out: a first read adds thousands
        if inp is not None:
            self.input = (self.input or 0) + sign * inp
        if out is not None:
            self.output = (self.output or 0) + sign * out
        if cc is not None:
            self.cache_creation = (self.cache_creation or 0) + sign * cc
        if cr is not None:
            self.cache_read = (self.cache_read or 0) + sign * cr


@dataclass(slots=True)
class TranscriptStats:
    """Folded from the records of one transcript, oldest first. A first read from the end counts
    the usage of its own lines; `add_head` then adds the lines before them, counted apart. Until
    then `tokens` says nothing (a sum of part of the transcript would be a guess)."""

    _sums: Tokens = field(default_factory=Tokens)
    # The same messages' bill (each message id once, as the sums).
    spend: Spend = field(default_factory=Spend)
    # The last request's input + cache tokens: what the context holds now.
    context_tokens: int | None = None
    model: str | None = None
    # The newest timestamp seen on any record: when the teammate last wrote.
    last_write: float | None = None
    _usage_by_id: OrderedDict[str, tuple[tuple[int | None, ...], Charge]] = field(default_factory=OrderedDict)
    # (kind, ts, tool_use block): the label is built only when asked (a first read folds thousands).
    _now: tuple[str, float | None, dict[str, object] | None] | None = None
    # Lines at the head of the transcript are not counted yet: the sums are not the transcript's.
    _headless: bool = False
    # While headless, the first message ids counted: the head's last message may go on in them.
    _first_ids: dict[str, tuple[int | None, ...]] = field(default_factory=dict)

    @property
    def tokens(self) -> Tokens:
        """The transcript's token sums; all None while its head is not counted."""
        return Tokens() if self._headless else self._sums

    @property
    def counted(self) -> bool:
        """Every line's usage is in `tokens` (False between a first read from the end and `add_head`)."""
        return not self._headless

    @property
    def cost(self) -> Cost | None:
        """What the transcript's messages cost; None until every line is counted and priced."""
        return None if self._headless else self.spend.cost()

    def without_head(self) -> None:
        """The lines counted from now on follow a head that `add_head` will bring."""
        self._headless = True

    def add_head(self, head: TranscriptStats) -> None:
        """The usage counted (apart) over the lines before those counted here. A message whose
        lines straddle the cut is counted once, by its later lines, as a single pass would."""
        sums = Tokens(head._sums.input, head._sums.output, head._sums.cache_creation, head._sums.cache_read)
        self.spend.merge(head.spend)
        for mid, (values, charge) in head._usage_by_id.items():
            if mid in self._first_ids:
                sums._add(values, -1)
                self.spend.add(charge, -1)
        self._sums._add((sums.input, sums.output, sums.cache_creation, sums.cache_read), +1)
        if self.context_tokens is None:
            self.context_tokens = head.context_tokens
        if self.model is None:
            self.model = head.model
        if head.last_write is not None and (self.last_write is None or head.last_write > self.last_write):
            self.last_write = head.last_write
        self._headless = False
        self._first_ids = {}

    @property
    def activity(self) -> Activity | None:
        """What the teammate is doing now, by the last record that says."""
        if self._now is None:
            return None
        kind, ts, tool = self._now
        return Activity(kind, ts, tool_label(tool.get("name"), tool.get("input")) if tool else "")

    @property
    def context_window(self) -> int | None:
        return context_window(self.model)

    @property
    def context_share(self) -> float | None:
        """Context in use as a share (0..1) of the model's window; None when either is unknown
        or the figure exceeds the listed window (the model then runs a larger one)."""
        window = self.context_window
        if window is None or self.context_tokens is None or self.context_tokens > window:
            return None
        return self.context_tokens / window

    def fold(self, rec: dict[str, object], *, usage: bool = True) -> None:
        """Take one record in. `usage=False` when its usage was already counted (`count`)."""
        kind = rec.get("type")
        ts = parse_ts(rec.get("timestamp"))
        if ts is not None and kind in ("user", "assistant", "system"):
            self.last_write = ts if self.last_write is None else max(self.last_write, ts)
        if kind == "assistant":
            self._assistant(rec, ts, usage)
        elif kind == "user" and not rec.get("isMeta"):
            self._now = ("thinking", ts, None)
        elif kind == "system" and rec.get("subtype") == "turn_duration":
            if self._now is None or self._now[0] != "idle":
                self._now = ("idle", ts, None)

    def _assistant(self, rec: dict[str, object], ts: float | None, usage: bool) -> None:
        msg = rec.get("message")
        if not isinstance(msg, dict):
            return
        if usage:
            self.count(msg.get("id"), msg.get("usage"), msg.get("model"), ts)
        content = msg.get("content")
        tools = (
            [b for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]
            if isinstance(content, list)
            else []
        )
        if tools:
            self._now = ("tool", ts, tools[-1])
        elif msg.get("stop_reason") == "end_turn":
            self._now = ("idle", ts, None)
        else:
            self._now = ("thinking", ts, None)

    def count(self, mid: object, usage: object, model: object, ts: float | None = None) -> None:
        """One assistant message's `usage` (and model, and when it was written), counted once per message id."""
        if isinstance(model, str) and model and not model.startswith("<"):  # "<synthetic>" is no model
            self.model = model
        if not isinstance(usage, dict):
            return
        get = usage.get
        values = (
            token_count(get(_USAGE_KEYS[0])),
            token_count(get(_USAGE_KEYS[1])),
            token_count(get(_USAGE_KEYS[2])),
            token_count(get(_USAGE_KEYS[3])),
        )
        if values == _NO_USAGE:
            return
        mid = mid if isinstance(mid, str) else None
        old = self._usage_by_id.pop(mid, None) if mid is not None else None
        # A message's blocks come as several lines repeating its usage: the latest one counts, priced once.
        charge = old[1] if old is not None and old[0] == values else self._charge(model, usage, ts, values)
        if mid is not None:
            self._usage_by_id[mid] = (values, charge)
            if len(self._usage_by_id) > _IDS_KEPT:
                self._usage_by_id.popitem(last=False)
            if self._headless and len(self._first_ids) < _IDS_KEPT:
                self._first_ids.setdefault(mid, values)
        if old is not None and old[0] != values:
            self._sums._add(old[0], -1)
            self.spend.add(old[1], -1)
        if old is None or old[0] != values:
            self._sums._add(values, +1)
            self.spend.add(charge, +1)
        inp, _out, cc, cr = values
        if inp is not None or cc is not None or cr is not None:
            self.context_tokens = (inp or 0) + (cc or 0) + (cr or 0)

    @staticmethod
    def _charge(model: object, usage: dict[str, object], ts: float | None, values: tuple[int | None, ...]) -> Charge:
        charge = Charge(model if isinstance(model, str) else None, usage, ts, sum(v for v in values if v is not None))
        if PRICES.ready:  # else priced later, off the loop (TranscriptFeed.count_heads)
            charge.price(PRICES)
        return charge
