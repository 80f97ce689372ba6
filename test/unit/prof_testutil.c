/*
 * The profiler report unit tests' fake environment and stream builder
 * (see prof_testutil.h).
 */
#include "prof_testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t pt_sb_version = PROF_VERSION;
pt_file_t pt_files[PT_MAX_FILES];
size_t pt_nfiles;
long pt_live_allocs, pt_alloc_budget = -1, pt_fail_at = -1, pt_nallocs;
unsigned pt_loads;
char *pt_out;
size_t pt_out_len;
static size_t pt_out_cap;

const prof_env_t pt_env = { NULL, pt_alloc, pt_release, pt_load, pt_out_text };

void *pt_alloc(void *ctx, size_t size)
{
	(void)ctx;
	if (pt_fail_at >= 0 && pt_nallocs++ == pt_fail_at)
		return NULL;
	if (pt_alloc_budget == 0)
		return NULL;
	if (pt_alloc_budget > 0)
		pt_alloc_budget--;
	pt_live_allocs++;
	return malloc(size);
}

void pt_release(void *ctx, void *p)
{
	(void)ctx;
	if (p)
		pt_live_allocs--;
	free(p);
}

errno_t pt_load(void *ctx, const char *path, void **data, size_t *size)
{
	pt_loads++;
	for (size_t i = 0; i < pt_nfiles; i++) {
		if (strcmp(pt_files[i].path, path) != 0)
			continue;
		*data = pt_alloc(ctx, pt_files[i].size ? pt_files[i].size : 1);
		if (!*data)
			return ENOMEM;
		memcpy(*data, pt_files[i].data, pt_files[i].size);
		*size = pt_files[i].size;
		return EOK;
	}
	return ENOENT;
}

void pt_write(void *ctx, const void *s, size_t len)
{
	(void)ctx;
	if (pt_out_len + len + 1 > pt_out_cap) {
		pt_out_cap = (pt_out_len + len + 1) * 2;
		pt_out = realloc(pt_out, pt_out_cap);
		if (!pt_out)
			abort();
	}
	memcpy(pt_out + pt_out_len, s, len);
	pt_out_len += len;
	pt_out[pt_out_len] = '\0';
}

void pt_out_text(void *ctx, const char *s, size_t len)
{
	pt_write(ctx, s, len);
}

void pt_add_file(const char *path, const void *data, size_t size)
{
	if (pt_nfiles == PT_MAX_FILES)
		abort();
	pt_files[pt_nfiles++] = (pt_file_t){ path, data, size };
}

bool pt_has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; (p = strstr(p, line)) != NULL; p++) {
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
			return true;
	}
	return false;
}

void pt_sb_put(pt_sb_t *b, const void *rec, size_t size)
{
	if (b->len + size > b->cap) {
		b->cap = (b->len + size) * 2;
		b->buf = realloc(b->buf, b->cap);
		if (!b->buf)
			abort();
	}
	memcpy(b->buf + b->len, rec, size);
	b->len += size;
}

void pt_sb_hdr(prof_rec_t *h, unsigned type, size_t size, uint64_t tsc)
{
	h->type = (uint16_t)type;
	h->size = (uint16_t)size;
	h->cpu = 0;
	h->tsc = tsc;
}

void pt_sb_task(pt_sb_t *b, uint64_t id, const char *name)
{
	prof_rec_task_t t;

	memset(&t, 0, sizeof(t));
	pt_sb_hdr(&t.h, PROF_REC_TASK, sizeof(t), 1);
	t.task = id;
	strncpy(t.name, name, sizeof(t.name) - 1);
	pt_sb_put(b, &t, sizeof(t));
}

void pt_sb_load(pt_sb_t *b, uint64_t task, const char *path, uint64_t hash)
{
	unsigned char rec[256];
	prof_rec_load_t l;
	size_t plen = strlen(path) + 1, size = (sizeof(l) + plen + 7) & ~(size_t)7;

	if (size > sizeof(rec))
		abort();
	memset(rec, 0, sizeof(rec));
	memset(&l, 0, sizeof(l));
	pt_sb_hdr(&l.h, PROF_REC_LOAD, size, 1);
	l.task = task;
	l.text_start = 0x401000;
	l.text_end = 0x402000;
	l.hash = hash;
	memcpy(rec, &l, sizeof(l));
	memcpy(rec + sizeof(l), path, plen);
	pt_sb_put(b, rec, size);
}

void pt_sb_served(pt_sb_t *b, unsigned count, const prof_rec_sample_t *s,
		  const uint64_t *chain, const prof_ipc_t *ipc, uint64_t tsc)
{
	unsigned char rec[sizeof(*s) + 8 * 64 + sizeof(*ipc)];
	prof_rec_sample_t r = *s;
	size_t fixed = pt_sb_version < 5 ? PROF_SAMPLE_V4_SIZE : sizeof(r);
	size_t used = fixed + 8 * (size_t)r.nchain, size = used + (ipc ? sizeof(*ipc) : 0);

	if (size > sizeof(rec))
		abort();
	for (unsigned i = 0; i < count; i++) {
		r.h.type = PROF_REC_SAMPLE;
		r.h.size = (uint16_t)size;
		r.h.tsc = tsc + i;
		memcpy(rec, &r, fixed);
		if (r.nchain)
			memcpy(rec + fixed, chain, 8 * (size_t)r.nchain);
		if (ipc)
			memcpy(rec + used, ipc, sizeof(*ipc));
		pt_sb_put(b, rec, size);
	}
}

void pt_sb_samples(pt_sb_t *b, unsigned count, const prof_rec_sample_t *s,
		   const uint64_t *chain, uint64_t tsc)
{
	pt_sb_served(b, count, s, chain, NULL, tsc);
}

char *pt_report(const void *data, size_t len, size_t step, bool wall,
		const prof_report_opts_t *o, errno_t *feed_err, char *why, size_t why_size)
{
	const unsigned char *p = data;
	prof_report_t *r;
	errno_t err = EOK;

	pt_out_len = 0;
	pt_out_text(NULL, "", 0);
	if (prof_report_new(&pt_env, &r) != EOK)
		return NULL;
	prof_report_set_wall(r, wall);
	for (size_t off = 0; off < len && err == EOK;) {
		size_t n = step == 0 || len - off < step ? len - off : step;
		err = prof_report_feed(r, p + off, n);
		off += n;
	}
	if (feed_err)
		*feed_err = err;
	if (why)
		snprintf(why, why_size, "%s", prof_report_error(r) ? prof_report_error(r) : "");
	prof_report_print(r, o);
	prof_report_free(r);
	return strdup(pt_out);
}
