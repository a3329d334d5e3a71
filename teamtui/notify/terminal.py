"""The terminal's own channels: the bell, and a desktop notification the terminal shows (OSC 9 /
OSC 777), wrapped for tmux when it passes them on, else on tmux's message line."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from teamtui.notify.events import NotifyEvent
from teamtui.notify.osc import BEL, DESKTOP_CODES, OSC_9, osc9, osc777, tmux_passthrough
from teamtui.notify.text import bounded


class TerminalSink:
    """Writes the bell and the notification's escape sequences with `write`, which must put the
    string on the terminal as it is and return at once: in a Textual app its driver's `write`
    (the driver owns the terminal; a second writer to stdout would interleave with its frames).

    Inside tmux (`in_tmux`), OSC sequences reach the terminal only wrapped, and only when the
    pane's allow-passthrough is on (`passthrough`); otherwise `display`, when given, shows the
    text on tmux's message line (a TmuxDisplay)."""

    def __init__(
        self,
        write: Callable[[str], None],
        *,
        in_tmux: bool = False,
        passthrough: bool = False,
        bell: bool = True,
        desktop: bool = True,
        codes: Sequence[int] = DESKTOP_CODES,
        display: Callable[[str], None] | None = None,
    ) -> None:
        self._write = write
        self.in_tmux = in_tmux
        self.passthrough = passthrough
        self.bell = bell
        self.desktop = desktop
        self.codes = tuple(c for c in codes if c in DESKTOP_CODES)
        self._display = display

    def sequences(self, event: NotifyEvent) -> str:
        """What `send` writes for `event`, sanitized and bounded whatever the event holds."""
        out = BEL if self.bell else ""
        if not self.desktop or (self.in_tmux and not self.passthrough):
            return out
        title, body = event.cleaned().headline()
        for code in self.codes:
            seq = osc9(bounded(f"{title}: {body}")) if code == OSC_9 else osc777(title, body)
            out += tmux_passthrough(seq) if self.in_tmux else seq
        return out

    def send(self, event: NotifyEvent) -> None:
        data = self.sequences(event)
        if data:
            self._write(data)
        if self.desktop and self.in_tmux and not self.passthrough and self._display is not None:
            title, body = event.cleaned().headline()
            self._display(f"{title}: {body}")

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until tmux has shown every message handed to `display`; False on timeout."""
        wait = getattr(self._display, "wait_idle", None)
        return True if wait is None else bool(wait(timeout))

    def close(self) -> None:
        close = getattr(self._display, "close", None)
        if close is not None:
            close()
