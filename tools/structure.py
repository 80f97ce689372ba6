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
  x86words the code of kernel/ (kernel/test/ aside) names no x86 data
           word: no identifier with a register or descriptor-table part
           (kernel_rsp, user_rsp, CPU_OFF_KERNEL_RSP, tss_rsp0, gs_base),
           no tss, gdt, idt or iomap; per-CPU x86 state is arch_cpu_t's
  rdtsc    user space and the host tools read the TSC only through
           <tsc.h> (uspace/lib/c/include/tsc.h): no other rdtsc in an
           asm string and no __builtin_ia32_rdtsc in uspace/ or tools/
  srcid    the generic kernel (kernel/, kernel/test/ aside) names no
           particular sample source (PROF_SRC_PMC, _RTC, _RTC_NMI,
           _TIMER): what a source is comes from its own descriptor
           (PROF_SRCF_* flags, rank), see arch/x86_64/prof.c
  sysinfo  the generic sysinfo code (kernel/sysinfo/) knows no subsystem
           that defines its own nodes (kernel/sysinfo.h): it includes
           none of their headers (failinj, harden, binary, binquota, prof,
           cprof, load, abi/limits.h, abi/profile.h) and names none of
           their readers (failinj_*, harden_*, binary_*, prof_*, load_*,
           frame_stats, heap_*, kstack_*, origin_pairs, ...)
  sysinfotab uspace/app/sysinfo has no hand-written field table: no
           offsetof, and every *_field_t table is RECORD_FIELDS(...) of a
           record's rows (abi/record.h)
  layers   a subsystem below another does not reach up into it: IPC
           (kernel/ipc/, kernel/include/kernel/{origin,origin_ipc,ostack,
           ipc,kbox}.h) includes no <kernel/prof.h> and calls no prof_
           function (the profiler uses IPC's origin stacks, not the other
           way round); the sampling profiler (kernel/prof/) includes no
           <kernel/profil.h> and calls no profil_ function (profil is a
           consumer of its samples, prof_consumer_add)
  namesakes no file-local (static) function of a kernel .c file (kernel/,
           arch/) has the name of a libc function (uspace/lib/c): a
           kernel helper named prof_status beside libc's prof_status
           reads as the same thing (the system calls' sys_NAME and the
           compiler's __cyg_profile_func_ hooks aside)
  gsoff    assembly reaches per-CPU data (GS-relative) only at offsets
           generated from C (ASM_OFFSET names of arch/*/asm-offsets.c):
           no number and no hand-made %define/equ in a [gs:...] operand
           of a .asm/.inc file (macro arguments followed), and no
           "%%gs:N" (N > 0) or "i"(NAME) of an integer #define in the
           GS-relative inline assembly of arch/

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
ASM_SOURCE = re.compile(r"\.(?:asm|inc)$")
# Parts of a kernel/ identifier that are x86 state, and whole words.
X86_WORD_PARTS = {"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rsp", "rbp", "rip", "rflags",
                  "eflags", "cr0", "cr2", "cr3", "cr4", "cr8", "gs", "tss", "gdt", "idt",
                  "ist", "iomap", "msr", "lapic", "apic", "swapgs"}
X86_WORDS = {"tss", "gdt", "idt", "iomap"}
IDENT = re.compile(r"\b[A-Za-z_]\w*\b")
GS_OPERAND = re.compile(r"\[\s*gs\s*:([^\]]*)\]", re.I)
ASM_NAME = re.compile(r"%?[A-Za-z_.$?][\w.$?#@~]*|%\d+|\$?\b(?:0x[0-9a-f]+|\d[0-9a-f_]*[hqbdo]?)\b",
                      re.I)
ASM_OFFSET_LINE = re.compile(r"^\s*ASM_OFFSET\((\w+),", re.M)
HAND_DEFINE = re.compile(r"^\s*(?:%x?i?define\s+(\w+)|(\w+)\s+equ\b)", re.I)
C_INT_DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)\s+\(?(?:0x[0-9a-fA-F]+|\d+)[uUlL]*\)?\s*$", re.M)


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
    return files(top, dirs, C_SOURCE)


def files(top, dirs, pattern):
    for d in dirs:
        for root, subdirs, names in os.walk(os.path.join(top, d)):
            subdirs[:] = sorted(s for s in subdirs if s not in ("node_modules", "build"))
            for f in sorted(names):
                if pattern.search(f):
                    yield os.path.relpath(os.path.join(root, f), top)


def read(top, rel):
    with open(os.path.join(top, rel), encoding="utf-8", errors="replace") as f:
        return f.read()


def kernel_code(top):
    """(file, line number, code) of kernel/ outside kernel/test/: comments,
    strings and #include lines blanked."""
    for rel in c_files(top, ["kernel"]):
        if rel.startswith("kernel/test/"):
            continue
        for no, line in enumerate(strip_c(read(top, rel)).split("\n"), 1):
            if not line.lstrip().startswith("#include"):
                yield rel, no, line


def check_asm(top):
    bad = []
    for rel, no, line in kernel_code(top):
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


TSC_HOME = "uspace/lib/c/include/tsc.h"
RDTSC_USE = re.compile(r'"[^"\n]*\brdtscp?\b[^"\n]*"|__builtin_ia32_rdtscp?\b')


def check_rdtsc(top):
    bad = []
    for rel in c_files(top, ["uspace", "tools"]):
        if rel == TSC_HOME:
            continue
        for no, line in enumerate(read(top, rel).split("\n"), 1):
            if RDTSC_USE.search(line) and not line.lstrip().startswith(("*", "/*", "//")):
                bad.append("%s:%d: reads the TSC itself (use <tsc.h>)" % (rel, no))
    return bad


SRC_ID = re.compile(r"\bPROF_SRC_(PMC|RTC|RTC_NMI|TIMER)\b")


def check_srcid(top):
    return ["%s:%d: names source %s (use the source's flags)" % (rel, no, m.group(0))
            for rel, no, line in kernel_code(top) for m in SRC_ID.finditer(line)]


SYSINFO_FOREIGN = {"kernel/failinj.h", "kernel/harden.h", "kernel/binary.h", "kernel/binquota.h",
                   "kernel/prof.h", "kernel/cprof.h", "kernel/load.h", "abi/limits.h",
                   "abi/profile.h", "abi/harden.h", "arch/prof.h", "arch/harden.h"}
SYSINFO_READER = re.compile(
    r"\b(?:(?:failinj|harden|binary|bincache|prof|cprof|load|limits|mm)_\w+|frame_stats|"
    r"heap_footprint|heap_live_bytes|kstack_live|kstack_pages|vm_table_frames|origin_pairs|"
    r"ipc_task_usage|task_tree_usage|vm_space_region_count)\b")
INCLUDE = re.compile(r'\s*#\s*include\s*[<"]([^>"]+)[>"]')


def check_sysinfo(top):
    bad = []
    for rel in c_files(top, ["kernel/sysinfo"]):
        for no, line in enumerate(strip_c(read(top, rel)).split("\n"), 1):
            m = INCLUDE.match(read(top, rel).split("\n")[no - 1])
            if m and m.group(1) in SYSINFO_FOREIGN:
                bad.append("%s:%d: includes %s (its nodes are its own)" % (rel, no, m.group(1)))
            elif not m and SYSINFO_READER.search(line):
                bad.append("%s:%d: names %s (let that subsystem define its node)"
                           % (rel, no, SYSINFO_READER.search(line).group(0)))
    return bad


FIELD_TABLE = re.compile(r"\b\w*field_t\s+[\w#]+\s*\[[^\]]*\][\s\\]*=(?![\s\\]*RECORD_FIELDS\b)")


def check_sysinfotab(top):
    bad = []
    for rel in c_files(top, ["uspace/app/sysinfo"]):
        code = strip_c(read(top, rel))
        for m in re.finditer(r"\boffsetof\b", code):
            bad.append("%s:%d: offsetof: a hand-written field table? (RECORD_FIELDS)"
                       % (rel, code.count("\n", 0, m.start()) + 1))
        for m in FIELD_TABLE.finditer(code):
            bad.append("%s:%d: a field table not generated by RECORD_FIELDS"
                       % (rel, code.count("\n", 0, m.start()) + 1))
    return bad


def x86_word(ident):
    """ident, if it is an x86 data word, else None."""
    parts = [p for p in ident.lower().split("_") if p]
    if ident.lower() in X86_WORDS or (len(parts) > 1 and X86_WORD_PARTS.intersection(parts)):
        return ident
    return None


def check_x86words(top):
    bad = []
    for rel, no, line in kernel_code(top):
        words = [w for w in map(x86_word, IDENT.findall(line)) if w]
        if words:
            bad.append("%s:%d: x86 word '%s' (arch_cpu_t's, or an <arch/...> hook)"
                       % (rel, no, words[0]))
    return bad


def generated_offsets(top):
    """The names arch/*/asm-offsets.c generate for the assembly."""
    names = set()
    arch = os.path.join(top, "arch")
    for a in sorted(os.listdir(arch)) if os.path.isdir(arch) else []:
        rel = os.path.join("arch", a, "asm-offsets.c")
        if os.path.isfile(os.path.join(top, rel)):
            names.update(ASM_OFFSET_LINE.findall(strip_c(read(top, rel))))
    return names


def asm_lines(top, rel):
    """(line number, code) of an assembly file, ';' comments dropped."""
    return [(no, re.sub(r";.*", "", line)) for no, line in enumerate(read(top, rel).split("\n"), 1)]


def gs_operand_names(code):
    """The names, numbers and macro parameters of code's [gs:...] operands."""
    return [t for expr in GS_OPERAND.findall(code) for t in ASM_NAME.findall(expr)]


def gs_macro_params(lines):
    """{macro: parameter numbers it uses in a [gs:...] operand}."""
    params, macro = {}, None
    for _, code in lines:
        m = re.match(r"\s*%i?macro\s+(\w+)", code, re.I)
        if m:
            macro = m.group(1)
        elif re.match(r"\s*%endm", code, re.I):
            macro = None
        elif macro:
            for t in gs_operand_names(code):
                if re.fullmatch(r"%\d+", t):
                    params.setdefault(macro, set()).add(int(t[1:]))
    return params


def gs_offence(token, generated, hand):
    """What is wrong with one token of a GS-relative operand, or None."""
    if re.fullmatch(r"%\d+", token):
        return None
    if not re.match(r"[A-Za-z_.$?]", token) or token.startswith("$"):
        return "number %s" % token
    if token in hand:
        return "hand-made %s (%s)" % (token, hand[token])
    if token not in generated:
        return "%s, not an ASM_OFFSET name" % token
    return None


def check_gsoff_asm(top, generated):
    bad, sources = [], list(files(top, ["arch", "kernel", "uspace", "lib", "boot"], ASM_SOURCE))
    hand = {}
    for rel in sources:
        for no, code in asm_lines(top, rel):
            m = HAND_DEFINE.match(code)
            if m:
                hand.setdefault(m.group(1) or m.group(2), "%s:%d" % (rel, no))
    for rel in sources:
        lines = asm_lines(top, rel)
        macros = gs_macro_params(lines)
        for no, code in lines:
            tokens = gs_operand_names(code)
            m = re.match(r"\s*(?:[\w.]+:\s*)?(\w+)\s+(.*)", code)
            if m and m.group(1) in macros:
                args = [a.strip() for a in m.group(2).split(",")]
                tokens += [t for i in sorted(macros[m.group(1)]) if i <= len(args)
                           for t in ASM_NAME.findall(args[i - 1])]
            why = [w for w in (gs_offence(t, generated, hand) for t in tokens) if w]
            if why:
                bad.append("%s:%d: GS-relative operand with %s" % (rel, no, why[0]))
    return bad


def c_asm_statements(text):
    """(line number, text) of each inline assembly statement, to its ';'."""
    out = []
    for m in ASM.finditer(text):
        end = text.find(";\n", m.start())
        out.append((text.count("\n", 0, m.start()) + 1, text[m.start():end if end >= 0 else None]))
    return out


def check_gsoff_c(top):
    bad, defines = [], set()
    sources = list(c_files(top, ["arch"]))
    for rel in sources:
        defines.update(C_INT_DEFINE.findall(read(top, rel)))
    for rel in sources:
        for no, stmt in c_asm_statements(read(top, rel)):
            if "%%gs:" not in stmt:
                continue
            lit = re.search(r"%%gs:\s*(\d+)", stmt)
            names = [n for n in re.findall(r'"i"\s*\(\s*(\w+)\s*\)', stmt) if n in defines]
            if lit and int(lit.group(1)) != 0:
                bad.append("%s:%d: GS-relative inline assembly at %%gs:%s" % (rel, no, lit.group(1)))
            elif names:
                bad.append("%s:%d: GS-relative inline assembly at \"i\"(%s), a number "
                           "(use offsetof)" % (rel, no, names[0]))
    return bad


def check_gsoff(top):
    return check_gsoff_asm(top, generated_offsets(top)) + check_gsoff_c(top)


# (files or folders, a header they may not include, functions they may not call)
LAYERS = [
    (["kernel/ipc", "kernel/include/kernel/origin.h", "kernel/include/kernel/origin_ipc.h",
      "kernel/include/kernel/ostack.h", "kernel/include/kernel/ipc.h",
      "kernel/include/kernel/kbox.h"], "kernel/prof.h", re.compile(r"\bprof_\w+(?=\s*\()")),
    (["kernel/prof"], "kernel/profil.h", re.compile(r"\bprofil_\w+(?=\s*\()")),
]


def layer_files(top, paths):
    for p in paths:
        if os.path.isdir(os.path.join(top, p)):
            yield from c_files(top, [p])
        elif os.path.exists(os.path.join(top, p)):
            yield p


def check_layers(top):
    bad = []
    for paths, header, call in LAYERS:
        for rel in layer_files(top, paths):
            text = read(top, rel)
            for no, (raw, line) in enumerate(zip(text.split("\n"), strip_c(text).split("\n")), 1):
                m = INCLUDE.match(raw)
                if m and m.group(1) == header:
                    bad.append("%s:%d: includes <%s> (a layer above)" % (rel, no, header))
                elif not m and call.search(line):
                    bad.append("%s:%d: calls %s (a layer above)" % (rel, no, call.search(line).group(0)))
    return bad


FUNC_DEF = re.compile(r"^[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*\n\{", re.M)
NAMESAKE_OK = re.compile(r"^(?:sys_|__cyg_profile_func_|__attribute__$)")


def func_defs(top, dirs, statics=False):
    """{name: [(file, line)]} of the functions defined in dirs' C files
    (statics: only the static ones of .c files)."""
    out = {}
    for rel in c_files(top, dirs):
        if statics and not rel.endswith(".c"):
            continue
        code = strip_c(read(top, rel))
        for m in FUNC_DEF.finditer(code):
            if not statics or re.match(r"static\b", m.group(0)):
                out.setdefault(m.group(1), []).append((rel, code.count("\n", 0, m.start(1)) + 1))
    return out


def check_namesakes(top):
    kernel = func_defs(top, ["kernel", "arch"], statics=True)
    libc = func_defs(top, ["uspace/lib/c"])
    return ["%s:%d: %s is libc's too (%s:%d)" % (rel, no, name, *libc[name][0])
            for name in sorted(set(kernel) & set(libc)) if not NAMESAKE_OK.match(name)
            for rel, no in kernel[name]]


RULES = [
    ("asm", "kernel/ has no inline assembly or x86 register/instruction names", check_asm),
    ("ifdef", "no #if inside a function body", check_ifdef),
    ("lib", "lib/ includes nothing from kernel/, arch/ or uspace/", check_lib),
    ("locks", "every kernel/arch file taking two locks has a \"Lock order:\" comment",
     check_locks),
    ("uspace", "uspace/ includes nothing from kernel/ or arch/ (only abi/, lib/)", check_uspace),
    ("x86words", "kernel/ names no x86 data words (kernel_rsp, user_rsp, tss...)",
     check_x86words),
    ("gsoff", "assembly reaches per-CPU data only at offsets generated from C", check_gsoff),
    ("layers", "IPC does not call the profiler, the profiler does not call profil",
     check_layers),
    ("namesakes", "no static kernel function has the name of a libc function",
     check_namesakes),
    ("rdtsc", "user space reads the TSC only through <tsc.h>", check_rdtsc),
    ("srcid", "the generic kernel names no particular sample source", check_srcid),
    ("sysinfo", "kernel/sysinfo/ includes no node-owning subsystem's header, names no reader",
     check_sysinfo),
    ("sysinfotab", "uspace/app/sysinfo has no hand-written field table (RECORD_FIELDS)",
     check_sysinfotab),
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
