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
        self.write: Callable[[bytes], Any] = sys.stdout.buffer.write
        self._drain: Callable[[], Any] | None = None
        self.reader: asyncio.StreamReader | None = None

    async def open(self, streamer: Streamer) -> None:
        """stdin and stdout as the loop's pipes (writes wait for the reader: backpressure, not a
        blocked loop); a regular file, as a plain file."""
        import asyncio

        from teamtui.protocol.stream import MAX_REQUEST

        stdin, stdout = self.stdin or sys.stdin, self.stdout or sys.stdout
        loop = asyncio.get_running_loop()
        reader = self.reader = asyncio.StreamReader(limit=MAX_REQUEST * 2)
        try:
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stdin)
        except (ValueError, OSError):
            self.reader = None
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

    def put(self, obj: dict[str, Any], data: bytes) -> None:
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
        import asyncio

        from teamtui.protocol.stream import MAX_REQUEST, LineSplitter

        if self.reader is None:  # stdin is a regular file: read it in a thread
            data = await asyncio.to_thread((self.stdin or sys.stdin).buffer.read)
            chunks: list[bytes] | None = [data]
        else:
            chunks = None
        splitter = LineSplitter(MAX_REQUEST)
        while True:
            if chunks is not None:
                if not chunks:
                    return
                data = chunks.pop()
            else:
                assert self.reader is not None
                data = await self.reader.read(1 << 16)
            if not data:
                return
            for raw in splitter.feed(data):
                streamer.request(raw)
            await self.flush()
