/*
 * The initrd and the cache of checked program images: a list in least
 * recently used order (the head is the oldest), each entry counting the
 * tasks that run it. binaries_lock guards the list, the counts, the bytes
 * and the flags; it nests no other lock (frees happen after it is
 * dropped).
 *
 * The cache is bounded by count (binary_max) and by the kernel memory
 * its entries hold (binary_budget bytes, BINARY_CACHE_SHARE of RAM): an
 * entry whose symbol copies do not fit once every unused entry that
 * could go has gone is cached without them (its task runs, its faults
 * show no symbol), so symbol copies never exceed the budget; entries
 * that running tasks pin may exceed binary_max (binary_inuse), entries
 * only named by sessions may not (ELIMIT). An entry no task runs and no
 * live session named goes as soon as the cache is over either bound.
 *
 * An entry of an image passed to SYS_SPAWN is also charged to the quota
 * tree of the task that spawned it (binquota.h, the account under
 * binaries_lock): a tree's entries hold at most LIMIT_TREE_BIN_BYTES, its
 * own unused ones go first to make room, and beyond that its spawn gets
 * ELIMIT, so one tree cannot fill the cache and evict everyone's symbols.
 * The account lives as long as the tree's tasks (each holds a reference);
 * when the last goes, its entries stay cached, charged to no one (no task
 * can spawn in that tree any more).
 */
#include <abi/limits.h>
#include <kernel/binary.h>
#include <kernel/binquota.h>
#include <kernel/bootinfo.h>
#include <kernel/printk.h>
#include <kernel/prof.h>
#include <kernel/spinlock.h>
#include <kernel/vm.h>
#include <kernel/vm_space.h>
#include <kernel/sysimpl.h>
#include <kernel/sysinfo.h>
#include <lib/string.h>
#include <lib/ustar.h>

#define LOG_PREFIX "initrd"

static const void *initrd;
static size_t initrd_size;
static list_t binaries = LIST_INIT(binaries);
static spinlock_t binaries_lock = SPINLOCK_INIT("binaries");
static size_t binary_count;
static size_t binary_max = BINARY_CACHE_MAX;
static size_t binary_bytes;                  /* held by cached entries */
static size_t binary_inuse;                  /* entries with refs (tasks run them) */
static size_t binary_budget = BINARY_BUDGET_MIN;

/* The cache's byte budget: BINARY_CACHE_SHARE of RAM, within bounds. */
static void binary_budget_init(void)
{
	size_t share = frame_stats().total * PAGE_SIZE / BINARY_CACHE_SHARE;

	binary_budget = MIN(MAX(share, BINARY_BUDGET_MIN), BINARY_BUDGET_MAX);
	pr_info("program cache: at most %zu entries, %zu KiB", binary_max, binary_budget >> 10);
}

void initrd_init(void)
{
	size_t off = 0, files = 0;
	ustar_entry_t e;

	for (size_t i = 0; i < boot_info.nmodules && !initrd; i++) {
		const boot_module_t *m = &boot_info.modules[i];
		if (strcmp(m->name, "initrd") && boot_info.nmodules > 1)
			continue;
		initrd = phys_to_virt(m->start);
		initrd_size = m->end - m->start;
	}
	if (!initrd) {
		pr_warn("no initrd module: no user programs");
		return;
	}
	while (ustar_next(initrd, initrd_size, &off, &e) == EOK)
		files += e.type == '0';
	pr_info("%zu KiB, %zu files", initrd_size >> 10, files);
	binary_budget_init();
}

errno_t initrd_find(const char *path, const void **data, size_t *size)
{
	ustar_entry_t e;

	if (!initrd || ustar_find(initrd, initrd_size, path, &e) != EOK)
		return ENOENT;
	*data = e.data;
	*size = e.size;
	return EOK;
}

static void binary_load_symbols(binary_t *b)
{
	const elf64_shdr_t *sym, *str;

	if (elf_find_symtab(b->image, b->size, &sym, &str) != EOK)
		return;
	elf64_sym_t *copy = kmalloc(sym->sh_size);
	if (!copy)
		return;
	memcpy(copy, (const char *)b->image + sym->sh_offset, sym->sh_size);
	const char *strings = b->strtab ? b->strtab
					: (const char *)b->image + str->sh_offset;
	b->have_syms = elfsym_prepare(&b->syms, copy, sym->sh_size / sizeof(*copy),
				      strings, str->sh_size) == EOK;
	if (!b->have_syms)
		kfree(copy);
	else
		b->bytes += kmalloc_size(copy);
}

/* Free b's symbol copies: it symbolizes nothing from now on. */
static void binary_drop_symbols(binary_t *b)
{
	if (b->have_syms)
		kfree(b->syms.syms);
	kfree(b->strtab);
	b->have_syms = false;
	b->strtab = NULL;
	b->bytes = kmalloc_size(b);
}

/* Does cached b match key (path; for a passed image also size and SHA-256)? */
static bool binary_matches(const binary_t *b, const binary_t *key)
{
	if (strcmp(b->path, key->path) || (b->hash != 0) != (key->hash != 0))
		return false;
	return !key->hash ||
	       (b->size == key->size && !memcmp(b->digest, key->digest, sizeof(b->digest)));
}

/*
 * The cached binary matching key, referenced and moved to the most
 * recently used end; NULL if none. binaries_lock held.
 */
static binary_t *binary_cached(const binary_t *key)
{
	list_foreach(&binaries, it) {
		binary_t *b = list_entry(it, binary_t, node);
		if (!binary_matches(b, key))
			continue;
		list_remove(&b->node);
		list_append(&binaries, &b->node);
		binary_inuse += b->refs++ == 0;
		return b;
	}
	return NULL;
}

/* Take cached b out of the list, the counts and its tree's charge. binaries_lock held. */
static void binary_unlink(binary_t *b)
{
	list_remove(&b->node);
	binary_count--;
	binary_bytes -= b->bytes;
	if (b->quota)
		binquota_uncharge(b->quota, b->bytes);
}

/*
 * Unlink the least recently used binary no task runs and no open
 * profiling session named, charged to q (NULL: any); NULL if none. With
 * no session open the named marks are cleared. binaries_lock held.
 */
static binary_t *binary_evictable(const binquota_t *q)
{
	bool sessions = prof_sessions_open();

	list_foreach(&binaries, it) {
		binary_t *b = list_entry(it, binary_t, node);
		if (!sessions)
			b->named = false;
		if (b->refs || b->named || (q && b->quota != q))
			continue;
		binary_unlink(b);
		return b;
	}
	return NULL;
}

/*
 * Unlink unused entries, least recently used first, onto gone until
 * extra more bytes and one more entry fit (or none is left to go).
 * Returns whether they fit. binaries_lock held.
 */
static bool binary_make_room(size_t extra, list_t *gone)
{
	while (binary_count + (extra > 0) > binary_max ||
	       binary_bytes + extra > binary_budget) {
		binary_t *victim = binary_evictable(NULL);
		if (!victim)
			return false;
		list_append(gone, &victim->node);
	}
	return true;
}

/*
 * Unlink q's unused entries, least recently used first, onto gone until
 * extra more bytes fit within q's bound. Whether they fit. binaries_lock held.
 */
static bool binary_make_tree_room(binquota_t *q, size_t extra, list_t *gone)
{
	while (!binquota_fits(q, extra)) {
		binary_t *victim = binary_evictable(q);
		if (!victim)
			return false;
		list_append(gone, &victim->node);
	}
	return true;
}

static errno_t binary_load(const char *path, binary_t **out)
{
	binary_t *b = kzalloc(sizeof(*b));

	if (!b)
		return ENOMEM;
	b->bytes = kmalloc_size(b);
	strlcpy(b->path, path, sizeof(b->path));
	if (initrd_find(path, &b->image, &b->size) != EOK) {
		kfree(b);
		return ENOENT;
	}
	if (elf_load_plan(b->image, b->size, USER_BASE, USER_MAP_BASE, &b->plan) != EOK) {
		kfree(b);
		return ENOEXEC;
	}
	binary_load_symbols(b);
	*out = b;
	return EOK;
}

/* Look b's key up; the cached one (referenced), or NULL. */
static binary_t *binary_lookup(const binary_t *key)
{
	uint64_t f = spin_lock_irqsave(&binaries_lock);
	binary_t *b = binary_cached(key);
	spin_unlock_irqrestore(&binaries_lock, f);
	return b;
}

static void binary_free(binary_t *b)
{
	binary_drop_symbols(b);
	kfree(b);
}

/* Free the entries binary_make_room unlinked (no lock held). */
static void binary_free_all(list_t *gone)
{
	list_foreach_safe(gone, it, tmp) {
		list_remove(it);
		binary_free(list_entry(it, binary_t, node));
	}
}

/*
 * Make room for new b, charged to q (or NULL), unlinking victims onto
 * gone: EOK, ELIMIT (q's bound, counted there; or binary_max entries no
 * task runs are all named by live sessions) or ENOSPC (its bytes do not
 * fit the budget and !over_ok). binaries_lock held.
 */
static errno_t binary_room(binary_t *b, binquota_t *q, list_t *gone, bool over_ok)
{
	if (q && !binary_make_tree_room(q, b->bytes, gone))
		return binquota_charge(q, b->bytes);     /* does not fit: ELIMIT, counted */
	if (binary_make_room(b->bytes, gone))
		return EOK;
	return binary_count - binary_inuse >= binary_max ? ELIMIT
	       : binary_bytes + b->bytes <= binary_budget || over_ok ? EOK : ENOSPC;
}

/* Link new b (one reference) into the cache, charged to q (or NULL). binaries_lock held. */
static void binary_link(binary_t *b, binquota_t *q)
{
	b->refs = 1;
	binary_inuse++;
	list_append(&binaries, &b->node);
	binary_count++;
	binary_bytes += b->bytes;
	if (q && binquota_charge(q, b->bytes) == EOK)   /* binary_room made room */
		b->quota = q;
}

/*
 * One try of binary_insert: cached (EOK), raced (EOK, *out the other
 * CPU's), or binary_room's ELIMIT or ENOSPC. Entries tasks run may exceed
 * binary_max: each is bounded by its tasks (LIMIT_TASK_TREE per tree) and
 * its tree's bytes, so one tree's tasks cannot lock everyone out of spawning.
 */
static errno_t binary_insert_try(binary_t *b, binquota_t *q, binary_t **out, list_t *gone,
				 bool over_ok)
{
	uint64_t f = spin_lock_irqsave(&binaries_lock);
	binary_t *raced = binary_cached(b);
	errno_t rc = raced ? EOK : binary_room(b, q, gone, over_ok);

	if (!raced && rc == EOK)
		binary_link(b, q);
	spin_unlock_irqrestore(&binaries_lock, f);
	*out = raced ? raced : b;
	return rc;
}

/*
 * Cache the new binary b (referenced), unless another CPU did meanwhile:
 * the cached one. Unused entries are evicted, least recently used first,
 * until it fits; if it does not fit even so, it is cached without its
 * symbols (beyond the bounds by its own structure at most). Charged to
 * q (NULL: none). EOK and *out, or ELIMIT (see binary_room; b freed
 * either way unless it is *out).
 */
static errno_t binary_insert(binary_t *b, binquota_t *q, binary_t **out)
{
	list_t gone = LIST_INIT(gone);
	errno_t rc = binary_insert_try(b, q, out, &gone, false);

	if (rc == ENOSPC) {
		binary_drop_symbols(b);
		rc = binary_insert_try(b, q, out, &gone, true);
	}
	binary_free_all(&gone);
	if (rc != EOK || *out != b)
		binary_free(b);
	return rc;
}

void binary_put(binary_t *b)
{
	list_t gone = LIST_INIT(gone);

	if (!b)
		return;
	uint64_t f = spin_lock_irqsave(&binaries_lock);
	binary_inuse -= --b->refs == 0;
	binary_make_room(0, &gone);          /* over a bound: unused entries go now */
	spin_unlock_irqrestore(&binaries_lock, f);
	binary_free_all(&gone);
}

void binary_mark_named(binary_t *b)
{
	uint64_t f = spin_lock_irqsave(&binaries_lock);
	b->named = true;
	spin_unlock_irqrestore(&binaries_lock, f);
}

size_t binary_cached_count(void)
{
	return __atomic_load_n(&binary_count, __ATOMIC_RELAXED);
}

uint64_t binary_cache_entries(void)
{
	return binary_cached_count();
}

uint64_t binary_cache_bytes(void)
{
	return __atomic_load_n(&binary_bytes, __ATOMIC_RELAXED);
}

uint64_t binary_cache_limit(void)
{
	return __atomic_load_n(&binary_budget, __ATOMIC_RELAXED);
}

/* system.bincache.*: the three figures above. */
SYSINFO_INT_NODE(bincache_entries, "system.bincache.entries", 280, binary_cache_entries);
SYSINFO_INT_NODE(bincache_bytes, "system.bincache.bytes", 281, binary_cache_bytes);
SYSINFO_INT_NODE(bincache_limit, "system.bincache.limit", 282, binary_cache_limit);

/* Set one of the cache's bounds under its lock; the old value. */
static size_t binary_set_bound(size_t *bound, size_t value)
{
	uint64_t f = spin_lock_irqsave(&binaries_lock);
	size_t old = *bound;

	*bound = value;
	spin_unlock_irqrestore(&binaries_lock, f);
	return old;
}

size_t binary_cache_set_budget(size_t bytes)
{
	return binary_set_bound(&binary_budget, bytes);
}

size_t binary_cache_set_max(size_t max)
{
	return binary_set_bound(&binary_max, max);
}

bool binary_path_cached(const char *path)
{
	bool found = false;
	uint64_t f = spin_lock_irqsave(&binaries_lock);

	list_foreach(&binaries, it)
		found |= !strcmp(list_entry(it, binary_t, node)->path, path);
	spin_unlock_irqrestore(&binaries_lock, f);
	return found;
}

errno_t binary_get(const char *path, binary_t **out)
{
	binary_t key = { .hash = 0 };

	strlcpy(key.path, path, sizeof(key.path));
	binary_t *b = binary_lookup(&key);
	if (b) {
		*out = b;
		return EOK;
	}
	errno_t rc = binary_load(path, &b);
	return rc == EOK ? binary_insert(b, NULL, out) : rc;
}

/* FNV-1a over the image, never 0 (0 marks initrd binaries). */
static uint64_t binary_hash(const void *image, size_t size)
{
	const uint8_t *p = image;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < size; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h ? h : 1;
}

/*
 * Check image and build a binary for it with a copy of its strings,
 * unless they could never fit (the budget; LIMIT_TREE_BIN_BYTES if
 * charged to a tree).
 */
static errno_t binary_load_image(binary_t *b, const void *image, bool charged)
{
	const elf64_shdr_t *sym, *str;
	size_t most = charged ? MIN(binary_cache_limit(), LIMIT_TREE_BIN_BYTES)
			      : binary_cache_limit();

	if (elf_load_plan(image, b->size, USER_BASE, USER_MAP_BASE, &b->plan) != EOK)
		return ENOEXEC;
	if (elf_find_symtab(image, b->size, &sym, &str) != EOK ||
	    sym->sh_size + str->sh_size > most ||
	    !(b->strtab = kmalloc(str->sh_size)))
		return EOK;              /* runs, but without symbols */
	memcpy(b->strtab, (const char *)image + str->sh_offset, str->sh_size);
	b->bytes += kmalloc_size(b->strtab);
	b->image = image;
	binary_load_symbols(b);      /* names point into b->strtab */
	b->image = NULL;             /* the caller's copy goes away */
	return EOK;
}

errno_t binary_get_image(const char *path, const void *image, size_t size,
			 binquota_t *quota, binary_t **out)
{
	binary_t key = { .size = size, .hash = binary_hash(image, size) };

	strlcpy(key.path, path, sizeof(key.path));
	sha256(image, size, key.digest);
	binary_t *b = binary_lookup(&key);
	if (b) {
		*out = b;
		return EOK;
	}
	if (!(b = kzalloc(sizeof(*b))))
		return ENOMEM;
	*b = key;
	b->bytes = kmalloc_size(b);
	errno_t rc = binary_load_image(b, image, quota != NULL);
	if (rc != EOK) {
		binary_free(b);
		return rc;
	}
	return binary_insert(b, quota, out);
}

binquota_t *binary_quota_new(void)
{
	binquota_t *q = kmalloc(sizeof(*q));

	if (q)
		binquota_init(q, LIMIT_TREE_BIN_BYTES);
	return q;
}

/* The tree of q is gone: its entries stay cached, charged to no one. */
static void binary_quota_orphan(binquota_t *q)
{
	uint64_t f = spin_lock_irqsave(&binaries_lock);

	list_foreach(&binaries, it) {
		binary_t *b = list_entry(it, binary_t, node);
		if (b->quota != q)
			continue;
		binquota_uncharge(q, b->bytes);
		b->quota = NULL;
	}
	spin_unlock_irqrestore(&binaries_lock, f);
}

void binary_quota_put(binquota_t *q)
{
	if (!q || !binquota_unref(q))
		return;
	binary_quota_orphan(q);
	kfree(q);
}

void binary_quota_publish(binquota_t *q, uint64_t root)
{
	if (q && !q->root)
		q->root = root;
}

void binary_quota_usage(binquota_t *q, uint64_t *root, uint32_t *bytes, uint64_t *denied)
{
	*root = q ? q->root : 0;
	*bytes = q ? (uint32_t)__atomic_load_n(&q->bytes, __ATOMIC_RELAXED) : 0;
	*denied = q ? __atomic_load_n(&q->denied, __ATOMIC_RELAXED) : 0;
}

const char *binary_symbol(const binary_t *b, uint64_t addr, uint64_t *off)
{
	return b && b->have_syms ? elfsym_lookup(&b->syms, addr, off) : NULL;
}

/* SYS_INITRD_MAP: the whole initrd, read-only, for the file service. */
int64_t sys_initrd_map(SYSCALL_ARGS)
{
	vm_space_t *s = vm_space_current();
	uintptr_t addr;
	uint64_t size = initrd_size;

	if (!initrd || !s)
		return -ENOENT;
	if (!user_range_ok(a0, sizeof(addr)) || !user_range_ok(a1, sizeof(size)))
		return -EFAULT;
	errno_t rc = vm_space_map_readonly_ram(s, hhdm_to_phys(initrd), initrd_size, &addr);
	if (rc != EOK)
		return -rc;
	if (copy_to_user((void *)a0, &addr, sizeof(addr)) != EOK ||
	    copy_to_user((void *)a1, &size, sizeof(size)) != EOK) {
		/* the caller cannot know where: take it back (never freed) */
		vm_space_unmap_kind(s, ALIGN_DOWN(addr, PAGE_SIZE), size + (addr & (PAGE_SIZE - 1)),
				    REGION_DEVICE);
		return -EFAULT;
	}
	return 0;
}
