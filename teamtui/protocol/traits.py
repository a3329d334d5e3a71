"""TeamTraits: what kind of team it is, as far as the screens care. A leaf: a store makes them
(protocol/store.py), a team model keeps them (protocol/model.py), a stream sends them."""

from __future__ import annotations

from teamtui.protocol.record import FrozenRecord, init_field


class TeamTraits(FrozenRecord):
    """The facts about a team's kind that change what is shown (a layout's store has them as class
    flags; a stream sends them in its header)."""

    __slots__ = ("layout", "appends_to_inboxes", "shutdown_via_lead", "has_transcripts", "default_lead", "where")
    layout: str  # named in the header: native, claude, workflow
    appends_to_inboxes: bool  # JSON-lines inboxes read on from an offset; else pending queues (Claude Code)
    shutdown_via_lead: bool  # only the lead stops its teammates (Claude Code): a shutdown asks it
    has_transcripts: bool  # the members' activity comes from transcripts
    default_lead: str  # the lead's name before the config says
    where: str  # the team's folder, for people to read (never opened here: it may be another machine's)

    def __init__(
        self,
        layout: str = "",
        appends_to_inboxes: bool = True,
        shutdown_via_lead: bool = False,
        has_transcripts: bool = False,
        default_lead: str = "lead",
        where: str = "",
    ):
        init_field(self, "layout", layout)
        init_field(self, "appends_to_inboxes", appends_to_inboxes)
        init_field(self, "shutdown_via_lead", shutdown_via_lead)
        init_field(self, "has_transcripts", has_transcripts)
        init_field(self, "default_lead", default_lead)
        init_field(self, "where", where)
