/*
 * Unit test of the sysinfo records' layout (abi/sysinfo.h, abi/limits.h,
 * abi/profile.h's prof_source_desc_t): every field's offset and size and
 * every record's size, as static asserts. The numbers were taken from the
 * hand-written structs before they became X-macro tables, so a table that
 * moves, grows or retypes a field fails to compile here.
 */
#include "tap.h"

#include <stddef.h>

#include <abi/limits.h>
#include <abi/profile.h>
#include <abi/sysinfo.h>

#define SIZE(type, n) _Static_assert(sizeof(type) == (n), #type " is " #n " bytes")
#define FIELD(type, member, off, size)                                         \
	_Static_assert(offsetof(type, member) == (off), #type "." #member " at " #off); \
	_Static_assert(sizeof(((type *)0)->member) == (size), #type "." #member " is " #size " bytes")

/* sysinfo_cpu_t */
SIZE(sysinfo_cpu_t, 72);
FIELD(sysinfo_cpu_t, id, 0, 4);
FIELD(sysinfo_cpu_t, active, 4, 4);
FIELD(sysinfo_cpu_t, mhz, 8, 8);
FIELD(sysinfo_cpu_t, busy_cycles, 16, 8);
FIELD(sysinfo_cpu_t, idle_cycles, 24, 8);
FIELD(sysinfo_cpu_t, irq_cycles, 32, 8);
FIELD(sysinfo_cpu_t, switches, 40, 8);
FIELD(sysinfo_cpu_t, interrupts, 48, 8);
FIELD(sysinfo_cpu_t, irqoff_max_cycles, 56, 8);
FIELD(sysinfo_cpu_t, nmi_max_cycles, 64, 8);

/* sysinfo_physmem_t */
SIZE(sysinfo_physmem_t, 32);
FIELD(sysinfo_physmem_t, total, 0, 8);
FIELD(sysinfo_physmem_t, unavailable, 8, 8);
FIELD(sysinfo_physmem_t, used, 16, 8);
FIELD(sysinfo_physmem_t, free, 24, 8);

/* sysinfo_load_t */
SIZE(sysinfo_load_t, 32);
FIELD(sysinfo_load_t, avg, 0, 24);
FIELD(sysinfo_load_t, runnable, 24, 4);
FIELD(sysinfo_load_t, period_ms, 28, 4);

/* sysinfo_ipc_counts_t */
SIZE(sysinfo_ipc_counts_t, 48);
FIELD(sysinfo_ipc_counts_t, calls_sent, 0, 8);
FIELD(sysinfo_ipc_counts_t, calls_received, 8, 8);
FIELD(sysinfo_ipc_counts_t, answers_sent, 16, 8);
FIELD(sysinfo_ipc_counts_t, answers_received, 24, 8);
FIELD(sysinfo_ipc_counts_t, irq_notifications, 32, 8);
FIELD(sysinfo_ipc_counts_t, forwarded, 40, 8);

/* sysinfo_task_t */
SIZE(sysinfo_task_t, 152);
FIELD(sysinfo_task_t, id, 0, 8);
FIELD(sysinfo_task_t, parent, 8, 8);
FIELD(sysinfo_task_t, name, 16, 32);
FIELD(sysinfo_task_t, threads, 48, 4);
FIELD(sysinfo_task_t, perms, 52, 4);
FIELD(sysinfo_task_t, virt_bytes, 56, 8);
FIELD(sysinfo_task_t, resident_bytes, 64, 8);
FIELD(sysinfo_task_t, user_cycles, 72, 8);
FIELD(sysinfo_task_t, kernel_cycles, 80, 8);
FIELD(sysinfo_task_t, ipc, 88, 48);
FIELD(sysinfo_task_t, imposed_cycles, 136, 8);
FIELD(sysinfo_task_t, served_cycles, 144, 8);

/* sysinfo_thread_t */
SIZE(sysinfo_thread_t, 192);
FIELD(sysinfo_thread_t, id, 0, 8);
FIELD(sysinfo_thread_t, task, 8, 8);
FIELD(sysinfo_thread_t, name, 16, 32);
FIELD(sysinfo_thread_t, state, 48, 4);
FIELD(sysinfo_thread_t, priority, 52, 4);
FIELD(sysinfo_thread_t, cpu, 56, 4);
FIELD(sysinfo_thread_t, on_cpu, 60, 4);
FIELD(sysinfo_thread_t, user_cycles, 64, 8);
FIELD(sysinfo_thread_t, kernel_cycles, 72, 8);
FIELD(sysinfo_thread_t, switches, 80, 8);
FIELD(sysinfo_thread_t, serving_origin, 88, 8);
FIELD(sysinfo_thread_t, serving_method, 96, 8);
FIELD(sysinfo_thread_t, wait_why, 104, 4);
FIELD(sysinfo_thread_t, reserved, 108, 4);
FIELD(sysinfo_thread_t, wait_task, 112, 8);
FIELD(sysinfo_thread_t, wait_method, 120, 8);
FIELD(sysinfo_thread_t, off_cycles, 128, 64);

/* sysinfo_vector_t */
SIZE(sysinfo_vector_t, 56);
FIELD(sysinfo_vector_t, vector, 0, 4);
FIELD(sysinfo_vector_t, reserved, 4, 4);
FIELD(sysinfo_vector_t, desc, 8, 32);
FIELD(sysinfo_vector_t, count, 40, 8);
FIELD(sysinfo_vector_t, cycles, 48, 8);

/* sysinfo_syscall_t */
SIZE(sysinfo_syscall_t, 56);
FIELD(sysinfo_syscall_t, nr, 0, 4);
FIELD(sysinfo_syscall_t, reserved, 4, 4);
FIELD(sysinfo_syscall_t, name, 8, 32);
FIELD(sysinfo_syscall_t, count, 40, 8);
FIELD(sysinfo_syscall_t, cycles, 48, 8);

/* sysinfo_memory_t */
SIZE(sysinfo_memory_t, 56);
FIELD(sysinfo_memory_t, frames_free, 0, 8);
FIELD(sysinfo_memory_t, heap_frames, 8, 8);
FIELD(sysinfo_memory_t, heap_live, 16, 8);
FIELD(sysinfo_memory_t, heap_cached, 24, 8);
FIELD(sysinfo_memory_t, kstacks, 32, 8);
FIELD(sysinfo_memory_t, kstack_frames, 40, 8);
FIELD(sysinfo_memory_t, table_frames, 48, 8);

/* sysinfo_ipc_pair_t */
SIZE(sysinfo_ipc_pair_t, 96);
FIELD(sysinfo_ipc_pair_t, origin, 0, 8);
FIELD(sysinfo_ipc_pair_t, server, 8, 8);
FIELD(sysinfo_ipc_pair_t, origin_name, 16, 32);
FIELD(sysinfo_ipc_pair_t, server_name, 48, 32);
FIELD(sysinfo_ipc_pair_t, cycles, 80, 8);
FIELD(sysinfo_ipc_pair_t, calls, 88, 8);

/* sysinfo_profiler_t */
SIZE(sysinfo_profiler_t, 72);
FIELD(sysinfo_profiler_t, state, 0, 4);
FIELD(sysinfo_profiler_t, source, 4, 4);
FIELD(sysinfo_profiler_t, hz, 8, 4);
FIELD(sysinfo_profiler_t, sessions, 12, 4);
FIELD(sysinfo_profiler_t, system_sessions, 16, 4);
FIELD(sysinfo_profiler_t, available, 20, 4);
FIELD(sysinfo_profiler_t, samples, 24, 8);
FIELD(sysinfo_profiler_t, lost, 32, 8);
FIELD(sysinfo_profiler_t, throttled, 40, 8);
FIELD(sysinfo_profiler_t, memory, 48, 8);
FIELD(sysinfo_profiler_t, unrouted, 56, 8);
FIELD(sysinfo_profiler_t, missed, 64, 8);

/* sysinfo_limits_t */
SIZE(sysinfo_limits_t, 88);
FIELD(sysinfo_limits_t, task, 0, 8);
FIELD(sysinfo_limits_t, tree, 8, 8);
FIELD(sysinfo_limits_t, box_calls, 16, 4);
FIELD(sysinfo_limits_t, box_answers, 20, 4);
FIELD(sysinfo_limits_t, threads, 24, 4);
FIELD(sysinfo_limits_t, tree_tasks, 28, 4);
FIELD(sysinfo_limits_t, regions, 32, 4);
FIELD(sysinfo_limits_t, prof_sessions, 36, 4);
FIELD(sysinfo_limits_t, bin_bytes, 40, 4);
FIELD(sysinfo_limits_t, limit, 44, 28);
FIELD(sysinfo_limits_t, bin_tree, 72, 8);
FIELD(sysinfo_limits_t, bin_denied, 80, 8);

/* prof_source_desc_t */
SIZE(prof_source_desc_t, 88);
FIELD(prof_source_desc_t, id, 0, 4);
FIELD(prof_source_desc_t, flags, 4, 4);
FIELD(prof_source_desc_t, name, 8, 16);
FIELD(prof_source_desc_t, what, 24, 64);

int main(void)
{
	ok(true, "the sysinfo records' layout is the old one (static asserts)");
	return done_testing();
}
