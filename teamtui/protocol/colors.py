"""The eight teammate colours every layout names, and a stable pick for a member that names none."""

from __future__ import annotations

TEAMMATE_COLORS = ("red", "blue", "green", "yellow", "purple", "orange", "pink", "cyan")


def color_name(member_color: str, name: str) -> str:
    """The member's own color when it names one of the eight, else a stable pick by name."""
    c = (member_color or "").lower()
    if c in TEAMMATE_COLORS:
        return c
    return TEAMMATE_COLORS[sum(name.encode()) % len(TEAMMATE_COLORS)]
