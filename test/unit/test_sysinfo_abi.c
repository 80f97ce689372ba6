/*
 * Unit test of the sysinfo records' layout (abi/sysinfo.h, abi/limits.h,
 * abi/profile.h's prof_source_desc_t): every field's offset and size and
 * every record's size, as static asserts. The numbers were taken from the
 * hand-written structs before they became X-macro tables, so a table that
 * moves, grows or retypes a field fails to compile here.
 *
 * Then the field tables the rows generate (RECORD_FIELDS, what
 * uspace/app/sysinfo prints from) against the hand-written tables that
 * program had before: the same names in the same order, at the same
 * offsets, read the same way ("name@offset:kind" each, nested records
 * flattened in place).
 */
#include "tap.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

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

static const record_field_t sysinfo_ipc_counts_fields[] =
	RECORD_FIELDS(SYSINFO_IPC_COUNTS_ROWS, sysinfo_ipc_counts_t);
static const record_field_t sysinfo_cpu_fields[] = RECORD_FIELDS(SYSINFO_CPU_ROWS, sysinfo_cpu_t);
static const record_field_t sysinfo_physmem_fields[] = RECORD_FIELDS(SYSINFO_PHYSMEM_ROWS, sysinfo_physmem_t);
static const record_field_t sysinfo_load_fields[] = RECORD_FIELDS(SYSINFO_LOAD_ROWS, sysinfo_load_t);
static const record_field_t sysinfo_limits_fields[] = RECORD_FIELDS(SYSINFO_LIMITS_ROWS, sysinfo_limits_t);
static const record_field_t sysinfo_thread_fields[] = RECORD_FIELDS(SYSINFO_THREAD_ROWS, sysinfo_thread_t);
static const record_field_t sysinfo_vector_fields[] = RECORD_FIELDS(SYSINFO_VECTOR_ROWS, sysinfo_vector_t);
static const record_field_t sysinfo_syscall_fields[] = RECORD_FIELDS(SYSINFO_SYSCALL_ROWS, sysinfo_syscall_t);
static const record_field_t sysinfo_task_fields[] = RECORD_FIELDS(SYSINFO_TASK_ROWS, sysinfo_task_t);
static const record_field_t sysinfo_ipc_pair_fields[] = RECORD_FIELDS(SYSINFO_IPC_PAIR_ROWS, sysinfo_ipc_pair_t);
static const record_field_t sysinfo_profiler_fields[] = RECORD_FIELDS(SYSINFO_PROFILER_ROWS, sysinfo_profiler_t);
static const record_field_t prof_source_desc_fields[] = RECORD_FIELDS(PROF_SOURCE_DESC_ROWS, prof_source_desc_t);

static const char *const kind_names[] = {
	[RECORD_U32] = "U32", [RECORD_U64] = "U64", [RECORD_HEX32] = "HEX32",
	[RECORD_TEXT] = "TEXT", [RECORD_LOAD] = "LOAD", [RECORD_STATE] = "STATE",
};

/* Append fields (at base within the record) to out as "name@off:kind ...". */
static void fields_describe(const record_field_t *fields, size_t base, char *out, size_t size)
{
	for (const record_field_t *f = fields; f->name; f++) {
		if (f->kind == RECORD_NEST) {
			fields_describe(f->fields, base + f->offset, out, size);
			continue;
		}
		size_t at = strlen(out);
		snprintf(out + at, size - at, "%s%s@%zu:%s", at ? " " : "", f->name,
			 base + f->offset, f->kind < 7 && kind_names[f->kind] ? kind_names[f->kind] : "?");
	}
}

/* Every field lies inside the record and is as big as its kind says. */
static bool fields_fit(const record_field_t *fields, size_t record_size)
{
	for (const record_field_t *f = fields; f->name; f++) {
		bool word = f->kind == RECORD_U32 || f->kind == RECORD_HEX32 || f->kind == RECORD_STATE;
		bool dword = f->kind == RECORD_U64 || f->kind == RECORD_LOAD;
		if (f->offset + f->size > record_size || (word && f->size != 4) ||
		    (dword && f->size != 8) || (f->kind == RECORD_NEST && !fields_fit(f->fields, f->size)))
			return false;
	}
	return true;
}

static void check(const char *what, const record_field_t *fields, size_t size, const char *expected)
{
	char got[2048] = "";

	fields_describe(fields, 0, got, sizeof(got));
	is_str(got, expected, "%s: the fields of the old hand-written table", what);
	ok(fields_fit(fields, size), "%s: every field inside the record, sized by its kind", what);
}

#define CHECK(what, type, expected) check(what, type##_fields, sizeof(type##_t), expected)

int main(void)
{
	ok(true, "the sysinfo records' layout is the old one (static asserts)");
	CHECK("sysinfo_cpu", sysinfo_cpu,
	      "id@0:U32 active@4:U32 mhz@8:U64 busy_cycles@16:U64 idle_cycles@24:U64 irq_cycles@32:U64 switches@40:U64 interrupts@48:U64 irqoff_max_cycles@56:U64 nmi_max_cycles@64:U64");
	CHECK("sysinfo_physmem", sysinfo_physmem,
	      "total@0:U64 unavailable@8:U64 used@16:U64 free@24:U64");
	CHECK("sysinfo_load", sysinfo_load,
	      "avg1@0:LOAD avg5@8:LOAD avg15@16:LOAD runnable@24:U32 period_ms@28:U32");
	CHECK("sysinfo_task", sysinfo_task,
	      "id@0:U64 parent@8:U64 name@16:TEXT threads@48:U32 perms@52:HEX32 virt_bytes@56:U64 resident_bytes@64:U64 user_cycles@72:U64 kernel_cycles@80:U64 calls_sent@88:U64 calls_received@96:U64 answers_sent@104:U64 answers_received@112:U64 irq_notifications@120:U64 forwarded@128:U64 imposed_cycles@136:U64 served_cycles@144:U64");
	CHECK("sysinfo_limits", sysinfo_limits,
	      "task@0:U64 tree@8:U64 box_calls@16:U32 box_calls_max@44:U32 box_answers@20:U32 box_answers_max@48:U32 threads@24:U32 threads_max@52:U32 tree_tasks@28:U32 tree_tasks_max@56:U32 regions@32:U32 regions_max@60:U32 prof_sessions@36:U32 prof_sessions_max@64:U32 bin_bytes@40:U32 bin_bytes_max@68:U32 bin_tree@72:U64 bin_denied@80:U64");
	CHECK("sysinfo_thread", sysinfo_thread,
	      "id@0:U64 task@8:U64 name@16:TEXT state@48:STATE priority@52:U32 cpu@56:U32 on_cpu@60:U32 user_cycles@64:U64 kernel_cycles@72:U64 switches@80:U64 serving_origin@88:U64 serving_method@96:U64 wait_why@104:U32 wait_task@112:U64 wait_method@120:U64 off_runnable@136:U64 off_sleep@144:U64 off_ipc@152:U64 off_recv@160:U64 off_join@168:U64 off_child@176:U64 off_wait@184:U64");
	CHECK("sysinfo_vector", sysinfo_vector,
	      "vector@0:U32 desc@8:TEXT count@40:U64 cycles@48:U64");
	CHECK("sysinfo_syscall", sysinfo_syscall,
	      "nr@0:U32 name@8:TEXT count@40:U64 cycles@48:U64");
	CHECK("sysinfo_ipc_pair", sysinfo_ipc_pair,
	      "origin@0:U64 origin_name@16:TEXT server@8:U64 server_name@48:TEXT cycles@80:U64 calls@88:U64");
	CHECK("sysinfo_profiler", sysinfo_profiler,
	      "state@0:U32 source@4:U32 hz@8:U32 sessions@12:U32 system_sessions@16:U32 available@20:HEX32 samples@24:U64 lost@32:U64 throttled@40:U64 memory@48:U64 unrouted@56:U64 missed@64:U64");
	CHECK("prof_source_desc", prof_source_desc,
	      "id@0:U32 flags@4:HEX32 name@8:TEXT what@24:TEXT");
	return done_testing();
}
