"""test/lib/streamrec.py - build profiler stream records (abi/profile.h)
for the export tests' synthetic streams: a record's head, a TASK (a
task's name) and a LOAD (a program mapped at 0x401000-0x402000)."""

import struct


def rec(rtype, size, cpu, tsc):
    """The 16-byte head of a record of type rtype and size bytes."""
    return struct.pack("<HHIQ", rtype, size, cpu, tsc)


def task(tid, name):
    """A TASK record naming task tid."""
    return rec(3, 64, 0, 1) + struct.pack("<QQ32s", tid, 0, name.encode())


def load(tid, path):
    """A LOAD record: path mapped into task tid at 0x401000-0x402000."""
    p = path.encode() + b"\0"
    p += b"\0" * (-len(p) % 8)
    return rec(4, 48 + len(p), 0, 1) + struct.pack("<QQQQ", tid, 0x401000, 0x402000, 0) + p
