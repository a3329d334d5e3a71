"""Profiling a repository before forming a team, as Autohand's ProjectProfiler does: languages
from manifest files, frameworks from package.json, docs/tests/CI folders, and TODO-style
markers in at most 200 tracked source files (`git ls-files`)."""

from __future__ import annotations

import io
import json
import os
import re
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

MAX_SCANNED_FILES = 200
MAX_LOCATIONS = 10
MAX_FILE_BYTES = 1 << 20  # of each scanned file, only this much is read
MAX_MANIFEST_BYTES = 1 << 20

MANIFESTS: tuple[tuple[str, str], ...] = (
    ("package.json", "TypeScript"),
    ("tsconfig.json", "TypeScript"),
    ("Cargo.toml", "Rust"),
    ("go.mod", "Go"),
    ("pyproject.toml", "Python"),
    ("requirements.txt", "Python"),
    ("Gemfile", "Ruby"),
    ("pom.xml", "Java"),
    ("build.gradle", "Java"),
)
FRAMEWORKS: tuple[tuple[str, str], ...] = (
    ("react", "React"),
    ("vue", "Vue"),
    ("@angular/core", "Angular"),
    ("express", "Express"),
    ("fastify", "Fastify"),
    ("next", "Next"),
    ("ink", "Ink"),
    ("commander", "Commander"),
    ("vitest", "Vitest"),
    ("jest", "Jest"),
)
DOCS_DIRS = ("docs",)
TEST_DIRS = ("tests", "test", "__tests__")
CI_PATHS = (".github/workflows", ".circleci", ".gitlab-ci.yml")
SOURCE_SUFFIXES = (".ts", ".tsx", ".js", ".jsx", ".py", ".rs", ".go")
MARKER = re.compile(rb"\b(TODO|FIXME|HACK|XXX)\b")


@dataclass(frozen=True, slots=True)
class Signal:
    kind: str  # todo, missing-docs, missing-tests
    severity: str  # low, medium, high
    count: int = 0
    locations: tuple[str, ...] = ()  # "path:line", at most MAX_LOCATIONS


@dataclass(slots=True)
class Profile:
    root: Path
    languages: list[str] = field(default_factory=list)
    frameworks: list[str] = field(default_factory=list)
    docs: bool = False
    test_dirs: list[str] = field(default_factory=list)
    ci: list[str] = field(default_factory=list)
    git: bool = False
    files_scanned: int = 0
    markers: dict[str, int] = field(default_factory=dict)  # TODO/FIXME/HACK/XXX → count
    signals: list[Signal] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what could not be read, and why

    @property
    def todo(self) -> Signal | None:
        return next((s for s in self.signals if s.kind == "todo"), None)

    def as_dict(self) -> dict[str, object]:
        return {
            "root": str(self.root),
            "languages": self.languages,
            "frameworks": self.frameworks,
            "docs": self.docs,
            "test_dirs": self.test_dirs,
            "ci": self.ci,
            "git": self.git,
            "files_scanned": self.files_scanned,
            "markers": self.markers,
            "signals": [
                {"kind": s.kind, "severity": s.severity, "count": s.count, "locations": list(s.locations)}
                for s in self.signals
            ],
            "notes": self.notes,
        }


def todo_severity(count: int) -> str:
    return "low" if count <= 5 else "medium" if count <= 20 else "high"


def profile_repository(root: Path) -> Profile:
    root = Path(root).resolve()
    p = Profile(root)
    for name, language in MANIFESTS:
        if _is_file(root / name) and language not in p.languages:
            p.languages.append(language)
    if _is_file(root / "package.json"):
        p.frameworks = _frameworks(root / "package.json", p.notes)
    p.docs = any(_is_dir(root / d) for d in DOCS_DIRS)
    p.test_dirs = [d for d in TEST_DIRS if _is_dir(root / d)]
    p.ci = [c for c in CI_PATHS if (root / c).exists() and not (root / c).is_symlink()]
    files = _tracked_sources(root, p)
    if files is not None:
        _scan(root, files, p)
    if not p.docs:
        p.signals.append(Signal("missing-docs", "medium"))
    if not p.test_dirs:
        p.signals.append(Signal("missing-tests", "medium"))
    return p


def _is_file(path: Path) -> bool:
    return path.is_file() and not path.is_symlink()


def _is_dir(path: Path) -> bool:
    return path.is_dir() and not path.is_symlink()


def _frameworks(path: Path, notes: list[str]) -> list[str]:
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_MANIFEST_BYTES + 1)
        if len(data) > MAX_MANIFEST_BYTES:
            notes.append(f"package.json is over {MAX_MANIFEST_BYTES} bytes: frameworks not read")
            return []
        manifest = json.loads(data)
    except (OSError, ValueError, RecursionError) as exc:
        notes.append(f"package.json could not be read: {exc}")
        return []
    deps: set[str] = set()
    if isinstance(manifest, dict):
        for key in ("dependencies", "devDependencies"):
            section = manifest.get(key)
            if isinstance(section, dict):
                deps.update(k for k in section if isinstance(k, str))
    return [label for dep, label in FRAMEWORKS if dep in deps]


def _tracked_sources(root: Path, p: Profile) -> list[str] | None:
    """The first MAX_SCANNED_FILES tracked source files, read from `git ls-files` as it streams."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    try:
        proc = subprocess.Popen(
            ["git", "ls-files", "-z", "--", *(f"*{s}" for s in SOURCE_SUFFIXES)],
            cwd=str(root),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
    except OSError:
        p.notes.append("git is not installed: no TODO scan")
        return None
    # A pipe opened in binary with the default buffering: a BufferedReader, whose read1 takes what is there.
    assert isinstance(proc.stdout, io.BufferedReader)
    found: list[str] = []
    pending = b""
    try:
        while len(found) < MAX_SCANNED_FILES:
            chunk = proc.stdout.read1(65536)
            if not chunk:
                break
            parts = (pending + chunk).split(b"\0")
            pending = parts.pop()
            found.extend(os.fsdecode(x) for x in parts if x)
    finally:
        proc.stdout.close()
        if len(found) >= MAX_SCANNED_FILES:
            proc.kill()  # the rest of a huge listing is not needed
        code = proc.wait()
    if code != 0 and len(found) < MAX_SCANNED_FILES:
        p.notes.append("not a git repository: no TODO scan (it reads tracked files only)")
        return None
    p.git = True
    return found[:MAX_SCANNED_FILES]


def _scan(root: Path, files: list[str], p: Profile) -> None:
    counts = {m: 0 for m in ("TODO", "FIXME", "HACK", "XXX")}
    locations: list[str] = []
    for rel in files:
        data = _read_tracked(root, rel)
        if data is None:
            continue
        p.files_scanned += 1
        for no, line in enumerate(data.split(b"\n"), 1):
            hits = MARKER.findall(line)
            if not hits:
                continue
            for h in hits:
                counts[h.decode()] += 1
            if len(locations) < MAX_LOCATIONS:
                locations.append(f"{rel}:{no}")
    p.markers = counts
    total = sum(counts.values())
    if total:
        p.signals.append(Signal("todo", todo_severity(total), total, tuple(locations)))


def _read_tracked(root: Path, rel: str) -> bytes | None:
    """A tracked file's first MAX_FILE_BYTES, never through a symlink (it could point anywhere)."""
    path = root / rel
    if root not in path.resolve().parents:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None  # a FIFO or device would block or never end
        return os.read(fd, MAX_FILE_BYTES)
    except OSError:
        return None
    finally:
        os.close(fd)


__all__ = ["MAX_SCANNED_FILES", "Profile", "Signal", "profile_repository", "todo_severity"]
