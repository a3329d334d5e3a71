"""The part every role of a store shares: which team, in which layout, and the words for what
the layout cannot do."""

from __future__ import annotations

from abc import ABC
from pathlib import Path

from teamtui.protocol.errors import UnsupportedError

TYPE_CHECKING = False  # not typing's: importing typing costs every CLI call ~2 ms
if TYPE_CHECKING:
    from typing import ClassVar


class StoreBase(ABC):
    """A team (its root and name) in a layout; what each role builds on."""

    layout: ClassVar[str]

    def __init__(self, root: Path, name: str):
        self.root = Path(root)
        self.name = name

    def _unsupported(self, what: str) -> UnsupportedError:
        return UnsupportedError(f"{what} is not supported for {self.layout} teams")
