#!/usr/bin/env python3
"""test/ipc.t - the IPC test suite (/bin/ipctest) booted in QEMU.

An ISO with the kernel command line "-- ipctest" (init runs /bin/ipctest,
waits for it and powers QEMU off: exit code 1 if ipctest exited 0, 3 if
not) is booted under BIOS with 1, 2 and 4 CPUs (TCG unless VERNIER_ACCEL
says otherwise). For each boot:

- every TAP line ipctest printed becomes a test here, prefixed with the
  boot ("ok 7 - [bios cpus=2] ping: ..."); its diagnostics are passed on;
- ipctest ran the tests it planned (its "1..N" comes first, the sum of the
  counts its groups declare, so a test silently not run fails);
- the kernel started the naming service (/bin/ns), which ipctest needs;
- QEMU exited with code 1 within the timeout, the kernel did not panic and
  no task was killed for a fault (ipctest's helpers are killed on purpose,
  but by SYS_KILL, which the kernel does not report).

A failing boot's last 40 log lines are printed as diagnostics. TAP on
stdout, for prove.
"""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in test/lib
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))

import boottest as bt  # noqa: E402,F401
import suite  # noqa: E402
from tap import Tap  # noqa: E402

CONFIGS = (("bios", 1), ("bios", 2), ("bios", 4))
TIMEOUT = 300       # seconds per boot (a run takes a few seconds under TCG)


def main():
    """Boot "-- ipctest" on 1, 2 and 4 CPUs; re-emit; check the logs are clean."""
    tap = Tap()
    suite.run(tap, "ipctest", CONFIGS, TIMEOUT, suite.check_clean_log)
    tap.done()


if __name__ == "__main__":
    main()
