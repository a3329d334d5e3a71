"""When a teammate counts as disappeared: one rule for the state, the dashboard and the lead."""

from __future__ import annotations


def is_disappeared(*, holds_task: bool, stopped: bool, last_activity: float | None, now: float, timeout: float) -> bool:
    """Silent for longer than the timeout while holding a task and not shut down (the patterns' 60 s rule)."""
    due = disappears_at(holds_task=holds_task, stopped=stopped, last_activity=last_activity, timeout=timeout)
    return due is not None and now > due


def disappears_at(*, holds_task: bool, stopped: bool, last_activity: float | None, timeout: float) -> float | None:
    """The moment the teammate would cross the timeout, or None when it cannot disappear (no task, stopped, never seen)."""
    if not holds_task or stopped or last_activity is None:
        return None
    return last_activity + timeout
