"""Budgets: what a team, a teammate, and every team together in one day may cost (config.toml
[budgets], in dollars), and the calls they make: at 80 % and at 100 %, once per threshold and
period (a team's and a teammate's period is its life; the day's is the local date).

Which calls were made is kept in $XDG_STATE_HOME/teamtui/budgets.json, so a control room started
again does not call again for what it already said. Costs are protocol/cost.py's.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from teamtui.protocol.cost import Cost, money, today

TYPE_CHECKING = False
if TYPE_CHECKING:
    from teamtui.protocol.settings import BudgetSettings

THRESHOLDS = (80, 100)
# Calls remembered, at most (the oldest go first): a team's key stays while the team can come back.
_KEPT = 2000


def level(spent: Decimal, budget: float | None) -> int:
    """The highest threshold `spent` reached of `budget` (0: none, or no budget: a crossing has one)."""
    if not budget:
        return 0
    share = spent * 100 / Decimal(str(budget))
    return max((t for t in THRESHOLDS if share >= t), default=0)


@dataclass(frozen=True, slots=True)
class Crossing:
    """A budget reached: who (a team, a teammate, or the day's every team), how far, and the key
    of its threshold and period (said once)."""

    what: str  # "team" | "teammate" | "day"
    team: str  # the team's name ("" for the day)
    member: str  # the teammate's name ("" but for a teammate budget)
    percent: int
    spent: Decimal
    budget: float
    key: str

    def text(self) -> str:
        who = f"{self.member}: " if self.member else "today, every team: " if self.what == "day" else ""
        over = "reached" if self.percent >= 100 else f"{self.percent}% of"
        return f"{who}{money(self.spent)}, {over} the {self.what} budget of {money(Decimal(str(self.budget)))}"

    @property
    def mark(self) -> str:
        """How a row says it: `team 80%`, `alice 100%`."""
        return f"{self.member or self.what} {self.percent}%"


@dataclass(frozen=True, slots=True)
class TeamBill:
    """One team's costs as the budgets read them."""

    key: str  # the team and its life: a new team of the same name is a new period
    name: str
    cost: Cost | None
    members: Mapping[str, Cost | None]


def team_crossings(budgets: BudgetSettings, bill: TeamBill) -> list[Crossing]:
    """The team's and its teammates' budgets reached, highest threshold each."""
    out: list[Crossing] = []
    if bill.cost is not None and (pct := level(bill.cost.usd, budgets.team)):
        out.append(Crossing("team", bill.name, "", pct, bill.cost.usd, budgets.team or 0.0, f"team:{bill.key}:{pct}"))
    for member, cost in bill.members.items():
        if cost is not None and (pct := level(cost.usd, budgets.teammate)):
            key = f"teammate:{bill.key}:{member}:{pct}"
            out.append(Crossing("teammate", bill.name, member, pct, cost.usd, budgets.teammate or 0.0, key))
    return out


def day_crossing(
    budgets: BudgetSettings, costs: Iterable[Cost | None], now: float | None = None
) -> tuple[Decimal, Crossing | None]:
    """What every team spent today (local date), and the day budget it reached, if any."""
    day = today(now)
    spent = sum((c.on(day) for c in costs if c is not None), Decimal(0))
    pct = level(spent, budgets.day)
    crossing = Crossing("day", "", "", pct, spent, budgets.day or 0.0, f"day:{day}:{pct}") if pct else None
    return spent, crossing


def row_mark(crossings: Iterable[Crossing]) -> str:
    """The one a row shows: the furthest, the team's before a teammate's."""
    best = max(crossings, key=lambda c: (c.percent, c.what == "team"), default=None)
    return best.mark if best is not None else ""


def book_path() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "teamtui" / "budgets.json"


class BudgetBook:
    """The calls made, on disk (read again before each new one: another control room may have made it)."""

    def __init__(self, path: Path | None = None):
        self.path = path or book_path()

    def _read(self) -> dict[str, float]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        called = data.get("called") if isinstance(data, dict) else None
        return {k: v for k, v in called.items() if isinstance(v, (int, float))} if isinstance(called, dict) else {}

    def first_time(self, crossings: list[Crossing], now: float | None = None) -> list[Crossing]:
        """Those not called before, now marked called (the threshold below a new one is marked too:
        a team found at 100 % is not told 80 % afterwards)."""
        if not crossings:
            return []
        called = self._read()
        new = [c for c in crossings if c.key not in called]
        if not new:
            return []
        at = time.time() if now is None else now
        for c in new:
            for pct in THRESHOLDS:
                if pct <= c.percent:
                    called.setdefault(c.key.rsplit(":", 1)[0] + f":{pct}", at)
        kept = dict(sorted(called.items(), key=lambda kv: kv[1])[-_KEPT:])
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
            tmp.write_text(json.dumps({"called": kept}, ensure_ascii=True), encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError:
            pass  # not remembered: said again after a restart, never lost
        return new


__all__ = [
    "THRESHOLDS",
    "BudgetBook",
    "Crossing",
    "TeamBill",
    "book_path",
    "day_crossing",
    "level",
    "row_mark",
    "team_crossings",
]
