"""Incremental reading of append-only line files: only complete new lines after a byte offset."""

from __future__ import annotations

import os
from pathlib import Path

from teamtui.protocol.errors import ReadError
from teamtui.protocol.record import Record

# A single line longer than this is reported and skipped, so one runaway line cannot eat memory.
MAX_LINE_BYTES = 1024 * 1024
# How much is read per call at most; the caller is told to come back for the rest.
READ_CHUNK = 4 * 1024 * 1024
# Bytes at the head of the file remembered to notice a file truncated then refilled past our offset.
_FINGERPRINT = 64


class TailBatch(Record):
    __slots__ = ("lines", "line_numbers", "reset", "missing", "overlong", "more", "error", "overlong_heads")

    def __init__(
        self,
        lines: list[bytes] | None = None,
        line_numbers: list[int] | None = None,
        reset: bool = False,
        missing: bool = False,
        overlong: list[tuple[int, int]] | None = None,
        more: bool = False,
        error: str | None = None,
    ):
        self.lines: list[bytes] = [] if lines is None else lines
        # Line numbers (1-based) of each returned line, for error reports.
        self.line_numbers: list[int] = [] if line_numbers is None else line_numbers
        # The file shrank, was replaced, or was rewritten: everything before is gone (an inbox drain).
        self.reset = reset
        self.missing = missing
        # Lines skipped for being too long: (line number, size).
        self.overlong: list[tuple[int, int]] = [] if overlong is None else overlong
        self.more = more
        self.error = error
        # The first bytes of each overlong line, by line number (a reader made with keep_head > 0).
        self.overlong_heads: dict[int, bytes] = {}

    def read_errors(self, path: Path) -> list[ReadError]:
        """What this read could not use: an unreadable file, and each overlong line it skipped."""
        errors = [ReadError(path, self.error)] if self.error else []
        errors += [ReadError(path, f"line of {size} bytes skipped (over the limit)", no) for no, size in self.overlong]
        return errors


class TailReader:
    """Remembers an offset into one file; `read()` returns the complete lines added since."""

    def __init__(
        self, path: Path, *, max_line_bytes: int = MAX_LINE_BYTES, chunk: int = READ_CHUNK, keep_head: int = 0
    ):
        self.path = Path(path)
        self.max_line_bytes = max_line_bytes
        self.chunk = chunk
        # Bytes kept of the start of an overlong line (what it was about: a 50 MB file written); 0: none.
        self.keep_head = keep_head
        self._overlong_head = b""
        self.offset = 0
        self.line_no = 0
        self._partial = b""
        self._skipping = False  # inside an overlong line, dropping bytes until its newline
        self._skipped = 0
        self._skip_silently = False  # the skipped piece is a line cut by seek_tail, not an overlong one
        self._ident: tuple[int, int] | None = None
        self._head = b""
        self.bytes_read = 0  # total bytes read from disk, for the no-rereads guard

    def _reset(self) -> None:
        self.offset = 0
        self.line_no = 0
        self._partial = b""
        self._skipping = False
        self._skip_silently = False
        self._skipped = 0
        self._head = b""
        self._overlong_head = b""

    def read(self) -> TailBatch:
        batch = TailBatch()
        try:
            fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except FileNotFoundError:
            if self._ident is not None or self.offset:
                batch.reset = True
            self._ident = None
            self._reset()
            batch.missing = True
            return batch
        except OSError as exc:
            batch.error = exc.strerror or str(exc)
            return batch
        try:
            st = os.fstat(fd)
            import stat as _stat

            if not _stat.S_ISREG(st.st_mode):
                batch.error = "is a directory, expected a file" if _stat.S_ISDIR(st.st_mode) else "not a regular file"
                return batch
            ident = (st.st_dev, st.st_ino)
            if self._ident is not None and ident != self._ident:
                batch.reset = True
                self._reset()
            elif st.st_size < self.offset:
                batch.reset = True
                self._reset()
            elif self._head and self.offset:
                head = os.pread(fd, len(self._head), 0)
                if head != self._head:
                    batch.reset = True
                    self._reset()
            self._ident = ident
            if st.st_size == self.offset:
                return batch
            want = min(st.st_size - self.offset, self.chunk)
            data = os.pread(fd, want, self.offset)
            self.bytes_read += len(data)
            if len(self._head) < _FINGERPRINT and self.offset < _FINGERPRINT:
                self._head = (self._head + data)[:_FINGERPRINT]
            self.offset += len(data)
            batch.more = self.offset < st.st_size
            self._split(data, batch)
            return batch
        except OSError as exc:
            batch.error = exc.strerror or str(exc)
            return batch
        finally:
            os.close(fd)

    def _split(self, data: bytes, batch: TailBatch) -> None:
        if self._partial or self._skipping:
            nl = data.find(b"\n")
            if nl < 0:
                self._split_lines(data, batch)
                return
            self._split_lines(data[: nl + 1], batch)  # ends the line in progress
            data = data[nl + 1 :]
        # The rest in one C-speed pass unless a line is overlong (a first load splits ~100,000 lines).
        pieces = data.split(b"\n")
        rest = pieces.pop()
        if max(map(len, pieces), default=0) > self.max_line_bytes or len(rest) > self.max_line_bytes:
            self._split_lines(data, batch)
            return
        batch.lines.extend(pieces)
        batch.line_numbers.extend(range(self.line_no + 1, self.line_no + 1 + len(pieces)))
        self.line_no += len(pieces)
        self._partial = rest

    def _split_lines(self, data: bytes, batch: TailBatch) -> None:
        start = 0
        while True:
            nl = data.find(b"\n", start)
            if nl < 0:
                rest = data[start:]
                if self._skipping:
                    self._skipped += len(rest)
                elif len(self._partial) + len(rest) > self.max_line_bytes:
                    self._skipping = True
                    self._skipped = len(self._partial) + len(rest)
                    if self.keep_head:
                        self._overlong_head = (self._partial + rest[: self.keep_head])[: self.keep_head]
                    self._partial = b""
                else:
                    self._partial += rest
                return
            piece = data[start:nl]
            self.line_no += 1
            if self._skipping:
                if not self._skip_silently:
                    batch.overlong.append((self.line_no, self._skipped + len(piece)))
                    if self._overlong_head:
                        batch.overlong_heads[self.line_no] = self._overlong_head
                self._overlong_head = b""
                self._skipping = False
                self._skip_silently = False
                self._skipped = 0
            else:
                line = self._partial + piece if self._partial else piece
                self._partial = b""
                if len(line) > self.max_line_bytes:
                    batch.overlong.append((self.line_no, len(line)))
                    if self.keep_head:
                        batch.overlong_heads[self.line_no] = line[: self.keep_head]
                else:
                    batch.lines.append(line)
                    batch.line_numbers.append(self.line_no)
            start = nl + 1

    def seek_tail(self, max_bytes: int) -> None:
        """Start reading near the end of a large file (the last `max_bytes`), from a line boundary."""
        try:
            # Non-blocking: a FIFO or device in place of a log must not hang the first load.
            fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except OSError:
            return
        try:
            with os.fdopen(fd, "rb") as fh:
                st = os.fstat(fh.fileno())
                import stat as _stat

                if not _stat.S_ISREG(st.st_mode):
                    return  # read() reports it
                self._ident = (st.st_dev, st.st_ino)
                self._head = fh.read(_FINGERPRINT)
                if st.st_size <= max_bytes:
                    self._head = b""
                    return
                offset = st.st_size - max_bytes
                # Where does the line we cut into start? No newline within max_line_bytes before the
                # cut means that line is overlong: report it rather than drop it silently.
                window = max(0, offset - self.max_line_bytes)
                before = os.pread(fh.fileno(), offset - window, window)
                if b"\n" not in before and window == 0:
                    self._head = b""
                    return  # the file holds less than one full line before the cut: read it all
                self.offset = offset
                self._skipping = True  # the first piece is the end of a line we did not read
                self._skip_silently = b"\n" in before
                self._skipped = 0 if self._skip_silently else offset - window
        except OSError:
            return

    def read_all(self) -> TailBatch:
        """Read until caught up (several chunks), merged into one batch."""
        merged = self.read()
        while merged.more and merged.error is None:
            nxt = self.read()
            if nxt.reset:
                merged = nxt
            else:
                merged.lines.extend(nxt.lines)
                merged.line_numbers.extend(nxt.line_numbers)
                merged.overlong.extend(nxt.overlong)
                merged.overlong_heads.update(nxt.overlong_heads)
                merged.error = nxt.error
            merged.more = nxt.more
        return merged
