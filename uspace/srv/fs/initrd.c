/*
 * The initrd (a USTAR archive the kernel maps read-only into us with
 * SYS_INITRD_MAP) as read-only nodes under "/".
 */
#include <lib/ustar.h>
#include <string.h>
#include <vernier.h>

#include "fs.h"

/* SYS_INITRD_MAP: the initrd's address and size (no libc wrapper yet). */
static errno_t initrd_map(const void **base, size_t *size)
{
	long r = __vernier_syscall(SYS_INITRD_MAP, (long)base, (long)size, 0, 0,
				   0, 0);
	return r < 0 ? (errno_t)-r : EOK;
}

/* The directory for the component at *p, creating it; advances *p. */
static errno_t dir_step(node_t **dir, const char **p)
{
	char name[FS_NAME_MAX + 1];
	const char *end = *p + strcspn(*p, "/");
	size_t n = (size_t)(end - *p);

	if (n == 0 || n > FS_NAME_MAX)
		return EINVAL;
	memcpy(name, *p, n);
	name[n] = '\0';
	*p = *end ? end + 1 : end;
	node_t *c = fs_child(*dir, name);
	if (c) {
		*dir = c;
		return c->type == FS_TYPE_DIR && c->ro ? EOK : EINVAL;
	}
	return fs_node_create(*dir, name, FS_TYPE_DIR, true, dir);
}

/* Add entry e (a file or directory) with its parent directories. */
static errno_t add_entry(const ustar_entry_t *e)
{
	node_t *dir = fs_root, *n;
	const char *p = e->name;

	while (strchr(p, '/') && p[strcspn(p, "/") + 1] != '\0')
		if (dir_step(&dir, &p) != EOK)
			return EINVAL;
	if (e->type == '5')
		return dir_step(&dir, &p);
	if (e->type != '0' || fs_child(dir, p))
		return EINVAL;             /* links, devices...: left out */
	errno_t rc = fs_node_create(dir, p, FS_TYPE_FILE, true, &n);
	if (rc == EOK) {
		n->rodata = e->data;
		n->size = e->size;
		n->mode = e->mode & 0555;
	}
	return rc;
}

errno_t fs_initrd_load(void)
{
	const void *base;
	size_t size, off = 0;
	ustar_entry_t e;
	errno_t rc = initrd_map(&base, &size);

	if (rc != EOK)
		return rc;
	while ((rc = ustar_next(base, size, &off, &e)) == EOK)
		add_entry(&e);            /* odd entries are skipped */
	return rc == ENOENT ? EOK : rc;
}
