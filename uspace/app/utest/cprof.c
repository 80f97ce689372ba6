/*
 * utest cprof: the call profiler's system call (SYS_CPROF, abi/cprof.h)
 * raw, with a control block and a part made by hand (utest itself is not
 * instrumented): argument errors, one registration per task, a thread's
 * clock that counts the time it sleeps and not the time it runs, GET's
 * exact size (ENOMEM + the size, nothing written), the file it gives
 * (our table, our slots), and RESET's generation.
 */
#include <abi/cprof.h>
#include <errno.h>
#include <lib/cprof.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>

#include "utest.h"

#define CP_SLOTS 16

static cprof_ctl_t cp_ctl;
static uint64_t cp_part_mem[CPROF_PART_SIZE(CP_SLOTS) / 8 + 1];
static cprof_part_t *const cp_part = (cprof_part_t *)cp_part_mem;

static long cp_call(long op, long a1, long a2, long a3)
{
	return __vernier_syscall(SYS_CPROF, op, a1, a2, a3, 0, 0);
}

static void test_cprof_errors(void)
{
	cprof_ctl_t bad = { .magic = 1, .version = CPROF_VERSION };

	tap_ok(cp_call(99, 0, 0, 0) == -EINVAL, "cprof: unknown op: EINVAL");
	tap_ok(cp_call(CPROF_OP_REGISTER, 0, 0, 0) == -EFAULT &&
	       cp_call(CPROF_OP_REGISTER, (long)KERNEL_ADDR, 0, 0) == -EFAULT,
	       "cprof: register with a NULL or kernel pointer: EFAULT");
	tap_ok(cp_call(CPROF_OP_REGISTER, (long)&bad, 0, 0) == -EINVAL,
	       "cprof: register a block with a bad magic: EINVAL");
	tap_ok(cp_call(CPROF_OP_THREAD, 0, 0, 0) == -ENOENT,
	       "cprof: a clock before registering: ENOENT");
}

static void test_cprof_register(void)
{
	cprof_part_init(cp_part, 0, CP_SLOTS);
	uint32_t a = cprof_lookup(cp_part, CPROF_ROOT, 0x401000);
	uint32_t b = cprof_lookup(cp_part, a, 0x402000);
	cp_part->slot[a].calls = 7;
	cp_part->slot[b].calls = 11;
	cp_part->slot[b].wall = 1234;
	cp_ctl.magic = CPROF_CTL_MAGIC;
	cp_ctl.version = CPROF_VERSION;
	cp_ctl.parts[0] = (uintptr_t)cp_part;
	cp_ctl.nparts = 1;
	tap_ok(cp_call(CPROF_OP_REGISTER, (long)&cp_ctl, 0, 0) == 0, "cprof: register");
	tap_ok(cp_call(CPROF_OP_REGISTER, (long)&cp_ctl, 0, 0) == -EBUSY,
	       "cprof: a second registration: EBUSY");
}

/* This thread's clock's off-CPU cycles (seqcount read). */
static uint64_t cp_off(const cprof_clock_t *c)
{
	for (;;) {
		uint32_t s = c->seq;
		uint64_t off = c->off;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (!(s & 1) && s == c->seq)
			return off;
	}
}

static void test_cprof_clock(void)
{
	long i = cp_call(CPROF_OP_THREAD, 0, 0, 0);
	long again = cp_call(CPROF_OP_THREAD, 0, 0, 0);
	tap_ok(i >= 0 && again == i && cp_ctl.clock != 0,
	       "cprof: a thread's clock: index %ld, the same when asked again, page at %#lx",
	       i, (unsigned long)cp_ctl.clock);
	if (i < 0 || !cp_ctl.clock)
		return;
	const cprof_clock_t *c = (const cprof_clock_t *)cp_ctl.clock + i;
	tap_ok(c->thread == (uint32_t)sys_thread_id(), "cprof: the clock names this thread");
	uint64_t hz = 0;
	sys_sysinfo_int("system.tsc_hz", &hz);
	uint64_t o0 = cp_off(c);
	sys_sleep_ns(100 * NS_PER_MS);
	uint64_t o1 = cp_off(c);
	spin_until(now_ns() + 100 * NS_PER_MS);
	uint64_t o2 = cp_off(c);
	tap_ok(hz && o1 - o0 >= hz / 20, "cprof: 100 ms asleep count as off CPU (%lu ms)",
	       hz ? (unsigned long)((o1 - o0) * 1000 / hz) : 0ul);
	tap_ok(hz && o2 - o1 < hz / 20, "cprof: 100 ms spinning do not (%lu ms)",
	       hz ? (unsigned long)((o2 - o1) * 1000 / hz) : 0ul);
}

/*
 * Walk a GET file of len bytes: our table (or NULL) and where the last
 * table ends (len for a well-formed file).
 */
static const cprof_table_hdr_t *cp_walk(const uint8_t *buf, size_t len, size_t *end)
{
	const cprof_file_hdr_t *fh = (const void *)buf;
	const cprof_table_hdr_t *mine = NULL;
	size_t at = sizeof(*fh);

	for (uint32_t t = 0; t < fh->ntables && at + sizeof(cprof_table_hdr_t) <= len; t++) {
		const cprof_table_hdr_t *th = (const void *)(buf + at);
		if (th->task == sys_task_id() && !mine)
			mine = th;
		at += sizeof(*th);
		for (uint32_t p = 0; p < th->nparts && at + sizeof(cprof_part_hdr_t) <= len; p++) {
			const cprof_part_hdr_t *ph = (const void *)(buf + at);
			at += sizeof(*ph) + ph->used * sizeof(cprof_slot_t);
		}
	}
	*end = at;
	return mine;
}

/*
 * GET into a buffer of the size asked plus 64 KiB (a call-profiled
 * kernel's table grows between two calls), a few times if need be; the
 * buffer is filled with 0xaa first. Returns the bytes (or -errno) and
 * the buffer in *out (free it).
 */
static long cp_get(uint8_t **out, size_t *cap)
{
	long r = -ENOMEM;

	*out = NULL;
	for (int i = 0; i < 5 && r == -ENOMEM; i++) {
		uint64_t needed = 0;
		if (cp_call(CPROF_OP_GET, 0, 0, (long)&needed) != -ENOMEM)
			return -EIO;
		free(*out);
		*cap = needed + 65536;
		if (!(*out = malloc(*cap)))
			return -ENOMEM;
		memset(*out, 0xaa, *cap);
		r = cp_call(CPROF_OP_GET, (long)*out, (long)*cap, (long)&needed);
	}
	return r;
}

static void test_cprof_get(void)
{
	uint64_t needed = 0, n2 = 0;
	long r = cp_call(CPROF_OP_GET, 0, 0, (long)&needed);
	tap_ok(r == -ENOMEM && needed > sizeof(cprof_file_hdr_t),
	       "cprof: GET into no buffer: ENOMEM and the size (%lu)", (unsigned long)needed);
	uint8_t *buf = malloc(needed);
	if (!buf)
		return;
	memset(buf, 0xaa, needed);
	r = cp_call(CPROF_OP_GET, (long)buf, (long)needed - 1, (long)&n2);
	tap_ok(r == -ENOMEM && n2 >= needed && buf[0] == 0xaa && buf[needed - 2] == 0xaa,
	       "cprof: one byte short: ENOMEM, the size again, nothing written");
	free(buf);
	tap_ok(cp_call(CPROF_OP_GET, (long)KERNEL_ADDR, 1 << 20, (long)&n2) == -EFAULT,
	       "cprof: GET into kernel memory: EFAULT");
	tap_ok(cp_call(CPROF_OP_GET, (long)KERNEL_ADDR, 16, (long)&n2) == -EFAULT,
	       "cprof: GET of too few bytes into kernel memory: EFAULT, not ENOMEM");
	size_t cap, end = 0;
	r = cp_get(&buf, &cap);
	const cprof_file_hdr_t *fh = (const void *)buf;
	const cprof_table_hdr_t *th = r > 0 ? cp_walk(buf, r, &end) : NULL;
	tap_ok(r > 0 && !memcmp(fh->magic, CPROF_FILE_MAGIC, 8) && fh->version == CPROF_VERSION &&
	       fh->tsc_hz > 0 && fh->cpus >= 1 && end == (size_t)r && buf[r] == 0xaa,
	       "cprof: GET gives %ld bytes: the header, tables that end there, no byte more", r);
	const cprof_part_hdr_t *ph = th ? (const void *)(th + 1) : NULL;
	const cprof_slot_t *sl = ph ? (const void *)(ph + 1) : NULL;
	tap_ok(th && !strcmp(th->name, "utest") && !strcmp(th->path, "/bin/utest") &&
	       th->nparts == 1 && th->text_start < th->text_end,
	       "cprof: our table: name, path, text range, one part");
	tap_ok(ph && ph->magic == CPROF_PART_MAGIC && ph->used == 2 && sl[0].fn == 0x401000 &&
	       sl[0].calls == 7 && sl[1].parent == 0 && sl[1].calls == 11 && sl[1].wall == 1234,
	       "cprof: our part's slots as we wrote them");
	free(buf);
}

static void test_cprof_reset(void)
{
	long n = cp_call(CPROF_OP_RESET, 0, 0, 0);
	tap_ok(n >= 1 && cp_ctl.reset_gen == 1, "cprof: RESET asks %ld tables, ours at generation 1",
	       n);
	uint8_t *buf;
	size_t cap, end;
	long r = cp_get(&buf, &cap);
	const cprof_table_hdr_t *th = r > 0 ? cp_walk(buf, r, &end) : NULL;
	const cprof_part_hdr_t *ph = th ? (const void *)(th + 1) : NULL;
	tap_ok(th && th->reset_gen == 1 && ph && ph->used == 0,
	       "cprof: a part not yet cleared for the reset is reported empty");
	free(buf);
}

void test_cprof(void)
{
	test_cprof_errors();
	test_cprof_register();
	test_cprof_clock();
	test_cprof_get();
	test_cprof_reset();
}
