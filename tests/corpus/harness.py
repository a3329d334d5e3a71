"""Run code in a forked child: a real process with its own stdout/stderr file descriptors, its own
exit status, optionally without root's power to read any file (so a chmod 000 file really fails to
read when the tests run as root), and a guard that kills it if it hangs (a hang is a failure, not a
slow pass)."""

from __future__ import annotations

import ctypes
import io
import os
import pickle
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

HANG_GUARD = 120.0  # seconds; only ever reached by a process that blocks forever


@dataclass
class Result:
    code: int
    stdout: bytes
    stderr: bytes
    value: Any = None
    hung: bool = False


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


_CAP_V3 = 0x20080522
_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH = 1, 2


def drop_read_override() -> None:
    """This process (when root) loses CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH: file modes bind it
    as they bind anyone, yet it stays root and still reads the checkout wherever it lies (another
    user would not, from a clone in a 0700 temporary folder)."""
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    data = (_CapData * 2)()
    if libc.capget(ctypes.byref(_CapHeader(_CAP_V3, 0)), data) != 0:
        raise OSError(ctypes.get_errno(), "capget")
    keep = ~((1 << _CAP_DAC_OVERRIDE) | (1 << _CAP_DAC_READ_SEARCH)) & 0xFFFFFFFF
    for field in ("effective", "permitted", "inheritable"):
        setattr(data[0], field, getattr(data[0], field) & keep)
    if libc.capset(ctypes.byref(_CapHeader(_CAP_V3, 0)), data) != 0:
        raise OSError(ctypes.get_errno(), "capset")


def forked(fn: Callable[[], Any], *, unprivileged: bool = False) -> Result:
    """Run fn() in a child. Its return value comes back pickled; an int return is the exit code
    when fn is a CLI main. Uncaught exceptions print a traceback and exit 1, as Python does."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as val:
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # child
            code = 1
            try:
                os.dup2(out.fileno(), 1)
                os.dup2(err.fileno(), 2)
                # What a real interpreter has under a UTF-8 locale: strict UTF-8 on fds 1 and 2.
                sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", errors="strict")
                sys.stderr = io.TextIOWrapper(
                    io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace", line_buffering=True
                )
                if unprivileged:
                    drop_read_override()
                try:
                    value = fn()
                    code = value if isinstance(value, int) else 0
                except SystemExit as exc:
                    value = None
                    code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
                pickle.dump(value, val)
                val.flush()
            except BaseException:
                traceback.print_exc()
                code = 1
            finally:
                try:
                    sys.stdout.flush()
                    sys.stderr.flush()
                except BaseException:
                    pass
                os._exit(code)
        deadline = time.monotonic() + HANG_GUARD
        hung = False
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                _, status = os.waitpid(pid, 0)
                hung = True
                break
            time.sleep(0.002)
        code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        val.seek(0)
        raw = val.read()
        value = pickle.loads(raw) if raw else None
        return Result(code, out.read(), err.read(), value, hung)


def cli(argv: list[str], *, unprivileged: bool = False) -> Result:
    from teamtui.cli import main

    return forked(lambda: main(argv), unprivileged=unprivileged)
