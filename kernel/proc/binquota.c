/* The program cache's charge per quota tree: pure accounting (<kernel/binquota.h>). */
#include <kernel/binquota.h>

void binquota_init(binquota_t *q, size_t limit)
{
	*q = (binquota_t){ .limit = limit, .refs = 1 };
}

bool binquota_fits(const binquota_t *q, size_t bytes)
{
	return bytes <= q->limit && q->bytes <= q->limit - bytes;
}

errno_t binquota_charge(binquota_t *q, size_t bytes)
{
	if (!binquota_fits(q, bytes)) {
		q->denied++;
		return ELIMIT;
	}
	q->bytes += bytes;
	q->entries++;
	return EOK;
}

void binquota_uncharge(binquota_t *q, size_t bytes)
{
	q->bytes -= MIN(bytes, q->bytes);
	q->entries -= q->entries > 0;
}

void binquota_ref(binquota_t *q)
{
	__atomic_add_fetch(&q->refs, 1, __ATOMIC_RELAXED);
}

bool binquota_unref(binquota_t *q)
{
	return __atomic_sub_fetch(&q->refs, 1, __ATOMIC_ACQ_REL) == 0;
}
