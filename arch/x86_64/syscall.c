/* SYSCALL/SYSRET set-up: STAR selectors, entry point, flags to clear. */
#include <arch/cpu.h>
#include <arch/interrupt.h>

#define RFLAGS_TF (1ul << 8)
#define RFLAGS_DF (1ul << 10)
#define RFLAGS_AC (1ul << 18)

void syscall_entry(void);

void syscall_init_cpu(void)
{
	/* SYSCALL: CS = 0x08, SS = 0x10; SYSRET: CS = 0x18+16 | 3, SS = 0x18+8 | 3. */
	wrmsr(MSR_STAR, ((uint64_t)(SEL_UCODE32 | 3) << 48) | ((uint64_t)SEL_KCODE << 32));
	wrmsr(MSR_LSTAR, (uint64_t)syscall_entry);
	wrmsr(MSR_SFMASK, RFLAGS_IF | RFLAGS_TF | RFLAGS_DF | RFLAGS_AC);
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
}
