"""The user's own channel: a command run with the event as one JSON object on stdin, so a person
can route it to ntfy, Slack or notify-send. It runs on a thread of its own, with a deadline."""

from __future__ import annotations

from collections.abc import Sequence

from teamtui.notify.events import NotifyEvent
from teamtui.notify.problems import Problem
from teamtui.notify.proc import CommandQueue

COMMAND_TIMEOUT = 10.0  # seconds a command may run before it is killed


class CommandSink:
    """Runs `argv` once per event, one at a time and in order, off the caller's thread: `send`
    returns at once. A command that is missing, fails or outlives `timeout` (then killed) is
    told to `on_problem` (called from the sink's thread) once, until it works again."""

    def __init__(
        self, argv: Sequence[str], *, timeout: float = COMMAND_TIMEOUT, on_problem: Problem | None = None
    ) -> None:
        if not argv:
            raise ValueError("a notify command needs at least a program")
        self.argv = tuple(argv)
        self.timeout = timeout
        self._queue = CommandQueue("teamtui-notify-command", "notify command", timeout, on_problem)

    def send(self, event: NotifyEvent) -> None:
        self._queue.submit(self.argv, event.cleaned().to_json().encode("utf-8"))

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until every event sent so far has been handed to the command; False on timeout."""
        return self._queue.wait_idle(timeout)

    def close(self) -> None:
        """Drop the events not yet run; the one running finishes (or meets its deadline)."""
        self._queue.close()
