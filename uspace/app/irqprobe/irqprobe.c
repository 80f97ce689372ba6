/*
 * irqprobe: the attacks of issue 27 holes 4 and 5 on the kernel's
 * interrupts-off sections, run unprivileged (test/irqoff.t boots it under
 * `restrict`), each followed by the longest interrupts-off section seen
 * so far (sysinfo system.cpus, the largest over CPUs):
 *
 *   irqprobe [CHILDREN]   boot figure; start CHILDREN tasks (default 16)
 *                         that each map regions up to LIMIT_REGIONS, read
 *                         system.tasks and system.limits 8 times with
 *                         them alive: "sysinfo" (then they are killed);
 *                         spawn (stopped) a program with one 15 MiB
 *                         segment (the loader copies it): "load"; kill
 *                         and reap it: "teardown"; start a child that
 *                         maps and touches 64 MiB, then exits, and wait
 *                         for it: "bigtask" (a dead task's space is
 *                         freed by the reaper thread with interrupts on:
 *                         docs/ARCHITECTURE.md "Interrupt discipline")
 *   irqprobe regions      (a child) map regions until ELIMIT, then sleep
 *   irqprobe bigtask      (a child) map and touch 64 MiB, then exit 0
 *
 * Each figure is one line "irqprobe: PHASE irqoff_max CYCLES cycles
 * TSC_HZ hz"; the last line is "irqprobe: done" (exit 0) or "irqprobe:
 * error ..." (exit 1).
 */
#include <abi/limits.h>
#include <lib/elf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vernier.h>

#define PROBE_SEGMENT (15u << 20)            /* the loader's copy: 15 MiB */
#define PROBE_VADDR 0x400000ul
#define PROBE_MAX_CHILDREN 256
#define PROBE_READS 8
#define PROBE_MAP_BASE 0x110000000000ul      /* above libc's own mappings */
#define PROBE_MAP_STEP 8192ul                /* a page and a guard gap */
#define PROBE_READY_TRIES 6000               /* 10 ms each: a minute */
#define PROBE_BIG_BYTES (64ul << 20)         /* the big task's resident memory */

/* The largest irqoff_max_cycles over the CPUs, or 0 if the read fails. */
static uint64_t probe_irqoff_max(void)
{
	static sysinfo_cpu_t cpus[64];
	size_t got;
	uint64_t max = 0;

	if (sys_sysinfo_data("system.cpus", cpus, sizeof(cpus), &got) != EOK)
		return 0;
	for (size_t i = 0; i < got / sizeof(cpus[0]); i++)
		if (cpus[i].irqoff_max_cycles > max)
			max = cpus[i].irqoff_max_cycles;
	return max;
}

static void probe_report(const char *phase)
{
	uint64_t hz = 0;

	sys_sysinfo_int("system.tsc_hz", &hz);
	printf("irqprobe: %s irqoff_max %llu cycles %llu hz\n", phase,
	       (unsigned long long)probe_irqoff_max(), (unsigned long long)hz);
}

/* An ELF image (malloc'd) with one PT_LOAD of PROBE_SEGMENT bytes from the file. */
static uint8_t *probe_big_image(size_t *size)
{
	uint8_t *img = calloc(1, PROBE_SEGMENT);
	if (!img)
		return NULL;
	elf64_ehdr_t *h = (elf64_ehdr_t *)img;
	elf64_phdr_t *p = (elf64_phdr_t *)(img + sizeof(*h));
	memcpy(h->e_ident, "\x7f" "ELF", 4);
	h->e_ident[4] = ELFCLASS64;
	h->e_ident[5] = ELFDATA2LSB;
	h->e_ident[6] = 1;
	h->e_type = ET_EXEC;
	h->e_machine = EM_X86_64;
	h->e_version = 1;
	h->e_entry = PROBE_VADDR + 4096;
	h->e_phoff = sizeof(*h);
	h->e_ehsize = sizeof(*h);
	h->e_phentsize = sizeof(*p);
	h->e_phnum = 1;
	*p = (elf64_phdr_t){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0,
			     .p_vaddr = PROBE_VADDR, .p_filesz = PROBE_SEGMENT,
			     .p_memsz = PROBE_SEGMENT, .p_align = 4096 };
	img[4096] = 0xeb;                        /* jmp . (never run: spawned stopped) */
	img[4097] = 0xfe;
	*size = PROBE_SEGMENT;
	return img;
}

/* Hole 4: the loader copies one 15 MiB segment of a program spawned stopped (*id). */
static errno_t probe_load(task_id_t *id)
{
	static const char *const argv[] = { "irqprobe-big", NULL };
	size_t size;
	uint8_t *img = probe_big_image(&size);

	if (!img)
		return ENOMEM;
	spawn_args_t a = { .path = "/bin/irqprobe-big", .argv = argv, .image = img,
			   .image_size = size, .flags = SPAWN_F_STOPPED };
	errno_t rc = sys_spawn_args(&a, id);
	free(img);
	return rc;
}

/* Kill and reap task id. */
static errno_t probe_end(task_id_t id)
{
	errno_t rc = sys_kill(id);

	return rc == EOK ? sys_wait(id, NULL, 0, NULL) : rc;
}

/* A child: map one-page regions downwards (each insertion at the list's head) until ELIMIT. */
static int probe_regions_child(void)
{
	errno_t rc = EOK;
	void *at;

	for (unsigned long i = LIMIT_REGIONS; rc == EOK && i > 0; i--)
		rc = sys_map((void *)(PROBE_MAP_BASE + i * PROBE_MAP_STEP), 4096, PROT_READ, &at);
	for (;;)
		sys_sleep_ns(UINT64_MAX);
	return rc == ELIMIT ? 0 : 1;
}

/* Has child id mapped all it could (LIMIT_REGIONS)? */
static bool probe_child_full(task_id_t id)
{
	sysinfo_limits_t r;
	char path[48];
	size_t got;

	snprintf(path, sizeof(path), "system.limits.%lu", (unsigned long)id);
	return sys_sysinfo_data(path, &r, sizeof(r), &got) == EOK && got == sizeof(r) &&
	       r.regions == LIMIT_REGIONS;
}

static errno_t probe_wait_full(task_id_t id)
{
	for (int i = 0; i < PROBE_READY_TRIES; i++) {
		if (probe_child_full(id))
			return EOK;
		sys_sleep_ns(10 * 1000000ull);
	}
	return ETIMEOUT;
}

/* Read system.tasks and system.limits whole, PROBE_READS times each. */
static errno_t probe_read_tables(void)
{
	static uint8_t buf[512 * 1024];
	size_t got;
	errno_t rc = EOK;

	for (int i = 0; i < PROBE_READS && rc == EOK; i++) {
		rc = sys_sysinfo_data("system.tasks", buf, sizeof(buf), &got);
		if (rc == EOK)
			rc = sys_sysinfo_data("system.limits", buf, sizeof(buf), &got);
	}
	return rc;
}

/* Hole 5: n children full of regions while this task reads the tables. */
static errno_t probe_regions(int n)
{
	static const char *const argv[] = { "irqprobe", "regions", NULL };
	static task_id_t ids[PROBE_MAX_CHILDREN];
	errno_t rc = EOK;
	int started = 0;

	while (started < n && rc == EOK) {
		rc = sys_spawn("/bin/irqprobe", argv, 0, &ids[started]);
		if (rc == EOK)
			rc = probe_wait_full(ids[started++]);
	}
	if (rc == EOK)
		rc = probe_read_tables();
	if (rc == EOK)
		probe_report("sysinfo");
	for (int i = 0; i < started; i++)
		probe_end(ids[i]);
	return rc;
}

/* A child: map PROBE_BIG_BYTES, write every page, exit (its space is torn down). */
static int probe_bigtask_child(void)
{
	void *at;

	if (sys_map(NULL, PROBE_BIG_BYTES, PROT_READ | PROT_WRITE, &at) != EOK)
		return 1;
	for (size_t off = 0; off < PROBE_BIG_BYTES; off += 4096)
		((volatile uint8_t *)at)[off] = 1;
	return 0;
}

/* Start the big child and wait for it; EOK if it touched all and exited 0. */
static errno_t probe_bigtask(void)
{
	static const char *const argv[] = { "irqprobe", "bigtask", NULL };
	task_id_t id;
	int status = -1;
	errno_t rc = sys_spawn("/bin/irqprobe", argv, 0, &id);

	if (rc == EOK)
		rc = sys_wait(id, &status, 0, NULL);
	return rc != EOK ? rc : status == 0 ? EOK : ENOMEM;
}

static int probe_fail(const char *what, errno_t rc)
{
	printf("irqprobe: error %s: %d\n", what, rc);
	return 1;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: irqprobe [-h] [CHILDREN] | irqprobe regions|bigtask\n"
		"  issue 27's attacks on interrupts-off time (test/irqoff.t)\n");
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "regions"))
		return probe_regions_child();
	if (argc == 2 && !strcmp(argv[1], "bigtask"))
		return probe_bigtask_child();
	int n = argc == 2 ? atoi(argv[1]) : 16;
	if (argc > 2 || n < 1 || n > PROBE_MAX_CHILDREN) {
		usage(stderr);
		return 2;
	}
	task_id_t big;
	probe_report("boot");
	errno_t rc = probe_regions(n);
	if (rc != EOK)
		return probe_fail("the region attack", rc);
	rc = probe_load(&big);
	if (rc != EOK)
		return probe_fail("spawning the 15 MiB segment", rc);
	probe_report("load");
	rc = probe_end(big);
	if (rc != EOK)
		return probe_fail("ending the 15 MiB task", rc);
	probe_report("teardown");
	rc = probe_bigtask();
	if (rc != EOK)
		return probe_fail("the 64 MiB task", rc);
	probe_report("bigtask");
	printf("irqprobe: done\n");
	return 0;
}
