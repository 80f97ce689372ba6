"""test/lib/ocr.py - text on a screenshot, read by tesseract (installed by
tools/setup.sh): test/hotspot.t's window and test/screen.t's consoles.

    text = ocr.read("shot.png")         # '' if tesseract failed or timed out
"""

import subprocess


def read(image, timeout=60):
    """tesseract's text of image (PNG, PPM...), one block (--psm 6 keeps
    table rows and console lines), or ''."""
    try:
        return subprocess.run(["tesseract", image, "-", "--psm", "6"], capture_output=True,
                              text=True, timeout=timeout).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""
