"""test/lib/consumers.py - drive the JavaScript consumers of vprof's exports.

browser(args): run test/js/browser.js (Debian's chromium through
playwright-core) and return the JSON object it prints, or
{"errors": [why]} when it printed none.
png_colours(path): how many distinct byte values the (filtered)
scanlines of a PNG hold, a cheap "not blank" measure; 0 for a non-PNG.
"""

import json
import os
import struct
import subprocess
import zlib

JS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "js")


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
