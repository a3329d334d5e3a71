"""What the dashboard's panels show of a team session: each panel drawn from the session's
TeamState, and only the rows a change concerns. The screen decides when; this says what."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text

from teamtui.protocol.changes import Change, ChangeKind
from teamtui.protocol.claude.transcripts import NeedsYou
from teamtui.protocol.models import MemberStatus
from teamtui.tui.controllers.team_screen import TeamScreen, toast
from teamtui.tui.safe import safe_text
from teamtui.tui.widgets.drift import DriftLine
from teamtui.tui.widgets.header import TeamHeader
from teamtui.tui.widgets.logs import LogStrip
from teamtui.tui.widgets.messages import MessageTraffic
from teamtui.tui.widgets.needs_you import NeedsYouStrip
from teamtui.tui.widgets.problems import ProblemList
from teamtui.tui.widgets.tasks import TaskBoard
from teamtui.tui.widgets.team import TeamPanel

TASK_KINDS = {ChangeKind.TASK, ChangeKind.TASK_COMPLETED, ChangeKind.TASK_REMOVED}
# The room's needs a team's strip shows (session/alerts.py kinds): what its hooks say, and for a
# team without transcripts (whose strip says nothing else) its held tasks and teammates gone.
HOOK_KINDS = ("ask", "waiting")
ROOM_KINDS = (*HOOK_KINDS, "held", "disappeared")
# Claude Code deletes each inbox entry once delivered: why the Messages table may be empty.
PENDING_QUEUE_HINT = "none seen yet (Claude Code deletes each one once delivered)"


class Panels:
    """The dashboard's panels, drawn from `screen.session` (set before any of these is called)."""

    def __init__(self, screen: TeamScreen):
        self.screen = screen
        self.times_drawn_at: float | None = None  # the clock the team table's "Active" times are drawn at
        self._claimed: dict[str, str] = {}  # the board's claimed files when the task board was last drawn
        self._problems_shown: list | None = None

    @property
    def state(self) -> Any:
        assert self.screen.session is not None
        return self.screen.session.state

    def all(self) -> None:
        self.header()
        self.team()
        self.log_strip()
        self.board()
        self.messages()
        self.main_log()
        self.needs_you()

    def redraw_needs(self) -> None:
        """The needs-you strip again, when the screen shows a team (news may come while it is taken down)."""
        if self.screen.drawable and self.screen.session is not None:
            self.needs_you()

    def select(self, name: str) -> None:
        """`name`'s row in the team table, and its log."""
        panel = self.screen.query_one(TeamPanel)
        try:
            panel.move_cursor(row=panel.get_row_index(name))
        except Exception:  # noqa: BLE001 - a member no longer in the table: its log cannot show either
            return
        self.screen.selected = name

    def header(self, gone: bool = False) -> None:
        session = self.screen.session
        assert session is not None
        self.screen.query_one(TeamHeader).show_team(
            self.state, gone=gone, ended_at=session.ended_at, run_status=session.run_status(), host=session.panes_on
        )
        errors = self.state.all_errors()
        if errors != self._problems_shown:  # redrawing an unchanged list would relayout the screen
            self._problems_shown = errors
            self.screen.query_one(ProblemList).show(errors, Path(self.state.traits.where))
        self.drift()

    def drift(self) -> None:
        """The line under the header saying what the transcripts hold that teamtui does not know."""
        feed = self.state.transcripts
        self.screen.query_one(DriftLine).show(feed.drift().summary() if feed is not None else "")

    def team(self, tick: bool = False) -> None:
        screen = self.screen
        panel = screen.query_one(TeamPanel)
        now = screen.now()
        if tick or self.times_drawn_at is None:
            self.times_drawn_at = now
        # "Active" times move on the tick only: a change in between redraws the rows it touched, not
        # every row whose "12s ago" became "13s ago" (100 cells at 100 teammates, most of a task update).
        views = self.views(now)
        ended = screen.session is not None and not screen.session.live
        panel.show(views, self.times_drawn_at, self.usage(), ended=ended)
        if (
            screen.selected is None
            and len(views) > 1
            and views[0].agent_type == "lead"
            and panel.selected == views[0].name
        ):
            panel.move_cursor(row=1)  # first the teammates: a team opened with its lead's row already there
        if screen.selected is None or panel.selected != screen.selected:
            screen.selected = panel.selected
        disappeared = screen.session.disappeared if screen.session is not None else set()
        parts = [f"{len(disappeared)} disappeared"] if disappeared else []
        if screen.panes_waiting:
            parts.append(f"{len(screen.panes_waiting)} without a pane · enter opens one")
        subtitle = " · ".join(parts)
        if panel.border_subtitle != subtitle:  # setting it, even unchanged, redraws the panel
            panel.border_subtitle = subtitle

    def views(self, now: float) -> list:
        """The team panel's rows: the members, after the lead when its transcript was read."""
        views = self.state.member_views(now)
        lead = self.state.transcripts.lead_view() if self.state.transcripts is not None else None
        return [lead, *views] if lead is not None else views

    def usage(self) -> dict | None:
        """Each member's transcript figures, once any transcript was read (else None: the team
        panel keeps its usual columns)."""
        feed = self.state.transcripts
        if feed is None or not feed.members():
            return None
        return {m: feed.stats(m) for m in feed.members()}

    def needs_you(self) -> None:
        now = self.screen.now()
        strip = self.screen.query_one(NeedsYouStrip)
        session = self.screen.session
        # An ended team's requests went with it: nobody is left to answer them (the room drops them too).
        live = session is not None and session.live
        feed = self.state.transcripts
        items = feed.needs_you(now) if live and feed is not None else []
        # The room's needs of this team that its transcripts do not tell: its hooks' permission
        # requests and waiting sessions first; a team without transcripts, its held tasks and gone teammates.
        kinds = HOOK_KINDS if feed is not None else ROOM_KINDS
        room = [n for n in self.screen.room_needs if live and n.kind in kinds]
        first = [NeedsYou(n.kind, n.member, n.key, n.text, n.since) for n in room if n.kind in HOOK_KINDS]
        rest = [NeedsYou(n.kind, n.member, n.key, n.text, n.since) for n in room if n.kind not in HOOK_KINDS]
        strip.show(first + items + rest, now, self.screen.palette.member_color)

    def board(self, changes: list[Change] | None = None) -> None:
        """Redraw the task board: only the rows `changes` can affect, else every row."""
        board, table = self.state.board, self.screen.query_one(TaskBoard)
        claimed = board.claimed_files()
        done = False
        if changes is not None and not any(c.kind == ChangeKind.TASK_REMOVED for c in changes):
            changed = {c.key for c in changes if c.kind in TASK_KINDS}
            views = [board.view(board.tasks[i], claimed) for i in board.affected_by(changed, self._claimed)]
            done = table.update(views, self.screen.task_query, len(board.tasks))
        if not done:
            table.show(board.views(), self.screen.task_query)
        self._claimed = claimed
        # Where the rows come from, where it can be either: a Claude Code lead without a task list
        # hands out work by Agent calls and messages (its assignments), else the task list.
        source = self.state.task_source
        title = f"Tasks · {source}" if source and self.state.transcripts is not None else "Tasks"
        if table.border_title != title:  # setting it, even unchanged, redraws the panel
            table.border_title = title

    def messages(self) -> None:
        traffic = self.screen.query_one(MessageTraffic)
        traffic.show(self.state.messages)
        # A pending queue (Claude Code) is emptied on delivery: say why the table may be empty.
        session, traits = self.screen.session, self.state.traits
        why_not = session.read_only if session is not None and session.actions.messages is None else ""
        hint = (
            "" if self.state.messages else why_not or ("none yet" if traits.appends_to_inboxes else PENDING_QUEUE_HINT)
        )
        if traffic.border_subtitle != hint:  # setting it, even unchanged, redraws the panel
            traffic.border_subtitle = hint

    def log_title(self, name: str) -> Text:
        return safe_text(name, f"bold {self.screen.palette.member_color(name)}")

    def log_strip(self) -> None:
        names = [v.name for v in self.views(self.screen.now())]
        self.screen.query_one(LogStrip).sync(
            [(n, self.log_title(n)) for n in names], self.state.logs, self.screen.selected
        )

    def main_log(self) -> None:
        log = self.screen.log_main
        selected = self.screen.selected
        if selected is None or self.screen.session is None:
            log.clear()
            log.border_title = "Log"
            return
        title = Text("Log · ")
        title.append_text(self.log_title(selected))
        log.show(self.state.logs.get(selected), title)
        self.log_strip()

    def append_log(self, member: str) -> None:
        if member == self.screen.selected:
            self.screen.log_main.sync(self.state.logs.get(member))
        self.screen.query_one(LogStrip).append(member)

    def tell(self, c: Change) -> None:
        """A change drawn where it goes (a log line), or said, when the person should know it."""
        screen, K = self.screen, ChangeKind
        if c.kind == K.LOG:
            self.append_log(c.key)
        elif c.kind == K.TASK_COMPLETED:
            toast(screen, f"✓ #{c.key} completed: ", c.detail, "information")
        elif c.kind == K.MEMBER_JOINED:
            toast(screen, "", c.key, "information", suffix=" joined the team")
        elif c.kind == K.MEMBER_LEFT:
            toast(screen, "", c.key, "warning", suffix=" left the team")
        elif c.kind == K.MEMBER_STATUS and c.detail == MemberStatus.SHUTDOWN.value:
            toast(screen, "", c.key, "information", suffix=" shut down")
        elif c.kind == K.TEAM_GONE:
            toast(screen, "Team gone: ", c.detail, "error")
