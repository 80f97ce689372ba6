/* Call-path tables and call stacks of the call profiler: see lib/cprof.h. */
#include <lib/cprof.h>
#include <lib/string.h>

static uint32_t cprof_id(const cprof_part_t *p, uint32_t index)
{
	return p->h.id << CPROF_ID_SHIFT | index;
}

void cprof_part_init(cprof_part_t *p, uint32_t id, uint32_t nslots)
{
	memset(p, 0, sizeof(*p));
	p->h.magic = CPROF_PART_MAGIC;
	p->h.id = id;
	p->h.nslots = nslots;
}

void cprof_part_clear(cprof_part_t *p, uint32_t gen)
{
	__atomic_store_n(&p->h.used, 0, __ATOMIC_RELEASE);
	memset(p->hash, 0, sizeof(p->hash));
	p->h.err = 0;
	p->h.lost_stack = 0;
	p->h.lost_table = 0;
	p->h.mismatch = 0;
	p->h.gen = gen;
}

void cprof_stack_init(cprof_stack_t *s, uint32_t cap, uint32_t gen)
{
	s->depth = 0;
	s->cap = cap;
	s->gen = gen;
	s->reserved = 0;
}

uint32_t cprof_lookup(cprof_part_t *p, uint32_t parent, uint64_t fn)
{
	uint32_t h = cprof_hash(parent, fn);

	for (uint32_t i = p->hash[h]; i; i = p->slot[i - 1].next) {
		const cprof_slot_t *sl = &p->slot[i - 1];
		if (sl->fn == fn && sl->parent == parent)
			return cprof_id(p, i - 1);
	}
	uint32_t used = p->h.used;
	if (used >= p->h.nslots) {
		p->h.err |= CPROF_ERR_TABLE;
		return CPROF_NONE;
	}
	cprof_slot_t *sl = &p->slot[used];
	sl->fn = fn;
	sl->parent = parent;
	sl->next = p->hash[h];
	sl->calls = sl->wall = sl->oncpu = 0;
	p->hash[h] = used + 1;
	__atomic_store_n(&p->h.used, used + 1, __ATOMIC_RELEASE);   /* readers copy slot[0..used) */
	return cprof_id(p, used);
}

cprof_slot_t *cprof_slot(const cprof_table_t *tab, uint32_t id)
{
	uint32_t part = id >> CPROF_ID_SHIFT, index = id & CPROF_INDEX_MASK;

	if (id == CPROF_NONE || id == CPROF_ROOT || part >= tab->nparts || !tab->parts[part])
		return NULL;
	cprof_part_t *p = tab->parts[part];
	return index < p->h.used ? &p->slot[index] : NULL;
}

uint32_t cprof_path(const cprof_table_t *tab, uint32_t parent, uint64_t fn)
{
	cprof_part_t *own = tab->parts[tab->own];

	if (fn == tab->root_fn)              /* an interrupt: not under what it interrupted */
		parent = CPROF_ROOT;
	if (parent == CPROF_NONE) {          /* under a call that was not recorded */
		own->h.lost_table++;
		return CPROF_NONE;
	}
	uint32_t id = cprof_lookup(own, parent, fn);
	if (id == CPROF_NONE)
		own->h.lost_table++;
	return id;
}

void cprof_sync(cprof_stack_t *s, const cprof_table_t *tab)
{
	cprof_part_t *own = tab->parts[tab->own];

	if (own->h.gen != tab->gen)
		cprof_part_clear(own, tab->gen);
	if (s->gen == tab->gen)
		return;
	uint32_t n = s->depth < s->cap ? s->depth : s->cap;
	uint32_t parent = CPROF_ROOT;
	for (uint32_t i = 0; i < n; i++) {
		cprof_frame_t *f = &s->frame[i];
		if (f->fn == tab->root_fn)
			parent = CPROF_ROOT;
		f->slot = parent == CPROF_NONE ? CPROF_NONE : cprof_lookup(own, parent, f->fn);
		f->own_slot = f->slot == CPROF_NONE ? NULL : &own->slot[f->slot & CPROF_INDEX_MASK];
		parent = f->slot;
	}
	s->gen = tab->gen;
}

void cprof_charge_far(const cprof_table_t *tab, uint32_t id, uint64_t wall, uint64_t oncpu)
{
	cprof_slot_t *sl = cprof_slot(tab, id);

	if (!sl)
		return;
	__atomic_fetch_add(&sl->wall, wall, __ATOMIC_RELAXED);
	__atomic_fetch_add(&sl->oncpu, oncpu, __ATOMIC_RELAXED);
}

void cprof_overrun(const cprof_table_t *tab)
{
	cprof_part_t *own = tab->parts[tab->own];

	own->h.err |= CPROF_ERR_STACK;
	own->h.lost_stack++;
}

bool cprof_resync(cprof_stack_t *s, const cprof_table_t *tab, uint64_t fn)
{
	cprof_part_t *own = tab->parts[tab->own];

	own->h.err |= CPROF_ERR_PATH;
	for (uint32_t i = s->depth; i-- > 0;) {
		if (i < s->cap && s->frame[i].fn == fn) {
			own->h.mismatch += s->depth - 1 - i;
			s->depth = i + 1;
			return true;
		}
	}
	own->h.mismatch++;
	return false;
}
