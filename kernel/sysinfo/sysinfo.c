/*
 * sysinfo: the tree of system information and its system calls (see
 * abi/sysinfo.h). The nodes are the subsystems' own (kernel/sysinfo.h):
 * registered at boot from the .sysinfo_nodes section, sorted by rank and
 * sealed before user space starts. The tables (system.tasks and the
 * like) have one child per entry, found by parsing the last component.
 * Data is built in a kernel buffer and copied out whole or not at all.
 */
#include <abi/sysinfo.h>
#include <kernel/printk.h>
#include <kernel/sysimpl.h>
#include <kernel/sysinfo.h>
#include <kernel/vm.h>
#include <kernel/vm_space.h>
#include <lib/string.h>

#define LOG_PREFIX "sysinfo"

static si_registry_t si_live;        /* the tree; sealed before user space */

#define SI_NODES (si_live.count)
#define SI_NODE(i) (si_live.nodes[i])

/* -------------------------------------------------------------- registry */

/* Whether c may be in a path's component. */
static bool si_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* Whether path is components of [a-z0-9_] joined by single dots. */
static bool si_path_ok(const char *path)
{
	size_t len = strlen(path);
	bool start = true;                   /* at a component's start */

	if (len == 0 || len >= SYSINFO_PATH_MAX)
		return false;
	for (const char *p = path; *p; p++) {
		if (*p == '.' ? start : !si_name_char(*p))
			return false;
		start = *p == '.';
	}
	return !start;
}

/* Whether n can be read as its type says. */
static bool si_node_ok(const si_node_t *n)
{
	if (n->type == SYSINFO_INT)
		return n->get_int && !n->get_data && !n->children && !n->child_data;
	return n->type == SYSINFO_DATA && n->get_data && !n->get_int &&
	       !n->child_data == !n->children;
}

/* r's node of path, or NULL. */
static const si_node_t *si_registry_find(const si_registry_t *r, const char *path)
{
	for (size_t i = 0; i < r->count; i++)
		if (!strcmp(r->nodes[i]->path, path))
			return r->nodes[i];
	return NULL;
}

/* Why r refuses n (EOK: it takes it). */
static errno_t si_refusal(const si_registry_t *r, const si_node_t *n)
{
	if (r->sealed)
		return EPERM;
	if (!n->path || !si_path_ok(n->path) || !si_node_ok(n))
		return EINVAL;
	if (r->count == SYSINFO_NODES_MAX)
		return ENOSPC;
	return si_registry_find(r, n->path) ? EEXIST : EOK;
}

/* Insert n into r by rank unless it is refused (logged); EOK or why not. */
errno_t si_registry_add(si_registry_t *r, const si_node_t *n)
{
	errno_t rc = si_refusal(r, n);
	size_t i = r->count;

	if (rc != EOK) {
		pr_warn("node \"%s\" refused (%s)", n->path ? n->path : "(null)",
			rc == EPERM ? "sealed" : rc == EEXIST ? "taken" :
			rc == ENOSPC ? "full" : "bad path or type");
		return rc;
	}
	for (; i > 0 && r->nodes[i - 1]->rank > n->rank; i--)
		r->nodes[i] = r->nodes[i - 1];
	r->nodes[i] = n;
	r->count++;
	return EOK;
}

/* si_registry_add to the kernel's tree (EPERM once sysinfo_init sealed it). */
errno_t sysinfo_register(const si_node_t *n)
{
	return si_registry_add(&si_live, n);
}

/* Every .sysinfo_nodes node into the tree, then seal it; before user space. */
void sysinfo_init(void)
{
	for (const si_node_t *n = __sysinfo_nodes_start; n < __sysinfo_nodes_end; n++)
		sysinfo_register(n);
	si_live.sealed = true;
}

/* The tree's node i in rank order, NULL past the last (sealed: no lock). */
const si_node_t *sysinfo_node_at(size_t i)
{
	return i < si_live.count ? si_live.nodes[i] : NULL;
}

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
		if (n == 0 || (!strncmp(SI_NODE(i)->path, prefix, n) &&
			       SI_NODE(i)->path[n] == '.'))
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
		const si_node_t *n = SI_NODE(i);
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
		const char *p = SI_NODE(i)->path;
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

/* Data node path into b, as SYS_SYSINFO_DATA builds it; EOK or why not. */
errno_t sysinfo_read(const char *path, si_buf_t *b)
{
	si_ref_t ref;
	errno_t rc = si_lookup(path, &ref);

	return rc == EOK ? si_data(&ref, b) : rc;
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
