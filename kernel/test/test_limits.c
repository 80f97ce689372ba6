/* ktest: bounded resources (issue 13): heap pages go back, deadlines saturate. */
#include <kernel/ktest.h>
#include <kernel/time.h>
#include <kernel/vm.h>
#include <kernel/waitq.h>

#define LIMITS_OBJS 2000
#define LIMITS_OBJ_SIZE 256

KTEST(heap_returns_pages, "heap: pages emptied by kfree go back to the frame pool")
{
	static void *objs[LIMITS_OBJS];
	size_t before = heap_footprint();

	for (size_t i = 0; i < LIMITS_OBJS; i++) {
		objs[i] = kmalloc(LIMITS_OBJ_SIZE);
		KT_CHECK(objs[i] != NULL, "kmalloc %zu failed", i);
	}
	size_t full = heap_footprint();
	for (size_t i = 0; i < LIMITS_OBJS; i++)
		kfree(objs[i]);
	size_t after = heap_footprint();
	KT_CHECK(full >= before + LIMITS_OBJS * LIMITS_OBJ_SIZE,
		 "footprint grew only %zu bytes", full - before);
	KT_CHECK(after <= before + 2 * PAGE_SIZE,
		 "%zu bytes still held after freeing all (%zu before, %zu full)",
		 after - before, before, full);
	return true;
}

KTEST(waitq_deadline_saturates, "waitq: a timeout past UINT64_MAX ns is no deadline")
{
	uint64_t now = time_ns();
	uint64_t d = waitq_deadline(1000);

	KT_CHECK(waitq_deadline(0) == 0, "0 gave a deadline");
	KT_CHECK(waitq_deadline(UINT64_MAX) == 0, "UINT64_MAX wrapped");
	KT_CHECK(waitq_deadline(UINT64_MAX - now) == 0, "UINT64_MAX - now wrapped");
	KT_CHECK(d >= now + 1000 && d < now + 1000 + 1000000000ull, "1 us gave %lu (now %lu)",
		 (unsigned long)d, (unsigned long)now);
	return true;
}
