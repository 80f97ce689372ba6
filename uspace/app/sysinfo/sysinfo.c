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

/*
 * A kind of data node: paths matching pattern (a trailing "#" stands for
 * a number) hold records of size bytes with these fields; size 0: text.
 * The field tables are generated from the records' row tables
 * (abi/record.h), never written here.
 */
typedef struct sysinfo_record {
	const char *pattern;
	size_t size;
	const record_field_t *fields;
} sysinfo_record_t;

#define FIELDS(ROWS, type) static const record_field_t type##_fields[] = RECORD_FIELDS(ROWS, type##_t)

FIELDS(SYSINFO_CPU_ROWS, sysinfo_cpu);
FIELDS(SYSINFO_PHYSMEM_ROWS, sysinfo_physmem);
FIELDS(SYSINFO_LOAD_ROWS, sysinfo_load);
FIELDS(SYSINFO_IPC_COUNTS_ROWS, sysinfo_ipc_counts);
FIELDS(SYSINFO_TASK_ROWS, sysinfo_task);
FIELDS(SYSINFO_LIMITS_ROWS, sysinfo_limits);
FIELDS(SYSINFO_THREAD_ROWS, sysinfo_thread);
FIELDS(SYSINFO_VECTOR_ROWS, sysinfo_vector);
FIELDS(SYSINFO_SYSCALL_ROWS, sysinfo_syscall);
FIELDS(SYSINFO_IPC_PAIR_ROWS, sysinfo_ipc_pair);
FIELDS(SYSINFO_PROFILER_ROWS, sysinfo_profiler);
FIELDS(PROF_SOURCE_DESC_ROWS, prof_source_desc);

/* The record of type T at paths matching pattern. */
#define RECORD(pattern, T) { pattern, sizeof(T##_t), T##_fields }

static const sysinfo_record_t records[] = {
	{ "kernel.version", 0, NULL },
	{ "kernel.build", 0, NULL },
	{ "boot.cmdline", 0, NULL },
	RECORD("system.cpus", sysinfo_cpu),
	RECORD("system.physmem", sysinfo_physmem),
	RECORD("system.load", sysinfo_load),
	RECORD("system.profiler", sysinfo_profiler),
	RECORD("system.profiler.sources", prof_source_desc),
	RECORD("system.tasks", sysinfo_task),
	RECORD("system.tasks.#", sysinfo_task),
	RECORD("system.limits", sysinfo_limits),
	RECORD("system.limits.#", sysinfo_limits),
	RECORD("system.threads", sysinfo_thread),
	RECORD("system.threads.#", sysinfo_thread),
	RECORD("system.exceptions", sysinfo_vector),
	RECORD("system.exceptions.#", sysinfo_vector),
	RECORD("system.syscalls", sysinfo_syscall),
	RECORD("system.ipc.pairs", sysinfo_ipc_pair),
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
static uint32_t field_u32(const record_field_t *f, const unsigned char *rec)
{
	uint32_t v;

	memcpy(&v, rec + f->offset, sizeof(v));
	return v;
}

static uint64_t field_u64(const record_field_t *f, const unsigned char *rec)
{
	uint64_t v;

	memcpy(&v, rec + f->offset, sizeof(v));
	return v;
}

static void fields_print(const record_field_t *fields, const unsigned char *rec, bool first);

/* One field of the record at rec, as name=value (a nested record's each). */
static void field_print(const record_field_t *f, const unsigned char *rec)
{
	char buf[STATS_LOAD_BUF];

	if (f->kind == RECORD_NEST) {
		fields_print(f->fields, rec + f->offset, true);
		return;
	}
	printf("%s=", f->name);
	switch (f->kind) {
	case RECORD_U32: printf("%" PRIu32, field_u32(f, rec)); break;
	case RECORD_U64: printf("%" PRIu64, field_u64(f, rec)); break;
	case RECORD_HEX32: printf("%#" PRIx32, field_u32(f, rec)); break;
	case RECORD_TEXT: printf("\"%.*s\"", (int)f->size, (const char *)rec + f->offset); break;
	case RECORD_LOAD:
		printf("%s", stats_fmt_load(buf, sizeof(buf), field_u64(f, rec)));
		break;
	case RECORD_STATE:
		printf("%s", stats_thread_state(field_u32(f, rec)));
		break;
	default: printf("?"); break;
	}
}

/* The fields of the record at rec, space-separated (first: none before). */
static void fields_print(const record_field_t *fields, const unsigned char *rec, bool first)
{
	for (const record_field_t *f = fields; f->name; f++, first = false) {
		if (!first)
			putchar(' ');
		field_print(f, rec);
	}
}

/* Every record of len bytes at data, one a line. */
static void records_print(const sysinfo_record_t *r, const unsigned char *data,
			  size_t len)
{
	for (size_t at = 0; at + r->size <= len; at += r->size) {
		fields_print(r->fields, data + at, true);
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
