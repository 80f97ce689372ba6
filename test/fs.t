#!/usr/bin/env python3
"""test/fs.t - the file service tests (/bin/fstest) booted in QEMU.

An ISO with the kernel command line "-- fstest" (init runs /bin/fstest,
waits for it and powers QEMU off: exit code 1 if fstest exited 0, 3 if
not) is booted under BIOS with 1 and 2 CPUs (TCG unless VERNIER_ACCEL
says otherwise). init starts /bin/fs and waits for it to register as "fs"
before it runs fstest. For each boot:

- every TAP line fstest printed becomes a test here, prefixed with the
  boot ("ok 7 - [bios cpus=2] ping: ..."); its diagnostics are passed on;
- fstest ran the tests it planned (its "1..N" comes first, the sum of the
  counts its groups declare, so a test silently not run fails);
- the kernel started the naming service (/bin/ns), which fstest needs,
  and init did not complain that /bin/fs failed to register;
- QEMU exited with code 1 within the timeout, the kernel did not panic and
  no task was killed for a fault (fstest's child helpers exit normally).

A failing boot's last 40 log lines are printed as diagnostics. TAP on
stdout, for prove.
"""

import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in test/lib
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))

import boottest as bt  # noqa: E402,F401
import suite  # noqa: E402
from tap import Tap  # noqa: E402

CONFIGS = (("bios", 1), ("bios", 2))
TIMEOUT = 300       # seconds per boot (a run takes a few seconds under TCG)
# "init: fs (task 5) did not register (error 110)"
FS_FAIL_RE = re.compile(r"^init: fs \(task \d+\) did not register")


def check_log(tap, name, lines):
    """ns ran, fs registered; no panic; no task killed for a fault."""
    ok = suite.check_clean_log(tap, name, lines)
    ok &= tap.ok(not any(FS_FAIL_RE.match(l) for l in lines),
                 "%s the file service registered" % name)
    return ok


def main():
    """Boot "-- fstest" on 1 and 2 CPUs; re-emit; check the logs."""
    tap = Tap()
    suite.run(tap, "fstest", CONFIGS, TIMEOUT, check_log)
    tap.done()


if __name__ == "__main__":
    main()
