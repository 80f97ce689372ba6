#!/usr/bin/env python3
"""tools/structure.py - check the tree's mechanical structure rules.

Usage: tools/structure.py [-h] [--tap] [TOP]

Rules (docs/ARCHITECTURE.md, "The map"):
  asm      no inline assembly and no x86 register, instruction or vector
           names in the code of kernel/ (comments and strings aside;
           kernel/test/ may, the arch hooks are in arch/)
  ifdef    no #if/#ifdef/#ifndef inside a function body, anywhere in C
           (kernel/, arch/, lib/, uspace/, tools/)
  lib      lib/ includes only lib/, abi/ and the compiler's freestanding
           headers: nothing from kernel/, arch/ or uspace/
  locks    every C file of kernel/ and arch/ that takes two or more
           different locks says its "Lock order:"
  uspace   user space sees the kernel only through abi/: no <kernel/...>
           or <arch/...> include, no path into kernel/ or arch/

Prints one line per offence ("RULE FILE:LINE: what"); with --tap, TAP
for prove, one test per rule. Exit status 0 if the tree passes, 1 if not,
2 for usage errors.
"""
import os
import re
import sys

FREESTANDING = {"stdint.h", "stddef.h", "stdbool.h", "stdarg.h", "stdalign.h",
                "stdnoreturn.h", "limits.h", "float.h", "iso646.h"}

# 64- and 32-bit general registers, rip/rflags, control registers, and the
# x86 instructions that generic code must reach through arch hooks.
X86_NAMES = re.compile(
    r"\b(r[abcd]x|e[abcd]x|r[sd]i|e[sd]i|r[sb]p|e[sb]p|r(?:8|9|1[0-5])[dwb]?|rip|eip|"
    r"[re]flags|cr[02348]|rdtscp?|rdmsr|wrmsr|cpuid|rdrand|rdseed|invlpg|swapgs|"
    r"lgdt|lidt|ltr|in[bwl]|out[bwl]|VEC_\w+|(?:read|write)_(?:r[a-z0-9]+|cr\d|msr))\b")
ASM = re.compile(r"\b(?:__asm__|__asm|asm)\b\s*(?:volatile|__volatile__|goto)?\s*\(")
LOCK_CALL = re.compile(
    r"\b(spin_lock(?:_irqsave)?|spin_trylock(?:_irqsave)?|kmutex_lock|mutex_lock|"
    r"rw_(?:read|write)_lock)\s*\(\s*([^,()]+(?:\([^()]*\))?[^,()]*)")
C_SOURCE = re.compile(r"\.[ch]$")


def strip_c(text):
    """text with comments, string and character literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j - 1]) + c)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def c_files(top, dirs):
    for d in dirs:
        for root, subdirs, files in os.walk(os.path.join(top, d)):
            subdirs[:] = sorted(s for s in subdirs if s not in ("node_modules", "build"))
            for f in sorted(files):
                if C_SOURCE.search(f):
                    yield os.path.relpath(os.path.join(root, f), top)


def read(top, rel):
    with open(os.path.join(top, rel), encoding="utf-8", errors="replace") as f:
        return f.read()


def check_asm(top):
    bad = []
    for rel in c_files(top, ["kernel"]):
        if rel.startswith("kernel/test/"):
            continue
        for no, line in enumerate(strip_c(read(top, rel)).split("\n"), 1):
            if line.lstrip().startswith("#include"):
                continue
            if ASM.search(line):
                bad.append("%s:%d: inline assembly" % (rel, no))
            m = X86_NAMES.search(line)
            if m:
                bad.append("%s:%d: x86 name '%s'" % (rel, no, m.group(1)))
    return bad


def function_body_ifs(code):
    """Line numbers of #if lines inside function bodies of stripped C code."""
    bad, depth, body_depth, no, prev = [], 0, None, 0, ""
    for line in code.split("\n"):
        no += 1
        s = line.strip()
        if s.startswith("#"):
            if re.match(r"#\s*if", s) and body_depth is not None:
                bad.append(no)
            continue
        for c in line:
            if c == "{":
                if depth == 0 and prev == ")":
                    body_depth = 1
                depth += 1
            elif c == "}":
                depth = max(depth - 1, 0)
                if depth == 0:
                    body_depth = None
            if not c.isspace():
                prev = c
    return bad


def check_ifdef(top):
    bad = []
    for rel in c_files(top, ["kernel", "arch", "lib", "uspace", "tools"]):
        code = strip_c(read(top, rel))
        # A function's parameter list may end in ") __attribute__((...))".
        code = re.sub(r"\)\s*__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)", ")", code)
        for no in function_body_ifs(code):
            bad.append("%s:%d: #if inside a function body" % (rel, no))
    return bad


def check_lib(top):
    bad = []
    for rel in c_files(top, ["lib"]):
        for no, line in enumerate(read(top, rel).split("\n"), 1):
            m = re.match(r'\s*#\s*include\s*([<"])([^>"]+)[>"]', line)
            if not m:
                continue
            name = m.group(2)
            if m.group(1) == '"':
                target = os.path.normpath(os.path.join(os.path.dirname(rel), name))
                ok = target.startswith("lib/")
            else:
                ok = name.split("/")[0] in ("lib", "abi") or name in FREESTANDING
            if not ok:
                bad.append("%s:%d: includes %s%s%s" % (rel, no, m.group(1), name,
                                                       ">" if m.group(1) == "<" else '"'))
    return bad


def lock_names(code):
    """The distinct lock expressions a file's code takes."""
    names = set()
    for m in LOCK_CALL.finditer(code):
        name = re.sub(r"\s+", " ", m.group(2)).strip()
        if not re.match(r"(const )?\w+_t\s*\*", name):    # a declaration
            names.add(name.replace(" ", ""))
    return names


def check_locks(top):
    bad = []
    for rel in c_files(top, ["kernel", "arch"]):
        if not rel.endswith(".c"):
            continue
        text = read(top, rel)
        names = lock_names(strip_c(text))
        if len(names) >= 2 and "Lock order:" not in text:
            bad.append("%s: takes %d locks (%s) and has no \"Lock order:\" comment"
                       % (rel, len(names), ", ".join(sorted(names))))
    return bad


def check_uspace(top):
    bad = []
    for rel in c_files(top, ["uspace"]):
        for no, line in enumerate(read(top, rel).split("\n"), 1):
            m = re.match(r'\s*#\s*include\s*[<"]([^>"]+)[>"]', line)
            if m and (m.group(1).split("/")[0] in ("kernel", "arch") or
                      re.search(r"(^|/)\.\./.*\b(kernel|arch)/", m.group(1))):
                bad.append("%s:%d: includes %s" % (rel, no, m.group(1)))
    return bad


RULES = [
    ("asm", "kernel/ has no inline assembly or x86 register/instruction names", check_asm),
    ("ifdef", "no #if inside a function body", check_ifdef),
    ("lib", "lib/ includes nothing from kernel/, arch/ or uspace/", check_lib),
    ("locks", "every kernel/arch file taking two locks has a \"Lock order:\" comment",
     check_locks),
    ("uspace", "uspace/ includes nothing from kernel/ or arch/ (only abi/, lib/)", check_uspace),
]


def main(argv):
    tap = False
    args = []
    for a in argv[1:]:
        if a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        if a == "--tap":
            tap = True
        elif a.startswith("-"):
            print("structure.py: unknown option '%s'" % a, file=sys.stderr)
            return 2
        else:
            args.append(a)
    if len(args) > 1:
        print("usage: tools/structure.py [-h] [--tap] [TOP]", file=sys.stderr)
        return 2
    top = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    failed = 0
    if tap:
        print("1..%d" % len(RULES))
    for i, (name, desc, fn) in enumerate(RULES, 1):
        bad = fn(top)
        failed += bool(bad)
        if tap:
            print("%s %d - %s: %s" % ("not ok" if bad else "ok", i, name, desc))
            for b in bad:
                print("# %s" % b)
        else:
            for b in bad:
                print("%s %s" % (name, b))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
