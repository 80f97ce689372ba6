"""test/lib/tap.py - a tiny TAP (Test Anything Protocol) emitter for prove.

Usage:
    t = Tap()            # or Tap(plan=N) to print the plan first
    t.ok(cond, "desc")   # "ok 1 - desc" / "not ok 1 - desc"
    t.diag("text")       # "# text" (one line per line of text)
    t.done()             # prints "1..N" if no plan was given, then exits
                         # with status 1 if any test failed, else 0

Output is flushed after every line so prove sees progress. The methods are
serialised with a lock, so threads may share one Tap (test numbers follow
the order of the calls).
"""

import sys
import threading


class Tap:
    """Emit TAP version 12 on a stream (stdout by default)."""

    def __init__(self, plan=None, out=None):
        self.out = out if out is not None else sys.stdout
        self.count = 0
        self.failed = 0
        self.planned = None
        self.lock = threading.RLock()
        if plan is not None:
            self.plan(plan)

    def _line(self, text):
        """Write one line and flush."""
        self.out.write(text + "\n")
        self.out.flush()

    def plan(self, n):
        """Print the plan "1..n" (call once, before or after the tests)."""
        with self.lock:
            if self.planned is not None:
                raise RuntimeError("TAP plan printed twice")
            self.planned = n
            self._line("1..%d" % n)

    def ok(self, cond, desc="", directive=None):
        """Report one test; returns bool(cond). directive: e.g. "SKIP why"."""
        with self.lock:
            self.count += 1
            passed = bool(cond)
            desc = " ".join(str(desc).split())  # one line, no stray '#' layout
            line = "%s %d" % ("ok" if passed else "not ok", self.count)
            if desc:
                line += " - " + desc.replace("#", "\\#")
            if directive:
                line += " # " + directive
            todo = bool(directive) and directive.upper().startswith("TODO")
            if not passed and not todo:
                self.failed += 1
            self._line(line)
            return passed

    def skip(self, desc, why):
        """Report a skipped test (counts as passed)."""
        return self.ok(True, desc, directive="SKIP " + why)

    def diag(self, text):
        """Print text as TAP diagnostics, "# " before every line."""
        with self.lock:
            for line in str(text).splitlines() or [""]:
                self._line(("# " + line).rstrip())

    def bail_out(self, reason):
        """Stop the whole test run (prove stops too) and exit 255."""
        with self.lock:
            self._line("Bail out! " + reason)
        sys.exit(255)

    def exit_status(self):
        """0 if every test passed and the plan (if any) was met, else 1."""
        if self.failed:
            return 1
        if self.planned is not None and self.planned != self.count:
            return 1
        return 0

    def done(self, exit=True):
        """Print the plan if none was printed; exit (or return) the status."""
        with self.lock:
            if self.planned is None:
                self.plan(self.count)
            elif self.planned != self.count:
                self.diag("planned %d tests but ran %d"
                          % (self.planned, self.count))
            status = self.exit_status()
        if exit:
            sys.exit(status)
        return status
