"""test/lib/consumers.py - drive the JavaScript consumers of vprof's exports.

browser(args): run test/js/browser.js (Debian's chromium through
playwright-core) and return the JSON object it prints, or
{"errors": [why]} when it printed none.
speedscope(path, tmp, shot=None, profile=None): serve speedscope's
release app and the Chrome trace (or other profile) at path from
tmp/site over a local HTTP server and load it there: browser()'s
answer (title, profiles, errors; shot: a screenshot of the first
profile whose name holds profile).
run(cmd, **kw): run a host program (vprof, a consumer) for at most 120 s:
(status, stdout, stderr), status -1 if it could not run.
png_colours(path): how many distinct byte values the (filtered)
scanlines of a PNG hold, a cheap "not blank" measure; 0 for a non-PNG.
"""

import functools
import http.server
import json
import os
import shutil
import struct
import subprocess
import threading
import zlib

JS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "js")
SPEEDSCOPE = os.path.join(JS, "node_modules", "speedscope", "dist", "release")


def browser(args, timeout=120):
    try:
        p = subprocess.run(["node", os.path.join(JS, "browser.js")] + args, cwd=JS,
                           capture_output=True, text=True, timeout=timeout)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except (OSError, subprocess.TimeoutExpired) as e:
        rc, out, err = -1, "", str(e)
    try:
        return json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"errors": ["browser.js rc %d: %s" % (rc, err.strip()[:300])]}


def run(cmd, **kw):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kw)
        return p.returncode, p.stdout, p.stderr
    except (OSError, subprocess.TimeoutExpired) as e:
        return -1, "", str(e)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def speedscope(path, tmp, shot=None, profile=None):
    site = os.path.join(tmp, "site")
    os.makedirs(site)
    os.symlink(SPEEDSCOPE, os.path.join(site, "app"))
    shutil.copy(path, os.path.join(site, "trace.json"))
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                          functools.partial(_Quiet, directory=site))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    base = "http://127.0.0.1:%d" % srv.server_address[1]
    extra = [os.path.abspath(shot)] + ([profile] if profile else []) if shot else []
    try:
        return browser(["speedscope", base + "/app/index.html#profileURL=" + base +
                        "/trace.json"] + extra)
    finally:
        srv.shutdown()


def png_colours(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return 0
    at, idat = 8, b""
    while at + 8 <= len(data):
        n, kind = struct.unpack(">I4s", data[at:at + 8])
        if kind == b"IDAT":
            idat += data[at + 8:at + 8 + n]
        at += 12 + n
    return len(set(zlib.decompress(idat)))
