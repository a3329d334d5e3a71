"""The Claude Code releases whose files teamtui was checked against.

Each was run by the interop harness (`make interop CLAUDE_CODE_VERSION=<version>`: the real binary,
its model scripted) and every interop test passed; docs/formats.md ("Versions tested") says what
changed between them. A Claude Code newer than the last one here may write files teamtui does not
know yet (format drift). Imports nothing.
"""

from __future__ import annotations

# Oldest first. Each one passed the whole interop suite.
TESTED_CLAUDE_CODE: tuple[str, ...] = ("2.1.328", "2.1.331", "2.1.332")

# What `make interop` installs and runs by default (the Makefile's CLAUDE_CODE_VERSION; a test
# checks the two agree). Always one of TESTED_CLAUDE_CODE.
PINNED_CLAUDE_CODE = "2.1.332"
