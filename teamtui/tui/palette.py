"""The colours the dashboard draws with: the theme's, by role, and each teammate's.

Built by the dashboard from the current theme (and rebuilt when the theme or the team's
members change), then handed to the widgets: a widget never asks the app for a colour."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from textual.theme import Theme

from teamtui.protocol.colors import color_name

ROLES = (
    "primary",
    "secondary",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "success",
    "warning",
    "error",
)
TEAMMATE_VARIABLE = "teammate-"  # a theme file's [teammates] table becomes these variables (tui/themes.py)
# For a theme with no [teammates] table (Textual's own): three of the eight are no colour Rich knows.
ANSI_TEAMMATES = {"orange": "dark_orange", "pink": "hot_pink", "purple": "medium_purple"}


@dataclass(frozen=True)
class Palette:
    theme: str = ""
    roles: Mapping[str, str] = field(default_factory=dict)  # role -> colour
    teammates: Mapping[str, str] = field(default_factory=dict)  # teammate colour name -> this theme's colour
    members: Mapping[str, str] = field(default_factory=dict)  # member name -> its configured colour

    @classmethod
    def of(cls, theme: Theme, css_variables: Mapping[str, str], members: Mapping[str, str] | None = None) -> Palette:
        roles = {r: getattr(theme, r, None) or css_variables.get(r) or "default" for r in ROLES}
        mates = {k[len(TEAMMATE_VARIABLE) :]: v for k, v in theme.variables.items() if k.startswith(TEAMMATE_VARIABLE)}
        return cls(theme.name, roles, mates, dict(members or {}))

    def with_members(self, members: Mapping[str, str]) -> Palette:
        return self if members == self.members else replace(self, members=dict(members))

    def theme_color(self, role: str) -> str:
        # "default" is a colour to Rich; "" would make "on " a style it cannot parse.
        return self.roles.get(role) or "default"

    def teammate_color(self, member_color: str, name: str) -> str:
        c = color_name(member_color, name)
        return self.teammates.get(c) or ANSI_TEAMMATES.get(c, c)

    def member_color(self, name: str) -> str:
        """The colour of a member by name (departed ones too; anyone else gets one from the name)."""
        return self.teammate_color(self.members.get(name, ""), name)
