#!/usr/bin/env python3
"""Convert an 8x16 PSF1 or PSF2 console font (optionally gzipped) to C.

Usage: psf2c.py FONT.psf[.gz] OUT.c

The output defines font_glyphs[256][16], font_width and font_height (see
kernel/include/kernel/font.h). Glyph row bytes have the leftmost pixel in
bit 7. When the font carries a Unicode table, index i of the output holds
the glyph for code point U+00ii (so ASCII and Latin-1 land at their own
index); indices the font has no glyph for get U+FFFD, '?' or a blank.
Without a table the font's own glyph order is kept.
"""

import gzip
import os
import struct
import sys
import zlib

WIDTH = 8
HEIGHT = 16
COUNT = 256

PSF1_MAGIC = b"\x36\x04"
PSF1_MODE512 = 0x01
PSF1_MODEHASTAB = 0x02
PSF1_MODESEQ = 0x04
PSF1_SEPARATOR = 0xFFFF
PSF1_STARTSEQ = 0xFFFE

PSF2_MAGIC = b"\x72\xb5\x4a\x86"
PSF2_HAS_UNICODE_TABLE = 0x01
PSF2_SEPARATOR = 0xFF
PSF2_STARTSEQ = 0xFE


class FontError(Exception):
    pass


def read_font(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data


def parse_psf1(data):
    """Return (glyph bytes list, unicode map or None) for a PSF1 font."""
    if len(data) < 4:
        raise FontError("truncated PSF1 header")
    mode, charsize = data[2], data[3]
    count = 512 if mode & PSF1_MODE512 else 256
    if charsize != HEIGHT:
        raise FontError("font is 8x%d; only 8x16 fonts are supported" % charsize)
    end = 4 + count * charsize
    if len(data) < end:
        raise FontError("truncated PSF1 glyph data")
    glyphs = [data[4 + i * charsize:4 + (i + 1) * charsize] for i in range(count)]
    umap = None
    if mode & (PSF1_MODEHASTAB | PSF1_MODESEQ):
        umap = parse_psf1_table(data[end:], count)
    return glyphs, umap


def parse_psf1_table(table, count):
    """Map code point -> first glyph index from a PSF1 UCS-2 table."""
    umap = {}
    pos = 0
    for glyph in range(count):
        in_seq = False
        while True:
            if pos + 2 > len(table):
                raise FontError("truncated PSF1 unicode table")
            (cp,) = struct.unpack_from("<H", table, pos)
            pos += 2
            if cp == PSF1_SEPARATOR:
                break
            if cp == PSF1_STARTSEQ:
                in_seq = True
            elif not in_seq:
                umap.setdefault(cp, glyph)
    return umap


def parse_psf2(data):
    """Return (glyph bytes list, unicode map or None) for a PSF2 font."""
    if len(data) < 32:
        raise FontError("truncated PSF2 header")
    (_, _, hdrsize, flags, count, charsize,
     height, width) = struct.unpack_from("<4sIIIIIII", data, 0)
    if width != WIDTH or height != HEIGHT:
        raise FontError("font is %dx%d; only 8x16 fonts are supported"
                        % (width, height))
    if charsize != HEIGHT:
        raise FontError("unexpected PSF2 glyph size %d" % charsize)
    end = hdrsize + count * charsize
    if len(data) < end:
        raise FontError("truncated PSF2 glyph data")
    glyphs = [data[hdrsize + i * charsize:hdrsize + (i + 1) * charsize]
              for i in range(count)]
    umap = None
    if flags & PSF2_HAS_UNICODE_TABLE:
        umap = parse_psf2_table(data[end:], count)
    return glyphs, umap


def parse_psf2_table(table, count):
    """Map code point -> first glyph index from a PSF2 UTF-8 table."""
    umap = {}
    pos = 0
    for glyph in range(count):
        stop = table.find(bytes([PSF2_SEPARATOR]), pos)
        if stop < 0:
            raise FontError("truncated PSF2 unicode table")
        entry = table[pos:stop]
        pos = stop + 1
        single = entry.split(bytes([PSF2_STARTSEQ]))[0]
        try:
            chars = single.decode("utf-8")
        except UnicodeDecodeError as e:
            raise FontError("bad UTF-8 in PSF2 unicode table: %s" % e)
        for ch in chars:
            umap.setdefault(ord(ch), glyph)
    return umap


def parse_psf(data):
    if data[:2] == PSF1_MAGIC:
        return parse_psf1(data)
    if data[:4] == PSF2_MAGIC:
        return parse_psf2(data)
    raise FontError("not a PSF1 or PSF2 font")


def order_glyphs(glyphs, umap):
    """Return 256 glyphs, index i being code point i when a table exists."""
    if umap is None:
        if len(glyphs) < COUNT:
            raise FontError("font has only %d glyphs" % len(glyphs))
        return glyphs[:COUNT]
    missing = [c for c in range(0x20, 0x7F) if c not in umap]
    if missing:
        raise FontError("font has no glyph for ASCII %s"
                        % ", ".join("0x%02x" % c for c in missing))
    blank = bytes(HEIGHT)
    fallback = umap.get(0xFFFD, umap.get(ord("?")))
    out = []
    for cp in range(COUNT):
        if cp in umap:
            out.append(glyphs[umap[cp]])
        elif cp < 0x20 or 0x7F <= cp < 0xA0:
            out.append(blank)       # control characters are never drawn
        else:
            out.append(glyphs[fallback])
    return out


def describe(cp):
    if 0x20 <= cp < 0x7F and chr(cp) not in "*/\\":
        return "'%s'" % chr(cp)
    return "0x%02x" % cp


def emit_c(glyphs, font_path):
    lines = [
        "/* Generated by tools/psf2c.py from %s; do not edit. */" % font_path,
        "#include <kernel/font.h>",
        "",
        "const unsigned int font_width = %d, font_height = %d;" % (WIDTH, HEIGHT),
        "",
        "const unsigned char font_glyphs[%d][%d] = {" % (COUNT, HEIGHT),
    ]
    for cp, glyph in enumerate(glyphs):
        row = ", ".join("0x%02x" % b for b in glyph)
        lines.append("\t[0x%02x] = { %s }, /* %s */" % (cp, row, describe(cp)))
    lines.append("};")
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: psf2c.py FONT.psf[.gz] OUT.c\n")
        return 2
    font_path, out_path = argv[1], argv[2]
    try:
        glyphs, umap = parse_psf(read_font(font_path))
        text = emit_c(order_glyphs(glyphs, umap), font_path)
    except (OSError, EOFError, zlib.error, FontError) as e:
        sys.stderr.write("psf2c.py: %s: %s\n" % (font_path, e))
        return 1
    tmp = out_path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, out_path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
