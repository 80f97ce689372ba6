/*
 * The frame-pointer unwinder (see arch/unwind.h): one loop for panics,
 * backtraces and the profiler's call chains.
 */
#include <arch/boot.h>
#include <arch/mm.h>
#include <arch/unwind.h>
#include <kernel/vm.h>
#include <kernel/vm_space.h>

/* Can ret be a return address of a kernel frame (kernel text, or user: the fake frame)? */
static bool unwind_kernel_ret(uintptr_t ret)
{
	return ret < USER_END ||
	       (ret >= (uintptr_t)__text_start && ret < (uintptr_t)__text_end);
}

/* Is the frame at fp within b (and mapped, if b asks)? */
static bool unwind_frame_ok(uintptr_t fp, const unwind_bounds_t *b)
{
	return fp >= b->sp && fp <= b->hi - 16 && !(fp & 7) &&
	       (!b->mapped || vm_kernel_readable(fp, 16));
}

size_t arch_unwind(uintptr_t *fp, const unwind_bounds_t *b, uintptr_t *out, size_t max)
{
	size_t n = 0;

	while (n < max && unwind_frame_ok(*fp, b)) {
		const uintptr_t *frame = (const uintptr_t *)*fp;
		uintptr_t ret = frame[1], next = frame[0];
		if (!ret || (b->text && !unwind_kernel_ret(ret)))
			break;
		out[n++] = ret;
		if (next <= *fp && next >= b->lo)   /* stacks grow down: callers are higher */
			break;
		*fp = next;
		if (b->text && ret < USER_END)      /* the entry's fake frame: now in user */
			break;
	}
	return n;
}
