#!/usr/bin/env python3
"""test/structure.t - the tree's mechanical structure rules
(tools/structure.py): no inline assembly or x86 names in kernel/, no #if
inside function bodies, lib/ freestanding, a "Lock order:" comment in
every kernel/arch file that takes two locks, user space through abi/
only, no x86 data words in kernel/, GS-relative assembly only at
offsets generated from C, IPC below the profiler and the profiler
below profil, no kernel function named like a libc one, a generic sysinfo that knows no subsystem's
nodes, a sysinfo program with no hand-written field table. First each rule must catch
a violation planted in a small synthetic tree (and pass its clean twin),
then the real tree must pass every rule. TAP on stdout.
"""

import os
import sys
import tempfile

sys.dont_write_bytecode = True
TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(TOP, "test", "lib"))
sys.path.insert(0, os.path.join(TOP, "tools"))

import structure  # noqa: E402
from tap import Tap  # noqa: E402

CLEAN = {
    "kernel/a.c": """/* Lock order: a_lock -> b_lock. */
#include <kernel/time.h>
static const int table[] = {
#if 1
	1,
#endif
};
void f(void)
{
	uint64_t t = time_cycles();   /* not rdtsc() */
	arch_cpu_set_kernel_stack(cpu_current(), t);   /* not ->kernel_rsp */
	spin_lock(&a_lock);
	spin_lock(&b_lock);
	printk("rip %lx\\n", t);
}
""",
    "kernel/test/t.c": "void t(void) { __asm__ volatile(\"pause\"); }\n",
    "lib/l.c": "#include <stdint.h>\n#include <lib/string.h>\n#include \"local.h\"\n",
    "lib/local.h": "#include <abi/errno.h>\n",
    "uspace/app/ok.c": "#include <abi/ipc.h>\n#include <lib/ring.h>\n#include <stdio.h>\n",
    "uspace/lib/c/src/p.c": "errno_t prof_status(int phone, prof_status_t *st)\n{\n"
                            "\treturn sys_null();\n}\nint64_t sys_kill(uint64_t id)\n{\n\treturn 0;\n}\n",
    "kernel/k.c": "int64_t sys_kill(SYSCALL_ARGS)\n{\n\treturn 0;\n}\n",
    "kernel/ipc/i.c": "#include <kernel/ostack.h>\n/* not prof_stack_capture() */\n"
                      "static uint64_t i(prof_ipc_t *r) { return ostack_id(ostack_for_call(r->call)); }\n",
    "kernel/sysinfo/s.c": "#include <kernel/task.h>\n/* not binary_cache_bytes() */\n"
                          "static uint64_t s(void) { return task_count(); }\n",
    "uspace/app/sysinfo/s.c": "#include <abi/sysinfo.h>\n/* not offsetof */\n"
                              "static const record_field_t cpu_fields[] =\n"
                              "\tRECORD_FIELDS(SYSINFO_CPU_ROWS, sysinfo_cpu_t);\n",
    "arch/x86_64/asm-offsets.c": """void asm_offsets(void)
{
	ASM_OFFSET(CPU_KERNEL_RSP, offsetof(cpu_t, arch.kernel_rsp));
	ASM_OFFSET(CPU_EDGE_ENTRY, offsetof(cpu_t, edge.entry));
}
""",
    "arch/x86_64/e.asm": """%include "asm-offsets.inc"
%define FRAME_RIP 17 * 8
%macro STAMP 1
	mov [gs:%1], rax		; [gs:56] was here
%endmacro
entry:
	mov rsp, [gs:CPU_KERNEL_RSP]
	STAMP CPU_EDGE_ENTRY
	push qword [rsp + FRAME_RIP]
""",
    "arch/x86_64/include/arch/p.h": """#define RFLAGS_IF (1ul << 9)
#define OFF 8
static inline void *p(void)
{
	void *c;
	__asm__ volatile("mov %%gs:0, %0" : "=r"(c));
	return c;
}
static inline void q(void)
{
	__asm__ volatile("movq $0, %%gs:%c0" : : "i"(offsetof(cpu_t, lat.since)));
}
""",
}

PLANTED = {
    "asm": {"kernel/b.c": "void g(void) { __asm__ volatile(\"hlt\"); }\n"},
    "asm ": {"kernel/c.c": "unsigned long h(void) { return read_cr2(); }\n"},
    "ifdef": {"uspace/x.c": "int k(void)\n{\n#ifdef X\n\treturn 1;\n#endif\n\treturn 0;\n}\n"},
    "lib": {"lib/m.c": "#include <kernel/printk.h>\n"},
    "lib ": {"lib/n.c": "#include <stdio.h>\n"},
    "locks": {"arch/y.c": "void m(void)\n{\n\tspin_lock(&x);\n\tspin_lock(&y->lock);\n}\n"},
    "uspace": {"uspace/app/z.c": "#include <kernel/task.h>\n"},
    "x86words": {"kernel/d.c": "void f(cpu_t *c)\n{\n\tc->kernel_rsp = 0;\n}\n"},
    "x86words ": {"kernel/include/kernel/e.h": "#define CPU_OFF_USER_RSP 16\n"},
    "rdtsc": {"uspace/app/t.c": "unsigned long t(void)\n{\n\tunsigned lo, hi;\n"
              "\t__asm__ volatile(\"lfence; rdtsc\" : \"=a\"(lo), \"=d\"(hi));\n"
              "\treturn lo;\n}\n"},
    "rdtsc ": {"tools/u.c": "unsigned long u(void) { return __builtin_ia32_rdtsc(); }\n"},
    "srcid": {"kernel/prof/w.c": "bool w(unsigned s)\n{\n\treturn s == PROF_SRC_TIMER;\n}\n"},
    "sysinfo": {"kernel/sysinfo/x.c": "#include <kernel/failinj.h>\n"},
    "sysinfo ": {"kernel/sysinfo/y.c": "uint64_t y(void)\n{\n\treturn binary_cache_bytes();\n}\n"},
    "sysinfotab": {"uspace/app/sysinfo/t.c": "static const record_field_t f[] = {\n"
                   "\t{ \"id\", 0, 4, RECORD_U32, NULL },\n};\n"},
    "namesakes": {"kernel/g.c": "static int prof_status(int x)\n{\n\treturn x;\n}\n"},
    "layers": {"kernel/ipc/o.c": "#include <kernel/prof.h>\n"},
    "layers ": {"kernel/prof/s.c": "void s(const int_frame_t *f)\n{\n\tprofil_hit(f);\n}\n"},
    "layers  ": {"kernel/include/kernel/origin.h": "static inline void *o(void)\n"
                 "{\n\treturn prof_stack_capture(1);\n}\n"},
    "sysinfotab ": {"uspace/app/sysinfo/u.c": "#define F(t, m) { #m, offsetof(t, m), 0, 0, NULL }\n"},
}

# gsoff's cases (file, text): a number, a hand-made %define, a number
# through a macro's argument, a number added to a generated name, and
# in C an "i"() of a numeric #define and a literal %gs offset.
GSOFF_PLANTED = [
    ("arch/x86_64/a.asm", "\tmov rsp, [gs:8]\n"),
    ("arch/x86_64/b.asm", "%define CPU_USER_RSP 16\n\tmov [gs:CPU_USER_RSP], rsp\n"),
    ("arch/x86_64/c.asm", "%macro ST 1\n\tmov [gs:%1], rax\n%endmacro\n\tST 56\n"),
    ("arch/x86_64/d.asm", "\tmov [gs:CPU_EDGE_ENTRY + 8], rdx\n"),
    ("arch/x86_64/include/arch/q.h", """#define OFF_SINCE 32
static inline void f(void)
{
	__asm__ volatile("movq $0, %%gs:%c0"
			 : : "i"(OFF_SINCE) : "memory");
}
"""),
    ("arch/x86_64/r.c", "void g(void)\n{\n\t__asm__ volatile(\"incq %%gs:40\");\n}\n"),
]
PLANTED.update(("gsoff" + " " * i, {rel: text}) for i, (rel, text) in enumerate(GSOFF_PLANTED))


def make_tree(root, files):
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)


def rule_fn(name):
    return next(fn for n, _, fn in structure.RULES if n == name.strip())


def main():
    tap = Tap()
    with tempfile.TemporaryDirectory() as d:
        make_tree(d, CLEAN)
        for name, _, fn in structure.RULES:
            bad = fn(d)
            tap.ok(not bad, "%s: a clean synthetic tree passes (%s)" % (name, bad))
    for name, files in PLANTED.items():
        with tempfile.TemporaryDirectory() as d:
            make_tree(d, CLEAN)
            make_tree(d, files)
            bad = rule_fn(name)(d)
            rel = next(iter(files))
            tap.ok(len(bad) == 1 and bad[0].startswith(rel),
                   "%s: catches %s (%s)" % (name.strip(), rel, bad))
    for name, desc, fn in structure.RULES:
        bad = fn(TOP)
        tap.ok(not bad, "tree: %s" % desc)
        for b in bad:
            tap.diag(b)
    tap.done()


if __name__ == "__main__":
    main()
