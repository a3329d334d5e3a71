"""A test teammate on the teammate API. Knobs (env): WORK seconds per task, IGNORE_SHUTDOWN=1 to
never answer a shutdown request and ignore SIGTERM (only SIGKILL ends it), SHUTDOWN_STATUS to
answer with (clean, in_progress, error), exiting right after the reply."""

import os
import signal
import time

from teamtui.protocol.teammate import Teammate

me = Teammate.from_env()
work = float(os.environ.get("WORK", "0.2"))
stubborn = os.environ.get("IGNORE_SHUTDOWN") == "1"
if stubborn:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
me.log(f"{me.name} up (pid {os.getpid()})")
while True:
    wake = me.idle_loop(timeout=30)
    if wake.shutdown is not None:
        if stubborn:
            me.log("ignoring the shutdown request", "warning")
            while True:
                signal.pause()
        me.answer_shutdown(wake.shutdown, status=os.environ.get("SHUTDOWN_STATUS", "clean"))
        break
    if wake.task is not None:
        me.log(f"working on #{wake.task.id}")
        time.sleep(work)
        me.complete(wake.task.id, f"done by {me.name}")
