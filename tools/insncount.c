/*
 * tools/insncount.c - a QEMU TCG plugin that counts, instruction by
 * instruction, what the guest kernel executes between an interrupt stub's
 * entry and its iretq (tools/samplecost.sh builds and uses it).
 *
 * Arguments (-plugin insncount.so,ARG=VALUE,...; addresses in hex):
 *   lo=, hi=      the kernel text range to instrument
 *   start=        an entry address (up to 4); each is its own "kind"
 *   end=          an address that ends the innermost open segment (iretq)
 *   mark=         a segment counts only if it executed one of these
 *                 addresses (up to 4)
 *   skip=         ... and none of these (up to 4)
 *   out=          the output file
 *   trace=        also dump the addresses of counted segments number
 *                 trace .. 2*trace-1 of each kind and vCPU (default 0: none)
 *   cpu0=         the boot CPU's cpu_t (bsp_cpu): with the register API
 *                 (QEMU_PLUGIN_API 2), vCPUs are told apart by the kernel's
 *                 per-CPU pointer, this one CPU 0 (qemuplugin.h)
 * Segments nest (an NMI inside an interrupt): each has its own buffer.
 * Output: "seg KIND VCPU COUNTED OTHER MIN MEDIAN MAX" per kind and vCPU
 * seen, then "insn KIND VCPU ADDR COUNT" summed over counted segments,
 * then "trace KIND VCPU ADDR..." lines (one per dumped segment).
 *
 * The plugin API it uses is declared in tools/qemuplugin.h (no QEMU
 * headers needed).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemuplugin.h"

#define MAX_VCPUS PLUGIN_MAX_VCPUS
#define MAX_KINDS 4
#define MAX_SKIP 4
#define MAX_MARK 4
#define DEPTH 4
#define SEG_MAX 65536

typedef struct seg {
	int kind;
	bool mark, skip, full;
	uint32_t n;
	uint64_t a[SEG_MAX];
} seg_t;

typedef struct vcpu {
	int depth;
	seg_t s[DEPTH];
} vcpu_t;

static uint64_t lo, hi, marks[MAX_MARK], starts[MAX_KINDS], skips[MAX_SKIP], ends[8];
static int nmarks, nstarts, nskips, nends;
static char out[512] = "insncount.out";
static vcpu_t *vcpus;
static uint32_t *counts;                  /* [kind][vcpu][addr - lo] */
static uint64_t counted[MAX_KINDS][MAX_VCPUS], other[MAX_KINDS][MAX_VCPUS];
static uint32_t *lens;                    /* [kind][vcpu][length] */
static uint64_t trace_from;
static FILE *trace_f;                     /* traces, until the output is written */

static int find(const uint64_t *v, int n, uint64_t a)
{
	for (int i = 0; i < n; i++)
		if (v[i] == a)
			return i;
	return -1;
}

static void seg_close(unsigned cpu, seg_t *s)
{
	uint64_t span = hi - lo;

	if (!s->mark || s->skip || s->full) {
		other[s->kind][cpu]++;
		return;
	}
	counted[s->kind][cpu]++;
	if (trace_from && counted[s->kind][cpu] >= trace_from &&
	    counted[s->kind][cpu] < 2 * trace_from && trace_f) {
		fprintf(trace_f, "trace %d %u", s->kind, cpu);
		for (uint32_t i = 0; i < s->n; i++)
			fprintf(trace_f, " %" PRIx64, s->a[i]);
		fputc('\n', trace_f);
	}
	lens[((size_t)s->kind * MAX_VCPUS + cpu) * SEG_MAX + s->n]++;
	for (uint32_t i = 0; i < s->n; i++)
		counts[((size_t)s->kind * MAX_VCPUS + cpu) * span + (s->a[i] - lo)]++;
}

static void on_insn(unsigned int cpu, void *ud)
{
	uint64_t a = (uint64_t)(uintptr_t)ud;
	vcpu_t *v;
	int k = find(starts, nstarts, a);

	cpu = plugin_running_vcpu(cpu);
	if (cpu >= MAX_VCPUS)
		return;
	v = &vcpus[cpu];
	if (k >= 0 && v->depth < DEPTH) {
		seg_t *s = &v->s[v->depth++];
		s->kind = k;
		s->mark = s->skip = s->full = false;
		s->n = 0;
	}
	if (!v->depth)
		return;
	seg_t *s = &v->s[v->depth - 1];
	if (s->n + 1 < SEG_MAX)
		s->a[s->n++] = a;
	else
		s->full = true;
	if (find(marks, nmarks, a) >= 0)
		s->mark = true;
	if (find(skips, nskips, a) >= 0)
		s->skip = true;
	if (find(ends, nends, a) >= 0) {
		seg_close(cpu, s);
		v->depth--;
	}
}

static void on_tb(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	plugin_tb_insns(tb, lo, hi, on_insn, PLUGIN_ON_BLOCK);
}

static uint32_t median(const uint32_t *h, uint64_t total, uint32_t *min, uint32_t *max)
{
	uint64_t seen = 0;
	uint32_t med = 0;

	*min = *max = 0;
	for (uint32_t l = 0; l < SEG_MAX; l++) {
		if (!h[l])
			continue;
		if (!*min)
			*min = l;
		*max = l;
		if (seen < (total + 1) / 2 && seen + h[l] >= (total + 1) / 2)
			med = l;
		seen += h[l];
	}
	return med;
}

static void on_exit_cb(qemu_plugin_id_t id, void *ud)
{
	FILE *f = fopen(out, "w");
	uint64_t span = hi - lo;

	(void)id, (void)ud;
	if (!f)
		return;
	for (int k = 0; k < nstarts; k++)
		for (unsigned c = 0; c < MAX_VCPUS; c++) {
			uint32_t mn, mx, med;
			if (!counted[k][c] && !other[k][c])
				continue;
			med = median(&lens[((size_t)k * MAX_VCPUS + c) * SEG_MAX], counted[k][c],
				     &mn, &mx);
			fprintf(f, "seg %d %u %" PRIu64 " %" PRIu64 " %u %u %u\n", k, c,
				counted[k][c], other[k][c], mn, med, mx);
		}
	for (int k = 0; k < nstarts; k++)
		for (unsigned c = 0; c < MAX_VCPUS; c++)
			for (uint64_t i = 0; i < span; i++) {
				uint32_t n = counts[((size_t)k * MAX_VCPUS + c) * span + i];
				if (n)
					fprintf(f, "insn %d %u %" PRIx64 " %u\n", k, c, lo + i, n);
			}
	if (trace_f) {
		char line[4096];
		size_t n;
		rewind(trace_f);
		while ((n = fread(line, 1, sizeof(line), trace_f)) > 0)
			fwrite(line, 1, n, f);
		fclose(trace_f);
	}
	fclose(f);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const void *info, int argc, char **argv)
{
	uint64_t v;

	(void)info;
	for (int i = 0; i < argc; i++) {
		if (arg(argv[i], "lo", &lo) || arg(argv[i], "hi", &hi))
			continue;
		if (arg(argv[i], "mark", &v) && nmarks < MAX_MARK)
			marks[nmarks++] = v;
		else if (arg(argv[i], "start", &v) && nstarts < MAX_KINDS)
			starts[nstarts++] = v;
		else if (arg(argv[i], "skip", &v) && nskips < MAX_SKIP)
			skips[nskips++] = v;
		else if (arg(argv[i], "trace", &v))
			trace_from = strtoull(argv[i] + 6, NULL, 10);
		else if (arg(argv[i], "cpu0", &v))
			plugin_cpu0 = v;
		else if (arg(argv[i], "end", &v) && nends < 8)
			ends[nends++] = v;
		else if (!strncmp(argv[i], "out=", 4))
			snprintf(out, sizeof(out), "%s", argv[i] + 4);
		else {
			fprintf(stderr, "insncount: bad argument '%s'\n", argv[i]);
			return -1;
		}
	}
	if (hi <= lo || hi - lo > (64u << 20) || !nstarts || !nends) {
		fprintf(stderr, "insncount: needs lo < hi (64 MiB at most), start= and end=\n");
		return -1;
	}
	vcpus = calloc(MAX_VCPUS, sizeof(*vcpus));
	counts = calloc((size_t)MAX_KINDS * MAX_VCPUS * (hi - lo), sizeof(*counts));
	lens = calloc((size_t)MAX_KINDS * MAX_VCPUS * SEG_MAX, sizeof(*lens));
	if (!vcpus || !counts || !lens)
		return -1;
	trace_f = trace_from ? tmpfile() : NULL;
	plugin_vcpu_setup(id);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb);
	qemu_plugin_register_atexit_cb(id, on_exit_cb, NULL);
	return 0;
}
