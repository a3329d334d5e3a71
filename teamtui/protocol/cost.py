"""What the teams cost, in dollars: each assistant message's model and usage priced by genai-prices.

- The prices are genai-prices' (pinned in pyproject.toml), from the data bundled with it: nothing is
  fetched at run time (its `UpdatePrices` is never started, so its snapshot is the bundled one).
  It is imported on first use, ~150 ms: `PRICES.load()`, in a thread (the transcripts' head count).
- A message is priced as genai-prices reads Claude Code's record of it: Anthropic's extractor on
  `{"model", "usage"}` (input, output, cache writes of 5 min and 1 h, cache reads, web searches), at
  the message's time (prices change by date) and speed (`usage.speed`: fast mode costs more).
- Each message id once, as the token sums count it (transcripts/stats.py hands each one over).
- A model the data has no price for is never guessed: its tokens are kept apart, and said
  ("price unknown (model X)").

`Spend` is one transcript's bill; `Cost` what is shown (a teammate's, a team's, a day's).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

ZERO = Decimal(0)
_CENT = Decimal("0.01")
_MOST = Decimal(10) ** 12  # no bill read from another process is larger (a hostile one could be anything)
# A charge not priced yet: genai-prices was not loaded when its message was counted.
_UNPRICED: Any = object()
# A message's usage, as each day's tokens are kept (input, output, cache read, cache write).
TOKEN_KEYS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")


class Prices:
    """genai-prices, loaded once (`load`, off the UI loop); `price` is safe from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._extract: Any = None
        self.error: str | None = None  # why genai-prices could not be loaded

    @property
    def ready(self) -> bool:
        """`load` ran: prices are there (or it said why not)."""
        return self._extract is not None or self.error is not None

    def load(self) -> None:
        with self._lock:
            if self.ready:
                return
            try:
                from genai_prices import extract_usage
                from genai_prices.data_snapshot import get_snapshot

                get_snapshot()  # the bundled data, read now rather than at the first price
            except Exception as exc:  # noqa: BLE001 - without it every figure says "price unknown", and doctor why
                self.error = f"genai-prices could not be loaded: {exc}"
                return
            self._extract = extract_usage

    def price(self, model: str | None, usage: Mapping[str, object], ts: float | None) -> Decimal | None:
        """What the message cost in USD; None when there is no price for it (an unknown model)."""
        if self._extract is None or not model:
            return None
        from datetime import UTC, datetime

        speed = usage.get("speed")
        try:
            found = self._extract({"model": model, "usage": dict(usage)}, provider_id="anthropic")
            at = datetime.fromtimestamp(ts, UTC) if ts is not None else None
            calc = found.calc_price(
                genai_request_timestamp=at, price_context={"speed": speed} if isinstance(speed, str) else None
            )
        except (LookupError, ValueError, TypeError, OverflowError, OSError):
            return None
        return calc.total_price


PRICES = Prices()


@dataclass(frozen=True, slots=True)
class PriceData:
    """Which prices are in use, for `teamtui doctor`."""

    version: str | None  # genai-prices', None when it is not there
    newest: str | None  # the newest date a price in its data takes effect
    bundled: bool  # the data shipped with the package (never fetched)
    error: str | None = None


def price_data() -> PriceData:
    """Reads genai-prices' data (loads it: ~150 ms)."""
    PRICES.load()
    if PRICES.error is not None:
        return PriceData(None, None, True, PRICES.error)
    from importlib.metadata import version

    from genai_prices.data_snapshot import get_snapshot

    snapshot = get_snapshot()
    dates = [
        str(p.constraint.start_date)
        for provider in snapshot.providers
        for model in provider.models
        if isinstance(model.prices, list)
        for p in model.prices
        if p.constraint is not None and hasattr(p.constraint, "start_date")
    ]
    return PriceData(version("genai-prices"), max(dates, default=None), not snapshot.from_auto_update)


def day_of(ts: float | None) -> str | None:
    """The local date a message was written on, YYYY-MM-DD."""
    if ts is None:
        return None
    try:
        return time.strftime("%Y-%m-%d", time.localtime(ts))
    except (OverflowError, OSError, ValueError):
        return None


def today(now: float | None = None) -> str:
    return time.strftime("%Y-%m-%d", time.localtime(time.time() if now is None else now))


class Charge:
    """One assistant message's part of the bill (what genai-prices said of it, once priced)."""

    __slots__ = ("model", "usage", "ts", "tokens", "usd")

    def __init__(self, model: str | None, usage: Mapping[str, object], ts: float | None, tokens: int):
        self.model = model or "unknown"
        self.usage, self.ts, self.tokens = usage, ts, tokens
        self.usd: Decimal | None = _UNPRICED

    @property
    def priced(self) -> bool:
        return self.usd is not _UNPRICED

    def price(self, prices: Prices) -> None:
        self.usd = prices.price(self.model if self.model != "unknown" else None, self.usage, self.ts)


class Spend:
    """One transcript's bill: the priced messages' sum, per day too, and the tokens of messages
    with no price, per model. A message counted before genai-prices was loaded waits (`pending`)
    until `settle`; meanwhile the bill says nothing (a part of it would be a guess)."""

    __slots__ = ("usd", "days", "day_tokens", "unknown", "_pending")

    def __init__(self) -> None:
        self.usd = ZERO
        self.days: dict[str, Decimal] = {}
        self.day_tokens: dict[
            str, list[int]
        ] = {}  # local date -> [input, output, cache read, cache write] (the history's)
        self.unknown: dict[str, int] = {}  # model -> tokens not priced
        self._pending: dict[int, Charge] = {}

    @property
    def pending(self) -> bool:
        return bool(self._pending)

    def add(self, charge: Charge, sign: int = 1) -> None:
        """A message counted (+1), or taken back (-1: its usage was counted again, changed)."""
        if sign < 0 and self._pending.pop(id(charge), None) is not None:
            return
        if not charge.priced:
            self._pending[id(charge)] = charge
            return
        self._sum(charge, sign)

    def _sum(self, charge: Charge, sign: int) -> None:
        day = day_of(charge.ts)
        if day is not None:
            kept = self.day_tokens.setdefault(day, [0, 0, 0, 0])
            for i, key in enumerate(TOKEN_KEYS):
                n = charge.usage.get(key)
                if isinstance(n, int) and not isinstance(n, bool):
                    kept[i] += sign * n
        if charge.usd is None:
            left = self.unknown.get(charge.model, 0) + sign * charge.tokens
            if left:
                self.unknown[charge.model] = left
            else:
                self.unknown.pop(charge.model, None)
            return
        self.usd += sign * charge.usd
        if day is not None:
            self.days[day] = self.days.get(day, ZERO) + sign * charge.usd

    def merge(self, other: Spend) -> None:
        """Another part of the same transcript (the head a first read from the end left)."""
        self.usd += other.usd
        for day, usd in other.days.items():
            self.days[day] = self.days.get(day, ZERO) + usd
        for day, counts in other.day_tokens.items():
            kept = self.day_tokens.setdefault(day, [0, 0, 0, 0])
            for i, n in enumerate(counts):
                kept[i] += n
        for model, tokens in other.unknown.items():
            self.unknown[model] = self.unknown.get(model, 0) + tokens
        self._pending.update(other._pending)

    def price_pending(self, prices: Prices) -> None:
        """Price what waits, in a thread: only the charges change, the sums are `settle`'s."""
        for charge in list(self._pending.values()):
            if not charge.priced:
                charge.price(prices)

    def settle(self, prices: Prices) -> bool:
        """Add what waits to the sums, priced now if it was not yet (on the loop that owns this);
        True when anything moved. Nothing while genai-prices is not loaded."""
        if not self._pending or not prices.ready:
            return False
        for key, charge in list(self._pending.items()):
            if not charge.priced:
                charge.price(prices)
            del self._pending[key]
            self._sum(charge, +1)
        return True

    def cost(self) -> Cost | None:
        """The bill as it stands; None while a message waits to be priced."""
        if self._pending:
            return None
        tokens = {d: (t[0], t[1], t[2], t[3]) for d, t in self.day_tokens.items()}
        return Cost(self.usd, tuple(sorted(self.unknown)), sum(self.unknown.values()), dict(self.days), tokens)


@dataclass(frozen=True, slots=True)
class Cost:
    """What something cost: the priced part in USD, and what could not be priced."""

    usd: Decimal = ZERO
    unknown: tuple[str, ...] = ()  # models with no price: their tokens are not in `usd`
    unpriced_tokens: int = 0
    days: dict[str, Decimal] = field(default_factory=dict)  # local date -> USD spent that day
    # Local date -> its messages' tokens (input, output, cache read, cache write): kept by the history.
    day_tokens: dict[str, tuple[int, int, int, int]] = field(default_factory=dict, compare=False)

    def on(self, day: str) -> Decimal:
        return self.days.get(day, ZERO)


def total(costs: Iterable[Cost | None]) -> Cost | None:
    """The sum of several (a team's members, every team); None when one of them is not known yet."""
    usd, unknown, tokens, days = ZERO, set[str](), 0, dict[str, Decimal]()
    day_tokens: dict[str, tuple[int, int, int, int]] = {}
    for c in costs:
        if c is None:
            return None
        usd += c.usd
        unknown.update(c.unknown)
        tokens += c.unpriced_tokens
        for day, spent in c.days.items():
            days[day] = days.get(day, ZERO) + spent
        for day, n in c.day_tokens.items():
            was = day_tokens.get(day, (0, 0, 0, 0))
            day_tokens[day] = (was[0] + n[0], was[1] + n[1], was[2] + n[2], was[3] + n[3])
    return Cost(usd, tuple(sorted(unknown)), tokens, days, day_tokens)


# ------------------------------------------------------------------ in words


def money(usd: Decimal) -> str:
    """$12.34 (to the cent); under half a cent, <$0.01."""
    if ZERO < usd < Decimal("0.005"):
        return "<$0.01"
    return f"${usd.quantize(_CENT, rounding=ROUND_HALF_UP):,}"


def short_money(usd: Decimal) -> str:
    """At most 5 characters: $0.42, $12.3, $123, $12k."""
    if usd >= 10_000:
        return f"${(usd / 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP)}k"
    if usd >= 100:
        return f"${usd.quantize(Decimal(1), rounding=ROUND_HALF_UP)}"
    if usd >= 10:
        return f"${usd.quantize(Decimal('0.1'), rounding=ROUND_HALF_UP)}"
    return money(usd) if usd >= Decimal("0.005") or usd == ZERO else "<$.01"


def kept_text(usd: Decimal, unknown: bool) -> str:
    """What a team or teammate cost as the history kept it (no model names): $12.34, <$0.01,
    $12.34 + price unknown, price unknown (as cost_text)."""
    if not unknown:
        return money(usd)
    return "price unknown" if usd == ZERO else f"{money(usd)} + price unknown"


def unknown_text(cost: Cost) -> str:
    return f"price unknown (model {', '.join(cost.unknown)})"


def cost_text(cost: Cost | None) -> str:
    """$12.34; $12.34 + price unknown (model X); price unknown (model X); "" while not known."""
    if cost is None:
        return ""
    if not cost.unknown:
        return money(cost.usd)
    if cost.usd == ZERO:
        return unknown_text(cost)
    return f"{money(cost.usd)} + {unknown_text(cost)}"


# ------------------------------------------------------------------ on the wire and in the journal

DAYS_KEPT = 8  # the newest days a cost carries over the wire and into the journal


def cost_json(cost: Cost | None) -> dict[str, object] | None:
    """Plain JSON; USD as exact decimal strings (genai-prices' figures, unrounded)."""
    if cost is None:
        return None
    return {
        "usd": str(cost.usd),
        "unknown_models": list(cost.unknown),
        "unpriced_tokens": cost.unpriced_tokens,
        "days": {d: str(cost.days[d]) for d in sorted(cost.days)[-DAYS_KEPT:]},
    }


def _usd(v: object) -> Decimal | None:
    if not isinstance(v, str) or len(v) > 40:
        return None
    try:
        d = Decimal(v)
    except InvalidOperation:
        return None
    return d if d.is_finite() and 0 <= d < _MOST else None


def read_cost(obj: object) -> Cost | None:
    """A cost from JSON another process wrote (`cost_json`): checked, bounded; None when it is not one."""
    if not isinstance(obj, dict) or (usd := _usd(obj.get("usd"))) is None:
        return None
    models = obj.get("unknown_models")
    unknown = tuple(m[:120] for m in models[:20] if isinstance(m, str) and m) if isinstance(models, list) else ()
    tokens = obj.get("unpriced_tokens")
    tokens = tokens if isinstance(tokens, int) and not isinstance(tokens, bool) and tokens >= 0 else 0
    raw = obj.get("days")
    days: dict[str, Decimal] = {}
    for day, v in list(raw.items())[-DAYS_KEPT:] if isinstance(raw, dict) else []:
        if isinstance(day, str) and len(day) == 10 and (spent := _usd(v)) is not None:
            days[day] = spent
    return Cost(usd, unknown, tokens, days)


__all__ = [
    "PRICES",
    "Charge",
    "Cost",
    "PriceData",
    "Prices",
    "Spend",
    "cost_json",
    "cost_text",
    "day_of",
    "money",
    "price_data",
    "read_cost",
    "short_money",
    "today",
    "total",
]
