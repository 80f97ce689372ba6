/*
 * utest regs: a system call gives every register back as it was but rax
 * (the result), rcx (the return address) and r11 (the flags), as the ABI
 * says (lib/include/abi/syscall.h): the kernel's exit restores only what
 * its C code may clobber and counts on C for rbx, rbp and r12-r15
 * (arch/x86_64/syscall_entry.asm), so a register it forgot would hand
 * the caller a kernel value. Checked for SYS_NULL many times over (some
 * calls then take the accounting's slow entry, after an interrupt), for
 * a number with no call (ENOSYS) and for SYS_SLEEP, which switches away
 * and back.
 */
#include <abi/errno.h>
#include <abi/syscall.h>

#include "utest.h"

/* The registers regs_probe loads and checks, in its order. */
enum { R_RBX, R_RBP, R_RDX, R_RSI, R_R8, R_R9, R_R10, R_R12, R_R13, R_R14, R_R15, R_RDI,
       R_COUNT };
static const char *const reg_names[R_COUNT] = {
	"rbx", "rbp", "rdx", "rsi", "r8", "r9", "r10", "r12", "r13", "r14", "r15", "rdi",
};

/* What the call left: the registers in R_* order, then rax, rcx, r11. */
typedef struct regs_out {
	uint64_t r[R_COUNT];
	uint64_t rax, rcx, r11;
} regs_out_t;

/*
 * regs_probe(in, out, nr): load the R_* registers from in, make system
 * call nr, store them and rax, rcx, r11 into out; regs_probe_ret is the
 * instruction after the syscall (rcx must be it).
 */
void regs_probe(const uint64_t *in, regs_out_t *out, long nr);
extern const char regs_probe_ret[];
__asm__(".text\n"
	".globl regs_probe\n"
	".type regs_probe, @function\n"
	"regs_probe:\n\t"
	"push %rbp\n\tpush %rbx\n\tpush %r12\n\tpush %r13\n\tpush %r14\n\tpush %r15\n\t"
	"push %rsi\n\t"                       /* out, for after the call */
	"mov %rdx, %rax\n\t"
	"mov 0(%rdi), %rbx\n\tmov 8(%rdi), %rbp\n\tmov 16(%rdi), %rdx\n\t"
	"mov 24(%rdi), %rsi\n\tmov 32(%rdi), %r8\n\tmov 40(%rdi), %r9\n\t"
	"mov 48(%rdi), %r10\n\tmov 56(%rdi), %r12\n\tmov 64(%rdi), %r13\n\t"
	"mov 72(%rdi), %r14\n\tmov 80(%rdi), %r15\n\tmov 88(%rdi), %rdi\n\t"
	"syscall\n"
	".globl regs_probe_ret\n"
	"regs_probe_ret:\n\t"
	"push %rdi\n\t"
	"mov 8(%rsp), %rdi\n\t"               /* out */
	"mov %rbx, 0(%rdi)\n\tmov %rbp, 8(%rdi)\n\tmov %rdx, 16(%rdi)\n\t"
	"mov %rsi, 24(%rdi)\n\tmov %r8, 32(%rdi)\n\tmov %r9, 40(%rdi)\n\t"
	"mov %r10, 48(%rdi)\n\tmov %r12, 56(%rdi)\n\tmov %r13, 64(%rdi)\n\t"
	"mov %r14, 72(%rdi)\n\tmov %r15, 80(%rdi)\n\t"
	"pop %rsi\n\tmov %rsi, 88(%rdi)\n\t"  /* rdi as the call left it */
	"mov %rax, 96(%rdi)\n\tmov %rcx, 104(%rdi)\n\tmov %r11, 112(%rdi)\n\t"
	"add $8, %rsp\n\t"
	"pop %r15\n\tpop %r14\n\tpop %r13\n\tpop %r12\n\tpop %rbx\n\tpop %rbp\n\t"
	"ret\n"
	".size regs_probe, . - regs_probe\n");

#define REGS_NULL_CALLS 20000
#define RFLAGS_IF (1ul << 9)

/* The first register of out that differs from in, or -1 (and rcx, r11 as SYSCALL sets them). */
static int regs_bad(const uint64_t *in, const regs_out_t *out)
{
	for (int i = 0; i < R_COUNT; i++)
		if (out->r[i] != in[i])
			return i;
	if (out->rcx != (uint64_t)(uintptr_t)regs_probe_ret || !(out->r11 & RFLAGS_IF) ||
	    out->r11 >> 32)
		return R_COUNT;
	return -1;
}

/* A pattern for call k: every register its own, none a kernel address. */
static void regs_pattern(uint64_t *in, unsigned k)
{
	for (int i = 0; i < R_COUNT; i++)
		in[i] = 0x0123456789ab0000ull + ((uint64_t)k << 8) + (uint64_t)i;
}

/* Call nr with rdi = arg n times; report the first bad register (one TAP result). */
static void regs_check(const char *what, long nr, uint64_t arg, long want, unsigned n)
{
	uint64_t in[R_COUNT];
	regs_out_t out;
	int bad = -1;
	unsigned k = 0;

	for (; k < n && bad < 0; k++) {
		regs_pattern(in, k);
		in[R_RDI] = arg;
		regs_probe(in, &out, nr);
		bad = regs_bad(in, &out);
		if (bad < 0 && (long)out.rax != want)
			bad = R_COUNT + 1;
	}
	tap_ok(bad < 0, "regs: %s gives every register back (%u calls)", what, k);
	if (bad >= 0 && bad < R_COUNT)
		tap_diag("%s: %#lx, was %#lx", reg_names[bad], out.r[bad], in[bad]);
	else if (bad == R_COUNT)
		tap_diag("rcx %#lx (want %p), r11 %#lx", out.rcx, (const void *)regs_probe_ret,
			 out.r11);
	else if (bad > R_COUNT)
		tap_diag("rax %ld, want %ld", (long)out.rax, want);
}

void test_regs(void)
{
	regs_check("SYS_NULL", SYS_NULL, 0x5a5a5a5a5a5aull, 0, REGS_NULL_CALLS);
	regs_check("an unknown number", SYS_COUNT + 7, 0x5a5a5a5a5a5aull, -ENOSYS, 100);
	regs_check("SYS_SLEEP (1 ms, a switch)", SYS_SLEEP, NS_PER_MS, 0, 5);
}
