"""12. A team on another machine: a change there → the state here, over ssh, beside the same change here.

A real OpenSSH server on 127.0.0.1 (its own sshd_config, throwaway keys: the sshd the tests use)
serves a second HOME holding a native team of `--members` teammates; `RemoteHost` follows it
over `ssh -T ... teamtui stream` (session/remote.py). Beside it, in the same process and loop, a
`FleetSession` follows an identical team in a folder of this machine. Each round rewrites one
task's subject (`NativeTeam.update_task`, the lock and the atomic rename a teammate's write takes)
in the remote team, then in the local one, and measures from just before the write until the
feed's batch holding it was applied to the TeamState (`StreamedTeam` filled from the stream; the
local one re-read from the file). A change not seen within 5 s is missed. 20–80 ms between rounds.

The remote path is: the remote's watcher → its FleetSession → a `tasks` line → sshd → ssh →
the local reader → StreamedTeam. The difference between the two is what the stream and ssh add.

`python benchmarks/ssh_bench.py --n 100 --members 5` prints one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import os
import random
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from teamtui.protocol.native import NativeTeam  # noqa: E402
from teamtui.protocol.settings import HostSettings, Settings  # noqa: E402
from teamtui.session.local import LocalSource  # noqa: E402
from teamtui.session.remote import RemoteHost  # noqa: E402

TEAM = "bench-team"
MISS_S = 5.0


def pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    if not s:
        return float("nan")
    return s[max(0, min(len(s) - 1, int(round(p / 100 * len(s) + 0.5)) - 1))]


def keygen(path: Path) -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True)


def start_sshd(d: Path) -> tuple[subprocess.Popen, int]:
    sshd = shutil.which("sshd") or "/usr/sbin/sshd"
    if not os.path.exists(sshd):
        raise SystemExit("sshd is not installed (apt-get install openssh-server)")
    keygen(d / "host_key")
    keygen(d / "user_key")
    shutil.copy(d / "user_key.pub", d / "authorized_keys")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    (d / "sshd_config").write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {d / 'host_key'}\nPidFile {d / 'sshd.pid'}\n"
        f"AuthorizedKeysFile {d / 'authorized_keys'}\nStrictModes no\nUsePAM no\nPasswordAuthentication no\n"
        f"KbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\nAllowUsers {getpass.getuser()}\n"
        "PrintMotd no\nLogLevel ERROR\n"
    )
    if os.geteuid() == 0:
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
    proc = subprocess.Popen(
        [sshd, "-D", "-e", "-f", str(d / "sshd_config")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return proc, port
        except OSError:
            if time.monotonic() > deadline:
                proc.kill()
                raise SystemExit("sshd did not start") from None
            time.sleep(0.05)


def make_team(root: Path, members: int) -> NativeTeam:
    team = NativeTeam(root, TEAM)
    team.create(description="bench")
    for i in range(members):
        team.add_member(f"mate{i}")
    for i in range(20):
        team.create_task(f"task {i}")
    return team


async def measure(args: argparse.Namespace, tmp: Path, port: int) -> dict:
    home = tmp / "remote-home"
    remote_root, local_root = home / "proj", tmp / "local"
    remote_team, local_team = make_team(remote_root, args.members), make_team(local_root, args.members)
    env = {
        "HOME": home,
        "CLAUDE_CONFIG_DIR": home / "claude",
        "XDG_CONFIG_HOME": home / ".config",
        "XDG_STATE_HOME": home / ".state",
    }
    command = (
        "env "
        + " ".join(f"{k}={shlex.quote(str(v))}" for k, v in env.items())
        + f" {shlex.quote(sys.executable)} -m teamtui"
    )
    options = [
        "-F",
        "/dev/null",
        "-o",
        "StrictHostKeyChecking=no",
        "-o",
        f"UserKnownHostsFile={tmp / 'known_hosts'}",
        "-o",
        "IdentitiesOnly=yes",
        "-o",
        "LogLevel=ERROR",
        "-i",
        str(tmp / "user_key"),
        "-p",
        str(port),
    ]
    host = RemoteHost(HostSettings("box", f"{getpass.getuser()}@127.0.0.1", options, [str(remote_root)], command))
    empty = tmp / "empty"
    empty.mkdir()
    fleet = LocalSource(
        Settings(), roots=[local_root], cwd=empty, claude_root=empty, registry=empty / "runs", journal=empty / "journal"
    )
    fleet.discover()
    local_key = next(k for k in fleet.sessions if k[2] == TEAM)
    remote_key = ("ssh:box", os.path.realpath(remote_root), TEAM)
    stop = asyncio.Event()
    waiting: dict[str, tuple[str, float, asyncio.Future]] = {}  # side -> (token, t0, done)

    def check(side: str, subject: str | None) -> None:
        found = waiting.get(side)
        if found is not None and subject == found[0] and not found[2].done():
            found[2].set_result(time.perf_counter() - found[1])

    async def follow_remote() -> None:
        async for _batch in host.follow(stop):
            session = host.sessions.get(remote_key)
            task = session.state.tasks.get("1") if session is not None else None
            check("ssh", task.subject if task is not None else None)

    async def follow_local() -> None:
        async for _batch in fleet.follow(stop):
            task = fleet.sessions[local_key].state.tasks.get("1")
            check("local", task.subject if task is not None else None)

    feeds = [asyncio.ensure_future(follow_remote()), asyncio.ensure_future(follow_local())]
    end = time.monotonic() + 30
    while not host.connected:
        if time.monotonic() > end:
            raise SystemExit(f"never connected: {host.status}")
        await asyncio.sleep(0.05)
    await asyncio.sleep(1.0)  # the local watcher's first (ready) batch, the remote's transcripts: settled
    out: dict[str, list[float]] = {"ssh": [], "local": []}
    missed = {"ssh": 0, "local": 0}
    for i in range(args.n):
        for side, team in (("ssh", remote_team), ("local", local_team)):
            token = f"round {i} {side} {random.random():.6f}"
            done = asyncio.get_running_loop().create_future()
            waiting[side] = (token, time.perf_counter(), done)
            await asyncio.to_thread(team.update_task, "1", subject=token)
            try:
                out[side].append(await asyncio.wait_for(done, MISS_S))
            except TimeoutError:
                missed[side] += 1
            await asyncio.sleep(random.uniform(0.02, 0.08))
    stop.set()
    await asyncio.wait_for(asyncio.gather(*feeds, return_exceptions=True), 15)
    return {
        "members": args.members,
        "n": args.n,
        **{
            side: {
                "p50": pct(xs, 50),
                "p99": pct(xs, 99),
                "max": max(xs, default=float("nan")),
                "n": len(xs),
                "missed": missed[side],
            }
            for side, xs in out.items()
        },
        "lines": host.lines,
        "dropped": host.dropped,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--members", type=int, default=5)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="tt-bench-ssh-"))
    sshd, port = start_sshd(tmp)
    try:
        result = asyncio.run(measure(args, tmp, port))
    finally:
        sshd.terminate()
        sshd.wait(10)
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
