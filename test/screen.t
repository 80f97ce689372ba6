#!/usr/bin/env python3
"""test/screen.t - what the consoles draw on the screen, read back by OCR.

The serial log shows what was written, not what was drawn. This test
boots to the shell prompt twice, under UEFI (the GOP framebuffer: the
kernel's text console, kernel/textcon.c, flushes lib/term.c's grid to
fbcon, which draws with lib/glyph.c's glyph_draw, then the console
server does the same) and under BIOS (VGA text mode: the same grid
flushed to the kernel's vga.c, then the console server's text cells),
types a line for the shell to echo, takes QEMU's screendump through a
monitor socket and reads it with tesseract (installed by tools/setup.sh
for test/hotspot.t). Checked on each screen: the kernel's last boot line
("kinit: started /bin/init as task N", drawn before the console server
took the screen) and the echoed words (drawn by the server), both
twice (the typed line and its echo). Missing tesseract is a failure.

TAP on stdout, for prove.
"""

import os
import re
import shutil
import socket
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in test/lib
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))

import guest  # noqa: E402
import ocr  # noqa: E402
from tap import Tap  # noqa: E402

WORDS = "SCREEN CHECK 4711 OK"     # capitals and digits: what OCR reads best


def monitor(path, command, wait=1.0):
    """Send one command to QEMU's monitor at path; what it answered."""
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(10)
        s.connect(path)
        time.sleep(0.3)
        s.recv(65536)                   # the banner and prompt
        s.sendall(command.encode() + b"\n")
        time.sleep(wait)
        return s.recv(65536).decode("latin-1", "replace")


def check_screen(tap, firmware, tmp):
    """Boot with firmware, echo WORDS, read the screen."""
    sock = os.path.join(tmp, firmware + ".sock")
    shot = os.path.join(tmp, firmware + ".ppm")
    g = guest.Guest(guest.bt.ISO, cpus=1, firmware=firmware,
                    extra="-monitor unix:%s,server,nowait" % sock)
    sh = guest.Shell(g)
    name = "[%s]" % firmware
    if tap.ok(sh.prompt(timeout=180), "%s boot reaches the prompt" % name):
        out = sh.run("echo " + WORDS) or []
        tap.ok(WORDS in out, "%s the shell echoed the words (%r)" % (name, out))
        time.sleep(0.5)
        monitor(sock, "screendump " + shot)
    g.send("poweroff\r")
    g.finish(timeout=60)
    text = ocr.read(shot) if os.path.exists(shot) else ""
    flat = re.sub(r"\s+", " ", text)
    tap.ok(re.search(r"started /bin/init as task", flat),
           "%s the kernel's boot line is on the screen (OCR: %r)" % (name, flat[:160]))
    tap.ok(flat.count(WORDS) >= 2, "%s the typed line and its echo are on the screen (OCR of "
           "the last lines: %r)" % (name, text.strip().splitlines()[-4:]))


def main():
    tap = Tap()
    tap.ok(shutil.which("tesseract"), "tesseract is installed (tools/setup.sh)")
    tmp = tempfile.mkdtemp(prefix="vernier-screen.")
    try:
        for firmware in ("uefi", "bios"):
            check_screen(tap, firmware, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
