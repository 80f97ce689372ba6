/* TEMPORARY stub of lib/profreport.h for linking only (drop at merge). */
#include <lib/profreport.h>

struct prof_report {
	prof_env_t env;
	prof_counts_t c;
};

static const char *const stub_names[] = { "default", "pmc", "rtc", "rtc-nmi", "timer" };

static int stub_streq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

errno_t prof_report_new(const prof_env_t *env, prof_report_t **out)
{
	prof_report_t *r = env->alloc(env->ctx, sizeof(*r));

	if (!r)
		return ENOMEM;
	r->env = *env;
	r->c = (prof_counts_t){ 0 };
	*out = r;
	return EOK;
}

errno_t prof_report_feed(prof_report_t *r, const void *data, size_t len)
{
	return EOK;
}

void prof_report_counts(const prof_report_t *r, prof_counts_t *c)
{
	*c = r->c;
}

errno_t prof_report_print(prof_report_t *r, const prof_report_opts_t *o)
{
	r->env.out(r->env.ctx, "(stub report)\n", 14);
	return EOK;
}

const char *prof_source_name(unsigned source)
{
	return source > 0 && source < PROF_SRC_COUNT ? stub_names[source] : "?";
}

int prof_source_parse(const char *name)
{
	for (int i = 0; i < PROF_SRC_COUNT; i++)
		if (stub_streq(name, stub_names[i]))
			return i;
	return -1;
}

void prof_report_free(prof_report_t *r)
{
	r->env.release(r->env.ctx, r);
}
