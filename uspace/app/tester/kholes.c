/*
 * tester kholes: regression probes for kernel holes, run with no
 * permission but PERM_KILL (`restrict -p kill tester kholes`,
 * test/kholes.t: its children, spawned with none, form quota trees of
 * their own; the kill ends the attacker's grandchildren), TAP on stdout:
 *
 * - names: a spawn path (the task's name) with a control character is
 *   refused with EINVAL; before, "x\nsmp: FAKE" named a task whose fault
 *   report printed a forged kernel line;
 * - symbols: an image whose faulting function's name holds "\n" is killed
 *   for the fault and the kernel's report escapes the name (kholes.t
 *   checks the log: no line starts with "smp: FAKE");
 * - bincache: a child spawns KHOLES_IMAGES distinct images, each with a
 *   1 MiB symbol table and a 1 MiB string table, stopped, and kills them;
 *   once it has exited, the kernel's program cache holds at most its
 *   budget and the free memory came back but for that. Before, every
 *   image's symbol copies stayed (up to 512 of them);
 * - bintree: an attacker tree (a child, no permissions) spawns stopped
 *   images with 512 KiB + 512 KiB of symbols and keeps them until a spawn
 *   fails, then smaller ones (12 + 8 KiB) to fill what is left, then a
 *   stopped /bin/hello as the sign it is done: a spawn must have been
 *   refused (ELIMIT), with its tree's charge within LIMIT_TREE_BIN_BYTES
 *   (system.limits bin_bytes); then another tree (a second child) runs a
 *   copy of tester with 128 + 128 KiB of symbols that faults in
 *   fault_null, whose report must name it (kholes.t checks the log).
 *   Before, the attacker's pinned images took the whole cache budget and
 *   the victim's image ran without symbols.
 *
 *   tester kholes-fault        (in a patched image) fault in the function
 *                              whose name kholes patches
 *   tester kholes-flood N      the bincache child: spawn N crafted images
 *   tester kholes-hog          the bintree attacker: pin images until a
 *                              spawn fails, then sleep
 *   tester kholes-victim       the bintree victim: run tester's image as
 *                              /bin/kholes-victim, faulting; exit 0 if it
 *                              was killed for the fault
 */
#include <abi/limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tap.h>
#include <vernier.h>
#include <lib/elf.h>

#include "tester.h"

#define KHOLES_IMAGES 24
#define KHOLES_SYMTAB (43690u * 24)  /* about 1 MiB of elf64_sym_t */
#define KHOLES_STRTAB (1u << 20)
#define KHOLES_SLACK (512u << 10)    /* heap pages, task structures */
#define KHOLES_HOG_SYMTAB (21845u * 24)  /* about 512 KiB of elf64_sym_t */
#define KHOLES_HOG_STRTAB (512u << 10)
#define KHOLES_HOG_MAX 16            /* images the attacker tries (the bound stops it at 3) */
#define KHOLES_FILL_SYMTAB (512u * 24)   /* the attacker's small images */
#define KHOLES_FILL_STRTAB (8u << 10)
#define KHOLES_FILL_MAX 128
#define KHOLES_VICTIM_SYMTAB (5461u * 24)  /* the victim's image: about 128 KiB */
#define KHOLES_VICTIM_STRTAB (128u << 10)
#define KHOLES_HOG_POLLS 6000        /* 10 ms each: a minute */
#define KHOLES_VICTIM "kholes_forged_symbol_victim"
#define KHOLES_FORGED "k\nsmp: FAKE LINE symbol"

static int *volatile kholes_null;

void kholes_forged_symbol_victim(void);

/* The function whose name kholes replaces by KHOLES_FORGED: it faults. */
__attribute__((noinline, noipa)) void kholes_forged_symbol_victim(void)
{
	*kholes_null = 1;
}

int cmd_kholes_fault(int argc, char **argv)
{
	kholes_forged_symbol_victim();
	return 1;
}

/* A whole file read into memory (8-aligned, extra spare bytes); NULL if not. */
static uint8_t *kholes_read(const char *path, size_t extra, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n = -1;

	if (f && fseek(f, 0, SEEK_END) == 0)
		n = ftell(f);
	if (n > 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = calloc(1, (size_t)n + extra)) &&
	    fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (f)
		fclose(f);
	*size = n > 0 ? (size_t)n : 0;
	return buf;
}

/* Spawn image (or path from the initrd) with argv, no permissions. */
static errno_t kholes_spawn(const char *path, const uint8_t *image, size_t size,
			    const char *const *argv, unsigned flags, task_id_t *id)
{
	spawn_args_t a = { .path = path, .argv = argv, .image = image,
			   .image_size = size, .flags = flags };

	return sys_spawn_args(&a, id);
}

/* Wait for id; its status, or -1. */
static int kholes_wait(task_id_t id)
{
	int status = -1;

	return sys_wait(id, &status, 0, NULL) == EOK ? status : -1;
}

static void kholes_names(const uint8_t *tester, size_t size)
{
	static const char *const argv[] = { "tester", "fault", "null", NULL };
	task_id_t id;

	errno_t rc = kholes_spawn("/bin/tes\nsmp: FAKE LINE from a path", NULL, 0, argv, 0, &id);
	if (rc == EOK)
		kholes_wait(id);
	tap_ok(rc == EINVAL, "names: an initrd path with a newline is refused (%d)", rc);
	rc = kholes_spawn("/tmp/k\nsmp: FAKE LINE from a name", tester, size, argv, 0, &id);
	if (rc == EOK)
		kholes_wait(id);              /* its fault report forged a line */
	tap_ok(rc == EINVAL, "names: an image path with a newline is refused (%d)", rc);
	rc = kholes_spawn("/tmp/k\x1b[2Jx", tester, size, argv, 0, &id);
	if (rc == EOK)
		kholes_wait(id);
	tap_ok(rc == EINVAL, "names: a path with an escape sequence is refused (%d)", rc);
}

/* Replace KHOLES_VICTIM in image's string table by KHOLES_FORGED. */
static bool kholes_patch_symbol(uint8_t *image, size_t size)
{
	const elf64_shdr_t *sym, *str;
	size_t n = strlen(KHOLES_VICTIM);

	if (elf_find_symtab(image, size, &sym, &str) != EOK)
		return false;
	char *s = (char *)image + str->sh_offset;
	for (size_t i = 1; i + n < str->sh_size; i++)
		if (s[i - 1] == '\0' && s[i + n] == '\0' && !memcmp(s + i, KHOLES_VICTIM, n)) {
			memset(s + i, 0, n);
			memcpy(s + i, KHOLES_FORGED, strlen(KHOLES_FORGED));
			return true;
		}
	return false;
}

static void kholes_symbols(uint8_t *tester, size_t size)
{
	static const char *const argv[] = { "tester", "kholes-fault", NULL };
	bool patched = kholes_patch_symbol(tester, size);
	task_id_t id;
	errno_t rc = patched ? kholes_spawn("/bin/tester", tester, size, argv, 0, &id) : ENOENT;
	int status = rc == EOK ? kholes_wait(id) : -1;

	tap_ok(patched, "symbols: %s found in the string table", KHOLES_VICTIM);
	printf("# expect forged symbol report\n");
	tap_ok(rc == EOK && status == (TASK_STATUS_KILLED | KILL_REASON_FAULT),
	       "symbols: the image with a newline in a symbol ran and was killed for its "
	       "fault (spawn %d, status %#x)", rc, status);
}

/* Free memory in bytes (sysinfo system.physmem), 0 if unread. */
static uint64_t kholes_free(void)
{
	sysinfo_physmem_t m;
	size_t got;

	if (sys_sysinfo_data("system.physmem", &m, sizeof(m), &got) != EOK || got != sizeof(m))
		return 0;
	return m.free;
}

static void kholes_bincache(void)
{
	char n[16];
	const char *argv[] = { "tester", "kholes-flood", n, NULL };
	uint64_t limit = 0, bytes = ~0ull, entries = 0;
	task_id_t id;

	snprintf(n, sizeof(n), "%u", KHOLES_IMAGES);
	uint64_t before = kholes_free();
	errno_t rc = kholes_spawn("/bin/tester", NULL, 0, argv, 0, &id);
	int status = rc == EOK ? kholes_wait(id) : -1;
	uint64_t after = kholes_free();
	tap_ok(status == 0, "bincache: a child spawned %u images with %u KiB of symbols each "
	       "(spawn %d, status %#x)", KHOLES_IMAGES, (KHOLES_SYMTAB + KHOLES_STRTAB) >> 10,
	       rc, status);
	sys_sysinfo_int("system.bincache.limit", &limit);
	sys_sysinfo_int("system.bincache.bytes", &bytes);
	sys_sysinfo_int("system.bincache.entries", &entries);
	tap_ok(limit && bytes <= limit, "bincache: the cache holds %llu of at most %llu KiB "
	       "(%llu entries)", (unsigned long long)bytes >> 10,
	       (unsigned long long)limit >> 10, (unsigned long long)entries);
	uint64_t lost = before > after ? before - after : 0;
	tap_ok(before && after && lost <= limit + KHOLES_SLACK,
	       "bincache: free memory came back after the spawner exited but for the cache "
	       "(%llu KiB fewer; the cache's bound %llu KiB)", (unsigned long long)lost >> 10,
	       (unsigned long long)limit >> 10);
}

/* Task id's system.limits record (zeros if unread). */
static sysinfo_limits_t kholes_limits(task_id_t id)
{
	sysinfo_limits_t r = { 0 };
	char path[48];
	size_t got;

	snprintf(path, sizeof(path), "system.limits.%llu", (unsigned long long)id);
	if (sys_sysinfo_data(path, &r, sizeof(r), &got) != EOK || got != sizeof(r))
		memset(&r, 0, sizeof(r));
	return r;
}

/*
 * Count the children of parent (named name, if not NULL), killing them
 * if kill (PERM_KILL: they are not ours).
 */
static unsigned kholes_children(task_id_t parent, const char *name, bool kill)
{
	static sysinfo_task_t tasks[512];
	size_t got = 0;
	unsigned n = 0;

	if (sys_sysinfo_data("system.tasks", tasks, sizeof(tasks), &got) != EOK)
		return 0;
	for (size_t i = 0; i < got / sizeof(tasks[0]); i++) {
		if (tasks[i].parent != parent || (name && strcmp(tasks[i].name, name)))
			continue;
		n++;
		if (kill)
			sys_kill(tasks[i].id);
	}
	return n;
}

/* Wait until the attacker is done (its stopped hello), then its limits. */
static sysinfo_limits_t kholes_hog_done(task_id_t hog)
{
	for (int i = 0; i < KHOLES_HOG_POLLS && !kholes_children(hog, "hello", false); i++)
		sys_sleep_ns(10 * 1000000ull);
	return kholes_limits(hog);
}

static void kholes_bintree(void)
{
	static const char *const hog_argv[] = { "tester", "kholes-hog", NULL };
	static const char *const victim_argv[] = { "tester", "kholes-victim", NULL };
	task_id_t hog, victim;
	errno_t rc = kholes_spawn("/bin/tester", NULL, 0, hog_argv, 0, &hog);
	sysinfo_limits_t r = rc == EOK ? kholes_hog_done(hog) : (sysinfo_limits_t){ 0 };

	tap_ok(rc == EOK && r.bin_denied > 0 && r.bin_bytes > 0 &&
	       r.bin_bytes <= LIMIT_TREE_BIN_BYTES && r.bin_tree == hog,
	       "bintree: an unprivileged tree's images stop at its bound with ELIMIT "
	       "(%llu refused, %u of %u KiB charged to tree %llu)",
	       (unsigned long long)r.bin_denied, r.bin_bytes >> 10, LIMIT_TREE_BIN_BYTES >> 10,
	       (unsigned long long)r.bin_tree);
	printf("# expect a fault report of kholes-victim naming fault_null\n");
	errno_t rv = kholes_spawn("/bin/tester", NULL, 0, victim_argv, 0, &victim);
	int status = rv == EOK ? kholes_wait(victim) : -1;
	tap_ok(status == 0, "bintree: another tree's image ran and was killed for its fault "
	       "(spawn %d, status %#x)", rv, status);
	if (rc == EOK) {
		kholes_children(hog, NULL, true);
		sys_kill(hog);
		kholes_wait(hog);
	}
}

int cmd_kholes(int argc, char **argv)
{
	size_t size;
	uint8_t *tester = kholes_read("/bin/tester", 0, &size);

	tap_plan(11);
	tap_ok(tester != NULL, "read /bin/tester (%zu bytes)", size);
	kholes_names(tester, size);
	if (tester)
		kholes_symbols(tester, size);
	else
		tap_ok(0, "symbols: no image"), tap_ok(0, "symbols: no image");
	free(tester);
	kholes_bincache();
	kholes_bintree();
	return tap_end();
}

/*
 * The program at path read into memory with symtab bytes of symbols (its
 * own, then empty ones) and strtab of strings (its own, then NULs) after
 * it, its section headers pointing there; *size the whole.
 */
static uint8_t *kholes_crafted(const char *path, size_t symtab, size_t strtab, size_t *size)
{
	size_t n, at;
	uint8_t *img = kholes_read(path, symtab + strtab + 8, &n);
	const elf64_shdr_t *sym, *str;

	if (!img || elf_find_symtab(img, n, &sym, &str) != EOK ||
	    sym->sh_size > symtab || str->sh_size > strtab) {
		free(img);
		return NULL;
	}
	at = (n + 7) & ~(size_t)7;
	memcpy(img + at, img + sym->sh_offset, sym->sh_size);
	memcpy(img + at + symtab, img + str->sh_offset, str->sh_size);
	elf64_shdr_t *s = (elf64_shdr_t *)sym, *t = (elf64_shdr_t *)str;
	s->sh_offset = at;
	s->sh_size = symtab;
	t->sh_offset = at + symtab;
	t->sh_size = strtab;
	*size = at + symtab + strtab;
	return img;
}

int cmd_kholes_flood(int argc, char **argv)
{
	static const char *const hello[] = { "hello", NULL };
	unsigned long n;
	size_t size = 0;

	if (argc != 2 || parse_ulong(argv[1], 1, 512, &n)) {
		usage(0);
		return 2;
	}
	uint8_t *img = kholes_crafted("/bin/hello", KHOLES_SYMTAB, KHOLES_STRTAB, &size);
	if (!img)
		return 3;
	for (uint64_t i = 0; i < n; i++) {
		task_id_t id;
		memcpy(img + size - KHOLES_STRTAB / 2, &i, sizeof(i));   /* a distinct image */
		errno_t rc = kholes_spawn("/bin/hello", img, size, hello, SPAWN_F_STOPPED, &id);
		if (rc == EOK)
			rc = sys_kill(id);
		if (rc == EOK)
			rc = sys_wait(id, NULL, 0, NULL);
		if (rc != EOK) {
			printf("tester: kholes-flood: image %llu: error %d\n",
			       (unsigned long long)i, rc);
			return 1;
		}
	}
	free(img);
	return 0;
}

/*
 * Pin up to max distinct hello images with symtab + strtab bytes of
 * symbols (spawned stopped, numbered from *seq) until a spawn fails.
 */
static void kholes_pin(size_t symtab, size_t strtab, unsigned max, uint64_t *seq)
{
	static const char *const hello[] = { "hello", NULL };
	size_t size = 0;
	uint8_t *img = kholes_crafted("/bin/hello", symtab, strtab, &size);
	errno_t rc = img ? EOK : ENOMEM;
	unsigned n = 0;

	for (; n < max && rc == EOK; n++, (*seq)++) {
		task_id_t id;
		memcpy(img + size - strtab / 2, seq, sizeof(*seq));   /* a distinct image */
		rc = kholes_spawn("/bin/kholes-hog", img, size, hello, SPAWN_F_STOPPED, &id);
	}
	free(img);
	printf("# kholes-hog: %u images of %zu KiB of symbols pinned, then %d\n",
	       rc == EOK ? n : n - 1, (symtab + strtab) >> 10, rc);
}

int cmd_kholes_hog(int argc, char **argv)
{
	static const char *const hello[] = { "hello", NULL };
	uint64_t seq = 0;
	task_id_t id;

	kholes_pin(KHOLES_HOG_SYMTAB, KHOLES_HOG_STRTAB, KHOLES_HOG_MAX, &seq);
	kholes_pin(KHOLES_FILL_SYMTAB, KHOLES_FILL_STRTAB, KHOLES_FILL_MAX, &seq);
	kholes_spawn("/bin/hello", NULL, 0, hello, SPAWN_F_STOPPED, &id);   /* done */
	for (;;)
		sys_sleep_ns(UINT64_MAX);    /* its stopped tasks pin the images; kholes ends them */
	return 0;
}

int cmd_kholes_victim(int argc, char **argv)
{
	static const char *const fault[] = { "tester", "fault", "null", NULL };
	size_t size = 0;
	uint8_t *tester = kholes_crafted("/bin/tester", KHOLES_VICTIM_SYMTAB, KHOLES_VICTIM_STRTAB,
					 &size);
	task_id_t id;
	errno_t rc = tester ? kholes_spawn("/bin/kholes-victim", tester, size, fault, 0, &id)
			    : ENOENT;
	int status = rc == EOK ? kholes_wait(id) : -1;

	free(tester);
	return status == (TASK_STATUS_KILLED | KILL_REASON_FAULT) ? 0 : 1;
}
