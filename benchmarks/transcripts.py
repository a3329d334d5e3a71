"""Realistic Claude Code transcripts for the benchmarks, and a small timing of reading them.

`write_transcript(path, size)` writes a session file shaped like Claude Code 2.1.328's (the
fixtures in tests/fixtures/examples/claude-2.1.328): per turn a prompt or teammate message, attachments,
a large prompt snapshot and API request lines, assistant lines (text, tool calls with usage,
one line per content block of a message), tool results of a few KB (file reads, command output),
and a turn-duration line. `make bench` can build its "10 teammates with 10 MB of transcript
each" rows on it.

    python benchmarks/transcripts.py [--mb 10] [--teammates 10] [--reps 5]

prints how long a first read (tokens over the whole file, the window rendered) and a new line
(append, read, render) take.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from teamtui.protocol.claude.transcripts import TranscriptReader

WORDS = (
    "auth token session refresh parser module test fixture handler request response config "
    "schema migrate cache index query user account error retry timeout lock inbox task board"
).split()
FILES = [
    f"src/{a}/{b}.py" for a in ("auth", "api", "db", "core", "cli") for b in ("models", "views", "utils", "handlers")
]
COMMANDS = [
    "pytest -q",
    "pytest -q tests/test_auth.py -x",
    "ruff check src",
    "git status",
    "git diff --stat",
    "make lint",
    "ls -la src",
]


def _dump(rec: dict) -> bytes:
    return json.dumps(rec, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"


def _prose(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _code(rng: random.Random, lines: int) -> str:
    return "\n".join(
        f"{i:>4}\tdef {rng.choice(WORDS)}_{i}(self, {rng.choice(WORDS)}):  # {_prose(rng, 6)}"
        for i in range(1, lines + 1)
    )


class TranscriptWriter:
    """Yields the lines of one session, turn after turn, with consistent ids and growing times."""

    def __init__(self, *, seed: int = 0, team: str | None = None, agent: str | None = None, start: float | None = None):
        self.rng = random.Random(seed)
        self.session = f"{seed:08x}-bench-4000-8000-{seed:012x}"
        self.team, self.agent = team, agent
        self.t = start if start is not None else time.time() - 2 * 86400
        self.msg = 0
        self.tool = 0
        self.context = 12_000

    def _base(self, kind: str, **rec) -> dict:
        self.t += self.rng.uniform(0.05, 2.0)
        out = {"parentUuid": None, "isSidechain": False}
        if self.team:
            out.update(teamName=self.team, agentName=self.agent)
        out.update(type=kind, **rec)
        out.update(
            uuid=f"u-{self.msg}-{self.tool}-{self.rng.getrandbits(32):08x}",
            timestamp=_iso(self.t),
            userType="external",
            entrypoint="cli",
            cwd="/src/app",
            sessionId=self.session,
            version="2.1.328",
            gitBranch="main",
        )
        return out

    def _assistant(self, content: list, stop: str) -> list[bytes]:
        self.msg += 1
        out_tokens = self.rng.randint(20, 900)
        usage = {
            "input_tokens": self.rng.randint(1, 8),
            "cache_creation_input_tokens": self.rng.randint(0, 3000),
            "cache_read_input_tokens": self.context,
            "output_tokens": out_tokens,
            "service_tier": "standard",
        }
        self.context += self.rng.randint(200, 4000)
        lines = []
        for block in content:  # Claude Code writes one line per content block, repeating the message's usage
            msg = {
                "id": f"msg_{self.session[:8]}_{self.msg}",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [block],
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": usage,
            }
            lines.append(_dump(self._base("assistant", message=msg, requestRef=f"req-{self.msg}")))
        return lines

    def _tool_call(self) -> tuple[dict, str]:
        rng = self.rng
        self.tool += 1
        tid = f"toolu_{self.session[:8]}_{self.tool}"
        kind = rng.choices(["Read", "Bash", "Edit", "Grep", "Write"], weights=[4, 4, 3, 2, 1])[0]
        path = rng.choice(FILES)
        if kind == "Read":
            return {"type": "tool_use", "id": tid, "name": kind, "input": {"file_path": path}}, _code(
                rng, rng.randint(40, 250)
            )
        if kind == "Bash":
            cmd = rng.choice(COMMANDS)
            return {
                "type": "tool_use",
                "id": tid,
                "name": kind,
                "input": {"command": cmd, "description": _prose(rng, 5)},
            }, "\n".join(
                f"tests/test_{rng.choice(WORDS)}.py::test_{rng.choice(WORDS)} PASSED" for _ in range(rng.randint(5, 60))
            )
        if kind == "Edit":
            return {
                "type": "tool_use",
                "id": tid,
                "name": kind,
                "input": {
                    "file_path": path,
                    "old_string": _code(rng, rng.randint(2, 20)),
                    "new_string": _code(rng, rng.randint(2, 25)),
                },
            }, f"The file {path} has been updated."
        if kind == "Grep":
            return {
                "type": "tool_use",
                "id": tid,
                "name": kind,
                "input": {"pattern": rng.choice(WORDS), "path": "src"},
            }, "\n".join(rng.sample(FILES, 6))
        return {
            "type": "tool_use",
            "id": tid,
            "name": kind,
            "input": {"file_path": path, "content": _code(rng, rng.randint(30, 120))},
        }, f"File created successfully at: {path}"

    def turn(self) -> Iterator[bytes]:
        rng = self.rng
        who = rng.choice(["team-lead", "alice", "bob"])
        yield _dump(
            self._base(
                "user",
                message={
                    "role": "user",
                    "content": f'<teammate-message teammate_id="{who}">\n{_prose(rng, 30)}\n</teammate-message>',
                },
            )
        )
        for kind in ("session_context", "date"):
            yield _dump(self._base("attachment", attachment={"type": kind, "context": {}}))
        yield _dump(
            self._base(
                "attachment",
                attachment={"type": "prompt_snapshot", "systemPrompt": [_prose(rng, 400) for _ in range(8)]},
            )
        )
        for _ in range(rng.randint(1, 6)):  # model calls in this turn
            yield _dump(
                {
                    "type": "api-request",
                    "sessionId": self.session,
                    "id": f"req-{self.msg}",
                    "timestamp": _iso(self.t),
                    "params": {"model": "claude-sonnet-4-5", "max_tokens": 32000},
                    "tail": [f"{rng.getrandbits(128):032x}" for _ in range(3)],
                }
            )
            calls = [self._tool_call() for _ in range(rng.choice([1, 1, 1, 2, 3]))]
            yield from self._assistant(
                [{"type": "text", "text": _prose(rng, rng.randint(10, 60))}] + [c for c, _ in calls], "tool_use"
            )
            for call, result in calls:
                ok = rng.random() > 0.05
                block = {
                    "type": "tool_result",
                    "tool_use_id": call["id"],
                    "content": result if ok else f"<tool_use_error>{_prose(rng, 8)}</tool_use_error>",
                }
                if not ok:
                    block["is_error"] = True
                yield _dump(
                    self._base(
                        "user", message={"role": "user", "content": [block]}, toolUseResult={"stdout": result[:200]}
                    )
                )
        yield from self._assistant([{"type": "text", "text": _prose(rng, rng.randint(20, 80))}], "end_turn")
        if self.context > 150_000:  # auto-compaction, as Claude Code does near the window
            yield _dump(
                self._base(
                    "system",
                    subtype="compact_boundary",
                    content="Conversation compacted",
                    compactMetadata={"trigger": "auto", "preTokens": self.context},
                )
            )
            self.context = rng.randint(15_000, 30_000)
        yield _dump(self._base("system", subtype="turn_duration", durationMs=rng.randint(2000, 90000), isMeta=False))
        yield _dump({"type": "last-prompt", "leafUuid": f"leaf-{self.msg}", "sessionId": self.session})

    def tool_line(self) -> bytes:
        """One new assistant line with a tool call: what a working teammate appends next."""
        call, _ = self._tool_call()
        return self._assistant([call], "tool_use")[0]


def write_transcript(
    path: Path, size: int, *, seed: int = 0, team: str | None = None, agent: str | None = None
) -> TranscriptWriter:
    """Write a session file of about `size` bytes (whole turns); returns the writer to append more."""
    writer = TranscriptWriter(seed=seed, team=team, agent=agent)
    written = 0
    with open(path, "wb") as fh:
        fh.write(_dump({"type": "mode", "mode": "normal", "sessionId": writer.session}))
        while written < size:
            for line in writer.turn():
                fh.write(line)
                written += len(line)
    return writer


def _ms(xs: list[float]) -> str:
    return f"median {statistics.median(xs) * 1000:.1f} ms, max {max(xs) * 1000:.1f} ms"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=10.0)
    ap.add_argument("--teammates", type=int, default=10)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    size = int(args.mb * 1024 * 1024)
    with tempfile.TemporaryDirectory() as tmp:
        paths, writers = [], []
        t0 = time.perf_counter()
        for i in range(args.teammates):
            p = Path(tmp) / f"mate{i}.jsonl"
            writers.append(write_transcript(p, size, seed=i, team="session-bench", agent=f"mate{i}"))
            paths.append(p)
        print(
            f"wrote {args.teammates} transcripts of {paths[0].stat().st_size / 1e6:.1f} MB in {time.perf_counter() - t0:.1f} s"
        )

        first = []
        for _ in range(args.reps):
            t = time.perf_counter()
            reader = TranscriptReader(paths[0])
            update = reader.read()
            first.append(time.perf_counter() - t)
        print(
            f"first read of one transcript (tokens over all of it, {len(update.entries)} entries in the window): {_ms(first)}"
        )
        s = reader.stats
        print(
            f"  tokens in/out/cache-create/cache-read {s.tokens.input}/{s.tokens.output}/{s.tokens.cache_creation}/{s.tokens.cache_read}, "
            f"context {s.context_tokens} (share {s.context_share} of {s.context_window}), activity {s.activity.label()!r}"
        )

        team = []
        for _ in range(max(1, args.reps // 2)):
            t = time.perf_counter()
            readers = [TranscriptReader(p) for p in paths]
            for r in readers:
                r.read()
            team.append(time.perf_counter() - t)
        print(f"first read of all {args.teammates} transcripts: {_ms(team)}")

        new = []
        for i in range(50):
            line = writers[0].tool_line()
            with open(paths[0], "ab") as fh:
                fh.write(line)
            t = time.perf_counter()
            got = reader.read()
            new.append(time.perf_counter() - t)
            assert len(got.entries) == 1, got
        print(f"a new line (read from the offset, rendered, stats folded): {_ms(new)}")


if __name__ == "__main__":
    main()
