"""PaneBudget: which teammates get a `follow` pane when there are more than `limit`.

Each `follow` pane is a Python process watching the team's files: fifty of them starting
at once kept a 2-core machine busy for half a minute. So at most `limit` teammates hold a
pane slot. Free slots go to the wanted teammates in team order; a teammate the user asks
for (`enter`) takes a slot at once, displacing the one used least recently when all are
taken. The budget is plain bookkeeping: TmuxPanes opens and closes what it says.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

DEFAULT_MAX_PANES = 8


class PaneBudget:
    def __init__(self, limit: int = DEFAULT_MAX_PANES):
        if limit < 1:
            raise ValueError(f"a pane budget needs at least one slot, got {limit}")
        self.limit = limit
        # Names holding a slot, least recently used first.
        self._holders: dict[str, None] = {}

    @property
    def holders(self) -> list[str]:
        return list(self._holders)

    def holds(self, name: str) -> bool:
        return name in self._holders

    def plan(self, wanted: Sequence[str], skip: Collection[str] = ()) -> list[str]:
        """Free the slots of teammates no longer wanted (or in `skip`: their pane ended), fill
        free slots from `wanted` in order, skipping `skip`; the holders, in `wanted`'s order."""
        keep = set(wanted) - set(skip)
        for name in [n for n in self._holders if n not in keep]:
            del self._holders[name]
        for name in wanted:
            if len(self._holders) >= self.limit:
                break
            if name in keep and name not in self._holders:
                self._holders[name] = None
        return [n for n in wanted if n in self._holders]

    def choose(self, name: str) -> str | None:
        """`name` was asked for: it holds a slot, as the most recently used. Returns the holder
        it displaced (the least recently used), or None when a slot was free or it held one."""
        displaced = None
        if name not in self._holders and len(self._holders) >= self.limit:
            displaced = next(iter(self._holders))
            del self._holders[displaced]
        self._holders.pop(name, None)
        self._holders[name] = None
        return displaced

    def release(self, name: str) -> None:
        self._holders.pop(name, None)

    def waiting(self, wanted: Sequence[str]) -> list[str]:
        """The wanted teammates holding no slot: they get a pane when asked for."""
        return [n for n in wanted if n not in self._holders]
