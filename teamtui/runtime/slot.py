"""One teammate of the team file as the lead tracks it: its process, restarts and health."""

from __future__ import annotations

import asyncio

from teamtui.runtime.channel import TeammateChannel
from teamtui.runtime.spawn import TeammateProcess
from teamtui.runtime.teamfile import TeammateSpec


class Slot:
    def __init__(self, spec: TeammateSpec, channel: TeammateChannel):
        self.spec = spec
        self.channel = channel
        self.proc: TeammateProcess | None = None
        self.runs = 0
        self.exit_fd: int | None = None  # the pidfd the supervisor watches for this run's exit
        # In memory only, for the lead's events: pending, start, working, idle, stopped, disappeared.
        self.health = "pending"
        self.last_activity: float | None = None
        self.holds_task = False
        self.health_timer: asyncio.TimerHandle | None = None
        self.waiting = False  # sent idle_notification and holds no task (assign = "lead")
        self.retired = (
            False  # approved a shutdown request the lead did not send (e.g. the dashboard's): never respawned
        )
        self.restarting = (
            False  # stopped by the lead after disappearing (on_disappeared = "restart"): started again at exit
        )
        self.restart_asked = False  # a person asked for the restart: its work goes back uncounted

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def alive(self) -> bool:
        return self.proc is not None

    def __repr__(self) -> str:
        return f"Slot({self.name!r}, runs={self.runs}, alive={self.alive})"
