"""The stream on stdout and its requests from stdin: `teamtui stream` under ssh (the Streamer of
session/stream_server.py writes through a sink; session/nats_publish.py NatsSink is the other)."""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import asyncio
    from collections.abc import Callable
    from typing import Any, Protocol

    class Streamer(Protocol):  # session/stream_server.py's, as a sink sees it
        def request(self, raw: bytes) -> None: ...


class PipeSink:
    """The stream on stdout and its requests from stdin (`teamtui stream` under ssh)."""

    via = "ssh"

    def __init__(self, stdin: Any = None, stdout: Any = None):
        self.stdin, self.stdout = stdin, stdout
        self.write: Callable[[bytes], object] = sys.stdout.buffer.write
        self._drain: Callable[[], Any] | None = None
        self.reader: asyncio.StreamReader | None = None

    async def open(self, streamer: Streamer) -> None:
        """stdin and stdout as the loop's pipes (writes wait for the reader: backpressure, not a
        blocked loop); a regular file, as a plain file."""
        import asyncio

        from teamtui.protocol.stream import MAX_REQUEST

        stdin, stdout = self.stdin or sys.stdin, self.stdout or sys.stdout
        loop = asyncio.get_running_loop()
        self.reader = None
        if stdin is not None and _pollable(stdin):  # else read in a thread (serve): a file, /dev/null
            reader = asyncio.StreamReader(limit=MAX_REQUEST * 2)
            try:
                await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stdin)
                self.reader = reader
            except (ValueError, OSError):
                pass
        try:
            transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, stdout)
        except (ValueError, OSError):
            out: Any = stdout.buffer if hasattr(stdout, "buffer") else stdout
            self.write = out.write
            self._drain = None
            return
        writer = asyncio.StreamWriter(transport, protocol, None, loop)
        self.write = writer.write
        self._drain = writer.drain

    def put(self, obj: dict[str, object], data: bytes) -> None:
        self.write(data)

    async def flush(self) -> None:
        if self._drain is not None:
            await self._drain()
        else:
            sys.stdout.buffer.flush()

    async def close(self) -> None:
        return None

    async def serve(self, streamer: Streamer) -> None:
        """Requests, one JSON line each, until stdin closes."""
        from teamtui.protocol.stream import MAX_REQUEST, LineSplitter

        splitter = LineSplitter(MAX_REQUEST)
        while data := await self._read():
            for raw in splitter.feed(data):
                streamer.request(raw)
            await self.flush()

    async def _read(self) -> bytes:
        """The next piece of stdin; b"" once it is closed, and for a stdin that cannot be read
        (none, nohup's write-only /dev/null, a folder): no request can come from it."""
        import asyncio

        try:
            if self.reader is not None:
                return await self.reader.read(1 << 16)
            stdin = self.stdin or sys.stdin
            if stdin is None:
                return b""
            source = stdin.buffer if hasattr(stdin, "buffer") else stdin
            # A plain file, in a thread; a piece at a time, as from the pipe.
            return await asyncio.to_thread(source.read1 if hasattr(source, "read1") else source.read, 1 << 16)
        except (OSError, ValueError):
            return b""


def _pollable(stdin: Any) -> bool:
    """Whether the loop's selector takes `stdin`: epoll refuses /dev/null and regular files (EPERM),
    and asyncio's pipe reader would say so only in a traceback, after it was made."""
    import selectors

    try:
        fd = stdin.fileno()
    except (OSError, ValueError, AttributeError):
        return False
    with selectors.DefaultSelector() as selector:
        try:
            selector.register(fd, selectors.EVENT_READ)
        except (OSError, ValueError):
            return False
    return True
