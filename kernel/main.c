/*
 * kmain(): the boot CPU's path from the boot loader to a running system.
 * Each line is one initialisation step, in dependency order. The boot
 * context then becomes CPU 0's idle thread; kinit, the first kernel
 * thread, runs the self-tests or starts /bin/init.
 */
#include <abi/task.h>
#include <arch/cpu.h>
#include <kernel/failinj.h>
#include <kernel/binary.h>
#include <kernel/bootinfo.h>
#include <kernel/cmdline.h>
#include <kernel/harden.h>
#include <kernel/acct.h>
#include <kernel/ipc.h>
#include <kernel/kbox.h>
#include <kernel/load.h>
#include <kernel/ksym.h>
#include <kernel/ktest.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <kernel/reaper.h>
#include <kernel/cprof.h>
#include <kernel/prof.h>
#include <kernel/profil.h>
#include <kernel/sched.h>
#include <kernel/smp.h>
#include <kernel/syscall.h>
#include <kernel/sysinfo.h>
#include <kernel/task.h>
#include <kernel/time.h>
#include <kernel/idle.h>
#include <kernel/ktimer.h>
#include <kernel/tick.h>
#include <kernel/trace.h>
#include <kernel/version.h>
#include <kernel/vm.h>
#include <lib/string.h>

#define INIT_MAX_ARGS 16
#define CMDLINE_SHOWN 400       /* bytes of the command line the boot log shows (the line says 400) */

static unsigned kmain_hz(void)
{
	return (unsigned)cmdline_uint("hz", 10, 10000, 100);
}

static void kmain_report_cmdline(void)
{
	size_t len = strlen(boot_info.cmdline);

	printk("vernier: command line \"%.*s\"%s\n", CMDLINE_SHOWN, boot_info.cmdline,
	       len > CMDLINE_SHOWN ? " (its first 400 bytes)" : "");
	if (boot_info.cmdline_given >= sizeof(boot_info.cmdline))
		printk("vernier: warning: command line cut to %zu of its %zu bytes\n",
		       sizeof(boot_info.cmdline) - 1, boot_info.cmdline_given);
}

static void kmain_report_boot(void)
{
	uint64_t ns = time_cycles_to_ns(time_cycles() - time_boot_cycles());
	printk("boot: %lu ms from kernel entry to smp online\n", ns / 1000000);
}

/* init's argv: "init" plus the command line words after "--". */
static size_t kinit_args(char *buf, size_t size, const char **argv)
{
	const char *rest = strstr(boot_info.cmdline, "--");
	size_t argc = 0;
	char *p = buf;

	argv[argc++] = "init";
	strlcpy(buf, rest ? rest + 2 : "", size);
	while (*p && argc < INIT_MAX_ARGS - 1) {
		while (*p == ' ')
			*p++ = '\0';
		if (!*p)
			break;
		argv[argc++] = p;
		while (*p && *p != ' ')
			p++;
	}
	while (*p == ' ')
		*p++ = '\0';           /* ends the last word taken */
	if (*p)
		printk("kinit: warning: init gets only the first %d words after \"--\"\n",
		       INIT_MAX_ARGS - 2);
	argv[argc] = NULL;
	return argc;
}

/* The naming service, if the initrd has one: every later task's phone 0. */
static void kinit_start_ns(void)
{
	const char *argv[] = { "ns", NULL };
	task_spawn_req_t req = { .path = "/bin/ns", .argv = argv };
	task_id_t id;

	if (task_spawn(&req, NULL, &id) != EOK)
		return;
	task_t *ns = task_get(id);
	if (ns) {
		ipc_set_naming_service(ns);   /* keeps the reference */
		printk("kinit: naming service is task %lu\n", id);
	}
}

/* The first kernel thread: self-tests, or the first user task. */
static void kinit(void *arg)
{
	static char buf[BOOT_CMDLINE_MAX];     /* kinit runs once */
	const char *argv[INIT_MAX_ARGS];
	task_id_t id;

	if (cmdline_has("ktest"))
		ktest_run();            /* never returns */
	if (cmdline_has("ktest.panic"))
		ktest_panic();          /* returns only for ktest.panic=late */
	kinit_start_ns();
	kinit_args(buf, sizeof(buf), argv);
	task_spawn_req_t req = { .path = "/bin/init", .argv = argv,
				 .perms = PERM_ALL };
	errno_t rc = task_spawn(&req, NULL, &id);
	if (rc != EOK)
		printk("kinit: cannot start /bin/init (error %d)\n", rc);
	else
		printk("kinit: started /bin/init as task %lu\n", id);
}

/* Not stack-protected: the canary changes in its first step. */
__attribute__((no_stack_protector)) void kmain(void)
{
	harden_stack_guard_init();  /* the stack protector's canary */
	time_mark_boot();
	arch_early_init();          /* per-CPU data, GDT/IDT, COM1, boot info */
	printk("vernier: %s, booted by %s (%s)\n", VERNIER_VERSION,
	       boot_info.loader, boot_info.uefi ? "UEFI" : "BIOS");
	kmain_report_cmdline();     /* what the loader gave, cut if too long */
	frame_init();               /* physical frames from the memory map */
	vm_init();                  /* kernel page tables; identity map gone */
	heap_init();                /* kmalloc */
	cprof_init();               /* call profiling, if the kernel has the hooks */
	ksym_init();                /* symbols for backtraces */
	platform_console_init();    /* VGA text or framebuffer */
	platform_init();            /* ACPI, PIC masked, IOAPIC */
	platform_cpu_irq_init();    /* boot CPU's local APIC */
	time_init();                /* TSC frequency, ns clock */
	platform_sampling_init();   /* QEMU TCG, with or without -icount */
	platform_wall_clock_init(); /* CMOS RTC → wall clock */
	task_init();                /* the kernel task */
	failinj_init();             /* failslab=, failframe=, failcopy= */
	ktimer_init();              /* per-CPU timer lists */
	idle_init();                /* idle CPUs: how long they poll (idlepoll=) */
	klog_init();                /* readers of the kernel log may sleep */
	sched_init_cpu();           /* run queue; this context is idle/0 */
	syscall_init_cpu();         /* SYSCALL/SYSRET */
	tick_init(kmain_hz());      /* boot CPU tick */
	irq_enable();
	smp_init();                 /* start the other CPUs */
	kmain_report_boot();        /* the time to here: issue 18's boot figure */
	harden_init();              /* SMEP/SMAP/UMIP that every CPU has */
	harden_report();            /* SMEP/SMAP/UMIP, canary source */
	initrd_init();              /* programs */
	kbox_init();                /* kernel answerboxes */
	trace_init();               /* trace events' rings: the flight recorder */
	prof_init();                /* profiler: sample sources, drain thread */
	profil_init();              /* MINIX's profil counts the samples' PCs too */
	load_init();                /* the load average thread */
	reaper_init();              /* frees dead tasks' spaces, interrupts on */
	acct_measure();             /* cycles accounting costs per entry */
	mm_report_footprint();
	sysinfo_init();              /* every subsystem's sysinfo nodes; sealed */
	if (thread_create_kernel("kinit", kinit, NULL, NULL) != EOK)
		panic("kmain: cannot create kinit");
	sched_start();              /* idle from here on */
}
