"""The Claude Code versions teamtui was tested against: one list in teamtui's code, and the pin
`make interop` runs is the Makefile's and one of them."""

from __future__ import annotations

import re
from pathlib import Path

from teamtui.protocol.claude_versions import PINNED_CLAUDE_CODE, TESTED_CLAUDE_CODE

REPO = Path(__file__).resolve().parents[1]


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def test_the_tested_versions_are_release_numbers_oldest_first() -> None:
    assert all(re.fullmatch(r"\d+\.\d+\.\d+", v) for v in TESTED_CLAUDE_CODE)
    assert list(TESTED_CLAUDE_CODE) == sorted(set(TESTED_CLAUDE_CODE), key=_key)


def test_the_makefile_pins_a_tested_version() -> None:
    pin = re.search(r"^CLAUDE_CODE_VERSION := (\S+)$", (REPO / "Makefile").read_text(), re.M)
    assert pin is not None
    assert pin.group(1) == PINNED_CLAUDE_CODE
    assert PINNED_CLAUDE_CODE in TESTED_CLAUDE_CODE


def test_docs_list_every_tested_version() -> None:
    docs = (REPO / "docs" / "formats.md").read_text()
    listed = docs[docs.index("## Versions tested") :]
    for version in TESTED_CLAUDE_CODE:
        assert f"`{version}`" in listed, version
