"""`m` and `b` on the dashboard: the message dialog, then the session writes under the honest
sender (never a lead this process is not) and says what was written or why not."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text

from teamtui.session.team import TeamSession
from teamtui.tui.controllers.key_guard import writable
from teamtui.tui.controllers.team_screen import TeamScreen, toast
from teamtui.tui.safe import inert


class MessageDialogs:
    def __init__(self, screen: TeamScreen, log_title: Callable[[str], Text]):
        self.screen = screen
        self.log_title = log_title

    def message(self, name: str) -> None:
        from teamtui.tui.screens.message import MessageModal

        screen, session = self.screen, self.screen.session
        if session is None or not writable(screen):
            return
        title = Text("Message ", style="bold")
        title.append_text(self.log_title(name))
        modal = MessageModal(title, [name], session.sender, cursor_blink=screen.cursor_blink)
        screen.app.push_screen(modal, lambda text: self._write("Message", text, lambda t: self._send(name, t)))

    def _send(self, name: str, text: str) -> None:
        assert self.screen.session is not None
        session = self.screen.session
        self.screen.apply_changes(session.send(name, text))
        if _confirmed(session):  # else the other machine's answer says what became of it
            unread = _unread(session, "it stays in the inbox")
            toast(self.screen, "Message written to ", name, "warning" if unread else "information", f"'s inbox{unread}")

    def broadcast(self) -> None:
        from teamtui.tui.screens.message import MessageModal

        screen, session = self.screen, self.screen.session
        if session is None or not writable(screen):
            return
        try:
            recipients = session.broadcast_recipients()
        except Exception as exc:  # noqa: BLE001 - the user must see why nothing can be written
            toast(screen, "Cannot broadcast: ", str(exc), "error")
            return
        title = Text(f"Broadcast to {len(recipients)} teammate{'s' if len(recipients) != 1 else ''}", style="bold")
        modal = MessageModal(title, recipients, session.sender, cursor_blink=screen.cursor_blink)
        screen.app.push_screen(modal, lambda text: self._write("Broadcast", text, self._broadcast))

    def _broadcast(self, text: str) -> None:
        assert self.screen.session is not None
        session = self.screen.session
        recipients, changes = session.broadcast(text)
        self.screen.apply_changes(changes)
        if _confirmed(session):  # else the other machine's answer says what became of it
            unread = _unread(session, "it stays in their inboxes")
            toast(
                self.screen,
                "Broadcast written to ",
                ", ".join(recipients) or "nobody",
                "warning" if unread else "information",
                unread,
            )

    def _write(self, what: str, text: str | None, write: Callable[[str], None]) -> None:
        if text is None or self.screen.session is None:
            return  # cancelled
        try:
            write(text)
        except Exception as exc:  # noqa: BLE001 - the user must see why nothing was written
            toast(self.screen, f"{what} not sent: ", str(exc), "error")


def _unread(session: TeamSession, kept: str) -> str:
    """What follows "written to …" when the lead has ended (the check `S` makes: shutdown_flow.py):
    the message is kept, but nobody may read it now; "" while the lead runs."""
    if not session.lead_gone():
        return ""
    return f". {inert(session.state.lead)} has ended: nobody may read it now ({kept})."


def _confirmed(session: TeamSession) -> bool:
    """A message to this team is written when sent (its files are here), not only asked for."""
    return session.actions.messages is not None and session.actions.messages.confirmed
