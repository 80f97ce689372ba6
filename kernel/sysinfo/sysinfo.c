/*
 * sysinfo: the tree of system information and its system calls (see
 * abi/sysinfo.h). Static nodes are a table of dotted paths; the tables
 * under system.tasks, system.threads and system.exceptions have one
 * child per entry, found by parsing the last component. Data is built in
 * a kernel buffer (kernel/sysinfo/nodes.c) and copied out whole or not at
 * all.
 */
#include <abi/sysinfo.h>
#include <kernel/binary.h>
#include <kernel/failinj.h>
#include <kernel/harden.h>
#include <kernel/vm.h>
#include <kernel/sysimpl.h>
#include <kernel/sysinfo.h>
#include <kernel/vm_space.h>
#include <lib/string.h>

/* A node: its type and how to read it. */
typedef struct si_node {
	const char *path;
	unsigned type;
	uint64_t (*get_int)(void);
	errno_t (*get_data)(si_buf_t *b, uint64_t arg);
	errno_t (*children)(si_buf_t *b);   /* dynamic children's names */
	errno_t (*child_data)(si_buf_t *b, uint64_t id);
} si_node_t;

static const si_node_t si_nodes[] = {
	{ "kernel.version", SYSINFO_DATA, NULL, si_kernel_version, NULL, NULL },
	{ "kernel.build", SYSINFO_DATA, NULL, si_kernel_build, NULL, NULL },
	{ "boot.cmdline", SYSINFO_DATA, NULL, si_boot_cmdline, NULL, NULL },
	{ "system.tsc_hz", SYSINFO_INT, si_tsc_hz, NULL, NULL, NULL },
	{ "system.uptime", SYSINFO_INT, si_uptime, NULL, NULL, NULL },
	{ "system.cycles", SYSINFO_INT, si_cycles, NULL, NULL, NULL },
	{ "system.acct_entry_cycles", SYSINFO_INT, si_acct_entry, NULL, NULL, NULL },
	{ "system.platform", SYSINFO_INT, si_platform, NULL, NULL, NULL },
	{ "system.hardening", SYSINFO_INT, harden_flags, NULL, NULL, NULL },
	{ "system.cpus", SYSINFO_DATA, NULL, si_cpus, NULL, NULL },
	{ "system.physmem", SYSINFO_DATA, NULL, si_physmem, NULL, NULL },
	{ "system.load", SYSINFO_DATA, NULL, si_load, NULL, NULL },
	{ "system.tasks", SYSINFO_DATA, NULL, si_tasks, si_task_ids, si_task },
	{ "system.threads", SYSINFO_DATA, NULL, si_threads, si_thread_ids, si_thread },
	{ "system.exceptions", SYSINFO_DATA, NULL, si_vectors, si_vector_ids, si_vector },
	{ "system.syscalls", SYSINFO_DATA, NULL, si_syscalls, NULL, NULL },
	{ "system.ipc.pairs", SYSINFO_DATA, NULL, si_ipc_pairs, NULL, NULL },
	{ "system.profiler", SYSINFO_DATA, NULL, si_profiler, NULL, NULL },
	{ "system.profiler.sources", SYSINFO_DATA, NULL, si_prof_sources, NULL, NULL },
	{ "system.limits", SYSINFO_DATA, NULL, si_limits, si_task_ids, si_limit },
	{ "system.memory", SYSINFO_DATA, NULL, si_memory, NULL, NULL },
	{ "system.bincache.entries", SYSINFO_INT, binary_cache_entries, NULL, NULL, NULL },
	{ "system.bincache.bytes", SYSINFO_INT, binary_cache_bytes, NULL, NULL, NULL },
	{ "system.bincache.limit", SYSINFO_INT, binary_cache_limit, NULL, NULL, NULL },
	{ "failinj.injected", SYSINFO_INT, failinj_injected, NULL, NULL, NULL },
	{ "failinj.reached", SYSINFO_INT, failinj_reached, NULL, NULL, NULL },
	{ "failinj.absorbed", SYSINFO_INT, failinj_absorbed, NULL, NULL, NULL },
	{ "failinj.other", SYSINFO_INT, failinj_other, NULL, NULL, NULL },
};

#define SI_NODES (sizeof(si_nodes) / sizeof(si_nodes[0]))

/* ---------------------------------------------------------------- buffers */

errno_t si_put(si_buf_t *b, const void *data, size_t len)
{
	if (b->len + len > b->cap) {
		size_t cap = MAX(b->cap * 2, b->len + len);
		char *n = kmalloc(cap);
		if (!n)
			return ENOMEM;
		memcpy(n, b->data, b->len);
		kfree(b->data);
		b->data = n;
		b->cap = cap;
	}
	memcpy(b->data + b->len, data, len);
	b->len += len;
	return EOK;
}

errno_t si_reserve(si_buf_t *b, size_t cap)
{
	if (cap <= b->cap)
		return EOK;
	char *n = kmalloc(cap);
	if (!n)
		return ENOMEM;
	memcpy(n, b->data, b->len);
	kfree(b->data);
	b->data = n;
	b->cap = cap;
	return EOK;
}

/* ---------------------------------------------------------------- lookup */

/* A parsed path: the node it names, and for table children the id. */
typedef struct si_ref {
	const si_node_t *node;       /* NULL: an inner node (or nothing) */
	bool child;                  /* a table entry: node's child id */
	uint64_t id;
} si_ref_t;

/* Whether prefix names an inner node ("" or a proper prefix of a path). */
static bool si_is_inner(const char *prefix)
{
	size_t n = strlen(prefix);

	for (size_t i = 0; i < SI_NODES; i++)
		if (n == 0 || (!strncmp(si_nodes[i].path, prefix, n) &&
			       si_nodes[i].path[n] == '.'))
			return true;
	return false;
}

/* Parse the decimal id of s (all of it); false if it is not one. */
static bool si_parse_id(const char *s, uint64_t *id)
{
	*id = 0;
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || *id > UINT64_MAX / 10)
			return false;
		*id = *id * 10 + (uint64_t)(*s - '0');
	}
	return true;
}

/* Find path: EOK with *ref filled, or ENOENT. */
static errno_t si_lookup(const char *path, si_ref_t *ref)
{
	*ref = (si_ref_t){ NULL, false, 0 };
	for (size_t i = 0; i < SI_NODES; i++) {
		const si_node_t *n = &si_nodes[i];
		size_t len = strlen(n->path);
		if (!strcmp(n->path, path)) {
			ref->node = n;
			return EOK;
		}
		if (n->child_data && !strncmp(n->path, path, len) && path[len] == '.' &&
		    si_parse_id(path + len + 1, &ref->id)) {
			ref->node = n;
			ref->child = true;
			return EOK;
		}
	}
	return si_is_inner(path) ? EOK : ENOENT;
}

/* ----------------------------------------------------------------- keys */

/* Whether name (len bytes) is among the '\0'-ended names in b. */
static bool si_has_key(const si_buf_t *b, const char *name, size_t len)
{
	for (size_t at = 0; at < b->len; at += strlen(b->data + at) + 1)
		if (strlen(b->data + at) == len && !memcmp(b->data + at, name, len))
			return true;
	return false;
}

/* The static children of inner node prefix, once each. */
static errno_t si_static_keys(const char *prefix, si_buf_t *b)
{
	size_t n = strlen(prefix);
	errno_t rc = EOK;

	for (size_t i = 0; i < SI_NODES && rc == EOK; i++) {
		const char *p = si_nodes[i].path;
		if (n && (strncmp(p, prefix, n) || p[n] != '.'))
			continue;
		const char *name = n ? p + n + 1 : p;
		const char *dot = strchr(name, '.');
		size_t len = dot ? (size_t)(dot - name) : strlen(name);
		if (!si_has_key(b, name, len) && (rc = si_put(b, name, len)) == EOK)
			rc = si_put(b, "", 1);
	}
	return rc;
}

/* The names of path's children into b. */
static errno_t si_keys(const char *path, si_buf_t *b)
{
	si_ref_t ref;
	errno_t rc = si_lookup(path, &ref);

	if (rc != EOK || ref.child)
		return rc;
	if (ref.node)
		return ref.node->children ? ref.node->children(b) : EOK;
	return si_static_keys(path, b);
}

/* ---------------------------------------------------------------- reads */

static unsigned si_type(const si_ref_t *ref)
{
	return ref->node ? ref->node->type : SYSINFO_NONE;
}

/* Build the data of ref into b. */
static errno_t si_data(const si_ref_t *ref, si_buf_t *b)
{
	if (si_type(ref) != SYSINFO_DATA)
		return EINVAL;
	if (ref->child)
		return ref->node->child_data(b, ref->id);
	return ref->node->get_data(b, 0);
}

/* ------------------------------------------------------- system calls */

/* Copy the user path in; EOK, EFAULT, or ENOENT (too long for a key). */
static errno_t si_path_in(uint64_t upath, char *path)
{
	errno_t rc = copy_string_from_user(path, (const char *)upath, SYSINFO_PATH_MAX);

	return rc == EFAULT ? EFAULT : rc != EOK ? ENOENT : EOK;
}

/*
 * Answer a keys or data read: b's bytes to ubuf if they fit in size, and
 * their count to *uneeded either way (ENOMEM if they did not fit).
 */
static int64_t si_copy_out(si_buf_t *b, uint64_t ubuf, uint64_t size,
			   uint64_t uneeded)
{
	uint64_t needed = b->len;

	if (copy_to_user((void *)uneeded, &needed, sizeof(needed)) != EOK)
		return -EFAULT;
	if (b->len > size)
		return -ENOMEM;
	if (b->len && copy_to_user((void *)ubuf, b->data, b->len) != EOK)
		return -EFAULT;
	return (int64_t)b->len;
}

/* The shared body of SYS_SYSINFO_KEYS and SYS_SYSINFO_DATA. */
static int64_t si_read(uint64_t upath, uint64_t ubuf, uint64_t size,
		       uint64_t uneeded, bool keys)
{
	char path[SYSINFO_PATH_MAX];
	si_buf_t b = { NULL, 0, 0 };
	si_ref_t ref;
	uint64_t zero = 0;

	if (copy_to_user((void *)uneeded, &zero, sizeof(zero)) != EOK ||
	    (size && !user_range_ok(ubuf, size)))
		return -EFAULT;
	errno_t rc = si_path_in(upath, path);
	if (rc == EOK)
		rc = keys ? si_keys(path, &b)
			  : (rc = si_lookup(path, &ref)) == EOK ? si_data(&ref, &b) : rc;
	int64_t r = rc == EOK ? si_copy_out(&b, ubuf, size, uneeded) : -rc;
	kfree(b.data);
	return r;
}

int64_t sys_sysinfo_keys(SYSCALL_ARGS)
{
	return si_read(a0, a1, a2, a3, true);
}

int64_t sys_sysinfo_data(SYSCALL_ARGS)
{
	return si_read(a0, a1, a2, a3, false);
}

int64_t sys_sysinfo_type(SYSCALL_ARGS)
{
	char path[SYSINFO_PATH_MAX];
	si_ref_t ref;
	errno_t rc = si_path_in(a0, path);

	if (rc == EOK)
		rc = si_lookup(path, &ref);
	return rc == EOK ? (int64_t)si_type(&ref) : -rc;
}

int64_t sys_sysinfo_int(SYSCALL_ARGS)
{
	char path[SYSINFO_PATH_MAX];
	si_ref_t ref;
	uint64_t value;
	errno_t rc = si_path_in(a0, path);

	if (rc == EOK)
		rc = si_lookup(path, &ref);
	if (rc == EOK && si_type(&ref) != SYSINFO_INT)
		rc = EINVAL;
	if (rc != EOK)
		return -rc;
	value = ref.node->get_int();
	return copy_to_user((void *)a1, &value, sizeof(value)) == EOK ? 0 : -EFAULT;
}
