"""The user's own channel: a command run with the event as one JSON object on stdin, so a person
can route it to ntfy, Slack or notify-send. It runs on a thread of its own, with a deadline."""

from __future__ import annotations

from collections.abc import Sequence

from teamtui.notify.events import NotifyEvent
from teamtui.notify.problems import OnceReporter, Problem
from teamtui.notify.proc import run_command
from teamtui.tmux.worker import PaneWorker

COMMAND_TIMEOUT = 10.0  # seconds a command may run before it is killed


class CommandSink:
    """Runs `argv` once per event, one at a time and in order, off the caller's thread: `send`
    returns at once. A command that is missing, fails or outlives `timeout` (then killed) is
    told to `on_problem` (called from the sink's thread) once, until it works again."""

    def __init__(self, argv: Sequence[str], *, timeout: float = COMMAND_TIMEOUT, on_problem: Problem | None = None) -> None:
        if not argv:
            raise ValueError("a notify command needs at least a program")
        self.argv = tuple(argv)
        self.timeout = timeout
        self._reporter = OnceReporter(on_problem)
        self._worker = PaneWorker("teamtui-notify-command", on_error=lambda exc: self._reporter.failed(f"notify command: {exc}"))

    def send(self, event: NotifyEvent) -> None:
        payload = event.cleaned().to_json().encode("utf-8")
        self._worker.submit(lambda: self._run(payload))

    def _run(self, payload: bytes) -> None:
        problem = run_command(self.argv, payload, self.timeout)
        if problem:
            self._reporter.failed(problem)
        else:
            self._reporter.succeeded()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until every event sent so far has been handed to the command; False on timeout."""
        return self._worker.wait_idle(timeout)

    def close(self) -> None:
        """Drop the events not yet run; the one running finishes (or meets its deadline)."""
        self._worker.stop()
