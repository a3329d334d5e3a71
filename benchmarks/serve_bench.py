"""`teamtui serve`'s first frame in a real headless Chromium: from navigating to the page until the
terminal shows the team's name (issue 29). Run once with the network as it is, once with every other
machine swallowing what is sent to it (a proxy that takes connections and never answers: a machine
offline, or behind a firewall that drops).

    python benchmarks/serve_bench.py [--runs N]

It uses the browser test's helpers (tests/test_serve.py) and the native example team.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import aiohttp  # noqa: E402

from tests.test_serve import KEEP_TERMINAL, TEAM, DevTools, Served, _chromium, _free_port  # noqa: E402

GIVE_UP = 90.0


def swallowing_proxy() -> int:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    held = []

    def take() -> None:
        while True:
            held.append(server.accept()[0])

    threading.Thread(target=take, daemon=True).start()
    return server.getsockname()[1]


async def first_frame(url: str, profile: Path, proxy: int | None) -> float:
    argv = [
        _chromium(),
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--remote-debugging-address=127.0.0.1",
        "--remote-debugging-port=0",
        f"--user-data-dir={profile}",
        "--window-size=1280,800",
        *([f"--proxy-server=http://127.0.0.1:{proxy}"] if proxy else []),
        "about:blank",
    ]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        active = profile / "DevToolsActivePort"
        while not (active.exists() and active.read_text().count("\n") >= 1):
            time.sleep(0.05)
        port = int(active.read_text().split()[0])
        async with aiohttp.ClientSession() as http:
            async with http.get(f"http://127.0.0.1:{port}/json/list") as resp:
                target = next(t for t in await resp.json() if t["type"] == "page")
            async with http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                browser = DevTools(ws)
                await browser.send("Page.enable")
                await browser.send("Page.addScriptToEvaluateOnNewDocument", source=KEEP_TERMINAL)
                start = time.monotonic()
                await browser.send("Page.navigate", url=url)
                while TEAM not in await browser.screen():
                    if time.monotonic() - start > GIVE_UP:
                        return float("inf")
                    await asyncio.sleep(0.02)
                return time.monotonic() - start
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="serve-bench-"))
    try:
        root = tmp / "native"
        shutil.copytree(REPO / "tests" / "fixtures" / "examples" / "native", root)
        served = Served(["--root", str(root), "--team", TEAM, "--port", str(_free_port())], tmp)
        proxy = swallowing_proxy()
        try:
            for name, via in (("network as it is", None), ("other machines swallow", proxy)):
                times = [
                    asyncio.run(first_frame(served.url, tmp / f"profile-{name[:5]}-{i}", via)) for i in range(args.runs)
                ]
                shown = ", ".join(f"{t:.2f}" for t in times)
                print(f"first frame, {name}: median {statistics.median(times):.2f} s ({shown})")
        finally:
            served.stop()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
