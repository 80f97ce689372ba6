/*
 * sysinfo: browse the kernel's sysinfo tree (abi/sysinfo.h).
 *
 *   sysinfo [-h] [PATH]
 *
 * For an inner node (default the root), the full dotted path of each
 * child, one a line. For an integer leaf, "PATH = VALUE". For a data leaf
 * of a known kind, its records decoded one a line as name=value pairs
 * (texts as "PATH = TEXT"); other data as a hex dump. A missing path is
 * an error (exit status 1).
 */
#include <abi/limits.h>
#include <abi/profile.h>
#include <ctype.h>
#include <getopt.h>
#include <inttypes.h>
#include <stats.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vernier.h>

/* How a record field is printed. */
typedef enum sysinfo_kind {
	KIND_U32,
	KIND_U64,
	KIND_HEX32,
	KIND_NAME,              /* char[SYSINFO_NAME_MAX], quoted */
	KIND_LOAD,              /* fixed point, as "0.42" */
	KIND_STATE,             /* a thread state, by name */
	KIND_SRCNAME,           /* char[PROF_SRC_NAME_MAX], quoted */
	KIND_SRCWHAT,           /* prof_source_desc_t's what, quoted */
} sysinfo_kind_t;

typedef struct sysinfo_field {
	const char *name;
	size_t off;
	sysinfo_kind_t kind;
} sysinfo_field_t;

/*
 * A kind of data node: paths matching pattern (a trailing "#" stands for
 * a number) hold records of size bytes with these fields; size 0: text.
 */
typedef struct sysinfo_record {
	const char *pattern;
	size_t size;
	const sysinfo_field_t *fields;
} sysinfo_record_t;

#define F(type, member, kind) { #member, offsetof(type, member), kind }
#define F_AS(name, type, member, kind) { name, offsetof(type, member), kind }

static const sysinfo_field_t cpu_fields[] = {
	F(sysinfo_cpu_t, id, KIND_U32),
	F(sysinfo_cpu_t, active, KIND_U32),
	F(sysinfo_cpu_t, mhz, KIND_U64),
	F(sysinfo_cpu_t, busy_cycles, KIND_U64),
	F(sysinfo_cpu_t, idle_cycles, KIND_U64),
	F(sysinfo_cpu_t, irq_cycles, KIND_U64),
	F(sysinfo_cpu_t, switches, KIND_U64),
	F(sysinfo_cpu_t, interrupts, KIND_U64),
	F(sysinfo_cpu_t, irqoff_max_cycles, KIND_U64),
	F(sysinfo_cpu_t, nmi_max_cycles, KIND_U64),
	{ NULL, 0, 0 },
};

static const sysinfo_field_t physmem_fields[] = {
	F(sysinfo_physmem_t, total, KIND_U64),
	F(sysinfo_physmem_t, unavailable, KIND_U64),
	F(sysinfo_physmem_t, used, KIND_U64),
	F(sysinfo_physmem_t, free, KIND_U64),
	{ NULL, 0, 0 },
};

static const sysinfo_field_t load_fields[] = {
	F_AS("avg1", sysinfo_load_t, avg[0], KIND_LOAD),
	F_AS("avg5", sysinfo_load_t, avg[1], KIND_LOAD),
	F_AS("avg15", sysinfo_load_t, avg[2], KIND_LOAD),
	F(sysinfo_load_t, runnable, KIND_U32),
	F(sysinfo_load_t, period_ms, KIND_U32),
	{ NULL, 0, 0 },
};

static const sysinfo_field_t task_fields[] = {
	F(sysinfo_task_t, id, KIND_U64),
	F(sysinfo_task_t, parent, KIND_U64),
	F(sysinfo_task_t, name, KIND_NAME),
	F(sysinfo_task_t, threads, KIND_U32),
	F(sysinfo_task_t, perms, KIND_HEX32),
	F(sysinfo_task_t, virt_bytes, KIND_U64),
	F(sysinfo_task_t, resident_bytes, KIND_U64),
	F(sysinfo_task_t, user_cycles, KIND_U64),
	F(sysinfo_task_t, kernel_cycles, KIND_U64),
	F_AS("calls_sent", sysinfo_task_t, ipc.calls_sent, KIND_U64),
	F_AS("calls_received", sysinfo_task_t, ipc.calls_received, KIND_U64),
	F_AS("answers_sent", sysinfo_task_t, ipc.answers_sent, KIND_U64),
	F_AS("answers_received", sysinfo_task_t, ipc.answers_received, KIND_U64),
	F_AS("irq_notifications", sysinfo_task_t, ipc.irq_notifications, KIND_U64),
	F_AS("forwarded", sysinfo_task_t, ipc.forwarded, KIND_U64),
	F(sysinfo_task_t, imposed_cycles, KIND_U64),
	F(sysinfo_task_t, served_cycles, KIND_U64),
	{ NULL, 0, 0 },
};

static const sysinfo_field_t limits_fields[] = {
	F(sysinfo_limits_t, task, KIND_U64),
	F(sysinfo_limits_t, tree, KIND_U64),
	F(sysinfo_limits_t, box_calls, KIND_U32),
	F_AS("box_calls_max", sysinfo_limits_t, limit[0], KIND_U32),
	F(sysinfo_limits_t, box_answers, KIND_U32),
	F_AS("box_answers_max", sysinfo_limits_t, limit[1], KIND_U32),
	F(sysinfo_limits_t, threads, KIND_U32),
	F_AS("threads_max", sysinfo_limits_t, limit[2], KIND_U32),
	F(sysinfo_limits_t, tree_tasks, KIND_U32),
	F_AS("tree_tasks_max", sysinfo_limits_t, limit[3], KIND_U32),
	F(sysinfo_limits_t, regions, KIND_U32),
	F_AS("regions_max", sysinfo_limits_t, limit[4], KIND_U32),
	F(sysinfo_limits_t, prof_sessions, KIND_U32),
	F_AS("prof_sessions_max", sysinfo_limits_t, limit[5], KIND_U32),
	F(sysinfo_limits_t, bin_bytes, KIND_U32),
	F_AS("bin_bytes_max", sysinfo_limits_t, limit[6], KIND_U32),
	F(sysinfo_limits_t, bin_tree, KIND_U64),
	F(sysinfo_limits_t, bin_denied, KIND_U64),
	{ NULL, 0, 0 },
};

static const sysinfo_field_t thread_fields[] = {
	F(sysinfo_thread_t, id, KIND_U64),
	F(sysinfo_thread_t, task, KIND_U64),
	F(sysinfo_thread_t, name, KIND_NAME),
	F(sysinfo_thread_t, state, KIND_STATE),
	F(sysinfo_thread_t, priority, KIND_U32),
	F(sysinfo_thread_t, cpu, KIND_U32),
	F(sysinfo_thread_t, on_cpu, KIND_U32),
	F(sysinfo_thread_t, user_cycles, KIND_U64),
	F(sysinfo_thread_t, kernel_cycles, KIND_U64),
	F(sysinfo_thread_t, switches, KIND_U64),
	F(sysinfo_thread_t, serving_origin, KIND_U64),
	F(sysinfo_thread_t, serving_method, KIND_U64),
	F(sysinfo_thread_t, wait_why, KIND_U32),
	F(sysinfo_thread_t, wait_task, KIND_U64),
	F(sysinfo_thread_t, wait_method, KIND_U64),
	F_AS("off_runnable", sysinfo_thread_t, off_cycles[WAIT_WHY_RUNNABLE], KIND_U64),
	F_AS("off_sleep", sysinfo_thread_t, off_cycles[WAIT_WHY_SLEEP], KIND_U64),
	F_AS("off_ipc", sysinfo_thread_t, off_cycles[WAIT_WHY_IPC], KIND_U64),
	F_AS("off_recv", sysinfo_thread_t, off_cycles[WAIT_WHY_RECV], KIND_U64),
	F_AS("off_join", sysinfo_thread_t, off_cycles[WAIT_WHY_JOIN], KIND_U64),
	F_AS("off_child", sysinfo_thread_t, off_cycles[WAIT_WHY_CHILD], KIND_U64),
	F_AS("off_wait", sysinfo_thread_t, off_cycles[WAIT_WHY_WAIT], KIND_U64),
	{ NULL, 0, 0 },
};

static const sysinfo_field_t vector_fields[] = {
	F(sysinfo_vector_t, vector, KIND_U32),
	F(sysinfo_vector_t, desc, KIND_NAME),
	F(sysinfo_vector_t, count, KIND_U64),
	F(sysinfo_vector_t, cycles, KIND_U64),
	{ NULL, 0, 0 },
};

static const sysinfo_field_t syscall_fields[] = {
	F(sysinfo_syscall_t, nr, KIND_U32),
	F(sysinfo_syscall_t, name, KIND_NAME),
	F(sysinfo_syscall_t, count, KIND_U64),
	F(sysinfo_syscall_t, cycles, KIND_U64),
	{ NULL, 0, 0 },
};

static const sysinfo_field_t pair_fields[] = {
	F(sysinfo_ipc_pair_t, origin, KIND_U64),
	F(sysinfo_ipc_pair_t, origin_name, KIND_NAME),
	F(sysinfo_ipc_pair_t, server, KIND_U64),
	F(sysinfo_ipc_pair_t, server_name, KIND_NAME),
	F(sysinfo_ipc_pair_t, cycles, KIND_U64),
	F(sysinfo_ipc_pair_t, calls, KIND_U64),
	{ NULL, 0, 0 },
};

static const sysinfo_field_t profiler_fields[] = {
	F(sysinfo_profiler_t, state, KIND_U32),
	F(sysinfo_profiler_t, source, KIND_U32),
	F(sysinfo_profiler_t, hz, KIND_U32),
	F(sysinfo_profiler_t, sessions, KIND_U32),
	F(sysinfo_profiler_t, system_sessions, KIND_U32),
	F(sysinfo_profiler_t, available, KIND_HEX32),
	F(sysinfo_profiler_t, samples, KIND_U64),
	F(sysinfo_profiler_t, lost, KIND_U64),
	F(sysinfo_profiler_t, throttled, KIND_U64),
	F(sysinfo_profiler_t, memory, KIND_U64),
	F(sysinfo_profiler_t, unrouted, KIND_U64),
	F(sysinfo_profiler_t, missed, KIND_U64),
	{ NULL, 0, 0 },
};

static const sysinfo_field_t source_fields[] = {
	F(prof_source_desc_t, id, KIND_U32),
	F(prof_source_desc_t, flags, KIND_HEX32),
	F(prof_source_desc_t, name, KIND_SRCNAME),
	F(prof_source_desc_t, what, KIND_SRCWHAT),
	{ NULL, 0, 0 },
};

static const sysinfo_record_t records[] = {
	{ "kernel.version", 0, NULL },
	{ "kernel.build", 0, NULL },
	{ "boot.cmdline", 0, NULL },
	{ "system.cpus", sizeof(sysinfo_cpu_t), cpu_fields },
	{ "system.physmem", sizeof(sysinfo_physmem_t), physmem_fields },
	{ "system.load", sizeof(sysinfo_load_t), load_fields },
	{ "system.profiler", sizeof(sysinfo_profiler_t), profiler_fields },
	{ "system.profiler.sources", sizeof(prof_source_desc_t), source_fields },
	{ "system.tasks", sizeof(sysinfo_task_t), task_fields },
	{ "system.tasks.#", sizeof(sysinfo_task_t), task_fields },
	{ "system.limits", sizeof(sysinfo_limits_t), limits_fields },
	{ "system.limits.#", sizeof(sysinfo_limits_t), limits_fields },
	{ "system.threads", sizeof(sysinfo_thread_t), thread_fields },
	{ "system.threads.#", sizeof(sysinfo_thread_t), thread_fields },
	{ "system.exceptions", sizeof(sysinfo_vector_t), vector_fields },
	{ "system.exceptions.#", sizeof(sysinfo_vector_t), vector_fields },
	{ "system.syscalls", sizeof(sysinfo_syscall_t), syscall_fields },
	{ "system.ipc.pairs", sizeof(sysinfo_ipc_pair_t), pair_fields },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: sysinfo [-h] [PATH]\n"
		"  list the keys under PATH (default: the root), or print the\n"
		"  leaf PATH: an integer, decoded records, or a hex dump\n");
}

/* The options and operand (into *path): -1 to go on, else the status. */
static int parse_args(int argc, char **argv, const char **path)
{
	int rc = getopt_help_only(argc, argv, usage, 0, 1);

	if (rc < 0 && optind < argc)
		*path = argv[optind++];
	return rc;
}

/* Report rc for path; returns 1 (the exit status). */
static int sysinfo_error(const char *path, errno_t rc)
{
	fprintf(stderr, "sysinfo: %s: %s\n", path, strerror(rc));
	return 1;
}

/* Whether path matches pattern (a trailing "#": one or more digits). */
static bool sysinfo_match(const char *pattern, const char *path)
{
	size_t n = strlen(pattern);

	if (n == 0 || pattern[n - 1] != '#')
		return !strcmp(pattern, path);
	if (strncmp(pattern, path, n - 1) != 0 || path[n - 1] == '\0')
		return false;
	for (path += n - 1; *path; path++)
		if (!isdigit((unsigned char)*path))
			return false;
	return true;
}

static const sysinfo_record_t *sysinfo_record_for(const char *path)
{
	for (size_t i = 0; i < sizeof(records) / sizeof(records[0]); i++)
		if (sysinfo_match(records[i].pattern, path))
			return &records[i];
	return NULL;
}

/* Each child of path, as a full path. */
static int sysinfo_list(const char *path)
{
	char *names;
	size_t len;
	errno_t rc = stats_keys(path, &names, &len);

	if (rc != EOK)
		return sysinfo_error(path, rc);
	for (const char *k = stats_key_next(names, len, NULL); k;
	     k = stats_key_next(names, len, k))
		printf("%s%s%s\n", path, path[0] ? "." : "", k);
	free(names);
	return 0;
}

static int sysinfo_int(const char *path)
{
	uint64_t v;
	errno_t rc = sys_sysinfo_int(path, &v);

	if (rc != EOK)
		return sysinfo_error(path, rc);
	printf("%s = %" PRIu64 "\n", path, v);
	return 0;
}

/* Field f of the record at rec as a 32- or 64-bit number. */
static uint32_t field_u32(const sysinfo_field_t *f, const unsigned char *rec)
{
	uint32_t v;

	memcpy(&v, rec + f->off, sizeof(v));
	return v;
}

static uint64_t field_u64(const sysinfo_field_t *f, const unsigned char *rec)
{
	uint64_t v;

	memcpy(&v, rec + f->off, sizeof(v));
	return v;
}

/* One field of the record at rec, as name=value. */
static void field_print(const sysinfo_field_t *f, const unsigned char *rec)
{
	const char *name = (const char *)rec + f->off;
	char buf[STATS_LOAD_BUF];

	printf("%s=", f->name);
	switch (f->kind) {
	case KIND_U32: printf("%" PRIu32, field_u32(f, rec)); break;
	case KIND_U64: printf("%" PRIu64, field_u64(f, rec)); break;
	case KIND_HEX32: printf("%#" PRIx32, field_u32(f, rec)); break;
	case KIND_NAME: printf("\"%.*s\"", SYSINFO_NAME_MAX, name); break;
	case KIND_SRCNAME: printf("\"%.*s\"", PROF_SRC_NAME_MAX, name); break;
	case KIND_SRCWHAT:
		printf("\"%.*s\"", (int)sizeof(((prof_source_desc_t *)0)->what), name);
		break;
	case KIND_LOAD:
		printf("%s", stats_fmt_load(buf, sizeof(buf), field_u64(f, rec)));
		break;
	case KIND_STATE:
		printf("%s", stats_thread_state(field_u32(f, rec)));
		break;
	}
}

/* Every record of len bytes at data, one a line. */
static void records_print(const sysinfo_record_t *r, const unsigned char *data,
			  size_t len)
{
	for (size_t at = 0; at + r->size <= len; at += r->size) {
		for (const sysinfo_field_t *f = r->fields; f->name; f++) {
			if (f != r->fields)
				putchar(' ');
			field_print(f, data + at);
		}
		putchar('\n');
	}
}

/* len bytes at data, 16 a line with offsets and characters. */
static void hex_dump(const unsigned char *data, size_t len)
{
	for (size_t at = 0; at < len; at += 16) {
		printf("%04zx:", at);
		for (size_t i = at; i < at + 16; i++) {
			if (i < len)
				printf(" %02x", data[i]);
			else
				printf("   ");
		}
		printf("  |");
		for (size_t i = at; i < at + 16 && i < len; i++)
			putchar(isprint(data[i]) ? data[i] : '.');
		printf("|\n");
	}
}

/* A data leaf: decoded if its kind is known, else in hex. */
static int sysinfo_data(const char *path)
{
	const sysinfo_record_t *r = sysinfo_record_for(path);
	void *data;
	size_t len;
	errno_t rc = stats_read(path, &data, &len);

	if (rc != EOK)
		return sysinfo_error(path, rc);
	if (r && r->size == 0)
		printf("%s = %.*s\n", path, (int)strnlen(data, len), (char *)data);
	else if (r && len % r->size == 0)
		records_print(r, data, len);
	else
		hex_dump(data, len);
	free(data);
	return 0;
}

/* Show path as its type says. */
static int sysinfo_show(const char *path)
{
	unsigned type = SYSINFO_NONE;
	errno_t rc = path[0] ? sys_sysinfo_type(path, &type) : EOK;

	if (rc != EOK)
		return sysinfo_error(path, rc);
	switch (type) {
	case SYSINFO_INT: return sysinfo_int(path);
	case SYSINFO_DATA: return sysinfo_data(path);
	default: return sysinfo_list(path);
	}
}

int main(int argc, char **argv)
{
	const char *path = "";
	int status = parse_args(argc, argv, &path);

	if (status >= 0)
		return status;
	return sysinfo_show(path);
}
