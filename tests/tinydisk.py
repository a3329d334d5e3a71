"""A real, tiny disk for the torn-write tests: a tmpfs mounted for the test, filled to the byte.

A full disk is what makes `write()` write less than it was asked to (the issue's 3,880 of 12,000
bytes) and then fail: no mock can say what the kernel really does there."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

PAGE = 4096


@contextmanager
def tiny_disk(where: Path, size_kb: int = 64) -> Iterator[Path]:
    """A tmpfs of `size_kb` KiB mounted at `where` for the block; skips where mounting is not allowed."""
    where.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_kb}k,mode=0755", "tmpfs", str(where)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN): {done.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False, capture_output=True)


def fill(disk: Path, leave: int) -> Path:
    """Fill the disk, then give back `leave` bytes (whole pages): writes past that fail with ENOSPC."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        size = 0
        try:
            while True:
                size += os.write(fd, b"\0" * PAGE)
        except OSError:
            pass
        os.ftruncate(fd, max(0, size - leave))
    finally:
        os.close(fd)
    return filler


def snapshot(root: Path, skip: str = "filler") -> dict[str, bytes]:
    """Every file under root (but the filler) with its bytes: what "unchanged" is compared against."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and p.name != skip}
