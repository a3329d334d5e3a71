"""Small file helpers: atomic JSON writes, bounded reads, and staying inside the team's directories."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

from teamtui.protocol.errors import FolderGoneError, ProtocolError, ReadError, WriteError

TYPE_CHECKING = False  # not typing's: importing typing costs every CLI call ~2 ms
if TYPE_CHECKING:
    from typing import Any

# A config or task file larger than this is refused rather than loaded into memory.
MAX_JSON_FILE_BYTES = 16 * 1024 * 1024


def dump_json(obj: object, indent: int | None = 2) -> str:
    return json.dumps(obj, indent=indent, ensure_ascii=False)


def write_atomic(path: Path, text: str) -> None:
    """Write through a temp file + rename so no reader ever sees half a file."""
    # The temp name starts with "." so globs like task_*.json never match it.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def write_json_atomic(path: Path, obj: object, indent: int | None = 2) -> None:
    write_atomic(path, dump_json(obj, indent) + "\n")


def read_bytes_bounded(path: Path, limit: int = MAX_JSON_FILE_BYTES) -> bytes | ReadError:
    """Read a whole regular file, or say why not (missing, not a file, too large, no permission)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return ReadError(path, "file not found")
    except IsADirectoryError:
        return ReadError(path, "is a directory, expected a file")
    except PermissionError:
        return ReadError(path, "permission denied")
    except OSError as exc:
        return ReadError(path, f"cannot open: {exc.strerror or exc}")
    try:
        st = os.fstat(fd)
        import stat as _stat

        if _stat.S_ISDIR(st.st_mode):
            return ReadError(path, "is a directory, expected a file")
        if not _stat.S_ISREG(st.st_mode):
            return ReadError(path, "not a regular file")
        if st.st_size > limit:
            return ReadError(path, f"file is {st.st_size} bytes, larger than the {limit} byte limit")
        chunks = []
        remaining = limit + 1
        while remaining > 0:
            chunk = os.read(fd, min(1 << 20, remaining))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        data = b"".join(chunks)
        if len(data) > limit:
            return ReadError(path, f"file is larger than the {limit} byte limit")
        return data
    except OSError as exc:
        return ReadError(path, f"cannot read: {exc.strerror or exc}")
    finally:
        os.close(fd)


def load_json_file(path: Path, limit: int = MAX_JSON_FILE_BYTES) -> Any | ReadError:
    """Parse a JSON file, or return a ReadError saying why it could not be read."""
    data = read_bytes_bounded(path, limit)
    if isinstance(data, ReadError):
        return data
    return parse_json_bytes(path, data)


def parse_json_bytes(path: Path, data: bytes, line: int | None = None) -> object | ReadError:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return ReadError(path, f"invalid UTF-8 at byte {exc.start}", line)
    if not text.strip():
        return ReadError(path, "empty file" if line is None else "empty line", line)
    if "\x00" in text:
        return ReadError(path, "contains NUL bytes", line)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        return ReadError(path, f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}", line)
    except (RecursionError, ValueError) as exc:
        # Deep nesting and huge integers land here.
        return ReadError(path, f"invalid JSON: {type(exc).__name__}: {str(exc)[:80]}", line)


def open_regular(path: Path, flags: int, mode: int = 0o644) -> int:
    """os.open that never blocks on a FIFO or device, never follows a symlink, and refuses non-regular files."""
    import stat as _stat

    fd = os.open(path, flags | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0), mode)
    try:
        st = os.fstat(fd)
        if not _stat.S_ISREG(st.st_mode):
            raise ProtocolError(f"refusing {path}: not a regular file")
    except BaseException:
        os.close(fd)
        raise
    return fd


def append_bytes(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Append to the end of a regular file (created if missing), whole or not at all: a short write
    is completed, a failed one is cut back off (WriteError), so no reader ever sees half of it."""
    try:
        fd = open_regular(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, mode)
        readable = True
    except PermissionError:  # a file we may write but not read: no look at its last byte
        fd = open_regular(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, mode)
        readable = False
    try:
        if readable and data.endswith(b"\n"):
            end = os.fstat(fd).st_size
            # Someone's torn write left the file without its final newline: ours starts a fresh line
            # rather than gluing onto the torn one.
            if end and os.pread(fd, 1, end - 1) != b"\n":
                data = b"\n" + data
        write_whole(fd, path, data)
    finally:
        os.close(fd)


def write_whole(fd: int, path: Path, data: bytes) -> None:
    """Write all of `data` at fd's end (O_APPEND), however many write() calls it takes; if one fails
    (a full disk), cut the file back to where this began and raise WriteError."""
    view = memoryview(data)
    start: int | None = None
    done = 0
    try:
        while done < len(data):
            n = os.write(fd, view[done:])
            if n <= 0:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            if start is None:
                start = os.lseek(fd, 0, os.SEEK_CUR) - n  # where O_APPEND put the first piece
            done += n
    except OSError as exc:
        if start is not None and os.fstat(fd).st_size == start + done:  # nobody appended since
            os.ftruncate(fd, start)
        raise WriteError(exc.errno or errno.EIO, exc.strerror or str(exc), str(path)) from exc


# A line that does not parse is searched at most this many braces back from its end for a whole
# object glued onto a torn write: bounded work on a hostile line.
_GLUE_TRIES = 256


def split_glued(line: bytes, keys: tuple[str, ...]) -> tuple[bytes, bytes] | None:
    """A line that did not parse may be a torn write with the next line glued on
    (`{"type":"mes{"type":"message",...}`): its torn head and the whole object that ends it, or None.

    The object is the shortest one that reaches the line's end and carries one of `keys` (what
    every line of the file carries), so a torn line cut right after a nested object is no find."""
    text = line.decode("utf-8", "surrogateescape")  # one char per bad byte: re-encodes to the same bytes
    end = len(text.rstrip())
    decoder = json.JSONDecoder()
    at = end
    for _ in range(_GLUE_TRIES):
        at = text.rfind("{", 1, at)
        if at < 0:
            return None
        try:
            obj, stop = decoder.raw_decode(text, at)
        except (ValueError, RecursionError):
            continue
        if stop == end and isinstance(obj, dict) and any(k in obj for k in keys):
            return text[:at].encode("utf-8", "surrogateescape"), text[at:].encode("utf-8", "surrogateescape")
    return None


def parse_json_line(path: Path, line: bytes, no: int | None, keys: tuple[str, ...]) -> list[object]:
    """One line of a JSON-lines file: [value], or [ReadError] for a bad line, or, for a torn write
    with a whole line glued on, [ReadError for the torn head, the glued line's value]."""
    value = parse_json_bytes(path, line, no)
    if not isinstance(value, ReadError):
        return [value]
    glued = split_glued(line, keys)
    if glued is None:
        return [value]
    head, tail = glued
    torn = ReadError(path, f"a line cut short ({len(head)} bytes, a torn write) skipped; the line after it kept", no)
    return [torn, parse_json_bytes(path, tail, no)]


def ensure_inside(path: Path, root: Path) -> Path:
    """Refuse a path that resolves (through symlinks) outside `root`."""
    real_root = root.resolve()
    real = path.resolve()
    if real != real_root and real_root not in real.parents:
        raise ProtocolError(f"refusing to write {path}: it resolves to {real}, outside {real_root}")
    return path


def folder_problem(path: Path) -> str:
    """Why `path` cannot be a folder to read teams from, in a person's words; "" when it can."""
    if path.is_dir():
        return ""
    if path.exists():
        return f"{path} is a file, not a folder"
    return f"no such folder: {path}"


def ensure_dir(path: Path, root: Path, within: Path | None = None) -> Path:
    """Create a directory inside `root` (never following a symlink out of it), below `within` (a
    team's folder; default `root`), which is never made itself: once it is removed (a team that
    ended, a demo's temp folder) a late write fails with FolderGoneError instead of bringing it back."""
    base = root if within is None else within
    ensure_inside(path, root)
    try:
        below = path.relative_to(base).parts
    except ValueError:
        raise ProtocolError(f"refusing to make {path}: it is not inside {base}") from None
    current = base
    if not base.is_dir():
        raise FolderGoneError(f"refusing to write in {base}: it is gone")
    for part in below:  # one level at a time: a folder removed meanwhile is not made again either
        current = current / part
        try:
            current.mkdir()
        except FileExistsError:
            pass
        except FileNotFoundError:
            raise FolderGoneError(f"refusing to write in {base}: it is gone") from None
    ensure_inside(path, root)
    return path
