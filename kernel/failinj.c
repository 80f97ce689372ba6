/* Fault injection: fail the N-th (or every N-th) allocation or user copy. */
#include <abi/errno.h>
#include <kernel/cmdline.h>
#include <kernel/failinj.h>
#include <kernel/ksym.h>
#include <kernel/printk.h>
#include <kernel/syscall.h>
#include <kernel/sysinfo.h>
#include <kernel/task.h>
#include <kernel/thread.h>
#include <lib/string.h>

#define LOG_PREFIX "failinj"
#define FAILINJ_LOG_MAX 32          /* "other" results logged, then only counted */
#define FAILINJ_TRACE_MAX 4         /* injections logged with their call site */
#define FAILINJ_TRACE_DEPTH 8

typedef struct failinj_rule {
	const char *key;
	uint64_t n;                 /* 0: off */
	bool once;                  /* only the n-th */
	uint64_t count;             /* calls seen */
} failinj_rule_t;

static failinj_rule_t failinj_rules[FAILINJ_KINDS] = {
	{ "failslab", 0, false, 0 }, { "failframe", 0, false, 0 }, { "failcopy", 0, false, 0 },
};
bool failinj_armed;
static char failinj_task[TASK_NAME_MAX];   /* failinj.task=: only this task's calls */
static uint64_t failinj_n_injected, failinj_n_reached, failinj_n_absorbed, failinj_n_other;

/* "N" or "N,once"; 0 if malformed. */
static uint64_t failinj_parse(const char *s, bool *once)
{
	uint64_t v = 0;

	while (*s >= '0' && *s <= '9')
		v = v * 10 + (uint64_t)(*s++ - '0');
	*once = !strcmp(s, ",once");
	return *s && !*once ? 0 : v;
}

void failinj_init(void)
{
	char buf[24];

	if (cmdline_get("failinj.task", failinj_task, sizeof(failinj_task)))
		pr_info("only tasks named %s see injected failures", failinj_task);
	for (unsigned k = 0; k < FAILINJ_KINDS; k++) {
		failinj_rule_t *r = &failinj_rules[k];
		if (!cmdline_get(r->key, buf, sizeof(buf)))
			continue;
		r->n = failinj_parse(buf, &r->once);
		if (!r->n) {
			pr_warn("%s=%s: not a positive number, ignored", r->key, buf);
			continue;
		}
		pr_info("%s: failing %s %lu-th call by user tasks", r->key,
			r->once ? "the" : "every", r->n);
		failinj_armed = true;
		syscall_hook_set(SYSCALL_HOOK_FAILINJ, true);
	}
}

/* Log the n-th injection's call site (the first few only). */
static void failinj_trace(const failinj_rule_t *r, uint64_t n)
{
	uintptr_t pcs[FAILINJ_TRACE_DEPTH];

	if (n > FAILINJ_TRACE_MAX)
		return;
	pr_info("injected %s failure %lu (call %lu) here:", r->key, n, r->count);
	backtrace_print(pcs, backtrace_here(pcs, FAILINJ_TRACE_DEPTH), true);
}

bool failinj_hit_armed(failinj_kind_t kind)
{
	if (!failinj_armed || !failinj_rules[kind].n)
		return false;
	thread_t *t = thread_current();
	if (!t || t->kernel || (failinj_task[0] && strcmp(t->task->name, failinj_task)))
		return false;
	failinj_rule_t *r = &failinj_rules[kind];
	uint64_t c = __atomic_add_fetch(&r->count, 1, __ATOMIC_RELAXED);
	if (r->once ? c != r->n : c % r->n)
		return false;
	__atomic_add_fetch(&t->failinj_hits, 1, __ATOMIC_RELAXED);
	failinj_trace(r, __atomic_add_fetch(&failinj_n_injected, 1, __ATOMIC_RELAXED));
	return true;
}

uint32_t failinj_mark_armed(void)
{
	return failinj_armed ? thread_current()->failinj_hits : 0;
}

void failinj_syscall_check(uint64_t nr, uint32_t mark, int64_t r)
{
	if (!failinj_armed || thread_current()->failinj_hits == mark)
		return;
	if (r >= 0) {
		__atomic_add_fetch(&failinj_n_absorbed, 1, __ATOMIC_RELAXED);
	} else if (r == -ENOMEM || r == -ELIMIT || r == -EFAULT) {
		__atomic_add_fetch(&failinj_n_reached, 1, __ATOMIC_RELAXED);
	} else {
		uint64_t n = __atomic_add_fetch(&failinj_n_other, 1, __ATOMIC_RELAXED);
		const char *name = syscall_name(nr);
		if (n <= FAILINJ_LOG_MAX)
			pr_info("syscall %s returned error %ld after an injected failure",
				name ? name : "?", (long)-r);
	}
}

uint64_t failinj_injected(void) { return failinj_n_injected; }
uint64_t failinj_reached(void) { return failinj_n_reached; }
uint64_t failinj_absorbed(void) { return failinj_n_absorbed; }
uint64_t failinj_other(void) { return failinj_n_other; }

/* failinj.*: the counts above (abi/sysinfo.h). */
SYSINFO_INT_NODE(failinj_injected, "failinj.injected", 300, failinj_injected);
SYSINFO_INT_NODE(failinj_reached, "failinj.reached", 310, failinj_reached);
SYSINFO_INT_NODE(failinj_absorbed, "failinj.absorbed", 320, failinj_absorbed);
SYSINFO_INT_NODE(failinj_other, "failinj.other", 330, failinj_other);
